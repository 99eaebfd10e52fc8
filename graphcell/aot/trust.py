"""Whether an artifact's machine code may run in this process: signatures and explicit trust.

An artifact's native code (``load(native=True)``) is machine code that runs with every right the
process has; checking the objects (``graphcell_ir.backend.native.objfile``) refuses what
graphcell never emits but cannot make such code safe. So it runs only when the artifact is
**trusted**, in one of two ways:

- **signed**: ``export`` signs the artifact when a key is configured —
  ``set_context(artifact_key=...)``, or else the environment variable ``GRAPHCELL_ARTIFACT_KEY``
  (at least 16 bytes; a random secret) — and ``load(native=True)`` accepts it when the same key
  is configured. The signature is the member ``manifest.sig``: HMAC-SHA256 of the manifest,
  which holds the SHA-256 of every other member, native objects included. Whoever has the key
  can sign: keep it as you keep the credentials of the machines that export;
- **trusted by the caller**: ``load(path, native=True, trust_native_code=True)``, for a file
  you would run as a program (you built it, it came from where your programs come from).

Otherwise ``native=True`` raises :class:`ArtifactTrustError` saying why, before any object is
linked; ``load(path)`` (the IR path: no code from the file runs) always works. A signature that
does not match the configured key is refused even with ``trust_native_code=True``: it says
the file was changed after it was signed.

Example::

    >>> m = b'{"format": "graphcell-artifact"}'
    >>> sig = sign(m, b"0123456789abcdef")
    >>> check_signature(m, sig, b"0123456789abcdef") is None
    True
    >>> check_signature(m, sig, b"another key, 16+")
    'its signature does not match the configured key (signed with another key, or changed since)'
"""
from __future__ import annotations

import hashlib
import hmac
import json

from graphcell_ir import switches
from graphcell_ir.errors import ArtifactTrustError

__all__ = ["KEY_ENV", "configured_key", "sign", "check_signature", "require_trust",
           "trust_status"]

KEY_ENV = "GRAPHCELL_ARTIFACT_KEY"
_ALGORITHM = "hmac-sha256"
_DOMAIN = b"graphcell-artifact-signature-1\n"   # a MAC of this format, not of any other text


def configured_key() -> bytes | None:
    """The signing key: ``get_context("artifact_key")``, else ``GRAPHCELL_ARTIFACT_KEY``, else
    None. ValueError when the variable is set to fewer than 16 bytes."""
    from graphcell import context
    key = context.get_context("artifact_key")
    if key is None:
        env = switches.value(KEY_ENV)
        if env:
            key = env.encode("utf-8")
            if len(key) < 16:
                raise ValueError(f"{KEY_ENV} must be at least 16 bytes: a random secret, such "
                                 "as secrets.token_hex(32)")
    return key


def sign(manifest: bytes, key: bytes) -> bytes:
    """The ``manifest.sig`` member for the manifest's bytes."""
    mac = hmac.new(key, _DOMAIN + manifest, hashlib.sha256).hexdigest()
    return (json.dumps({"algorithm": _ALGORITHM, "mac": mac}) + "\n").encode()


def check_signature(manifest: bytes, signature: bytes | None, key: bytes) -> str | None:
    """None when ``signature`` (the ``manifest.sig`` member, or None) signs ``manifest`` with
    ``key``; else why not, as a phrase."""
    if signature is None:
        return "it is not signed"
    try:
        sig = json.loads(signature.decode("utf-8"))
        ok = (isinstance(sig, dict) and sig.get("algorithm") == _ALGORITHM
              and isinstance(sig.get("mac"), str))
    except (UnicodeDecodeError, ValueError):
        ok = False
    if not ok:
        return f"its signature is not an {_ALGORITHM} signature graphcell reads"
    want = hmac.new(key, _DOMAIN + manifest, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(want, sig["mac"]):
        return ("its signature does not match the configured key (signed with another key, or "
                "changed since)")
    return None


def trust_status(manifest: bytes, signature: bytes | None,
                 trust_native_code: bool = False) -> tuple[bool, str]:
    """``(trusted, why)`` for an artifact's native code: how it is trusted, or why it is not
    (see the module docstring)."""
    key = configured_key()
    if signature is not None and key is not None:
        problem = check_signature(manifest, signature, key)
        return (False, problem) if problem else (True, "signed with the configured key")
    if trust_native_code:
        return True, "trusted by the caller (trust_native_code=True)"
    if key is None:
        return False, ("no key is configured to check its signature" if signature is not None
                       else "it is not signed and no key is configured")
    return False, "it is not signed"


def require_trust(path, manifest: bytes, signature: bytes | None,
                  trust_native_code: bool) -> str:
    """How the artifact's native code is trusted; ArtifactTrustError saying why when it is not."""
    trusted, why = trust_status(manifest, signature, trust_native_code)
    if not trusted:
        raise ArtifactTrustError(
            f"native=True would run machine code from this file, and it is not trusted: {why}. "
            f"Sign it when exporting with a key (set_context(artifact_key=...) or {KEY_ENV}) "
            "and configure the same key here, or pass trust_native_code=True if you would run "
            "this file as a program; load(path) without native=True runs it from its IR",
            path)
    return why
