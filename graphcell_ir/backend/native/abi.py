"""The entry-point ABI of graphcell's native code: how Python calls the machine code the code
generator emits — the argument kinds, the two entries (built here with llvmlite's IR builder)
and the ctypes wrappers that call them. Nothing else knows these layouts.

**Kinds.** Each argument of a kernel or loop has a kind: ``("array", dtype, ndim)``, a C-ordered
ndarray, or ``("scalar", dtype)``: an ``int`` (int64), a ``float`` (float64) or a numpy scalar of
int64/float32/float64. The code generator compiles a function once per tuple of kinds.

**The object entry** (:data:`JIT_ABI`, the JIT): ``i32 symbol(args...)`` with each array passed as
the ndarray object itself (``PyObject *``: ctypes converts nothing, ~1 us a call) and each scalar
by value. The entry reads each array's rank, flags and dtype number from numpy's array struct —
``PyArrayObject_fields`` and ``PyArray_Descr`` of numpy's C API, in one check function its
module shares — and returns :data:`MISMATCH` without running when one is not its kind (or not
C-contiguous); otherwise it calls the function with each array's data pointer and dimensions
and returns :data:`OK`. The struct's offsets are measured in each process against numpy's own
accessors (:func:`array_layout`) and are part of every object entry's id, so code is never
paired with another layout.

**The pointer entry** (:data:`ABI`, exported artifacts): ``i32 symbol(ptr ret, ptr exc,
args...)`` with each array as its data pointer followed by its dimensions — or without them when
the shapes are fixed (an exported kernel: the shapes are constants of its code) — and each scalar
by value. ``ret``/``exc`` are unused slots kept from the format's first version (numba's calling
convention), so artifacts exported then still link. The caller (:class:`PointerKernel`,
:class:`PointerLoop`) checks dtypes and shapes first: the code trusts its arguments.

Example::

    >>> import numpy as np
    >>> kinds_of([np.zeros((2, 3), np.float32), 2, 0.5])
    (('array', 'float32', 2), ('scalar', 'int64'), ('scalar', 'float64'))
    >>> symbol_of(native_id("k", [["float32", [2, 3]]])).startswith("graphcell_kernel_")
    True
"""
from __future__ import annotations

import ctypes
import functools
import hashlib
import json

import numpy as np

ABI = "graphcell-native-1"
"""The pointer entry's convention and naming; an artifact recording another one is not linked."""
JIT_ABI = "graphcell-jit-native-3"
"""The object entry's convention (version 1 passed arrays on as numba flattens them; version 2
checked each array inline)."""
OK = 0
"""What an entry returns when it ran."""
MISMATCH = 7777
"""What an object entry returns, without running, for an array of another rank, dtype or order."""
NUMBA_NONE = -2
"""What pointer entries emitted by numba (artifacts of graphcell versions that had it emit what
the code generator refused) return when they ran: numba's "returned None"."""

TYPE_NUMS = {n: np.dtype(n).num for n in ("bool", "int8", "int16", "int32", "int64", "uint8",
                                          "float16", "float32", "float64")}
"""The array dtypes native code takes, with numpy's type numbers (what the object entry checks)."""
SCALAR_CTYPES = {"int64": ctypes.c_int64, "float64": ctypes.c_double, "float32": ctypes.c_float}
"""The scalar dtypes native code takes, as ctypes passes them."""
PARALLEL_FOR = "graphcell_parallel_for"
"""The one function of graphcell's own runtime native code may call: the thread pool's
(``native/pool.py``; the linker gives objects its address)."""


# --- kinds and names -------------------------------------------------------------------------------

def kernel_kinds(ks) -> tuple | None:
    """The argument kinds of kernel ``ks`` (a ``lower.KernelSource``: operands, constants,
    outputs, all C-ordered arrays), or None when it has none: a scalar operand (its kind is the
    Python value the runner passes: known at the call), a 0-d array or another dtype."""
    if len(ks.in_dtypes) != len(ks.in_shapes) or any(s is None for s in ks.in_shapes):
        return None
    kinds = [("array", np.dtype(d).name, len(s)) for d, s in zip(ks.in_dtypes, ks.in_shapes)]
    kinds += [("array", c.dtype.name, c.ndim) for c in ks.consts]
    kinds += [("array", np.dtype(o.dtype).name, len(o.shape)) for o in ks.outputs]
    if any(k[2] == 0 or k[1] not in TYPE_NUMS for k in kinds):
        return None
    return tuple(kinds)


