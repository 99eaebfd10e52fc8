"""Golden cases of the nn family's resizing and patch layouts
(``graphcell.ops.function.image_func``)."""
import numpy as np

from golden_cases import T, case

REFUSED: list = []


def bad(*args, **kwargs):
    """A call MindSpore refuses; these run last (MindSpore reports a refused call's error late,
    at the next synchronisation, which could fail the next valid case)."""
    REFUSED.append(case(*args, **kwargs))


def SIZE(*values):  # noqa: N802 - an Int32 tensor of sizes (MindSpore's output_size/size inputs)
    return T(np.array(values, np.int32))


CONST_SIZE = "the output size is a tensor argument here: its values set the output's shape, " \
             "which graph mode must know while compiling (a constant tensor works)"
TOL = dict(rtol=1e-4, atol=1e-5)

CASES = [
    # interpolate / upsample
    case("ops.interpolate", T((1, 2, 3)), size=(6,)),
    case("ops.interpolate", T((1, 2, 5)), size=3, mode="nearest"),
    case("ops.interpolate", T((1, 2, 3, 4)), size=(5, 3)),
    case("ops.interpolate", T((1, 1, 2, 3, 2)), scale_factor=(2.0, 1.5, 2.0)),
    case("ops.interpolate", T((1, 2, 4)), size=7, mode="linear"),
    case("ops.interpolate", T((1, 2, 4)), size=7, mode="linear", align_corners=True),
    case("ops.interpolate", T((1, 2, 3, 4)), size=(5, 7), mode="bilinear"),
    case("ops.interpolate", T((1, 2, 5, 4)), size=(3, 6), mode="bilinear", align_corners=True),
    case("ops.interpolate", T((1, 1, 2, 3, 2)), size=(3, 4, 3), mode="trilinear"),
    case("ops.interpolate", T((1, 1, 2, 3, 2)), scale_factor=2.0, mode="trilinear",
         align_corners=True),
    case("ops.interpolate", T((1, 2, 4, 4)), size=(6, 5), mode="bicubic", **TOL),
    case("ops.interpolate", T((1, 2, 4, 4)), size=(3, 7), mode="bicubic", align_corners=True,
         **TOL),
    case("ops.interpolate", T((1, 2, 6, 6)), size=(3, 2), mode="area"),
    case("ops.interpolate", T((1, 2, 6)), size=4, mode="nearest-exact"),
    case("ops.interpolate", T((1, 2, 3, 5)), size=(5, 2), mode="nearest-exact"),
    case("ops.upsample", T((1, 2, 3, 4)), size=(6, 8), mode="bilinear"),
    # the Resize Primitives (TensorFlow's coordinates)
    case("ops.ResizeBilinearV2", T((1, 2, 3, 4)), (5, 6), init=()),
    case("ops.ResizeBilinearV2", T((1, 2, 3, 4)), (5, 7), init=dict(align_corners=True)),
    case("ops.ResizeBilinearV2", T((1, 2, 4, 4)), (2, 3), init=()),
    case("ops.ResizeNearestNeighbor", T((1, 2, 3, 4)), init=((5, 6),)),
    case("ops.ResizeNearestNeighbor", T((1, 2, 3, 4)), init=dict(size=(6, 3), align_corners=True)),
    case("ops.ResizeNearestNeighbor", T((1, 2, 4, 5)), init=dict(size=(3, 3),
                                                                  half_pixel_centers=True)),
    case("ops.ResizeNearestNeighbor", T((1, 1, 3, 3), "int32", 0, 9), init=((5, 5),)),
    case("ops.ResizeNearestNeighborV2", T((1, 2, 3, 4)), SIZE(5, 6), init=(),
         modes=("pynative",), why=CONST_SIZE),
    case("ops.UpsampleNearest3D", T((1, 1, 2, 2, 3)), (3, 4, 5), init=()),
    case("ops.UpsampleNearest3D", T((1, 1, 2, 2, 3)), None, (2.0, 2.0, 1.5), init=()),
    # crops at positions given as data (no finite differences: the output is Float32 whatever
    # the input, and the RoIs / boxes at a pixel's edge are kinks; MindSpore gives RoIs no
    # gradient)
    case("ops.CropAndResize", T((2, 5, 6, 3)),
         T(np.array([[0.1, 0.2, 0.8, 0.9], [0.0, 0.0, 1.0, 1.0], [0.3, 0.1, 0.6, 0.7]],
                    np.float32)), T(np.array([0, 1, 1], np.int32)), (4, 3), init=(), fd=False),
    case("ops.CropAndResize", T((1, 5, 6, 2)),
         T(np.array([[-0.2, 0.1, 0.5, 1.2], [0.7, 0.8, 0.2, 0.1]], np.float32)),
         T(np.array([0, 0], np.int32)), (3, 4), init=dict(extrapolation_value=1.5), fd=False),
    # (MindSpore gives "nearest" crops the bilinear crop's gradient: values only)
    case("ops.CropAndResize", T((1, 5, 6, 2)),
         T(np.array([[0.1, 0.2, 0.8, 0.9], [0.25, 0.3, 0.75, 0.6]], np.float32)),
         T(np.array([0, 0], np.int32)), (3, 3), init=dict(method="nearest"), grad=False),
    case("ops.CropAndResize", T((1, 4, 4, 1), "int32", 0, 9),
         T(np.array([[0.0, 0.0, 1.0, 1.0]], np.float32)), T(np.array([0], np.int32)), (3, 3),
         init=(), fd=False),
    case("ops.crop_and_resize", T((2, 5, 6, 3)),
         T(np.array([[0.1, 0.2, 0.8, 0.9], [0.0, 0.0, 1.0, 1.0]], np.float32)),
         T(np.array([1, 0], np.int32)), (2, 4), fd=False),
    case("ops.ROIAlign", T((2, 3, 6, 6)),
         T(np.array([[0, 0.5, 0.5, 4.0, 3.5], [1, 1.2, 0.3, 5.5, 5.2]], np.float32)),
         init=(2, 2, 1.0), fd=False, **TOL),
    # (MindSpore's gradient for roi_end_mode=0 is roi_end_mode=1's: values only here, the
    # gradient is checked in test_nn_functions.py)
    case("ops.ROIAlign", T((1, 2, 8, 8)),
         T(np.array([[0, 2.0, 2.0, 12.0, 9.0], [0, 0.0, 4.0, 7.0, 15.0]], np.float32)),
         init=dict(pooled_height=3, pooled_width=2, spatial_scale=0.5, sample_num=2,
                   roi_end_mode=0), grad=False, **TOL),
    # grid sampling
    case("ops.affine_grid", T((2, 2, 3)), (2, 1, 3, 4)),
    case("ops.affine_grid", T((1, 2, 3)), (1, 2, 4, 2), align_corners=True),
    case("ops.affine_grid", T((1, 3, 4)), (1, 1, 2, 3, 2)),
    case("ops.AffineGrid", T((2, 2, 3)), (2, 1, 3, 4), init=()),
    case("ops.AffineGrid", T((1, 3, 4)), (1, 1, 2, 2, 3), init=dict(align_corners=True)),
    case("ops.grid_sample", T((1, 2, 4, 5)), T((1, 3, 2, 2), lo=-1.1, hi=1.1), **TOL),
    case("ops.grid_sample", T((2, 1, 4, 4)), T((2, 2, 3, 2), lo=-1.3, hi=1.3),
         padding_mode="border", align_corners=True, **TOL),
    case("ops.grid_sample", T((1, 2, 4, 4)), T((1, 2, 2, 2), lo=-1.5, hi=1.5),
         padding_mode="reflection", **TOL),
    case("ops.grid_sample", T((1, 2, 4, 4)), T((1, 3, 3, 2), lo=-0.95, hi=0.95), mode="nearest"),
    # pixel shuffle
    case("ops.pixel_shuffle", T((1, 8, 2, 3)), 2),
    case("ops.pixel_shuffle", T((2, 1, 9, 2, 2)), 3),
    case("ops.pixel_unshuffle", T((1, 2, 4, 6)), 2),
    case("ops.pixel_unshuffle", T((2, 3, 3)), downscale_factor=3),
    # im2col / col2im
    case("ops.unfold", T((1, 2, 4, 4)), 2),
    case("ops.unfold", T((2, 2, 5, 4)), (2, 3), dilation=(2, 1), padding=1, stride=(1, 2)),
    case("Tensor.unfold", T((1, 2, 4, 4)), 3, padding=1),
    case("ops.Im2Col", T((1, 2, 5, 5)), init=dict(ksizes=2, strides=2)),
    case("ops.Im2Col", T((1, 2, 5, 5)), init=dict(ksizes=3, strides=1, dilations=1, pads=1)),
    case("ops.fold", T((1, 8, 9)), SIZE(4, 4), 2, modes=("pynative",), why=CONST_SIZE),
    case("ops.fold", T((2, 12, 6)), SIZE(4, 6), (2, 3), dilation=(1, 1), padding=(0, 1),
         stride=(2, 2), modes=("pynative",), why=CONST_SIZE),
    case("Tensor.fold", T((1, 8, 9)), SIZE(4, 4), 2, modes=("pynative",), why=CONST_SIZE),
    case("ops.Col2Im", T((1, 2, 4, 9)), SIZE(4, 4), init=dict(kernel_size=2),
         modes=("pynative",), why=CONST_SIZE),
    case("ops.col2im", T((1, 2, 4, 4)), SIZE(3, 3), 2, 1, 0, 1, modes=("pynative",),
         why=CONST_SIZE),
    case("Tensor.col2im", T((1, 2, 9, 4)), SIZE(4, 4), 3, 1, 1, 2, modes=("pynative",),
         why=CONST_SIZE),
]

