"""The artifact container: a zip file of named members, each hashed, nothing executable.

An artifact (``.gcpkg``) is a zip archive holding exactly these members::

    manifest.json   what the rest is (format version, signature, params, hashes...), UTF-8 JSON
    model.gcir      the optimized IR, as text (``graphcell_ir.text``)
    weights.npz     the parameter values by parameter name (``np.savez``, no pickled objects)
    consts.npz      the module's constant table (``consts/N`` -> array), possibly empty
    native/<id>.o   optional, one per kernel: its object code for the exporting CPU
                    (``native.py``; the manifest's ``native`` section says what each is)
    manifest.sig    optional, last: the manifest's HMAC-SHA256 with the exporter's key
                    (``trust.py``; what lets ``load(native=True)`` run the native code)

Members are written in that order with a fixed timestamp, so exporting the same network twice
gives the same bytes.

Reading (:class:`Archive`) trusts nothing in the file and bounds what it costs before it
inflates anything: the path must be a regular file (a device such as ``/dev/zero``, a FIFO or a
directory is refused, symlinks resolved) of at most :data:`MAX_ARCHIVE_BYTES`; members must be
stored or deflated (not bzip2/LZMA, not encrypted), each declared size within its member's cap
and at most :data:`MAX_RATIO` times its compressed size (a zip bomb is an error before any
memory is spent, not after). The manifest is read first (at most :data:`MAX_MANIFEST_BYTES`);
every other member is read only when its header agrees with the size the manifest lists, never
past that size, and its SHA-256 is checked against the manifest as it is read.

Example::

    >>> import io
    >>> buf = io.BytesIO()
    >>> write_members(buf, {name: b"" for name in MEMBERS})
    >>> with Archive(io.BytesIO(buf.getvalue()), "mem.gcpkg") as a:
    ...     a.names, a.manifest()
    (['manifest.json', 'model.gcir', 'weights.npz', 'consts.npz'], b'')
"""
from __future__ import annotations

import hashlib
import io
import os
import re
import stat
import zipfile
import zlib
from typing import BinaryIO, Mapping

from graphcell_ir.errors import ArtifactError

__all__ = ["MANIFEST", "IR", "WEIGHTS", "CONSTS", "MEMBERS", "NATIVE", "SIGNATURE", "write_members",
           "Archive", "sha256", "MAX_ARCHIVE_BYTES", "MAX_MANIFEST_BYTES", "MAX_IR_BYTES",
           "MAX_OBJECT_BYTES", "MAX_ARRAYS_BYTES", "MAX_RATIO", "MAX_NATIVE"]

MANIFEST = "manifest.json"
IR = "model.gcir"
WEIGHTS = "weights.npz"
CONSTS = "consts.npz"
MEMBERS = (MANIFEST, IR, WEIGHTS, CONSTS)
"""The members every artifact has, in the order they are written."""
NATIVE = re.compile(r"^native/[0-9a-f]{24}\.o$")
"""The optional members: one object file per kernel, after the others."""
MAX_NATIVE = 4096
SIGNATURE = "manifest.sig"
"""The optional last member: the manifest's signature (not listed in the manifest it signs)."""

MAX_ARCHIVE_BYTES = 32 << 30
"""The largest artifact file read (weights dominate; they are stored, not compressed)."""
MAX_MANIFEST_BYTES = 4 << 20
MAX_IR_BYTES = 64 << 20
"""The IR is text, one line per op (LeNet5's training step: 30 KB); constants are in consts.npz."""
MAX_OBJECT_BYTES = 64 << 20
"""One kernel's object code (LeNet5's largest: 10 KB)."""
MAX_ARRAYS_BYTES = 16 << 30
"""weights.npz and consts.npz each."""
MAX_RATIO = 100
"""How many times its compressed size a member of more than 64 KiB may inflate to (text and
object code compress 3-20x; a zip bomb 1000x)."""
_SMALL = 64 << 10
_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)
_STORED = {WEIGHTS, CONSTS}          # arrays compress poorly: stored, so loading is a plain read
_DATE = (2020, 1, 1, 0, 0, 0)        # fixed: the same network exports to the same bytes


def sha256(data: bytes) -> str:
    """The hex SHA-256 of ``data`` (what the manifest records for each member)."""
    return hashlib.sha256(data).hexdigest()


def write_members(f: BinaryIO, members: Mapping[str, bytes]) -> None:
    """Write ``members`` (name -> bytes) as a zip archive to the open binary file ``f``."""
    with zipfile.ZipFile(f, "w") as z:
        for name, data in members.items():
            info = zipfile.ZipInfo(name, date_time=_DATE)
            info.compress_type = zipfile.ZIP_STORED if name in _STORED else zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, data)


def limit_of(name: str) -> int:
    """The most bytes member ``name`` may hold."""
    if name == MANIFEST:
        return MAX_MANIFEST_BYTES
    if name == SIGNATURE:
        return 4096
    if name == IR:
        return MAX_IR_BYTES
    if NATIVE.match(name):
        return MAX_OBJECT_BYTES
    return MAX_ARRAYS_BYTES