def kinds_of(args) -> tuple | None:
    """The kinds of run-time arguments, or None when one has none (an array not in C order or of
    another dtype, a scalar of another type)."""
    out = []
    for a in args:
        if a.__class__ is np.ndarray:
            if not a.flags.c_contiguous or a.dtype.name not in TYPE_NUMS:
                return None
            out.append(("array", a.dtype.name, a.ndim))
        elif a.__class__ is int:
            out.append(("scalar", "int64"))
        elif a.__class__ is float:
            out.append(("scalar", "float64"))
        elif isinstance(a, np.generic) and a.dtype.name in SCALAR_CTYPES:
            out.append(("scalar", a.dtype.name))
        else:
            return None
    return tuple(out)


def signature(ks, input_dtypes) -> tuple:
    """The pointer entry's arguments for kernel ``ks`` with operands of ``input_dtypes``: the
    operands, the constants, the outputs, each ``(dtype name, shape)``. NativeError for a scalar
    operand (its type is whatever Python value the runner passes)."""
    from graphcell_ir.backend.native.target import NativeError
    if len(input_dtypes) != len(ks.in_shapes):
        raise NativeError(f"{len(input_dtypes)} operand types for {len(ks.in_shapes)} operands")
    if any(s is None for s in ks.in_shapes):
        raise NativeError("a scalar operand")
    args = [(np.dtype(d).name, tuple(s)) for d, s in zip(input_dtypes, ks.in_shapes)]
    args += [(c.dtype.name, tuple(c.shape)) for c in ks.consts]
    args += [(np.dtype(o.dtype).name, tuple(o.shape)) for o in ks.outputs]
    return tuple(args)


def native_id(key: str, args) -> str:
    """The name of a pointer entry: a hash of :data:`ABI`, its source key and argument types
    (JSON-like: tuples and lists hash alike, so a manifest's entry gives the same id)."""
    text = f"{ABI}\n{key}\n{json.dumps(args)}"
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def jit_id(key: str, kinds) -> str:
    """The name of an object entry of function ``key`` for ``kinds`` (the array layout
    included: an object for another struct layout is never paired with this process)."""
    return native_id(f"{JIT_ABI}/{array_layout()!r}/{key}", [list(k) for k in kinds])


def symbol_of(id_: str) -> str:
    """The entry's symbol in its object file."""
    return f"graphcell_kernel_{id_}"


def source_hash(source: str) -> str:
    """The hash naming a loops module's text (its loops' code is valid for that text only)."""
    return hashlib.sha256(source.encode()).hexdigest()[:24]


def loop_key(source_sha: str, name: str) -> str:
    """The key of function ``name`` of the module text of :func:`source_hash` ``source_sha``."""
    return f"{source_sha}.{name}"


# --- numpy's array struct --------------------------------------------------------------------------

class ArrayLayout:
    """Offsets of numpy's array struct (``data``, ``nd``, ``dimensions``, ``strides``,
    ``descr``, ``flags``) and of ``type_num`` in a dtype's struct, in bytes."""

    def __init__(self, base: int):
        self.data, self.nd, self.dims, self.strides = base, base + 8, base + 16, base + 24
        self.descr, self.flags, self.type_num = base + 40, base + 48, base + 12

    def __repr__(self) -> str:
        return (f"layout(data={self.data},nd={self.nd},dims={self.dims},strides={self.strides},"
                f"descr={self.descr},flags={self.flags},type_num={self.type_num})")


