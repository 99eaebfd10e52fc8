"""Every error graphcell_ir raises, in one place.

The messages are written for the user of graphcell: they name the operation (by its MindSpore
name when it has one), the shapes and dtypes involved, and what was expected.
"""
from __future__ import annotations


class GraphcellError(Exception):
    """Base class of all graphcell errors."""


class OpError(GraphcellError):
    """An operation was applied to operands or attributes it does not accept.

    ``op`` is the registry entry (set by :meth:`OpDef.infer_types` when a shared shape rule raised
    the error without knowing which op it was checking).
    """

    def __init__(self, message: str, op=None):
        super().__init__(message)
        self.op = op

    def with_op(self, op) -> "OpError":
        """The same error, its message prefixed with the op's name (done once)."""
        if self.op is not None:
            return self
        err = type(self)(f"{op.display_name}: {self.args[0]}", op)
        err.__cause__ = self.__cause__
        return err


class ShapeError(OpError, ValueError):
    """Operand shapes that do not fit together (broadcasting, reshape sizes, matmul dims...)."""


class OpTypeError(OpError, TypeError):
    """Operand dtypes, operand kinds or attribute values an op does not accept."""


class AttrError(OpTypeError):
    """A static attribute is missing, unknown, or of the wrong type."""


class RegistryError(GraphcellError):
    """The op registry was used wrongly (duplicate names, changes after it was frozen...)."""


class NoEmitterError(GraphcellError, RuntimeError):
    """A functional op was called with no emitter installed (neither eager nor IR-building)."""


class IRError(GraphcellError):
    """The IR API was used wrongly (erasing an op whose results are still used, ...)."""


class IRVerifyError(IRError):
    """The IR breaks an invariant; the message names the op, its location and shows its context.

    ``op`` and ``function`` are the offending op (None when the problem is not one op's) and the
    function it is in.
    """

    def __init__(self, message: str, op=None, function=None):
        super().__init__(message)
        self.op = op
        self.function = function


class IRParseError(IRError, ValueError):
    """Malformed ``.gcir`` text: the message gives file, line, column, the line with a caret, and
    what was expected there."""

    def __init__(self, message: str, *, filename: str = "<string>", line: int = 0, col: int = 0,
                 source_line: str = ""):
        self.reason = message
        self.filename, self.line, self.col, self.source_line = filename, line, col, source_line
        caret = " " * max(col - 1, 0) + "^"
        super().__init__(f"{filename}:{line}:{col}: {message}\n  {source_line}\n  {caret}")


class InterpError(GraphcellError, RuntimeError):
    """The reference interpreter cannot run a function (wrong inputs, missing constants...)."""


class GraphvizError(GraphcellError, RuntimeError):
    """Rendering the IR needs the Graphviz ``dot`` program, which is not on PATH."""


class PassError(GraphcellError):
    """A pass pipeline could not run: an unknown pass name, or a pass that raised.

    ``pass_name`` is the pass concerned (None for a bad pipeline spelling).
    """

    def __init__(self, message: str, pass_name: str | None = None):
        super().__init__(message)
        self.pass_name = pass_name


class PassVerifyError(PassError, IRVerifyError):
    """The IR was invalid after a pass: the message names the pass, then gives the verifier's
    message with the ops around the bad one (``op`` and ``function`` as in IRVerifyError)."""

    def __init__(self, message: str, pass_name: str | None = None, op=None, function=None):
        GraphcellError.__init__(self, message)
        self.pass_name = pass_name
        self.op = op
        self.function = function


class AutodiffError(GraphcellError):
    """The IR gradient transform cannot do what was asked: a ``wrt`` index that is not a tensor
    argument, an unknown function, a recursive call, a custom bprop Function of the wrong
    signature, a construct it does not differentiate yet. The message names the function, and the
    op and its location when one op is at fault."""


class BpropShapeError(AutodiffError, ValueError):
    """A bprop rule or a custom bprop Function gave a gradient whose shape is not its operand's
    (an error in both modes, DESIGN.md §10.9)."""


# --- graph-mode compilation (graphcell_ir.frontend) -----------------------------------------------

