"""Forged artifacts for the trust tests: what an attacker who knows the format can write (object
files of their own, every hash recomputed)."""
import json
import zipfile

from graphcell.aot import container as C
from graphcell_ir.backend import native as N


def members_of(path) -> dict:
    with zipfile.ZipFile(path) as z:
        return {n: z.read(n) for n in z.namelist()}


def rehashed(members: dict) -> dict:
    """``members`` with the manifest's hashes recomputed (the signature, if any, left as is)."""
    m = json.loads(members[C.MANIFEST])
    m["members"] = {n: {"sha256": C.sha256(d), "size": len(d)} for n, d in members.items()
                    if n not in (C.MANIFEST, C.SIGNATURE)}
    return {**members, C.MANIFEST: json.dumps(m).encode()}


def first_kernel(members: dict) -> str:
    """The id of the artifact's first kernel."""
    return json.loads(members[C.MANIFEST])["native"]["kernels"][0]["id"]


def with_object(members: dict, id_: str, data: bytes) -> dict:
    """``members`` with native code ``id_`` replaced by ``data``, hashes recomputed."""
    return rehashed({**members, f"native/{id_}.o": data})


def _object(ir: str, codemodel: str = "jitdefault") -> bytes:
    """LLVM IR compiled for this CPU: as graphcell emits (static, the JIT's code model), or
    for another code model."""
    from graphcell_ir.backend.native.target import llvm_binding
    llvm = llvm_binding()
    host = N.host_target()
    if codemodel == "jitdefault":
        tm = N.target_machine(host)
    else:
        tm = llvm.Target.from_triple(host.triple).create_target_machine(
            cpu=host.cpu, features=host.features, opt=2, reloc="static", codemodel=codemodel,
            jit=True)
    mod = llvm.parse_assembly(ir)
    mod.triple, mod.data_layout = host.triple, str(tm.target_data)
    return tm.emit_object(mod)


def calling_system(id_: str, command: str) -> bytes:
    """The entry of native code ``id_`` running ``system(command)`` — with graphcell's own code
    model, so only its imports give it away."""
    text = command.encode() + b"\0"
    body = "".join(f"\\{b:02x}" for b in text)
    return _object(f"""
@cmd = private unnamed_addr constant [{len(text)} x i8] c"{body}"
declare i32 @system(ptr)
define i32 @{N.symbol_of(id_)}(ptr %r, ptr %e, ptr %a) {{
  %c = call i32 @system(ptr @cmd)
  ret i32 0
}}
""")


def small_code_model(id_: str) -> bytes:
    """The entry of native code ``id_`` built with LLVM's default (small) code model: it reads a
    constant and calls libm's ``expf`` through 32-bit PC-relative relocations, which the JIT
    cannot always satisfy (LLVM's linker then aborts the process)."""
    return _object(f"""
@table = internal constant [4 x float] [float 1.0, float 2.0, float 3.0, float 4.0]
declare float @expf(float)
define i32 @{N.symbol_of(id_)}(ptr %r, ptr %e, ptr %a) {{
  %v = load float, ptr getelementptr ([4 x float], ptr @table, i64 0, i64 2)
  %x = call float @expf(float %v)
  store float %x, ptr %a
  ret i32 0
}}
""", codemodel="small")
