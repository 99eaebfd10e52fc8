"""Text forms of a Tensor, character for character as MindSpore 2.x prints them.

``repr(t)`` is ``Tensor(shape=[2, 3], dtype=Int64, value=<sep><body>)``, where ``<sep>`` is a
line feed for 2-D and higher, else one space. The body follows MindSpore's C++ stringifier
(``TensorStringifier`` in ``mindspore/core/ir/tensor.h``), which is not numpy's printer:

* **0-d**: C++ ``ostream << value`` with default flags. Floats print like ``%g`` (6 significant
  digits: ``2``, ``2.5``, ``1e-05``, ``123456``, ``1.23457e+06``, ``nan``, ``-nan``, ``-0``);
  bools print ``True``/``False``; integers print in decimal.
* **Elements of an n-D tensor** (n >= 1):
  float16 is ``%11.4e``, float32 and float64 are ``%15.8e`` (so ``nan`` and ``inf`` are
  right-aligned in the same field); bools are right-aligned to 5 (`` True``/``False``);
  integers are right-aligned to the widest integer *that is printed*.
  Elements are separated by ``", "``.
* **Summaries**: in 1-D, only an axis longer than 1000 is cut to its first and last 3 elements
  (``a, b, c ... x, y, z``). In n-D, *every* axis longer than 6 is cut to 3 + 3; a cut
  row axis shows a ``...`` line. There is no summary of the total size.
* **Line feeds**: a 1-D tensor that is not summarised gets ``"\\n "`` after every 12th float,
  12th bool or 24th integer, *including* after the last
  element (``[..., 1.1e+01\\n ]`` for 12 floats). n-D rows never wrap.
* **Nesting**: sub-arrays are separated by ``",\\n"`` and indented by their depth, with no
  blank lines between blocks (unlike numpy).
* **Empty tensors** (any zero in the shape) have an empty body: ``value= )`` or ``value=\\n)``.

``str(t)`` and ``print(t)`` show numpy's ``str`` of the value (``Tensor.__str__`` returns
``str(self.asnumpy())``), so they follow numpy's own print options. MindSpore 2.x runs on
numpy 1.x; numpy 2.3 changed when float16/float32 switch to scientific notation, so on
numpy >= 2.3 the older rule is switched back on.
"""

from __future__ import annotations

import math

import numpy as np

_EDGE = 3          # elements kept at each end of a summarised axis
_MAX_ND = 6        # an axis of an n-D tensor (n >= 2) longer than this is summarised
_MAX_1D = 1000     # a 1-D tensor longer than this is summarised
_WRAP = {"f": 12, "b": 12, "i": 24}   # elements per line of an unsummarised 1-D tensor
_NUMPY_2_3 = np.lib.NumpyVersion(np.__version__) >= "2.3.0"


def tensor_repr(array: np.ndarray, dtype_name: str) -> str:
    """``Tensor(shape=[3], dtype=Float32, value= [ 2.00000000e+01, ...])`` as MindSpore 2.x repr."""
    shape = ", ".join(str(n) for n in array.shape)
    sep = "\n" if array.ndim > 1 else " "
    return f"Tensor(shape=[{shape}], dtype={dtype_name}, value={sep}{_body(array)})"


def tensor_str(array: np.ndarray) -> str:
    """What ``print(tensor)`` shows: MindSpore prints numpy's ``str`` of the value (``[2.]``)."""
    if _NUMPY_2_3 and np.get_printoptions()["legacy"] is False:
        # numpy 2.3 switches float16/float32 to scientific notation from 1e3/1e6 on (float32
        # 1234567 prints as 1.234567e+06); MindSpore 2.x runs on numpy 1.x, which waits until 1e8
        # in arrays and 1e16 in 0-d values. legacy="2.2" restores exactly the older rule.
        with np.printoptions(legacy="2.2"):
            return str(array)
    return str(array)


def _kind(array: np.ndarray) -> str:
    """'f' for floats, 'b' for bool, 'i' for every signed or unsigned integer type."""
    return {"f": "f", "b": "b"}.get(array.dtype.kind, "i")


def _body(array: np.ndarray) -> str:
    if array.size == 0:
        return ""
    if array.ndim == 0:
        return _scalar(array.item(), _kind(array))
    limit = _MAX_1D if array.ndim == 1 else _MAX_ND
    cut = [n > limit for n in array.shape]
    # Select only the elements that will be printed, so a huge tensor costs a few dozen formats.
    keep = [np.r_[0:_EDGE, n - _EDGE:n] if c else np.arange(n) for n, c in zip(array.shape, cut)]
    shown = array[np.ix_(*keep)]
    cells = _cells(shown)
    return _nest(cells, shown.shape, cut, 0, 0, _WRAP[_kind(array)])


def _scalar(value, kind: str) -> str:
    if kind == "b":
        return "True" if value else "False"
    if kind == "i":
        return str(value)
    return _nan(value) if value != value else "%g" % value


def _nan(value: float) -> str:
    # C++ streams print NaN with its sign bit ("-nan"); Python's % formatting always says "nan".
    return "-nan" if math.copysign(1.0, value) < 0 else "nan"


def _cells(shown: np.ndarray) -> list[str]:
    """Formats the printed elements, flattened in C order, padded to their final width."""
    values = shown.ravel().tolist()
    kind = _kind(shown)
    if kind == "b":
        return [" True" if v else "False" for v in values]
    if kind == "i":
        texts = [str(v) for v in values]
        width = max(map(len, texts))   # the widest printed integer, not the widest in the tensor
        return [t.rjust(width) for t in texts]
    width, digits = (11, 4) if shown.dtype == np.float16 else (15, 8)
    fmt = f"%{width}.{digits}e"
    return [_nan(v).rjust(width) if v != v else fmt % v for v in values]


def _nest(cells: list[str], shape: tuple, cut: list[bool], depth: int, start: int, wrap: int) -> str:
    """Brackets the cells of ``shape`` starting at flat index ``start``, for axis ``depth``."""
    n = shape[depth]
    if depth == len(shape) - 1:
        row = cells[start:start + n]
        if cut[depth]:
            return "[" + ", ".join(row[:_EDGE]) + " ... " + ", ".join(row[_EDGE:]) + "]"
        if len(shape) == 1:
            # 1-D wraps after every `wrap`-th element, even the last one (MindSpore's quirk).
            parts = []
            for i, text in enumerate(row):
                parts.append(text if i == n - 1 else text + ", ")
                if (i + 1) % wrap == 0:
                    parts.append("\n ")
            return "[" + "".join(parts) + "]"
        return "[" + ", ".join(row) + "]"
    step = math.prod(shape[depth + 1:])
    rows = [_nest(cells, shape, cut, depth + 1, start + i * step, wrap) for i in range(n)]
    indent = " " * (depth + 1)
    sep = ",\n" + indent
    if cut[depth]:
        # The "..." line ends without a comma.
        return "[" + sep.join(rows[:_EDGE]) + sep + "...\n" + indent + sep.join(rows[_EDGE:]) + "]"
    return "[" + sep.join(rows) + "]"