@functools.lru_cache(maxsize=1)
def array_layout() -> ArrayLayout | None:
    """numpy's array struct as this process has it (after ``PyObject_HEAD``), checked on sample
    arrays against numpy's own accessors; None when it is not the expected one (then there are
    no object entries: numba runs the kernels)."""
    L = ArrayLayout(object.__basicsize__)

    def at(address, ctype):
        return ctype.from_address(address).value

    try:
        samples = [np.zeros((3, 4), np.float32), np.zeros(5, np.int64)[::2],
                   np.zeros((2, 1, 3), np.bool_).T]
        for a in samples:
            p = id(a)
            ok = (at(p + L.data, ctypes.c_void_p) == a.__array_interface__["data"][0]
                  and at(p + L.nd, ctypes.c_int32) == a.ndim
                  and at(p + L.descr, ctypes.c_void_p) == id(a.dtype)
                  and at(id(a.dtype) + L.type_num, ctypes.c_int32) == a.dtype.num
                  and bool(at(p + L.flags, ctypes.c_int32) & 1) == a.flags.c_contiguous)
            dims = ctypes.cast(at(p + L.dims, ctypes.c_void_p), ctypes.POINTER(ctypes.c_int64))
            strides = ctypes.cast(at(p + L.strides, ctypes.c_void_p),
                                  ctypes.POINTER(ctypes.c_int64))
            ok = ok and all(dims[i] == a.shape[i] and strides[i] == a.strides[i]
                            for i in range(a.ndim))
            if not ok:
                return None
    except (ValueError, TypeError, OverflowError):
        return None
    return L


@functools.lru_cache(maxsize=1)
def data_address():
    """A function giving an ndarray's data address for a pointer entry: read from numpy's array
    struct where :func:`array_layout` checked it in this process (0.1 us), else numpy's own
    ``a.ctypes.data`` (1.6 us: it builds a ctypes helper object per call).

    >>> a = np.zeros(3)
    >>> data_address()(a) == a.ctypes.data
    True
    """
    layout = array_layout()
    if layout is None:
        return lambda a: a.ctypes.data
    read, offset = ctypes.c_void_p.from_address, layout.data
    return lambda a: read(id(a) + offset).value


# --- the entries, in LLVM IR ------------------------------------------------------------------------

def _ir():
    import llvmlite.ir as ir
    return ir


def _scalar_type(dtype: str):
    ir = _ir()
    return {"int64": ir.IntType(64), "float64": ir.DoubleType(), "float32": ir.FloatType()}[dtype]


def add_object_entry(module, impl, kinds, symbol: str, layout: ArrayLayout):
    """Add the object entry ``symbol`` calling ``impl`` (which takes each array as its data
    pointer and dimensions, each scalar by value) to llvmlite module ``module``. Every array is
    checked by one call of the module's :func:`array_check` (not inlined: a kernel of ten
    arrays had 150 instructions of checks in its entry, each one compile time in LLVM's every
    pass; a call costs nanoseconds at run time)."""
    def call(b, args):
        b.call(impl, args)
        return _ir().IntType(32)(OK)
    return _checking_entry(module, kinds, symbol, layout, call)


def add_checked_loop(module, address: int, kinds, symbol: str, layout: ArrayLayout):
    """Add ``symbol`` to llvmlite module ``module``: an object entry (as
    :func:`add_object_entry`'s: ndarray objects and scalars in, each array checked) for the
    linked pointer entry of a loop at ``address`` (``kinds``: its argument kinds), returning
    the pointer entry's status, :data:`MISMATCH` without calling when an array is not of its
    kind. What a loaded artifact's loops are called through (``linking.checked_loops``): the
    pointer entry's arguments made in Python, each array's data address and dimensions, cost
    ~5 us a call more (LeNet's runner calls 300 loops a step)."""
    ir = _ir()
    ptr = ir.PointerType()

    def call(b, args):
        types_ = [ptr, ptr] + [a.type for a in args]
        target = b.inttoptr(ir.IntType(64)(address),
                            ir.PointerType(ir.FunctionType(ir.IntType(32), types_)))
        null = ir.Constant(ptr, None)
        status = b.call(target, [null, null] + args)
        i32 = ir.IntType(32)   # numba's "returned None" of artifacts exported before: success
        return b.select(b.icmp_signed("==", status, i32(NUMBA_NONE)), i32(OK), status)
    return _checking_entry(module, kinds, symbol, layout, call)


