"""The loops of the layout ops the native step runs itself, as source for graphcell's code
generator (compiled once per source, optimised and vectorised like ``nn_loops``): one source
per permutation, its index expression written out, so the compiler sees plain strided copies.

    >>> print(transpose_source((1, 0, 2)), end="")
    def transpose(x, out):
        for i0 in range(out.shape[0]):
            for i1 in range(out.shape[1]):
                for i2 in range(out.shape[2]):
                    out[i0, i1, i2] = x[i1, i0, i2]
"""
from __future__ import annotations


def transpose_source(perm: tuple[int, ...]) -> str:
    """``transpose(x, out)``: ``out = x.transpose(perm)``, iterating ``out`` in C order (its
    writes contiguous; the reads too along the last axis when ``perm`` keeps it last)."""
    n = len(perm)
    at = [""] * n
    for k, p in enumerate(perm):   # out's axis k is x's axis perm[k]
        at[p] = f"i{k}"
    lines = ["def transpose(x, out):"]
    for k in range(n):
        lines.append("    " * (k + 1) + f"for i{k} in range(out.shape[{k}]):")
    out = ", ".join(f"i{k}" for k in range(n))
    lines.append("    " * (n + 1) + f"out[{out}] = x[{', '.join(at)}]")
    return "\n".join(lines) + "\n"
