"""The artifact container: a zip file of named members, each hashed, nothing executable.

An artifact (``.gcpkg``) is a zip archive holding exactly these members::

    manifest.json   what the rest is (format version, signature, params, hashes...), UTF-8 JSON
    model.gcir      the optimized IR, as text (``graphcell_ir.text``)
    weights.npz     the parameter values by parameter name (``np.savez``, no pickled objects)
    consts.npz      the module's constant table (``consts/N`` -> array), possibly empty
    native/<id>.o   optional, one per kernel: its object code for the exporting CPU
                    (``native.py``; the manifest's ``native`` section says what each is)

Members are written in that order with a fixed timestamp, so exporting the same network twice
gives the same bytes. Reading checks every member's size before inflating it (a zip bomb is an
error, not a memory blow-up), its zip CRC, and — against the manifest — its SHA-256.

Example::

    >>> import io
    >>> buf = io.BytesIO()
    >>> write_members(buf, {name: b"" for name in MEMBERS})
    >>> list(read_members(io.BytesIO(buf.getvalue()), "mem.gcpkg"))
    ['manifest.json', 'model.gcir', 'weights.npz', 'consts.npz']
"""
from __future__ import annotations

import hashlib
import io
import re
import zipfile
import zlib
from typing import BinaryIO, Mapping

from graphcell_ir.errors import ArtifactError

__all__ = ["MANIFEST", "IR", "WEIGHTS", "CONSTS", "MEMBERS", "NATIVE", "write_members",
           "read_members", "sha256", "MAX_MANIFEST_BYTES", "MAX_MEMBER_BYTES", "MAX_NATIVE"]

MANIFEST = "manifest.json"
IR = "model.gcir"
WEIGHTS = "weights.npz"
CONSTS = "consts.npz"
MEMBERS = (MANIFEST, IR, WEIGHTS, CONSTS)
"""The members every artifact has, in the order they are written."""
NATIVE = re.compile(r"^native/[0-9a-f]{24}\.o$")
"""The optional members: one object file per kernel, after the others."""
MAX_NATIVE = 4096

MAX_MANIFEST_BYTES = 4 << 20
MAX_MEMBER_BYTES = 16 << 30
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


def read_members(source, path) -> dict[str, bytes]:
    """The members of the artifact ``source`` (a path or a binary file), checked for size and
    CRC; unknown or duplicated members are an error. Raises ArtifactError naming ``path``."""
    try:
        with zipfile.ZipFile(source) as z:
            infos = z.infolist()
            _check_names(infos, path)
            return {info.filename: _read_one(z, info, path) for info in infos}
    except ArtifactError:
        raise
    except FileNotFoundError:
        raise ArtifactError("no such file", path) from None
    except zipfile.BadZipFile as e:
        raise ArtifactError(f"not a graphcell artifact, or truncated/corrupted (zip: {e})",
                            path) from None
    except (zlib.error, OSError, EOFError, ValueError, RuntimeError, NotImplementedError,
            OverflowError) as e:
        raise ArtifactError(f"cannot read the archive ({type(e).__name__}: {e})", path) from None


def _check_names(infos: list, path) -> None:
    names = [i.filename for i in infos]
    unknown = sorted(n for n in set(names) - set(MEMBERS) if not NATIVE.match(n))
    if unknown:
        raise ArtifactError(f"unexpected member(s) {', '.join(map(repr, unknown))}; an artifact "
                            f"holds only {', '.join(MEMBERS)} and native/<id>.o", path)
    if sum(1 for n in names if NATIVE.match(n)) > MAX_NATIVE:
        raise ArtifactError(f"holds more than {MAX_NATIVE} native object files", path)
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ArtifactError(f"member(s) {', '.join(dup)} appear more than once", path)
    missing = [n for n in MEMBERS if n not in names]
    if missing:
        raise ArtifactError(f"missing member(s) {', '.join(missing)}", path)


def _read_one(z: zipfile.ZipFile, info: zipfile.ZipInfo, path) -> bytes:
    limit = MAX_MANIFEST_BYTES if info.filename == MANIFEST else MAX_MEMBER_BYTES
    if info.file_size > limit:
        raise ArtifactError(f"declares {info.file_size} bytes, more than the {limit} allowed",
                            path, info.filename)
    with z.open(info) as f:
        data = f.read(limit + 1)
    if len(data) != info.file_size:
        raise ArtifactError(f"holds {len(data)} bytes but its header says {info.file_size}",
                            path, info.filename)
    return data


def to_bytes(members: Mapping[str, bytes]) -> bytes:
    """The artifact of ``members`` as bytes (tests build tampered artifacts with it)."""
    buf = io.BytesIO()
    write_members(buf, members)
    return buf.getvalue()