def _checking_entry(module, kinds, symbol: str, layout: ArrayLayout, call):
    """The object entry ``symbol`` of :func:`add_object_entry`: checks, then ``call(builder,
    arguments)`` (each array as its data pointer and dimensions), whose status it returns."""
    ir = _ir()
    i1, i8, i32, i64, ptr = ir.IntType(1), ir.IntType(8), ir.IntType(32), ir.IntType(64), \
        ir.PointerType()
    params = [ptr if k[0] == "array" else _scalar_type(k[1]) for k in kinds]
    fn = ir.Function(module, ir.FunctionType(i32, params), symbol)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    run, bad = fn.append_basic_block("run"), fn.append_basic_block("mismatch")

    def field(base, offset: int, typ):
        return b.load(b.gep(base, [i64(offset)], source_etype=i8), typ=typ)

    check, ok = array_check(module, layout), i1(1)
    for arg, kind in zip(fn.args, kinds):
        if kind[0] == "array":
            ok = b.and_(ok, b.call(check, [arg, i32(kind[2]), i32(TYPE_NUMS[kind[1]])]))
    b.cbranch(ok, run, bad)
    b.position_at_end(run)
    args = []
    for arg, kind in zip(fn.args, kinds):
        if kind[0] != "array":
            args.append(arg)
            continue
        args.append(field(arg, layout.data, ptr))
        dims = field(arg, layout.dims, ptr)
        args += [b.load(b.gep(dims, [i64(j)], source_etype=i64), typ=i64) for j in range(kind[2])]
    b.ret(call(b, args))
    b.position_at_end(bad)
    b.ret(i32(MISMATCH))
    return fn


def array_check(module, layout: ArrayLayout):
    """The module's ``i1 gc.array_check(ptr array, i32 ndim, i32 type_num)``: whether ndarray
    ``array`` has rank ``ndim``, dtype number ``type_num`` and C order (read from numpy's array
    struct at ``layout``'s offsets). Added once; internal and never inlined."""
    ir = _ir()
    name = "gc.array_check"
    if name in module.globals:
        return module.globals[name]
    i1, i8, i32, i64, ptr = ir.IntType(1), ir.IntType(8), ir.IntType(32), ir.IntType(64), \
        ir.PointerType()
    fn = ir.Function(module, ir.FunctionType(i1, [ptr, i32, i32]), name)
    fn.linkage = "internal"
    fn.attributes.add("noinline")
    array, ndim, type_num = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))

    def field(base, offset: int, typ):
        return b.load(b.gep(base, [i64(offset)], source_etype=i8), typ=typ)

    c_order = b.icmp_unsigned("!=", b.and_(field(array, layout.flags, i32), i32(1)), i32(0))
    rank_ok = b.icmp_signed("==", field(array, layout.nd, i32), ndim)
    dtype = field(field(array, layout.descr, ptr), layout.type_num, i32)
    b.ret(b.and_(b.and_(rank_ok, c_order), b.icmp_signed("==", dtype, type_num)))
    return fn


def add_pointer_entry(module, impl, kinds, symbol: str, shapes=None):
    """Add the pointer entry ``symbol`` calling ``impl`` to llvmlite module ``module``;
    ``shapes`` (one tuple per argument) makes the dimensions constants instead of parameters."""
    ir = _ir()
    i32, i64, ptr = ir.IntType(32), ir.IntType(64), ir.PointerType()
    params = [ptr, ptr]
    for k in kinds:
        if k[0] != "array":
            params.append(_scalar_type(k[1]))
        else:
            params += [ptr] + ([] if shapes is not None else [i64] * k[2])
    fn = ir.Function(module, ir.FunctionType(i32, params), symbol)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    args, at = [], 2
    for n, k in enumerate(kinds):
        if k[0] != "array":
            args.append(fn.args[at])
            at += 1
        elif shapes is not None:
            args += [fn.args[at]] + [i64(d) for d in shapes[n]]
            at += 1
        else:
            args += list(fn.args[at:at + 1 + k[2]])
            at += 1 + k[2]
    b.call(impl, args)
    b.ret(i32(OK))
    return fn


