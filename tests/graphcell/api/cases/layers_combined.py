"""Golden cases of ChannelShuffle and the combined layers (``graphcell/nn/layers/combined.py``);
TimeDistributed takes a layer, which a case cannot pass: ``tests/graphcell/nn/
test_layers_combined.py`` checks it."""
from golden_cases import N, T, case

CASES = [
    case("nn.ChannelShuffle", T((2, 6, 2, 2)), init=dict(groups=3)),
    case("nn.ChannelShuffle", T((2, 4, 3)), init=dict(groups=2)),
    case("nn.ChannelShuffle", T((2, 4, 3)), init=dict(groups=0), id="groups_zero"),
    case("nn.Conv2dBnAct", T((2, 2, 5, 5)),
         init=dict(in_channels=2, out_channels=3, kernel_size=3, weight_init=T((3, 2, 3, 3)))),
    case("nn.Conv2dBnAct", T((2, 2, 5, 5)),
         init=dict(in_channels=2, out_channels=3, kernel_size=3, stride=2, has_bias=True,
                   weight_init=T((3, 2, 3, 3)), bias_init=T((3,)), has_bn=True,
                   activation="relu"), train=True),
    case("nn.Conv2dBnAct", T((2, 2, 5, 5)),
         init=dict(in_channels=2, out_channels=3, kernel_size=3, pad_mode="valid",
                   weight_init=T((3, 2, 3, 3)), activation="leakyrelu", alpha=0.1)),
    case("nn.DenseBnAct", T((4, 3)),
         init=dict(in_channels=3, out_channels=2, weight_init=T((2, 3)), bias_init=T((2,)),
                   has_bn=True, activation="tanh"), train=True),
    case("nn.DenseBnAct", T((4, 3)),
         init=dict(in_channels=3, out_channels=2, weight_init=T((2, 3)), has_bias=False)),
    case("nn.DenseBnAct", T((4, 3)), init=dict(in_channels=3, out_channels=2, activation=3),
         id="activation"),
]

# SequentialCell of layers given as N(...) (CellList and CellDict have no construct: a network
# calls their cells; tests/graphcell/nn/test_layers_combined.py runs them in both modes)
CASES += [
    case("nn.SequentialCell", T((2, 3)),
         init=([N("nn.Dense", 3, 4, weight_init=T((4, 3)), bias_init=T((4,))), N("nn.ReLU"),
                N("nn.Dense", 4, 2, weight_init=T((2, 4)), bias_init=T((2,)))],)),
    case("nn.SequentialCell", T((4, 2, 5, 5)),
         init=(N("nn.Conv2d", 2, 3, 3, weight_init=T((3, 2, 3, 3))),
               N("nn.BatchNorm2d", 3, gamma_init=T((3,)), beta_init=T((3,))), N("nn.ReLU"),
               N("nn.MaxPool2d", 2, 2), N("nn.Flatten"),
               N("nn.Dense", 12, 2, weight_init=T((2, 12)), bias_init=T((2,)))),
         train=True),
]
