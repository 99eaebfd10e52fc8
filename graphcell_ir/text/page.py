"""One HTML page with the IR's stages side by side (``graphcell ir --format html``).

Each stage is a column of its ``.gcir`` text; a stage whose text did not change from the one
before says so instead of repeating it. Plain HTML and CSS, no script, so the file opens
anywhere.

Example::

    >>> page = stages_html([("frontend", "func @f() {\\n}\\n"), ("cse", "func @f() {\\n}\\n")], "f")
    >>> "<h2>frontend</h2>" in page and "unchanged from frontend" in page
    True
"""
from __future__ import annotations

import html
from typing import Sequence

_STYLE = """body { font-family: sans-serif; margin: 1em; }
.stages { display: flex; gap: 1em; overflow-x: auto; align-items: flex-start; }
.stage { flex: 0 0 auto; max-width: 60em; border: 1px solid #ccc; padding: 0 .5em; }
pre { font-size: 12px; line-height: 1.3; }
.same { color: #888; font-style: italic; }"""


def stages_html(stages: Sequence[tuple[str, str]], title: str, summary: str = "") -> str:
    """The page: ``title``, an optional ``summary`` block, then one column per ``(name, text)``."""
    out = ["<!DOCTYPE html>", "<html><head><meta charset=\"utf-8\">",
           f"<title>{html.escape(title)}</title>", f"<style>{_STYLE}</style></head><body>",
           f"<h1>{html.escape(title)}</h1>"]
    if summary:
        out.append(f"<pre>{html.escape(summary)}</pre>")
    out.append('<div class="stages">')
    previous: tuple[str, str] | None = None
    for name, text in stages:
        out.append(f'<div class="stage"><h2>{html.escape(name)}</h2>')
        if previous is not None and previous[1] == text:
            out.append(f'<p class="same">unchanged from {html.escape(previous[0])}</p>')
        else:
            out.append(f"<pre>{html.escape(text)}</pre>")
            previous = (name, text)
        out.append("</div>")
    out.append("</div></body></html>")
    return "\n".join(out) + "\n"
