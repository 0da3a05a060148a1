"""One self-contained HTML page: inline CSS, inline SVG, no script and nothing fetched.

``seams suggest --show``, ``seams run --html`` and ``pytest --seams-coverage-html`` write their
pages with ``html_page``, so they look alike and each opens from a file in any browser, offline.
A section's ``html`` is already escaped by the renderer that made it (seams.render.text.esc);
titles and headings are escaped here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from seams.render.bpmn_svg import MARKS
from seams.render.text import esc

STYLE = """
body { font-family: Arial, Helvetica, sans-serif; margin: 24px; color: #22242a; background: #fff; }
h1 { font-size: 22px; margin: 0 0 4px 0; } h2 { font-size: 17px; margin: 28px 0 8px 0; }
.subtitle { color: #555; margin: 0 0 16px 0; }
.diagram { overflow-x: auto; border: 1px solid #ddd; padding: 4px; background: #fff; }
.diagram svg { display: block; max-width: 100%; height: auto; }
table { border-collapse: collapse; margin: 6px 0; font-size: 13px; }
th, td { border: 1px solid #999; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f3f3f3; } td.dmn-number, th.dmn-policy { text-align: center; color: #555; }
th.dmn-output, td.dmn-output { background: #f7f9ff; } .dmn-annotation { color: #555; font-style: italic; }
table.dmn-table th.dmn-output { background: #eef2fb; }
.legend span { display: inline-block; margin-right: 14px; padding: 1px 8px; border: 2px solid; border-radius: 4px; }
pre.diff { background: #f8f8f8; border: 1px solid #ddd; padding: 8px; overflow-x: auto; font-size: 12px; }
pre.diff .add { color: #1b5e20; background: #e8f5e9; display: block; }
pre.diff .del { color: #b71c1c; background: #ffebee; display: block; }
pre.diff .hunk { color: #6a1b9a; display: block; }
code { font-family: Menlo, Consolas, monospace; font-size: 12px; }
.old { color: #b71c1c; text-decoration: line-through; } .new { color: #1b5e20; }
p.note { color: #555; }
"""
MARK_WORDS = {"added": "added", "removed": "removed", "changed": "changed", "taken": "taken",
              "not-covered": "not covered", "stopped": "stopped here"}


@dataclass(frozen=True)
class Section:
    heading: str
    html: str  # already escaped


def legend(names: Iterable[str]) -> str:
    """The colours of the marks a page uses, in one line."""
    spans = "".join(f'<span style="border-color:{MARKS[name][0]};background:{MARKS[name][1]}">'
                    f'{esc(MARK_WORDS[name])}</span>' for name in names if name in MARKS)
    return f'<p class="legend">{spans}</p>' if spans else ""


def table(header: Iterable[str], rows: Iterable[Iterable[object]], *, cls: str = "") -> str:
    """A plain HTML table; every cell is escaped here."""
    head = "".join(f"<th>{esc(cell)}</th>" for cell in header)
    body = "".join("<tr>" + "".join(f"<td>{esc(cell)}</td>" for cell in row) + "</tr>" for row in rows)
    attribute = f' class="{esc(cls)}"' if cls else ""
    return f"<table{attribute}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def diff_block(diff: str) -> str:
    """A unified diff, its lines coloured by their first character."""
    lines = []
    for line in diff.splitlines():
        cls = ("add" if line.startswith("+") and not line.startswith("+++") else
               "del" if line.startswith("-") and not line.startswith("---") else
               "hunk" if line.startswith("@@") else "")
        lines.append(f'<span class="{cls}">{esc(line)}</span>' if cls else esc(line) + "\n")
    return f'<pre class="diff">{"".join(lines)}</pre>'


def html_page(title: str, subtitle: str, sections: Iterable[Section], *, meta: Mapping[str, str] | None = None) -> str:
    """The whole page (a ``str``; the caller writes it as UTF-8)."""
    metas = "".join(f'<meta name="{esc(k)}" content="{esc(v)}">' for k, v in sorted((meta or {}).items()))
    body = "".join(f"<section><h2>{esc(s.heading)}</h2>{s.html}</section>" for s in sections)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
            "img-src data:\">"
            f"{metas}<title>{esc(title)}</title><style>{STYLE}</style></head><body>"
            f"<h1>{esc(title)}</h1><p class=\"subtitle\">{esc(subtitle)}</p>{body}</body></html>\n")


def diagram(svg: str) -> str:
    return f'<div class="diagram">{svg}</div>'