def add_checked_call(module, address: int, args, symbol: str, layout: ArrayLayout):
    """Add ``symbol`` to llvmlite module ``module``: an object entry for the linked pointer entry
    of a fixed-shape kernel at ``address`` (``args``: its ``(dtype, shape)`` per array). It
    takes the ndarray objects, checks each (rank, dtype, C order by :func:`array_check`, and
    every dimension against the compiled one) and calls the pointer entry with their data
    pointers, returning its status; :data:`MISMATCH` without calling when an array differs.
    What a loaded artifact's kernels are called through (``linking.checked_calls``): the checks
    in Python cost microseconds a call, these nanoseconds."""
    ir = _ir()
    i1, i8, i32, i64, ptr = ir.IntType(1), ir.IntType(8), ir.IntType(32), ir.IntType(64), \
        ir.PointerType()
    fn = ir.Function(module, ir.FunctionType(i32, [ptr] * len(args)), symbol)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    shapes, run, bad = fn.append_basic_block("shapes"), fn.append_basic_block("run"), \
        fn.append_basic_block("mismatch")

    def field(base, offset: int, typ):
        return b.load(b.gep(base, [i64(offset)], source_etype=i8), typ=typ)

    check, ok = array_check(module, layout), i1(1)
    for arg, (dtype, shape) in zip(fn.args, args):
        ok = b.and_(ok, b.call(check, [arg, i32(len(shape)), i32(TYPE_NUMS[dtype])]))
    b.cbranch(ok, shapes, bad)   # the ranks are right: the dimensions can be read
    b.position_at_end(shapes)
    ok = i1(1)
    for arg, (_, shape) in zip(fn.args, args):
        dims = field(arg, layout.dims, ptr)
        for j, d in enumerate(shape):
            got = b.load(b.gep(dims, [i64(j)], source_etype=i64), typ=i64)
            ok = b.and_(ok, b.icmp_signed("==", got, i64(d)))
    b.cbranch(ok, run, bad)
    b.position_at_end(run)
    null = ir.Constant(ptr, None)
    target = b.inttoptr(i64(address), ir.PointerType(ir.FunctionType(i32, [ptr] * (len(args) + 2))))
    b.ret(b.call(target, [null, null] + [field(arg, layout.data, ptr) for arg in fn.args]))
    b.position_at_end(bad)
    b.ret(i32(MISMATCH))
    return fn


# --- calling them --------------------------------------------------------------------------------------

class ObjectEntry:
    """A linked object entry: ``fn(*args)`` is True when it ran, False when an array is not of
    the kinds it was compiled for (checked by the code itself). Arrays must be ndarrays (their
    struct is read), scalars Python or numpy numbers of the recorded kinds. ``cfunc`` calls it
    without the check of the status (a Python call less: :data:`OK` or :data:`MISMATCH`)."""

    def __init__(self, obj, address: int, keep):
        self.id, self.key, self.kinds, self.keep = obj.id, obj.key, obj.args, keep
        types_ = [ctypes.py_object if k[0] == "array" else SCALAR_CTYPES[k[1]] for k in obj.args]
        self.cfunc = ctypes.CFUNCTYPE(ctypes.c_int32, *types_)(address)

    def __call__(self, *args) -> bool:
        status = self.cfunc(*args)
        if status == OK:
            return True
        if status == MISMATCH:
            return False
        raise RuntimeError(f"native kernel {self.key} failed (status {status})")

    def __repr__(self) -> str:
        return f"<ObjectEntry {symbol_of(self.id)}>"