CASES += [
    case("ops.grid_sample", T((1, 2, 3, 4, 3)), T((1, 2, 2, 3, 3), lo=-1.1, hi=1.1), **TOL),
    case("ops.grid_sample", T((1, 1, 3, 3, 4)), T((1, 2, 1, 2, 3), lo=-0.9, hi=0.9),
         mode="nearest", padding_mode="border", align_corners=True),
    case("ops.GridSampler2D", T((1, 2, 4, 5)), T((1, 3, 2, 2), lo=-1.1, hi=1.1), init=(), **TOL),
    case("ops.GridSampler2D", T((1, 2, 4, 4)), T((1, 2, 2, 2), lo=-1.3, hi=1.3),
         init=("bilinear", "border", True), **TOL),
    case("ops.GridSampler3D", T((1, 2, 3, 4, 3)), T((1, 2, 2, 3, 3), lo=-1.1, hi=1.1), init=(),
         **TOL),
    # colour spaces, area resize, volume patches (Dilation2D fails on MindSpore's CPU build:
    # test_nn_functions.py)
    case("ops.RGBToHSV", T((2, 3, 3), lo=0, hi=1), init=(), grad=False),
    case("ops.HSVToRGB", T((1, 2, 3, 3), lo=0, hi=1), init=(), grad=False),
    case("ops.AdjustHue", T((2, 2, 3), lo=0, hi=1), T(np.array(0.2, np.float32)), init=(),
         grad=False),
    case("ops.AdjustHue", T((2, 2, 3), lo=0, hi=1), T(np.array(-0.45, np.float32)), init=(),
         grad=False),
    case("ops.AdjustSaturation", T((2, 2, 3), lo=0, hi=1), T(np.array(0.5, np.float32)),
         init=(), grad=False),
    case("ops.AdjustSaturation", T((2, 2, 3), lo=0, hi=1), T(np.array(2.5, np.float32)),
         init=(), grad=False),
    case("ops.ResizeArea", T((1, 4, 4, 2)), SIZE(2, 3), init=(), modes=("pynative",),
         why=CONST_SIZE),
    case("ops.ResizeArea", T((1, 3, 5, 1)), SIZE(4, 2), init=(True,), modes=("pynative",),
         why=CONST_SIZE),
    case("ops.ExtractVolumePatches", T((1, 2, 3, 3, 3)),
         init=((1, 1, 2, 2, 2), (1, 1, 1, 1, 1), "VALID")),
    case("ops.ExtractVolumePatches", T((1, 2, 4, 3, 5)),
         init=((1, 1, 2, 3, 2), (1, 1, 2, 1, 2), "SAME")),
]

bad("ops.interpolate", T((1, 2, 3, 4)), size=(5, 3), mode="linear", id="linear_needs_3d")
bad("ops.interpolate", T((1, 2, 3, 4)), id="no_size")
bad("ops.interpolate", T((1, 2, 3, 4)), size=(5,), id="size_length")
bad("ops.pixel_shuffle", T((1, 6, 2, 3)), 2, id="channels_not_divisible")
bad("ops.unfold", T((1, 2, 4, 4)), 0, id="kernel_zero")
bad("ops.ResizeNearestNeighbor", T((1, 2, 3, 4)), init=((5, 6, 7),), id="size_length")

CASES += REFUSED