class Archive:
    """An artifact file opened for reading (a path, or a seekable binary file), its member names
    checked (the four members, native objects, nothing else, nothing twice). A context manager;
    every method raises ArtifactError naming ``path`` and the member at fault."""

    def __init__(self, source, path):
        self.path = path
        self._file = None
        try:
            if isinstance(source, (str, os.PathLike)):
                source = self._file = _open_regular(source, path)
            _check_size(source, path)
            self._zip = zipfile.ZipFile(source)
            self._infos = {i.filename: i for i in self._zip.infolist()}
            _check_names(self._zip.infolist(), path)
        except BaseException as e:
            self.close()
            if isinstance(e, Exception):
                raise _archive_error(e, path) from None
            raise
        self.names = [i.filename for i in self._zip.infolist()]

    def manifest(self) -> bytes:
        """The manifest's bytes (read first, before any other member is inflated)."""
        return self._read(MANIFEST)

    def signature(self) -> bytes | None:
        """The ``manifest.sig`` member, or None when the artifact is not signed."""
        return self._read(SIGNATURE) if SIGNATURE in self._infos else None

    def read_listed(self, listed: Mapping[str, Mapping]) -> dict[str, bytes]:
        """Every member but the manifest and its signature, each checked against ``listed``
        (name -> ``{"size", "sha256"}``: the manifest's ``members``) before and as it is
        read."""
        expected = [n for n in self.names if n not in (MANIFEST, SIGNATURE)]
        if sorted(listed) != sorted(expected):
            raise ArtifactError(f"lists members {sorted(listed)}, expected {expected}",
                                self.path, MANIFEST)
        out = {}
        for name in expected:
            size, info = listed[name]["size"], self._infos[name]
            if info.file_size != size:
                raise ArtifactError(f"its zip header says {info.file_size} bytes but the "
                                    f"manifest says {size}", self.path, name)
            data = out[name] = self._read(name)
            if sha256(data) != listed[name]["sha256"]:
                raise ArtifactError("SHA-256 does not match the manifest: the file was changed "
                                    "or corrupted after export", self.path, name)
        return out

    def _read(self, name: str) -> bytes:
        info = self._infos[name]
        limit = limit_of(name)
        if info.file_size > limit:
            raise ArtifactError(f"declares {info.file_size} bytes, more than the {limit} "
                                "allowed", self.path, name)
        if info.file_size > _SMALL and info.file_size > MAX_RATIO * max(info.compress_size, 1):
            raise ArtifactError(f"would inflate {info.compress_size} bytes to "
                                f"{info.file_size}, more than {MAX_RATIO} times: refused as a "
                                "zip bomb", self.path, name)
        if info.compress_type not in _METHODS or info.flag_bits & 0x1:
            raise ArtifactError("is compressed with a method graphcell does not write (only "
                                "stored and deflated members are read) or encrypted",
                                self.path, name)
        try:
            with self._zip.open(info) as f:
                data = f.read(info.file_size + 1)   # never more than the header says (+1: a lie)
        except ArtifactError:
            raise
        except Exception as e:
            raise _archive_error(e, self.path, name) from None
        if len(data) != info.file_size:
            raise ArtifactError(f"holds {len(data)} bytes but its header says "
                                f"{info.file_size}", self.path, name)
        return data

    def close(self) -> None:
        if getattr(self, "_zip", None) is not None:
            self._zip.close()
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> "Archive":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _open_regular(source, path):
    """``source`` opened for reading if it is a regular file (symlinks resolved). Opened without
    blocking, then checked on the open file: a FIFO would block ``open``, a device such as
    ``/dev/zero`` never ends, and the check on the open file cannot be raced."""
    try:
        fd = os.open(os.path.realpath(source), os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
                     | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise ArtifactError("no such file", path) from None
    except OSError as e:
        raise ArtifactError(f"cannot be opened ({e.strerror or e})", path) from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = ("a directory" if stat.S_ISDIR(mode) else "a device" if stat.S_ISCHR(mode)
                or stat.S_ISBLK(mode) else "a FIFO" if stat.S_ISFIFO(mode) else "a socket"
                if stat.S_ISSOCK(mode) else "not a file")
        raise ArtifactError(f"is {kind}, not a regular file: an artifact is a .gcpkg file",
                            path)
    return os.fdopen(fd, "rb")


def _check_size(f, path) -> None:
    try:
        size = f.seek(0, io.SEEK_END)
        f.seek(0)
    except (OSError, AttributeError, ValueError) as e:
        raise ArtifactError(f"cannot be read as an archive: not a seekable file ({e})",
                            path) from None
    if size > MAX_ARCHIVE_BYTES:
        raise ArtifactError(f"is {size} bytes, more than the {MAX_ARCHIVE_BYTES} an artifact "
                            "may have", path)


def _archive_error(e: Exception, path, member: str | None = None) -> ArtifactError:
    if isinstance(e, ArtifactError):
        return e
    if isinstance(e, zipfile.BadZipFile):
        return ArtifactError(f"not a graphcell artifact, or truncated/corrupted (zip: {e})",
                             path, member)
    return ArtifactError(f"cannot read the archive ({type(e).__name__}: {e})", path, member)


def _check_names(infos: list, path) -> None:
    names = [i.filename for i in infos]
    unknown = sorted(n for n in set(names) - set(MEMBERS) - {SIGNATURE}
                     if not NATIVE.match(n))
    if unknown:
        raise ArtifactError(f"unexpected member(s) {', '.join(map(repr, unknown))}; an artifact "
                            f"holds only {', '.join(MEMBERS)}, native/<id>.o and {SIGNATURE}",
                            path)
    if sum(1 for n in names if NATIVE.match(n)) > MAX_NATIVE:
        raise ArtifactError(f"holds more than {MAX_NATIVE} native object files", path)
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ArtifactError(f"member(s) {', '.join(dup)} appear more than once", path)
    missing = [n for n in MEMBERS if n not in names]
    if missing:
        raise ArtifactError(f"missing member(s) {', '.join(missing)}", path)


def to_bytes(members: Mapping[str, bytes]) -> bytes:
    """The artifact of ``members`` as bytes (tests build tampered artifacts with it)."""
    buf = io.BytesIO()
    write_members(buf, members)
    return buf.getvalue()
