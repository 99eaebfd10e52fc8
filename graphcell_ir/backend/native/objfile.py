"""Checking an object file before LLVM sees it: its ELF header, machine and symbols (a malformed
object must be a Python error, never a crash).
"""
from __future__ import annotations

import struct

from graphcell_ir.backend.native.target import NativeError


# --- checking an object file before LLVM sees it -------------------------------------------------

_ELF_MACHINES = {"x86_64": 62, "aarch64": 183, "arm64": 183, "ppc64le": 21, "powerpc64le": 21,
                 "s390x": 22, "riscv64": 243}


_ELF = b"\x7fELF"


def check_object(data: bytes, symbol: str, triple: str | None = None) -> None:
    """NativeError unless ``data`` is a whole 64-bit little-endian ELF relocatable object (for
    ``triple``'s machine when known) whose tables lie inside it and which names ``symbol``.
    LLVM checks more when it links; this refuses the plainly wrong before it does. (Objects of
    non-ELF platforms, Mach-O and COFF, are only checked for the symbol.)"""
    if triple is not None and ("apple" in triple or "windows" in triple) and data[:4] != _ELF:
        if symbol.encode() not in data:
            raise NativeError(f"it does not define {symbol}")
        return
    if len(data) < 64 or data[:4] != _ELF:
        raise NativeError("not an ELF object file")
    if data[4] != 2 or data[5] != 1:
        raise NativeError("not a 64-bit little-endian ELF object")
    e_type, e_machine = struct.unpack_from("<HH", data, 16)
    if e_type != 1:
        raise NativeError(f"ELF type {e_type} is not a relocatable object")
    if triple is not None:
        arch = triple.split("-", 1)[0]
        want = _ELF_MACHINES.get(arch)
        if want is not None and e_machine != want:
            raise NativeError(f"ELF machine {e_machine} is not {arch}")
    e_shoff, = struct.unpack_from("<Q", data, 40)
    e_shentsize, e_shnum = struct.unpack_from("<HH", data, 58)
    if e_shentsize != 64 or e_shoff + e_shnum * 64 > len(data):
        raise NativeError("its section table lies outside the file (truncated?)")
    for i in range(e_shnum):
        offset, size = struct.unpack_from("<QQ", data, e_shoff + i * 64 + 24)
        sh_type, = struct.unpack_from("<I", data, e_shoff + i * 64 + 4)
        if sh_type != 8 and offset + size > len(data):   # 8: NOBITS (.bss) occupies no bytes
            raise NativeError(f"section {i} lies outside the file (truncated?)")
    if b"\0" + symbol.encode() + b"\0" not in data:
        raise NativeError(f"it does not define {symbol}")


def undefined_symbols(data: bytes) -> list[str]:
    """The global symbols an ELF64 object uses without defining (what linking must resolve)."""
    e_shoff, = struct.unpack_from("<Q", data, 40)
    e_shnum, = struct.unpack_from("<H", data, 60)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, e_shoff + i * 64) for i in range(e_shnum)]
    out = []
    for _, sh_type, _, _, offset, size, link, _, _, entsize in sections:
        if sh_type != 2 or not entsize:   # 2: SHT_SYMTAB
            continue
        str_offset = sections[link][4]
        for k in range(size // entsize):
            st_name, st_info, _, st_shndx = struct.unpack_from("<IBBH", data, offset + k * entsize)
            if st_shndx == 0 and st_name and st_info >> 4 in (1, 2):   # undefined global/weak
                end = data.index(b"\0", str_offset + st_name)
                out.append(data[str_offset + st_name:end].decode("latin-1"))
    return out


