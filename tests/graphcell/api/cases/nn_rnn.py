"""Golden cases of the recurrent layers (``graphcell/nn/layers/rnns.py``, ``rnn_cells.py``): each
layer built with MindSpore's arguments and given the same weights on both sides (``param_values=``);
outputs, and gradients of the inputs and of every Parameter, compared with MindSpore 2.10's."""
from golden_cases import T, case

REFUSED: list = []


def bad(*args, **kwargs):
    """A call MindSpore refuses; these run last (MindSpore reports a refused call's error late,
    at the next synchronisation, which could fail the next valid case)."""
    REFUSED.append(case(*args, **kwargs))


GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}


def W(*shape):  # noqa: N802 - reads as a constant in the cases
    return T(shape, lo=-0.5, hi=0.5)


def cell_weights(kind: str, inp: int, hidden: int, bias: bool = True) -> dict:
    rows = GATES[kind] * hidden
    w = {"weight_ih": W(rows, inp), "weight_hh": W(rows, hidden)}
    if bias:
        w.update(bias_ih=W(rows), bias_hh=W(rows))
    return w


def layer_weights(kind: str, inp: int, hidden: int, layers: int = 1, bidirectional: bool = False,
                  bias: bool = True) -> dict:
    rows, dirs = GATES[kind] * hidden, 2 if bidirectional else 1
    w = {}
    for k in range(layers):
        width = inp if k == 0 else hidden * dirs
        for d in range(dirs):
            suffix = f"_l{k}" + ("_reverse" if d else "")
            w[f"weight_ih{suffix}"] = W(rows, width)
            w[f"weight_hh{suffix}"] = W(rows, hidden)
            if bias:
                w[f"bias_ih{suffix}"] = W(rows)
                w[f"bias_hh{suffix}"] = W(rows)
    return w


IN, H, B, S = 3, 4, 2, 5   # input size, hidden size, batch, sequence length


def state(layers: int = 1, dirs: int = 1):
    return T((layers * dirs, B, H))


CASES = [
    # --- cells ---
    case("nn.RNNCell", T((B, IN)), T((B, H)), init=dict(input_size=IN, hidden_size=H),
         param_values=cell_weights("RNN", IN, H)),
    case("nn.RNNCell", T((B, IN)), T((B, H)), init=dict(input_size=IN, hidden_size=H,
                                                        nonlinearity="relu", has_bias=False),
         param_values=cell_weights("RNN", IN, H, bias=False), id="relu_no_bias"),
    case("nn.LSTMCell", T((B, IN)), (T((B, H)), T((B, H))),
         init=dict(input_size=IN, hidden_size=H), param_values=cell_weights("LSTM", IN, H)),
    case("nn.GRUCell", T((B, IN)), T((B, H)), init=dict(input_size=IN, hidden_size=H),
         param_values=cell_weights("GRU", IN, H)),
    case("nn.GRUCell", T((B, IN)), T((B, H)), init=dict(input_size=IN, hidden_size=H,
                                                        has_bias=False),
         param_values=cell_weights("GRU", IN, H, bias=False), id="no_bias"),
]

for kind in ("RNN", "GRU", "LSTM"):
    target = f"nn.{kind}"
    h0 = (state(), state()) if kind == "LSTM" else state()
    CASES += [
        case(target, T((S, B, IN)), init=dict(input_size=IN, hidden_size=H),
             param_values=layer_weights(kind, IN, H), id="default"),
        case(target, T((S, B, IN)), h0, init=dict(input_size=IN, hidden_size=H),
             param_values=layer_weights(kind, IN, H), id="initial_state"),
        case(target, T((B, S, IN)), init=dict(input_size=IN, hidden_size=H, num_layers=2,
                                              batch_first=True),
             param_values=layer_weights(kind, IN, H, layers=2), id="two_layers_batch_first"),
        case(target, T((S, B, IN)), init=dict(input_size=IN, hidden_size=H, num_layers=2,
                                              bidirectional=True),
             param_values=layer_weights(kind, IN, H, layers=2, bidirectional=True),
             id="bidirectional"),
        case(target, T((S, B, IN)), init=dict(input_size=IN, hidden_size=H, has_bias=False),
             param_values=layer_weights(kind, IN, H, bias=False), id="no_bias"),
        case(target, T((S, B, IN)), None, T([5, 3], "int32"),
             init=dict(input_size=IN, hidden_size=H), param_values=layer_weights(kind, IN, H),
             id="seq_length"),
        case(target, T((B, S, IN)), None, T([2, 4], "int64"),
             init=dict(input_size=IN, hidden_size=H, bidirectional=True, batch_first=True),
             param_values=layer_weights(kind, IN, H, bidirectional=True),
             id="seq_length_bidirectional"),
    ]

CASES.append(case("nn.RNN", T((S, B, IN)), init=dict(input_size=IN, hidden_size=H,
                                                     nonlinearity="relu", num_layers=2),
                  param_values=layer_weights("RNN", IN, H, layers=2), id="relu"))

bad("nn.GRU", T((S, B, IN)), T((1, 3, H)), init=dict(input_size=IN, hidden_size=H),
    param_values=layer_weights("GRU", IN, H), id="state_of_another_batch")
bad("nn.LSTM", T((S, B, IN)), None, T([5, 3, 1], "int32"),
    init=dict(input_size=IN, hidden_size=H), param_values=layer_weights("LSTM", IN, H),
    id="seq_length_of_another_batch")
bad("nn.LSTM", T((S, B, IN)), None, T([5.0, 3.0]), init=dict(input_size=IN, hidden_size=H),
    param_values=layer_weights("LSTM", IN, H), id="float_seq_length")

CASES += REFUSED
