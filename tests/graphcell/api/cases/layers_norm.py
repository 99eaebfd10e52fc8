"""Golden cases of the normalization layers (``graphcell/nn/layers/normalization.py``): training
(batch statistics; the moving statistics after the call are compared) and inference, with the
gradients of the input, gamma and beta."""
from golden_cases import T, case


def bn(cls, shape, c, train, **init):
    init = dict(num_features=c, gamma_init=T((c,), lo=0.5, hi=1.5), beta_init=T((c,)),
                moving_mean_init=T((c,)), moving_var_init=T((c,), lo=0.5, hi=2.0), **init)
    return case(cls, T(shape, lo=-1.0, hi=3.0), init=init, train=train)


CASES = [
    bn("nn.BatchNorm2d", (4, 3, 2, 3), 3, True),
    bn("nn.BatchNorm2d", (4, 3, 2, 3), 3, False),
    bn("nn.BatchNorm2d", (4, 3, 2, 3), 3, True, momentum=0.5, eps=1e-3),
    bn("nn.BatchNorm2d", (4, 3, 2, 3), 3, False, use_batch_statistics=True),
    bn("nn.BatchNorm2d", (4, 3, 2, 3), 3, True, use_batch_statistics=False),
    bn("nn.BatchNorm2d", (4, 3, 2, 3), 3, True, affine=False),
    bn("nn.BatchNorm1d", (5, 3), 3, True),
    bn("nn.BatchNorm1d", (5, 3), 3, False),
    bn("nn.BatchNorm1d", (4, 3, 5), 3, True),
    bn("nn.BatchNorm3d", (3, 2, 2, 3, 2), 2, True),
    bn("nn.BatchNorm3d", (3, 2, 2, 3, 2), 2, False),
    bn("nn.SyncBatchNorm", (4, 3, 2, 2), 3, True),
    bn("nn.SyncBatchNorm", (5, 3), 3, False),
    case("nn.BatchNorm2d", T((4, 3, 2, 2)), init=dict(num_features=3, momentum=1.5),
         id="momentum"),
    case("nn.BatchNorm2d", T((4, 3, 2, 2)), init=dict(num_features=3, use_batch_statistics=1),
         id="use_batch_statistics"),
    case("nn.BatchNorm1d", T((4, 3, 2, 2)), init=dict(num_features=3), id="rank4"),
    # layer and group norms
    case("nn.LayerNorm", T((2, 3, 4)), init=dict(normalized_shape=(4,), gamma_init=T((4,)),
                                                 beta_init=T((4,)))),
    case("nn.LayerNorm", T((2, 3, 4)), init=dict(normalized_shape=(3, 4), begin_norm_axis=1,
                                                 begin_params_axis=1, gamma_init=T((3, 4)),
                                                 beta_init=T((3, 4)), epsilon=1e-5)),
    case("nn.LayerNorm", T((2, 3, 4)), init=dict(normalized_shape=[4], begin_norm_axis=1,
                                                 gamma_init=T((4,)), beta_init=T((4,)))),
    case("nn.LayerNorm", T((2, 3)), init=dict(normalized_shape=3), id="int_shape"),
    case("nn.GroupNorm", T((2, 4, 3, 3)), init=dict(num_groups=2, num_channels=4,
                                                    gamma_init=T((4,)), beta_init=T((4,)))),
    case("nn.GroupNorm", T((2, 6, 5)), init=dict(num_groups=3, num_channels=6, eps=1e-3,
                                                 gamma_init=T((6,)), beta_init=T((6,)))),
    case("nn.GroupNorm", T((2, 4)), init=dict(num_groups=4, num_channels=4, affine=False)),
    case("nn.GroupNorm", T((2, 6, 3)), init=dict(num_groups=4, num_channels=6), id="groups"),
    case("nn.GroupNorm", T((2, 4, 3)), init=dict(num_groups=2, num_channels=4, eps=1),
         id="eps_int"),
    case("nn.LRN", T((2, 6, 3, 3)), init=dict(depth_radius=2, bias=2.0, alpha=0.1, beta=0.75),
         rtol=1e-4),
]
