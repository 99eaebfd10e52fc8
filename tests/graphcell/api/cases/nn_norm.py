"""Golden cases of the nn family: normalization, dropout, one-hot, dense layers, embeddings and
distances (``graphcell.ops.function.nn_func``)."""
import numpy as np

from golden_cases import D, T, case

REFUSED: list = []


def bad(*args, **kwargs):
    """A call MindSpore refuses; these run last (MindSpore reports a refused call's error late,
    at the next synchronisation, which could fail the next valid case)."""
    REFUSED.append(case(*args, **kwargs))


C = 3
# shared inputs are made fresh per case: a T numbers itself within the case that holds it


def GAMMA():  # noqa: N802 - reads as a constant in the cases
    return T((C,), lo=0.5, hi=2)


def BETA():  # noqa: N802
    return T((C,))


def MEAN():  # noqa: N802
    return T((C,))


def VAR():  # noqa: N802
    return T((C,), lo=0.5, hi=2)

RANDOM = dict(values=False, grad=False)   # random ops: structure, shapes and dtypes only

# fd=False: MindSpore gives BatchNorm's moving statistics (and the saved batch statistics it
# returns) no gradient, and graphcell matches it; finite differences see every float input.
NO_FD = dict(fd=False)

CASES = [
    # batch normalization
    case("ops.batch_norm", T((4, C)), MEAN(), VAR(), GAMMA(), BETA(), **NO_FD),
    case("ops.batch_norm", T((4, C)), MEAN(), VAR(), GAMMA(), BETA(), training=True),
    case("ops.batch_norm", T((2, C, 2, 2)), MEAN(), VAR(), GAMMA(), BETA(), True, 0.2, 1e-3),
    case("ops.batch_norm", T((2, C, 3)), MEAN(), VAR(), GAMMA(), BETA(), training=False, eps=1e-3,
         **NO_FD),
    case("ops.BatchNorm", T((4, C)), GAMMA(), BETA(), MEAN(), VAR(), init=(), **NO_FD),
    # in training MindSpore's outputs 1 and 2 are uninitialised memory: shapes and dtypes only here
    # (the gradients are still compared; test_nn_functions.py checks the values of y and the
    # saved statistics)
    case("ops.BatchNorm", T((4, C)), GAMMA(), BETA(), MEAN(), VAR(), init=dict(is_training=True),
         values=False, **NO_FD),
    case("ops.BatchNorm", T((2, C, 2, 2)), GAMMA(), BETA(), MEAN(), VAR(),
         init=dict(is_training=True, epsilon=1e-3, momentum=0.2), values=False, **NO_FD),
    case("ops.BatchNorm", T((2, C, 2, 2)), GAMMA(), BETA(), MEAN(), VAR(), init=(False, 1e-4),
         **NO_FD),
    # layer, group, local response normalization (LayerNorm's statistics outputs carry no
    # gradient in MindSpore: no finite differences)
    case("ops.LayerNorm", T((2, 3)), T((3,), lo=0.5, hi=2), T((3,)), init=(), **NO_FD),
    case("ops.LayerNorm", T((2, 3, 4)), T((3, 4), lo=0.5, hi=2), T((3, 4)), init=(1, 1, 1e-5),
         **NO_FD),
    case("ops.LayerNorm", T((2, 3, 4)), T((4,), lo=0.5, hi=2), T((4,)),
         init=dict(begin_norm_axis=-1, begin_params_axis=-1), **NO_FD),
    case("ops.LayerNorm", T((2, 3, 4)), T((3, 4), lo=0.5, hi=2), T((3, 4)),
         init=dict(begin_norm_axis=2, begin_params_axis=1), **NO_FD),
    case("ops.group_norm", T((2, 4, 3)), 2),
    case("ops.group_norm", T((2, 4, 2, 2)), 4, T((4,), lo=0.5, hi=2), T((4,)), eps=1e-3),
    case("ops.group_norm", T((2, 4, 3)), num_groups=1, weight=T((4,), lo=0.5, hi=2)),
    case("ops.lrn", T((1, 4, 2, 2))),
    case("ops.lrn", T((2, 5, 2, 1)), depth_radius=1, bias=2.0, alpha=0.5, beta=0.75),
    case("ops.LRN", T((1, 4, 2, 2)), init=()),
    case("ops.LRN", T((1, 6, 1, 2)), init=dict(depth_radius=2, bias=1.5, alpha=0.1, beta=0.6)),
    # dropout: random (shapes and dtypes), and the calls that keep everything (values)
    case("ops.Dropout", T((4, 5)), init=(), **RANDOM),
    case("ops.Dropout", T((4, 5)), init=dict(keep_prob=0.8), **RANDOM),
    case("ops.Dropout", T((4, 5)), init=dict(keep_prob=1.0)),
    case("ops.dropout", T((4, 5)), **RANDOM),
    case("ops.dropout", T((4, 5)), p=0.2, **RANDOM),
    case("ops.dropout", T((4, 5)), p=0.0),
    case("ops.dropout", T((4, 5)), 0.5, False),
    case("ops.dropout", T((4, 5)), p=0.3, training=False, seed=1),
    case("ops.Dropout2D", T((2, 3, 2, 2)), init=(), **RANDOM),
    case("ops.Dropout2D", T((2, 3, 2, 2), "int32", -5, 5), init=(0.7,), **RANDOM),
    case("ops.Dropout2D", T((2, 3, 2, 2)), init=dict(keep_prob=1.0)),
    case("ops.Dropout3D", T((2, 3, 2, 2, 2)), init=(), **RANDOM),
    case("ops.Dropout3D", T((2, 3, 1, 2, 2)), init=dict(keep_prob=1.0)),
    case("ops.dropout1d", T((2, 3, 4)), **RANDOM),
    case("ops.dropout1d", T((3, 4)), p=0.4, **RANDOM),
    case("ops.dropout1d", T((2, 3, 4)), p=0.0),
    case("ops.dropout2d", T((2, 3, 2, 2)), **RANDOM),
    case("ops.dropout2d", T((2, 3, 2, 2)), 0.5, False),
    case("ops.dropout2d", T((2, 3, 2, 2)), p=0.0),
    case("ops.dropout3d", T((2, 3, 2, 2, 2)), p=0.3, **RANDOM),
    case("ops.dropout3d", T((2, 3, 2, 2, 2)), training=False),
    # one-hot
    case("ops.one_hot", T(np.array([0, 2, 1, 4], np.int32)), 3),
    case("ops.one_hot", T(np.array([[0, 2], [1, -1]], np.int64)), 3, 10, 4, axis=0),
    case("ops.one_hot", T(np.array([0, 2, 1], np.int32)), 4, 2.5, 0.5),
    case("ops.one_hot", T(np.array([0, 2, 1], np.int32)), 3, T(np.array(2.0, np.float32)),
         T(np.array(-1.0, np.float32)), axis=1, fd=False),
    case("ops.one_hot", T(np.array([[0, 2], [1, 1]], np.int32)), depth=3, axis=1),
    case("ops.OneHot", T(np.array([0, 2, 1], np.int32)), 3, T(np.array(1.0, np.float32)),
         T(np.array(0.0, np.float32)), init=(), fd=False),
    case("ops.OneHot", T(np.array([[0, 2], [1, 3]], np.int32)), 3, T(np.array(5, np.int32)),
         T(np.array(1, np.int32)), init=(0,)),
    # dense layers, embeddings
    case("ops.dense", T((2, 3)), T((4, 3))),
    case("ops.dense", T((2, 2, 3)), T((4, 3)), T((4,))),
    case("ops.dense", T((2, 3)), T((3,)), T(())),
    case("ops.Dense", T((2, 3)), T((4, 3)), T((4,)), init=()),
    case("ops.bidense", T((2, 3)), T((2, 4)), T((5, 3, 4))),
    case("ops.bidense", T((2, 2, 3)), T((2, 2, 4)), T((5, 3, 4)), T((5,))),
    # (MindSpore's gradient of input_params is sparse, one row per index: test_nn_functions.py)
    case("ops.EmbeddingLookup", T((5, 3)), T(np.array([[1, 3], [7, 0]], np.int32)), 0, init=(),
         grad=False),
    case("ops.EmbeddingLookup", T((5, 3)), T(np.array([4, 5, 6, 9], np.int64)), 4, init=(),
         grad=False),
    # distances
    case("ops.cdist", T((2, 3, 4)), T((2, 5, 4))),
    case("ops.cdist", T((3, 4)), T((2, 4)), p=1.0),
    case("ops.cdist", T((3, 4)), T((2, 4)), 3.0),
    case("ops.Cdist", T((2, 3, 4)), T((2, 2, 4)), init=()),
    case("ops.Cdist", T((3, 4)), T((2, 4)), init=(1.0,)),
    case("ops.Pdist", T((4, 3)), init=()),
    case("ops.Pdist", T((4, 3)), init=(1.0,)),
    case("ops.Gelu", T((2, 3), lo=-3, hi=3), init=()),
    case("ops.pdist", T((4, 3))),
    case("ops.pdist", T((5, 2)), p=1.0),
    case("ops.dist", T((3, 4)), T((3, 4))),
    case("ops.dist", T((3, 4)), T((4,)), p=1),
    case("ops.cosine_similarity", T((3, 4)), T((3, 4))),
    case("ops.cosine_similarity", T((2, 3, 4)), T((2, 3, 4)), dim=-1),
    case("ops.clip_by_norm", T((3, 4)), 1.0),
    case("ops.clip_by_norm", T((3, 4)), 100.0),
    # (MindSpore raises signed values to the power norm_type: odd norm types differ by design)
    case("ops.clip_by_norm", [T((3, 4)), T((2,))], 0.5, norm_type=2.0),
    case("ops.clip_by_norm", (T((3, 4)), T((2,))), 2.0, float("inf")),
    case("ops.sequence_mask", T(np.array([1, 3, 2], np.int32)), 4),
    case("ops.sequence_mask", T(np.array([[1, 0], [2, 5]], np.int64)), maxlen=3),
    case("ops.sequence_mask", T(np.array([1, 3, 2], np.int32)), modes=("pynative",),
         why="without maxlen the mask's width is max(lengths): a shape that depends on the data"),
    case("ops.channel_shuffle", T((2, 6, 1, 2)), 3),
    case("ops.channel_shuffle", T((1, 4, 2, 2)), groups=2),
    case("ops.ChannelShuffle", T((1, 4, 2, 2), "int32", 0, 9), init=(2,)),
    case("ops.SoftmaxCrossEntropyWithLogits", T((3, 4)),
         T(np.array([[0.2, 0.3, 0.1, 0.4], [0, 1, 0, 0], [0.25, 0.25, 0.25, 0.25]], np.float32)),
         init=(), fd=False),
    # LSTM: MindSpore's outputs 3-4 are its kernel's workspace (shapes only; the gradients, which
    # depend on every value, are compared); test_nn_functions.py checks the values
    case("ops.LSTM", T((5, 2, 3)), T((1, 2, 4)), T((1, 2, 4)), T((128, 1, 1), lo=-0.5, hi=0.5),
         init=(3, 4, 1, True, False, 0.0), values=False, **NO_FD),
    case("ops.LSTM", T((4, 2, 3)), T((1, 2, 4)), T((1, 2, 4)), T((112, 1, 1), lo=-0.5, hi=0.5),
         init=dict(input_size=3, hidden_size=4, num_layers=1, has_bias=False,
                   bidirectional=False, dropout=0.0), values=False, **NO_FD),
    case("ops.LSTM", T((4, 2, 3)), T((2, 2, 4)), T((2, 2, 4)), T((256, 1, 1), lo=-0.5, hi=0.5),
         init=(3, 4, 1, True, True, 0.0), values=False, **NO_FD),
    case("ops.BiasAdd", T((2, 3, 2)), T((3,)), init=()),
    case("ops.BiasAdd", T((2, 2, 3)), T((3,)), init=("NHWC",)),
    case("ops.bias_add", T((2, 3)), T((3,))),
    case("ops.bias_add", T((2, 3, 2, 2), "int32", -5, 5), T((3,), "int32", -5, 5)),
]

