"""Checking an object file before LLVM sees it (a malformed object must be a Python error, never
a crash), and refusing what graphcell's code generator never emits.

:func:`check_object` is the basic check (a whole ELF64 relocatable object for the machine,
naming its entry). :func:`check_linkable` is the one every artifact object passes before it is
linked: besides the basic check, the object must look like what graphcell emits for a kernel
(``native.emit``), read from its section, symbol and relocation tables:

- it defines one global symbol, its entry, and imports only the math library's functions, the
  C library's ``memset``/``memcpy``/``memmove`` (LLVM turns loops into them), the compiler
  runtime's float16 and 128-bit helpers — not ``system``, ``dlopen``, ``mmap``...;
- its relocations are of the kinds graphcell's target machine produces (static relocation model,
  the JIT's large code model: 64-bit absolute addresses on x86-64, ``MOVW_UABS`` sequences and
  branches on AArch64). An object built for the small code model uses 32-bit PC-relative
  relocations that the JIT cannot always satisfy (LLVM's linker then fails an assertion and
  aborts the process): refused, with the relocation named;
- no section runs code by itself or needs a loader graphcell does not have: no constructors or
  destructors (``.init_array``, ``.ctors``...), thread-local storage, GOT/PLT or dynamic
  sections, writable code; no GNU indirect functions (their resolvers run at link time).

These checks keep LLVM from aborting and make a forged object that calls the C library fail
loudly; they cannot make machine code safe (code may still do anything the process can, with
no import at all). Whether an artifact's code runs at all is decided by trust: see
``graphcell.aot.native`` and docs/artifact_threat_model.md.
"""
from __future__ import annotations

import re
import struct
from dataclasses import dataclass

from graphcell_ir.backend.native.target import NativeError

_ELF = b"\x7fELF"
_ELF_MACHINES = {"x86_64": 62, "aarch64": 183, "arm64": 183, "ppc64le": 21, "powerpc64le": 21,
                 "s390x": 22, "riscv64": 243}


# --- reading the tables ------------------------------------------------------------------------

@dataclass(frozen=True)
class Section:
    name: str
    type: int
    flags: int
    offset: int
    size: int
    link: int
    info: int
    entsize: int


@dataclass(frozen=True)
class Symbol:
    name: str
    bind: int      # 0 local, 1 global, 2 weak
    type: int      # 0 none, 1 object, 2 func, 3 section, 4 file, 10 GNU ifunc...
    shndx: int     # 0: undefined


@dataclass(frozen=True)
class ElfObject:
    """The tables of an ELF64 little-endian relocatable object."""

    machine: int
    sections: tuple[Section, ...]
    symbols: tuple[Symbol, ...]
    relocations: tuple[tuple[str, int, str], ...]   # (section, type, symbol name)

    def defined(self) -> list[str]:
        """The global and weak symbols it defines."""
        return [s.name for s in self.symbols if s.bind in (1, 2) and s.shndx != 0]

    def undefined(self) -> list[str]:
        """The global and weak symbols it uses without defining (what linking must resolve)."""
        return [s.name for s in self.symbols if s.bind in (1, 2) and s.shndx == 0 and s.name]


