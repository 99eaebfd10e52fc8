"""Golden cases of the attention layers (``graphcell/nn/layers/transformer.py`` and
``ops.function.nn_func.multi_head_attention_forward``): each layer built with MindSpore's
arguments and given the same weights on both sides (``param_values=``); outputs, and gradients
of the inputs and of every Parameter, compared with MindSpore 2.10's (``nn.LayerNorm``'s cases
are in ``layers_norm.py``)."""
from golden_cases import N, T, case

REFUSED: list = []


def bad(*args, **kwargs):
    """A call MindSpore refuses; these run last (MindSpore reports a refused call's error late,
    at the next synchronisation, which could fail the next valid case)."""
    REFUSED.append(case(*args, **kwargs))


E, HEADS, L, S, B, FF = 4, 2, 3, 4, 2, 6   # embed dim, heads, target/source lengths, batch, ff


def W(*shape):  # noqa: N802 - reads as a constant in the cases
    return T(shape, lo=-0.6, hi=0.6)


def mha_weights(prefix: str = "", kdim=None, vdim=None, bias=True, bias_kv=False) -> dict:
    w = {}
    if kdim is None and vdim is None:
        w[prefix + "in_proj_weight"] = W(3 * E, E)
    else:
        w.update({prefix + "q_proj_weight": W(E, E), prefix + "k_proj_weight": W(E, kdim or E),
                  prefix + "v_proj_weight": W(E, vdim or E)})
    w[prefix + "out_proj.weight"] = W(E, E)
    if bias:
        w[prefix + "in_proj_bias"] = W(3 * E)
        w[prefix + "out_proj.bias"] = W(E)
    if bias_kv:
        w[prefix + "bias_k"] = W(1, 1, E)
        w[prefix + "bias_v"] = W(1, 1, E)
    return w


def norm_weights(name: str) -> dict:
    return {f"{name}.gamma": T((E,), lo=0.5, hi=1.5), f"{name}.beta": W(E)}


def layer_weights(prefix: str = "", decoder: bool = False) -> dict:
    w = mha_weights(prefix + "self_attn.")
    if decoder:
        w.update(mha_weights(prefix + "multihead_attn."))
    w.update({prefix + "dense1.weight": W(FF, E), prefix + "dense1.bias": W(FF),
              prefix + "dense2.weight": W(E, FF), prefix + "dense2.bias": W(E)})
    for k in range(1, 4 if decoder else 3):
        w.update(norm_weights(f"{prefix}norm{k}"))
    return w


def MHA(**kw):  # noqa: N802
    return dict(embed_dim=E, num_heads=HEADS, **kw)


def LAYER(**kw):  # noqa: N802
    return dict(d_model=E, nhead=HEADS, dim_feedforward=FF, dropout=0.0, **kw)


def seq(n=L, batch=B):
    return T((n, batch, E))


PADDING = [[False, False, True, False], [False, True, False, False]]   # (B, S): True is padding

