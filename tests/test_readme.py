"""README.md tells the truth: its Python blocks run (in order, as one program, in a fresh process
and an empty directory) and print what the output blocks after them show; the names it mentions
in inline code exist; its links stay inside the repository; its two shell commands are the ones
``.ci/run`` and a new user run, with extras and files that exist."""
import contextlib
import importlib
import inspect
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import graphcell

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
MARK = "@@ readme block {} @@"
LOC = re.compile(r"\s+loc\(.*\)$")


def blocks() -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in FENCE.finditer(README)]


def python_blocks_with_output() -> list[tuple[str, str | None]]:
    """Each Python block, and the unlabelled block right after it (what it prints), if any."""
    out, found = [], list(FENCE.finditer(README))
    for m, nxt in zip(found, found[1:] + [None]):
        if m.group(1) == "python":
            adjacent = nxt is not None and nxt.group(1) == "" and \
                not README[m.end():nxt.start()].strip()
            out.append((m.group(2), nxt.group(2) if adjacent else None))
    return out


def _lines(text: str) -> list[str]:
    return [LOC.sub("", line).rstrip() for line in text.splitlines()]


def test_the_python_blocks_run_and_print_what_is_shown(tmp_path):
    parts = python_blocks_with_output()
    assert len(parts) >= 4
    program = "\n".join(f"print({MARK.format(i)!r})\n{code}" for i, (code, _) in enumerate(parts))
    script = tmp_path / "tour.py"
    script.write_text(program, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT),
                                                                       os.environ.get("PYTHONPATH")]))}
    run = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                         text=True, timeout=300, env=env)
    assert run.returncode == 0, f"the README's code failed:\n{run.stdout}\n{run.stderr}"
    printed = re.split(r"^@@ readme block \d+ @@$", run.stdout, flags=re.MULTILINE)[1:]
    assert len(printed) == len(parts)
    for i, ((code, shown), got) in enumerate(zip(parts, printed)):
        if shown is None:
            continue
        want = [line for line in _lines(shown) if line.strip() != "..."]
        actual = iter(_lines(got))
        missing = next((line for line in want if not any(line == a for a in actual)), None)
        assert missing is None, (f"README block {i} does not print {missing!r} where its output "
                                 f"block shows it; it printed:\n{got}")


INLINE = re.compile(r"`((?:ms|graphcell|nn|ops)\.[A-Za-z_][\w.]*)")


def test_the_names_it_mentions_exist():
    roots = {"ms": graphcell, "graphcell": graphcell, "nn": graphcell.nn, "ops": graphcell.ops}
    missing = []
    for dotted in sorted(set(INLINE.findall(README))):
        head, *rest = dotted.rstrip(".").split(".")
        obj = roots[head]
        for part in rest:
            if not hasattr(obj, part) and inspect.ismodule(obj):   # a subpackage not imported yet
                with contextlib.suppress(ImportError):
                    importlib.import_module(f"{obj.__name__}.{part}")
            if not hasattr(obj, part):
                missing.append(dotted)
                break
            obj = getattr(obj, part)
    assert not missing, f"the README names what graphcell does not have: {missing}"


def test_links_stay_inside_the_repository():
    for target in re.findall(r"\]\(([^)]+)\)", README):
        path = (ROOT / target.split("#")[0]).resolve()
        assert ROOT in path.parents and path.exists(), f"README links to {target}"


def test_the_commands_are_the_ones_ci_and_users_run():
    ci = (ROOT / ".ci" / "run").read_text()
    assert "<!-- test-command -->" in ci
    after = README.split("<!-- test-command -->", 1)[1]
    command = next(line for line in after.splitlines() if re.match(r"[a-z]", line))  # as .ci/run
    bash = [code.strip() for lang, code in blocks() if lang == "bash"]
    assert command in bash and "pytest" in command
    demo = next(c for c in bash if c != command)
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    for cmd in (command, demo):
        for wanted in re.findall(r'-e "\.\[([\w,]+)\]"', cmd)[0].split(","):
            assert wanted in extras, f"{cmd} installs the extra {wanted!r}, which does not exist"
    script = re.search(r"\.venv/bin/python (\S+\.py)", demo).group(1)
    assert (ROOT / script).is_file()
    assert re.search(r"\.venv/bin/python -m pytest$", command)


def test_python_m_graphcell_runs_the_command_line():
    run = subprocess.run([sys.executable, "-m", "graphcell", "--version"], capture_output=True,
                         text=True, timeout=60, cwd=ROOT)
    assert run.returncode == 0 and run.stdout.startswith("graphcell ")