class PointerKernel:
    """A linked pointer entry of a kernel with fixed shapes, called like the kernel:
    ``fn(*operands, *consts, *outputs)``. Every argument must be an ndarray of the recorded
    dtype and shape (operands that are not C-contiguous are copied; outputs must be); anything
    else raises TypeError, which the runner answers by rerunning the call on the interpreter."""

    def __init__(self, obj, address: int, keep, n_outputs: int, checked=None):
        self.id, self.key, self.keep = obj.id, obj.key, keep
        # ``checked(id)``: (address, keep) of its checked entry (:func:`add_checked_call`), asked
        # at the first call; the entry takes the ndarrays and checks them in native code
        self._checked, self.entry = checked, None
        self.args = tuple((np.dtype(d), tuple(s)) for d, s in obj.args)
        self.n_inputs = len(self.args) - n_outputs
        self._expected = [(np.ndarray, d, s, True) for d, s in self.args]
        self._address = data_address()
        proto = ctypes.CFUNCTYPE(ctypes.c_int32, *[ctypes.c_void_p] * (len(self.args) + 2))
        self.cfunc = proto(address)
        self._ret = ctypes.create_string_buffer(64)    # the unused slots of the convention
        self._exc = ctypes.create_string_buffer(64)

    def __call__(self, *arrays) -> None:
        entry = self.entry
        if entry is None:
            entry = self._entry() if self._checked is not None else None
            if entry is None:
                return self._python_call(arrays)
        for a in arrays:   # the entry reads numpy's array struct: ndarrays only
            if a.__class__ is not np.ndarray:
                return self._checked_call(arrays)
        try:
            status = entry(*arrays)
        except TypeError:   # ctypes: another number of arguments
            return self._checked_call(arrays)
        if status != OK and status != NUMBA_NONE:
            if status != MISMATCH:
                raise RuntimeError(f"native kernel {self.id} failed (status {status})")
            self._checked_call(arrays)

    def _python_call(self, arrays) -> None:
        """The call without a checked entry: one comparison of every argument's (class, dtype,
        shape, C order) with the recorded ones, then the data addresses read from numpy's
        struct (numpy's ``a.ctypes.data`` costs 1.6 us an array)."""
        try:
            ok = [(a.__class__, a.dtype, a.shape, a.flags.c_contiguous)
                  for a in arrays] == self._expected
        except AttributeError:   # not an array: the checked call says which
            ok = False
        if not ok:
            return self._checked_call(arrays)
        status = self.cfunc(self._ret, self._exc, *map(self._address, arrays))
        if status != OK and status != NUMBA_NONE:
            raise RuntimeError(f"native kernel {self.id} failed (status {status})")

    def _entry(self):
        checked, self._checked = self._checked, None   # asked once (another thread may have)
        got = checked(self.id) if checked is not None else None
        if got is not None:
            address, keep = got
            self.keep = (self.keep, keep)
            self.entry = ctypes.CFUNCTYPE(ctypes.c_int32, *[ctypes.py_object] * len(self.args))(
                address)
        return self.entry

    def _checked_call(self, arrays) -> None:
        """The call with arguments the fast path did not take: operands not in C order are
        copied; anything else raises TypeError naming the argument."""
        if len(arrays) != len(self.args):
            raise TypeError(f"native kernel {self.id}: {len(arrays)} arguments for "
                            f"{len(self.args)}")
        ptrs = []
        for i, (a, (dtype, shape)) in enumerate(zip(arrays, self.args)):
            if a.__class__ is not np.ndarray or a.dtype != dtype or a.shape != shape:
                got = f"{getattr(a, 'dtype', type(a).__name__)}{list(getattr(a, 'shape', ()))}"
                raise TypeError(f"native kernel {self.id}: argument {i} is {got}, compiled for "
                                f"{dtype}{list(shape)}")
            if not a.flags.c_contiguous:
                if i >= self.n_inputs:
                    raise TypeError(f"native kernel {self.id}: output {i} is not C-contiguous")
                a = np.ascontiguousarray(a)
            ptrs.append(a)
        status = self.cfunc(self._ret, self._exc, *[a.ctypes.data for a in ptrs])
        if status != OK and status != NUMBA_NONE:
            raise RuntimeError(f"native kernel {self.id} failed (status {status})")

    def __repr__(self) -> str:
        return f"<PointerKernel {symbol_of(self.id)}>"


class PointerLoop:
    """A linked pointer entry of a loop for one tuple of argument kinds: ``fn(*args)``, each
    array passed as its data pointer and dimensions (the caller gives arrays of those kinds)."""

    def __init__(self, obj, address: int, keep):
        self.id, self.keep = obj.id, keep
        ctypes_args = [ctypes.c_void_p, ctypes.c_void_p]
        for kind in obj.args:
            ctypes_args += ([ctypes.c_void_p] + [ctypes.c_int64] * kind[2]
                            if kind[0] == "array" else [SCALAR_CTYPES[kind[1]]])
        self.cfunc = ctypes.CFUNCTYPE(ctypes.c_int32, *ctypes_args)(address)
        self._ret = ctypes.create_string_buffer(64)
        self._exc = ctypes.create_string_buffer(64)
        self._address = data_address()

    def __call__(self, *args) -> bool:
        """True: it ran (the answer of an :class:`ObjectEntry`, for callers of either; this
        entry does not check its arrays: the caller gives the kinds it was compiled for)."""
        flat = []
        address = self._address
        for a in args:
            if a.__class__ is np.ndarray:
                flat.append(address(a))
                flat.extend(a.shape)
            else:
                flat.append(a)
        status = self.cfunc(self._ret, self._exc, *flat)
        if status != OK and status != NUMBA_NONE:
            raise RuntimeError(f"native loop {self.id} failed (status {status})")
        return True

    def __repr__(self) -> str:
        return f"<PointerLoop {symbol_of(self.id)}>"