def read_elf(data: bytes) -> ElfObject:
    """The tables of ``data``, every offset checked against its size; NativeError when it is
    not an ELF64 little-endian relocatable object or a table lies outside it."""
    if len(data) < 64 or data[:4] != _ELF:
        raise NativeError("not an ELF object file")
    if data[4] != 2 or data[5] != 1:
        raise NativeError("not a 64-bit little-endian ELF object")
    e_type, machine = struct.unpack_from("<HH", data, 16)
    if e_type != 1:
        raise NativeError(f"ELF type {e_type} is not a relocatable object")
    e_shoff, = struct.unpack_from("<Q", data, 40)
    e_shentsize, e_shnum, e_shstrndx = struct.unpack_from("<HHH", data, 58)
    if e_shentsize != 64 or e_shoff + e_shnum * 64 > len(data) or e_shstrndx >= max(e_shnum, 1):
        raise NativeError("its section table lies outside the file (truncated?)")
    raw = [struct.unpack_from("<IIQQQQIIQQ", data, e_shoff + i * 64) for i in range(e_shnum)]
    for i, (_, sh_type, _, _, offset, size, _, _, align, _) in enumerate(raw):
        if sh_type != 8 and offset + size > len(data):   # 8: NOBITS (.bss) occupies no bytes
            raise NativeError(f"section {i} lies outside the file (truncated?)")
        if align & (align - 1) or align > 1 << 16:   # LLVM asserts a power of two
            raise NativeError(f"section {i} has an alignment of {align}")
    if e_shnum and raw[0][1] != 0:
        raise NativeError("its first section is not the null section")
    names = raw[e_shstrndx] if e_shnum else None
    if names is not None and names[1] != 3:   # LLVM aborts on a name table that is no STRTAB
        raise NativeError("its section name table is not a string table")
    sections = tuple(Section(_string(data, names, r[0]) if names else "", r[1], r[2], r[4],
                             r[5], r[6], r[7], r[9]) for r in raw)
    symbols: tuple[Symbol, ...] = ()
    relocations = []
    for sec in sections:
        if sec.type == 2:   # SHT_SYMTAB (an object has one)
            symbols = _symbols(data, sec, sections)
    for sec in sections:
        if sec.type in (4, 9):   # SHT_RELA, SHT_REL
            step = 24 if sec.type == 4 else 16
            if sec.entsize != step or sec.size % step or sec.info >= len(sections) or \
                    sec.link >= len(sections) or sections[sec.link].type != 2:
                raise NativeError(f"relocation section {sec.name} is malformed")
            patched = sections[sec.info]
            for k in range(sec.size // step):
                offset, info = struct.unpack_from("<QQ", data, sec.offset + k * step)
                sym, kind = info >> 32, info & 0xFFFFFFFF
                if sym >= max(len(symbols), 1) or (symbols and symbols[sym].type > 3):
                    raise NativeError(f"a relocation in {sec.name} names symbol {sym}, which "
                                      "does not exist or is not code or data")
                if offset + 4 > patched.size:   # LLVM trusts it: a write past the section
                    raise NativeError(f"a relocation in {sec.name} patches offset {offset}, "
                                      f"outside {patched.name} ({patched.size} bytes)")
                relocations.append((sec.name, kind, symbols[sym].name if symbols else ""))
    return ElfObject(machine, sections, symbols, tuple(relocations))


def _string(data: bytes, table, offset: int) -> str:
    """The NUL-terminated string at ``offset`` of string table section ``table`` (raw tuple or
    Section)."""
    start, size = (table[4], table[5]) if isinstance(table, tuple) else (table.offset,
                                                                         table.size)
    if offset >= size:
        raise NativeError("a name lies outside its string table")
    end = data.find(b"\0", start + offset, start + size)
    if end < 0:
        raise NativeError("a name is not terminated inside its string table")
    return data[start + offset:end].decode("latin-1")


def _symbols(data: bytes, symtab: Section, sections) -> tuple[Symbol, ...]:
    if symtab.entsize != 24 or symtab.size % 24 or symtab.info > symtab.size // 24 or \
            symtab.link >= len(sections) or sections[symtab.link].type != 3:
        raise NativeError("its symbol table is malformed")
    strtab = sections[symtab.link]
    out = []
    for k in range(symtab.size // 24):
        st_name, st_info, _, st_shndx, st_value, st_size = struct.unpack_from(
            "<IBBHQQ", data, symtab.offset + k * 24)
        name = _string(data, strtab, st_name) if st_name else ""
        if 0 < st_shndx < 0xFF00:   # defined in a section: it must lie inside it
            if st_shndx >= len(sections) or st_value + st_size > sections[st_shndx].size:
                raise NativeError(f"symbol {name or k!r} lies outside its section")
        elif st_shndx not in (0, 0xFFF1, 0xFFF2) or (st_info & 0xF) == 3:
            # undefined, absolute, common; a section's symbol names a section (LLVM aborts)
            raise NativeError(f"symbol {name or k!r} has section index {st_shndx:#x}")
        out.append(Symbol(name, st_info >> 4, st_info & 0xF, st_shndx))
    return tuple(out)


# --- the basic check ---------------------------------------------------------------------------

def check_object(data: bytes, symbol: str, triple: str | None = None) -> None:
    """NativeError unless ``data`` is a whole 64-bit little-endian ELF relocatable object (for
    ``triple``'s machine when known) whose tables lie inside it and which names ``symbol``.
    LLVM checks more when it links; this refuses the plainly wrong before it does. (Objects of
    non-ELF platforms, Mach-O and COFF, are only checked for the symbol.)"""
    if triple is not None and ("apple" in triple or "windows" in triple) and data[:4] != _ELF:
        if symbol.encode() not in data:
            raise NativeError(f"it does not define {symbol}")
        return
    obj = read_elf(data)
    _check_machine(obj, triple)
    if symbol and not any(s.name == symbol for s in obj.symbols):
        raise NativeError(f"it does not define {symbol}")


def _check_machine(obj: ElfObject, triple: str | None) -> None:
    if triple is not None:
        arch = triple.split("-", 1)[0]
        want = _ELF_MACHINES.get(arch)
        if want is not None and obj.machine != want:
            raise NativeError(f"ELF machine {obj.machine} is not {arch}")


# --- what graphcell emits ----------------------------------------------------------------------

_LIBM = ("exp exp2 exp10 expm1 log log2 log10 log1p pow sqrt cbrt sin cos tan sincos asin acos "
         "atan atan2 sinh cosh tanh asinh acosh atanh erf erfc lgamma tgamma fmod remainder "
         "hypot floor ceil trunc round rint nearbyint fabs copysign fmin fmax ldexp frexp "
         "modf").split()
IMPORTS = frozenset(_LIBM + [f + "f" for f in _LIBM] + ["memset", "memcpy", "memmove",
                                                      "graphcell_parallel_for"])
"""The outside functions graphcell's kernels may call: libm's (double and float), the C
library's memory functions LLVM turns loops into, and graphcell's thread pool
(``native/pool.py``, which the linker provides)."""
_RUNTIME_HELPERS = re.compile(r"^__(extend|trunc)[sdh]f[sdh]f2$|^__gnu_[hf]2[hf]_ieee$"
                              r"|^__(u?div|u?mod)ti3$|^__powi[sd]f2$")
"""The compiler runtime's helpers LLVM may call: float16 conversions, 128-bit division, powi."""

RELOCATIONS = {
    62: {1: "R_X86_64_64", 24: "R_X86_64_PC64"},
    183: {257: "R_AARCH64_ABS64", 260: "R_AARCH64_PREL64", 261: "R_AARCH64_PREL32",
          264: "R_AARCH64_MOVW_UABS_G0_NC", 266: "R_AARCH64_MOVW_UABS_G1_NC",
          268: "R_AARCH64_MOVW_UABS_G2_NC", 269: "R_AARCH64_MOVW_UABS_G3",
          282: "R_AARCH64_JUMP26", 283: "R_AARCH64_CALL26"},
}
"""Per ELF machine, the relocation types graphcell's target machine (static relocation model,
the JIT's large code model) emits, as observed on the code generator's kernels and loops.
x86-64: absolute 64-bit addresses in code, PC-relative 64-bit ones in unwind tables."""
_X86_NAMES = {2: "R_X86_64_PC32", 4: "R_X86_64_PLT32", 9: "R_X86_64_GOTPCREL",
              10: "R_X86_64_32", 11: "R_X86_64_32S", 41: "R_X86_64_GOTPCRELX",
              42: "R_X86_64_REX_GOTPCRELX"}

_SECTION_TYPES = {0, 1, 2, 3, 4, 8, 0x70000001, 0x6FFF4C03}
"""NULL, PROGBITS, SYMTAB, STRTAB, RELA, NOBITS, x86-64 unwind (.eh_frame), LLVM_ADDRSIG."""
_FORBIDDEN_SECTIONS = (".init", ".fini", ".ctors", ".dtors", ".preinit", ".tdata", ".tbss",
                       ".got", ".plt", ".dynamic", ".interp")
_SYMBOL_TYPES = {0, 1, 2, 3, 4}   # none, object, function, section, file
_SHF_WRITE, _SHF_EXECINSTR, _SHF_TLS = 0x1, 0x4, 0x400


def checkable(triple: str) -> bool:
    """Whether :func:`check_linkable` knows what graphcell emits for ``triple``'s machine."""
    return _ELF_MACHINES.get(triple.split("-", 1)[0]) in RELOCATIONS


def undefined_symbols(data: bytes) -> tuple:
    """The symbols object file ``data`` imports (an artifact's object records none)."""
    try:
        return tuple(read_elf(data).undefined())
    except NativeError:
        return ()


def check_linkable(data: bytes, symbol: str, triple: str) -> None:
    """NativeError unless ``data`` is an object graphcell could have emitted for ``triple``: one
    entry ``symbol``, imports of :data:`IMPORTS` only, relocations of :data:`RELOCATIONS`,
    ordinary sections (see the module docstring). Names what it refuses."""
    if not checkable(triple):
        raise NativeError(f"graphcell does not know which relocations its code uses on "
                          f"{triple.split('-', 1)[0]}, so it cannot check the object")
    obj = read_elf(data)
    _check_machine(obj, triple)
    for sec in obj.sections:
        if sec.type not in _SECTION_TYPES or sec.name.startswith(_FORBIDDEN_SECTIONS):
            raise NativeError(f"it has a section {sec.name!r} (type {sec.type:#x}) graphcell "
                              "never emits")
        if sec.flags & _SHF_TLS or (sec.flags & _SHF_WRITE and sec.flags & _SHF_EXECINSTR):
            raise NativeError(f"its section {sec.name!r} is thread-local or writable code")
    for s in obj.symbols:
        if s.type not in _SYMBOL_TYPES or s.bind not in (0, 1, 2) or s.shndx == 0xFFF2:
            raise NativeError(f"its symbol {s.name!r} is of a kind graphcell never emits "
                              f"(type {s.type}, binding {s.bind})")
    defined = obj.defined()
    if symbol not in defined:
        raise NativeError(f"it does not define {symbol}")
    if len(defined) != 1:
        others = sorted(set(defined) - {symbol})
        raise NativeError(f"it defines {', '.join(others[:8])} besides its entry; graphcell's "
                          "object defines the entry alone")
    foreign = sorted({n for n in obj.undefined()
                      if n not in IMPORTS and not _RUNTIME_HELPERS.match(n)})
    if foreign:
        raise NativeError(f"it imports {', '.join(foreign[:8])}, which graphcell's kernels "
                          "never call")
    allowed = RELOCATIONS[obj.machine]
    for section, kind, target in obj.relocations:
        if kind not in allowed:
            name = _X86_NAMES.get(kind, f"type {kind}") if obj.machine == 62 else f"type {kind}"
            raise NativeError(f"it has a relocation graphcell's code never uses ({name} in "
                              f"{section}{f' to {target}' if target else ''}): built for "
                              "another code model or by another compiler")
