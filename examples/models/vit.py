"""A Vision Transformer (ViT) written the way MindSpore's model-zoo code is written.

Patch embedding (a strided ``nn.Conv2d``), a class token and learned position embeddings, then
``depth`` pre-norm transformer blocks — multi-head self-attention built from ``nn.Dense`` and
``ops`` calls (not ``nn.MultiheadAttention``) and an MLP with ``nn.GELU`` — a final
``nn.LayerNorm`` and a classification head on the class token.

The file uses only ``graphcell``'s MindSpore names, so it runs unchanged under MindSpore when the
module ``graphcell`` is mapped to ``mindspore``::

    from examples.models.vit import vit
    net = vit("small")                    # one ViT block on 16x16 images, 10 classes
    logits = net(images)                  # (batch, 3, 16, 16) -> (batch, 10)
"""
from dataclasses import dataclass, replace

import graphcell as ms
from graphcell import Parameter, nn, ops
from graphcell.common.initializer import Normal, initializer


@dataclass(frozen=True)
class ViTConfig:
    """The sizes of a ViT."""
    image_size: int
    patch_size: int
    in_channels: int
    dim: int
    depth: int
    heads: int
    mlp_dim: int
    num_classes: int
    dropout: float = 0.0   # p of every Dropout: 0 keeps train mode deterministic for the tests

    @property
    def num_patches(self):
        return (self.image_size // self.patch_size) ** 2


# The default tests' size: one transformer block ("a ViT block") on 16x16 images of 4x4 patches.
SMALL = ViTConfig(image_size=16, patch_size=4, in_channels=3, dim=32, depth=1, heads=4,
                  mlp_dim=64, num_classes=10)
# ViT-B/16 on 224x224 images (the benchmark's size).
BASE = ViTConfig(image_size=224, patch_size=16, in_channels=3, dim=768, depth=12, heads=12,
                 mlp_dim=3072, num_classes=1000)
# ViT-B/16's width and 197 tokens with 4 of its 12 blocks: the slow tests' size (the goldens of
# all 12 blocks would pass the 2 MB a golden file may take).
BASE_4_BLOCKS = replace(BASE, depth=4)
CONFIGS = {"small": SMALL, "base": BASE, "base_4_blocks": BASE_4_BLOCKS}


class PatchEmbedding(nn.Cell):
    """Cuts an image into patches and projects each to ``dim`` features:
    (B, C, H, W) -> (B, N, dim)."""

    def __init__(self, config):
        super().__init__()
        self.projection = nn.Conv2d(config.in_channels, config.dim, kernel_size=config.patch_size,
                                    stride=config.patch_size, has_bias=True)
        self.reshape = ops.Reshape()
        self.transpose = ops.Transpose()

    def construct(self, x):
        x = self.projection(x)
        b, c, h, w = x.shape
        x = self.reshape(x, (b, c, h * w))
        return self.transpose(x, (0, 2, 1))


class Attention(nn.Cell):
    """Multi-head self-attention: separate query/key/value projections, scaled dot products."""

    def __init__(self, dim, heads, dropout=0.0):
        super().__init__()
        self.heads = heads
        self.head_dim = dim // heads
        self.scale = self.head_dim ** -0.5
        self.to_q = nn.Dense(dim, dim)
        # No bias on the keys: q.(k_j + b) = q.k_j + q.b adds the same number to every score of
        # a query, which softmax ignores, so that bias would get a gradient of exactly zero, and
        # float32 rounding noise (of either sign, in MindSpore's two modes too) in its place,
        # which Adam's first step turns into updates of +-lr (Whisper leaves it out likewise).
        self.to_k = nn.Dense(dim, dim, has_bias=False)
        self.to_v = nn.Dense(dim, dim)
        self.to_out = nn.Dense(dim, dim)
        self.attn_dropout = nn.Dropout(p=dropout)
        self.out_dropout = nn.Dropout(p=dropout)
        self.softmax = nn.Softmax(axis=-1)
        self.q_matmul_k = ops.BatchMatMul(transpose_b=True)
        self.attn_matmul_v = ops.BatchMatMul()

    def split_heads(self, x):
        b, n, _ = x.shape
        x = ops.reshape(x, (b, n, self.heads, self.head_dim))
        return ops.transpose(x, (0, 2, 1, 3))

    def construct(self, x):
        b, n, c = x.shape
        q = self.split_heads(self.to_q(x))
        k = self.split_heads(self.to_k(x))
        v = self.split_heads(self.to_v(x))
        attn = self.q_matmul_k(q, k) * self.scale
        attn = self.attn_dropout(self.softmax(attn))
        out = self.attn_matmul_v(attn, v)
        out = ops.reshape(ops.transpose(out, (0, 2, 1, 3)), (b, n, c))
        return self.out_dropout(self.to_out(out))


class FeedForward(nn.Cell):
    """The transformer's MLP: Dense -> GELU -> Dense."""

    def __init__(self, dim, hidden_dim, dropout=0.0):
        super().__init__()
        self.net = nn.SequentialCell([
            nn.Dense(dim, hidden_dim),
            nn.GELU(),
            nn.Dropout(p=dropout),
            nn.Dense(hidden_dim, dim),
            nn.Dropout(p=dropout),
        ])

    def construct(self, x):
        return self.net(x)


class ResidualCell(nn.Cell):
    """x + cell(x)."""

    def __init__(self, cell):
        super().__init__()
        self.cell = cell

    def construct(self, x):
        return x + self.cell(x)


class PreNorm(nn.Cell):
    """cell(LayerNorm(x))."""

    def __init__(self, dim, cell):
        super().__init__()
        self.norm = nn.LayerNorm((dim,), epsilon=1e-6)
        self.cell = cell

    def construct(self, x):
        return self.cell(self.norm(x))


def transformer_block(config):
    """One pre-norm ViT block: x + Attention(LN(x)), then x + MLP(LN(x))."""
    return nn.SequentialCell([
        ResidualCell(PreNorm(config.dim, Attention(config.dim, config.heads, config.dropout))),
        ResidualCell(PreNorm(config.dim, FeedForward(config.dim, config.mlp_dim, config.dropout))),
    ])


class ViT(nn.Cell):
    """Images (B, C, H, W) -> class logits (B, num_classes)."""

    def __init__(self, config):
        super().__init__()
        self.patch_embedding = PatchEmbedding(config)
        self.cls_token = Parameter(initializer(Normal(sigma=0.02), (1, 1, config.dim), ms.float32),
                                   name="cls_token")
        self.pos_embedding = Parameter(
            initializer(Normal(sigma=0.02), (1, config.num_patches + 1, config.dim), ms.float32),
            name="pos_embedding")
        self.dropout = nn.Dropout(p=config.dropout)
        self.transformer = nn.SequentialCell(
            [transformer_block(config) for _ in range(config.depth)])
        self.norm = nn.LayerNorm((config.dim,), epsilon=1e-6)
        self.head = nn.Dense(config.dim, config.num_classes)
        self.concat = ops.Concat(axis=1)
        self.tile = ops.Tile()

    def construct(self, x):
        x = self.patch_embedding(x)
        cls_tokens = self.tile(self.cls_token, (x.shape[0], 1, 1))
        x = self.concat((cls_tokens, x))
        x = self.dropout(x + self.pos_embedding)
        x = self.norm(self.transformer(x))
        return self.head(x[:, 0])


def vit(size="small"):
    """A ViT of one of the sizes of ``CONFIGS`` (``"small"``: the default tests',
    ``"base"``: ViT-B/16)."""
    return ViT(CONFIGS[size])

