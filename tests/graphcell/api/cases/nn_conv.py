"""Golden cases of the nn family's convolutions (``graphcell.ops.function.conv_func`` and the
registry's ``Conv2D``)."""
from golden_cases import T, case

REFUSED: list = []


def bad(*args, **kwargs):
    """A call MindSpore refuses; these run last (MindSpore reports a refused call's error late,
    at the next synchronisation, which could fail the next valid case)."""
    REFUSED.append(case(*args, **kwargs))


TOL = dict(rtol=1e-4, atol=1e-5)  # sums of products: MindSpore's kernels add in another order

CASES = [
    # 2-D
    case("ops.conv2d", T((1, 2, 5, 5)), T((3, 2, 3, 3)), **TOL),
    case("ops.conv2d", T((2, 2, 5, 6)), T((4, 2, 2, 3)), T((4,)), stride=2, pad_mode="same", **TOL),
    case("ops.conv2d", T((1, 2, 5, 5)), T((3, 2, 2, 2)), pad_mode="pad", padding=(1, 2), **TOL),
    case("ops.conv2d", T((1, 4, 5, 5)), T((6, 2, 3, 3)), padding=1, pad_mode="pad", groups=2,
         dilation=(1, 2), **TOL),
    case("ops.conv2d", T((1, 3, 6, 6)), T((3, 1, 3, 3)), None, (2, 1), "valid", 0, 1, 3, **TOL),
    case("ops.Conv2D", T((1, 2, 5, 5)), T((3, 2, 3, 3)), init=(3, 3), **TOL),
    case("ops.Conv2D", T((1, 2, 6, 5)), T((4, 2, 3, 2)),
         init=dict(out_channel=4, kernel_size=(3, 2), pad_mode="pad", pad=(1, 0, 2, 1),
                   stride=2), **TOL),
    case("ops.Conv2D", T((1, 4, 5, 5)), T((4, 1, 3, 3)),
         init=dict(out_channel=4, kernel_size=3, pad_mode="same", group=4, dilation=2), **TOL),
    case("ops.Conv2DBackpropInput", T((1, 3, 3, 3)), T((3, 2, 3, 3)), (1, 2, 5, 5),
         init=dict(out_channel=3, kernel_size=3), **TOL),
    case("ops.Conv2DBackpropInput", T((1, 3, 3, 3)), T((3, 2, 2, 2)), (1, 2, 6, 6),
         init=dict(out_channel=3, kernel_size=2, pad_mode="same", stride=2), **TOL),
    case("ops.Conv2DBackpropInput", T((1, 3, 3, 3)), T((3, 2, 2, 2)), (1, 2, 2, 2),
         init=dict(out_channel=3, kernel_size=2, pad_mode="pad", pad=1), **TOL),
    case("ops.Conv2DTranspose", T((1, 4, 3, 3)), T((4, 1, 3, 3)), (1, 2, 5, 5),
         init=dict(out_channel=4, kernel_size=3, group=2), **TOL),
    case("ops.Conv2DTranspose", T((2, 3, 2, 3)), T((3, 2, 2, 2)), (2, 2, 4, 6),
         init=dict(out_channel=3, kernel_size=2, stride=2), **TOL),
    # 1-D
    case("ops.conv1d", T((2, 2, 6)), T((3, 2, 3)), **TOL),
    case("ops.conv1d", T((1, 4, 7)), T((4, 2, 2)), T((4,)), stride=2, pad_mode="pad", padding=1,
         groups=2, **TOL),
    case("ops.conv1d", T((1, 2, 7)), T((3, 2, 3)), pad_mode="same", dilation=2, **TOL),
    # 3-D
    case("ops.conv3d", T((1, 2, 4, 4, 4)), T((3, 2, 2, 3, 2)), **TOL),
    case("ops.conv3d", T((2, 2, 4, 5, 4)), T((4, 1, 2, 2, 2)), T((4,)), stride=(2, 1, 2),
         pad_mode="pad", padding=(1, 0, 1), groups=2, **TOL),
    case("ops.conv3d", T((1, 2, 5, 4, 4)), T((2, 2, 3, 2, 2)), pad_mode="same", dilation=(2, 1, 1),
         **TOL),
    case("ops.Conv3D", T((1, 2, 4, 4, 4)), T((3, 2, 2, 2, 2)), init=(3, 2), **TOL),
    case("ops.Conv3D", T((1, 2, 5, 4, 5)), T((2, 2, 3, 2, 2)),
         init=dict(out_channel=2, kernel_size=(3, 2, 2), pad_mode="pad",
                   pad=(1, 0, 0, 1, 1, 1), stride=(1, 2, 2)), **TOL),
    case("ops.Conv3D", T((1, 2, 4, 4, 4)), T((2, 2, 2, 2, 2)),
         init=dict(out_channel=2, kernel_size=2, pad_mode="same", stride=2), **TOL),
    case("ops.Conv3DTranspose", T((1, 2, 3, 3, 3)), T((2, 3, 2, 2, 2)), init=(2, 3, 2), **TOL),
    case("ops.Conv3DTranspose", T((1, 2, 3, 2, 3)), T((2, 2, 2, 2, 2)),
         init=dict(in_channel=2, out_channel=2, kernel_size=2, stride=2, pad_mode="same"), **TOL),
    case("ops.Conv3DTranspose", T((1, 4, 2, 3, 2)), T((4, 1, 3, 2, 2)),
         init=dict(in_channel=4, out_channel=2, kernel_size=(3, 2, 2), pad_mode="pad",
                   pad=(1, 1, 0, 0, 1, 0), stride=(1, 2, 1), group=2, output_padding=(0, 1, 0)),
         **TOL),
]

CASES += [
    # deformable convolution: offsets (offset_x, offset_y, mask) per deformable group and tap
    case("ops.deformable_conv2d", T((1, 2, 4, 4)), T((3, 2, 2, 2)), T((1, 12, 3, 3), lo=-1.5, hi=1.5),
         (2, 2), (1, 1, 1, 1), (0, 0, 0, 0), **TOL),
    case("ops.deformable_conv2d", T((2, 4, 5, 5)), T((4, 2, 3, 3)), T((2, 54, 3, 3), lo=-1, hi=1),
         (3, 3), (1, 1, 2, 2), (1, 1, 1, 1), T((4,)), groups=2, deformable_groups=2, **TOL),
    case("ops.deformable_conv2d", T((1, 2, 6, 5)), T((2, 2, 2, 2)), T((1, 12, 5, 2), lo=-2, hi=2),
         (2, 2), (1, 1, 1, 2), (0, 1, 0, 0), dilations=(1, 1, 2, 1), **TOL),
]

bad("ops.conv2d", T((1, 2, 5, 5)), T((3, 3, 3, 3)), id="channels")
bad("ops.conv2d", T((1, 2, 5, 5)), T((3, 2, 3, 3)), padding=1, id="padding_without_pad_mode")
bad("ops.conv2d", T((1, 2, 5, 5)), T((3, 2, 3, 3)), pad_mode="full", id="bad_pad_mode")
bad("ops.conv3d", T((1, 2, 4, 4, 4)), T((3, 4, 2, 2, 2)), id="channels")

CASES += REFUSED