bad("ops.batch_norm", T((4, C), "int32", 0, 5), MEAN(), VAR(), GAMMA(), BETA(), id="int_input")
bad("ops.batch_norm", T((4, C)), MEAN(), VAR(), GAMMA(), BETA(), training=1, id="training_not_bool")
bad("ops.LayerNorm", T((2, 3)), T((2,)), T((2,)), init=(), id="gamma_shape")
bad("ops.group_norm", T((2, 4, 3)), 3, id="groups_do_not_divide")
bad("ops.dropout", T((4, 5)), p=1.5, id="p_out_of_range")
bad("ops.one_hot", T(np.array([0, 1], np.float32)), 3, id="float_indices")
bad("ops.one_hot", T(np.array([0, 1], np.int32)), 3, 1.5, 0, id="mixed_on_off")
bad("ops.dense", T((2, 3)), T((4, 2)), id="in_features")
bad("ops.cdist", T((3, 4)), T((2, 5)), id="feature_sizes")
bad("ops.channel_shuffle", T((2, 6, 1, 2)), 4, id="groups_do_not_divide")
bad("ops.channel_shuffle", T((2, 6, 2)), 3, id="rank3")
bad("ops.dropout2d", T((3, 2, 2)), id="rank3")
bad("ops.BiasAdd", T((2, 3)), T((2,)), init=(), id="bias_size")

CASES += REFUSED
