"""What native code is for: the target (triple, CPU, features), LLVM's target machine for it
(made by ``codegen/machine.py``, re-exported here), and the error a kernel without usable native
code raises.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

from graphcell_ir.backend.codegen.machine import llvm_binding, target_machine

__all__ = ["NativeError", "Target", "host_target", "emit_target", "process_target",
           "llvm_binding", "target_machine"]


class NativeError(Exception):
    """A kernel has no native code (emitting) or its code cannot be used here (linking); ``str()``
    says why. Callers fall back to compiling the kernel; it never reaches users as an error."""


# --- the target ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Target:
    """What an object file was emitted for: LLVM triple, CPU name, features (``+avx2,-avx512f``)."""

    triple: str
    cpu: str
    features: str

    def required(self) -> set[str]:
        """The features the code may use (the ``+`` ones)."""
        return {f[1:] for f in self.features.split(",") if f.startswith("+")}

    def runs_on(self, host: Target) -> str | None:
        """None when code for this target runs on ``host``, else the reason it does not. The CPU
        name only tunes scheduling; the triple and the enabled features decide."""
        if self.triple != host.triple:
            return f"the code is for {self.triple}, this machine is {host.triple}"
        missing = sorted(self.required() - host.required())
        if missing:
            more = " ..." if len(missing) > 8 else ""
            return (f"the code was emitted for a {self.cpu} and uses CPU feature(s) this "
                    f"{host.cpu} lacks: {', '.join(missing[:8])}{more}")
        return None


@functools.lru_cache(maxsize=1)
def host_target() -> Target:
    """This process's CPU as llvmlite sees it (no numba)."""
    llvm = llvm_binding()
    try:
        features = llvm.get_host_cpu_features().flatten()
    except RuntimeError:   # llvmlite cannot read them here: only feature-free code may run
        features = ""
    return Target(llvm.get_process_triple(), llvm.get_host_cpu_name(), features)


def emit_target() -> Target:
    """The target an export emits code for: the host, or what ``NUMBA_CPU_NAME`` /
    ``NUMBA_CPU_FEATURES`` ask for (numba's variables, read as numba reads them: the way numba's
    users already ask for portable code, e.g. ``NUMBA_CPU_NAME=generic``)."""
    import os
    host = host_target()
    name = os.environ.get("NUMBA_CPU_NAME")
    features = os.environ.get("NUMBA_CPU_FEATURES")
    if features is None:
        features = "" if str(name).lower() == "generic" else host.features
        if os.environ.get("NUMBA_ENABLE_AVX") == "0":   # numba then turns every avx* off
            features = ",".join("-" + f[1:] if f[1:].startswith("avx") else f
                                for f in features.split(",") if f)
    return Target(host.triple, name or host.cpu, features)


def process_target() -> Target:
    """The target of the code this process compiles and runs (the JIT's objects, the native
    step's module, the pool), and what an artifact's code must run on to be linked here: the
    emit target (:func:`emit_target`: the host, or what ``NUMBA_CPU_NAME`` /
    ``NUMBA_CPU_FEATURES`` ask for, as numba's JIT reads them) when it asks for no feature the
    host lacks, else the host (code this machine cannot run is never made). So a process run
    with the features narrowed (``NUMBA_CPU_FEATURES`` = the host's with ``-avx512f,...``) runs
    no code that uses the others, its own or an artifact's. An LLVM CPU name implies its
    features: narrow them with explicit ``-`` flags, or name a narrower CPU."""
    host, asked = host_target(), emit_target()
    if asked == host or not asked.required() <= host.required():
        return host
    return asked