class GraphCompileError(GraphcellError):
    """Graph mode could not compile a function.

    The message lists every problem found (not only the first), each as
    ``file:line:col: what`` followed by the source line with a caret and the chain of inlined
    calls that led there. ``diagnostics`` holds them as
    :class:`graphcell_ir.frontend.errors.Diagnostic` records (file, line, col, message...). The
    compiler's own exception, when there was one, is kept as ``__cause__``.
    """

    def __init__(self, message: str, diagnostics=()):
        super().__init__(message)
        self.diagnostics = tuple(diagnostics)

    def __str__(self) -> str:
        return self.args[0] if self.args else ""


class GraphSyntaxError(GraphCompileError, SyntaxError):
    """Python syntax or a construct that graph mode does not support (``try``, ``with``,
    ``yield``, a loop-carried value that changes type, ...).

    It is a ``SyntaxError`` so that ``except SyntaxError`` catches it, but its ``filename`` and
    ``lineno`` stay None: a traceback then prints the message as is, with all the problems, instead
    of Python's one-location layout. Read the locations from ``diagnostics``.
    """


class GraphLimitError(GraphSyntaxError):
    """Compiling went past one of the frontend's limits (``graphcell_ir.frontend.limits``): calls
    nested more deeply than ``max_call_depth`` (recursion), or a loop unrolled more often than
    ``max_unroll``. The message names the limit and the setting that raises it."""


class GraphTypeError(GraphCompileError, TypeError):
    """An op got operands of the wrong dtype or kind while compiling (an ``OpTypeError`` at the
    user's line), or user code raised a TypeError that compiling reached."""


class GraphValueError(GraphCompileError, ValueError):
    """Operand shapes that do not fit (a ``ShapeError`` at the user's line), or user code raised a
    ValueError that compiling reached (a layer rejecting its input)."""


class ArtifactError(GraphcellError, ValueError):
    """An exported artifact (``graphcell.export`` / ``graphcell.load``) cannot be written or
    trusted: not a graphcell artifact, truncated, a member missing or with the wrong hash, a bad
    manifest, IR that does not parse or verify, weights that do not fit the parameter types.

    ``path`` is the artifact file (None when not known), ``member`` the part at fault (None for
    the whole file). Loading raises it before running anything.
    """

    def __init__(self, message: str, path=None, member: str | None = None):
        where = f"{path}" if path is not None else "artifact"
        if member is not None:
            where += f" [{member}]"
        super().__init__(f"{where}: {message}")
        self.reason = message
        self.path = path
        self.member = member


class ArtifactTrustError(ArtifactError):
    """``graphcell.load(path, native=True)`` refused to run the artifact's machine code: the
    artifact is not signed with the configured key (``set_context(artifact_key=...)`` or
    ``GRAPHCELL_ARTIFACT_KEY``), its signature does not match, or no key is configured — and the
    caller did not pass ``trust_native_code=True``. ``graphcell.load(path)`` without native code
    runs it from its IR (docs/artifact_threat_model.md)."""


class ExportFormatError(GraphcellError, ValueError):
    """``graphcell.export`` was asked for a file format it does not write (``MINDIR``, ``AIR``,
    a misspelling). The message names the formats graphcell writes and how to ask for them."""


class OnnxExportError(GraphcellError, ValueError):
    """A compiled program cannot be written as ONNX: an op (or an attribute value, a dtype, a
    control-flow construct) without an ONNX equivalent. The message names the op by its
    MindSpore name and gives the user's file, line and source line."""


class OnnxUnavailableError(GraphcellError, ImportError):
    """``file_format="ONNX"`` needs the optional ``onnx`` package, which is not installed."""


class CommError(GraphcellError, RuntimeError):
    """A collective communication failed or was used wrongly: an unknown group, a group of
    another size than the op was compiled for, a process outside the group, the MPI library's own
    error (``graphcell_ir.comm``)."""


class CommNotInstalledError(CommError, ImportError):
    """Communication across processes was asked for without mpi4py and an MPI library installed;
    the message says what to install."""