x = seq()
CASES = [
    # --- MultiheadAttention ---
    case("nn.MultiheadAttention", x, x, x, init=MHA(), param_values=mha_weights(), id="self"),
    case("nn.MultiheadAttention", seq(), seq(S), seq(S), init=MHA(), param_values=mha_weights(),
         id="cross"),
    case("nn.MultiheadAttention", seq(), T((S, B, 3)), T((S, B, 5)), init=MHA(kdim=3, vdim=5),
         param_values=mha_weights(kdim=3, vdim=5), id="kdim_vdim"),
    case("nn.MultiheadAttention", seq(), seq(S), seq(S), init=MHA(add_bias_kv=True,
                                                                  add_zero_attn=True),
         param_values=mha_weights(bias_kv=True), id="bias_kv_zero_attn"),
    case("nn.MultiheadAttention", T((B, L, E)), T((B, S, E)), T((B, S, E)),
         init=MHA(batch_first=True, has_bias=False), param_values=mha_weights(bias=False),
         id="batch_first_no_bias"),
    case("nn.MultiheadAttention", seq(), seq(S), seq(S), T(PADDING, "bool"),
         init=MHA(), param_values=mha_weights(), id="key_padding_mask"),
    case("nn.MultiheadAttention", seq(), seq(S), seq(S), attn_mask=T((L, S), lo=-1, hi=1),
         average_attn_weights=False, init=MHA(), param_values=mha_weights(), id="float_attn_mask"),
    case("nn.MultiheadAttention", seq(), seq(S), seq(S),
         attn_mask=T([[[False, True, False, False]] * L] * (B * HEADS), "bool"),
         key_padding_mask=T(PADDING, "bool"), init=MHA(), param_values=mha_weights(),
         id="bool_masks"),
    case("nn.MultiheadAttention", seq(), seq(S), seq(S), need_weights=False, init=MHA(),
         param_values=mha_weights(), id="no_weights"),
    case("nn.MultiheadAttention", T((L, E)), T((S, E)), T((S, E)), init=MHA(),
         param_values=mha_weights(), id="unbatched"),
    # --- encoder and decoder layers ---
    case("nn.TransformerEncoderLayer", seq(), init=LAYER(), param_values=layer_weights(),
         id="post_norm"),
    case("nn.TransformerEncoderLayer", T((B, L, E)), init=LAYER(norm_first=True, activation="gelu",
                                                                batch_first=True),
         param_values=layer_weights(), id="pre_norm_gelu_batch_first"),
    # a float mask with a float padding mask: a bool padding mask with a float mask is where
    # MindSpore adds True as 1.0 and graphcell masks (docs/decisions.md)
    case("nn.TransformerEncoderLayer", seq(S), src_mask=T((S, S), lo=-1, hi=1),
         src_key_padding_mask=T([[0.0, 0.0, -1e4, 0.0], [0.0, -1e4, 0.0, 0.0]]),
         init=LAYER(layer_norm_eps=1e-3), param_values=layer_weights(), id="masks"),
    case("nn.TransformerDecoderLayer", seq(), seq(S), init=LAYER(),
         param_values=layer_weights(decoder=True), id="post_norm"),
    case("nn.TransformerDecoderLayer", seq(), seq(S), tgt_mask=T((L, L), lo=-1, hi=1),
         memory_key_padding_mask=T(PADDING, "bool"), init=LAYER(norm_first=True),
         param_values=layer_weights(decoder=True), id="pre_norm_masks"),
    # --- stacks ---
    case("nn.TransformerEncoder", seq(),
         init=dict(encoder_layer=N("nn.TransformerEncoderLayer", E, HEADS, FF, 0.0),
                   num_layers=2, norm=N("nn.LayerNorm", (E,))),
         param_values={**layer_weights("layers.0."), **layer_weights("layers.1."),
                       **norm_weights("norm")}, fd=False),
    case("nn.TransformerDecoder", seq(), seq(S),
         init=dict(decoder_layer=N("nn.TransformerDecoderLayer", E, HEADS, FF, 0.0),
                   num_layers=2),
         param_values={**layer_weights("layers.0.", decoder=True),
                       **layer_weights("layers.1.", decoder=True)}, fd=False),
    case("nn.Transformer", seq(S), seq(), init=dict(d_model=E, nhead=HEADS, num_encoder_layers=1,
                                                    num_decoder_layers=1, dim_feedforward=FF,
                                                    dropout=0.0),
         param_values={**layer_weights("encoder.layers.0."), **norm_weights("encoder.norm"),
                       **layer_weights("decoder.layers.0.", decoder=True),
                       **norm_weights("decoder.norm")}, fd=False),
]

MHA_FORWARD = "ops.function.nn_func.multi_head_attention_forward"
y = seq()
CASES += [
    case(MHA_FORWARD, y, y, y, E, HEADS, W(3 * E, E), W(3 * E), None, None, False, 0.0, W(E, E),
         W(E), training=False, k_is_v=True, q_is_k=True, id="packed"),
    case(MHA_FORWARD, seq(), T((S, B, 3)), T((S, B, 5)), E, HEADS, None, W(3 * E), W(1, 1, E),
         W(1, 1, E), True, 0.0, W(E, E), None, training=False, use_separate_proj_weight=True,
         q_proj_weight=W(E, E), k_proj_weight=W(E, 3), v_proj_weight=W(E, 5),
         key_padding_mask=T([[False, False, True, False], [False, True, False, False]], "bool"),
         average_attn_weights=False, id="separate"),
]

bad("nn.MultiheadAttention", seq(), seq(S), seq(S), attn_mask=T((L, L)), init=MHA(),
    param_values=mha_weights(), id="attn_mask_of_another_shape")
bad("nn.MultiheadAttention", T((1, L, B, E)), T((1, S, B, E)), T((1, S, B, E)), init=MHA(),
    param_values=mha_weights(), id="four_dimensional_query")

CASES += REFUSED
