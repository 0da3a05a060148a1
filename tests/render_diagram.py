"""Render a BPMN file with the bpmn-js viewer in headless Chromium, offline.

The viewer and its CSS come from the npm folder ``.ci/node`` (installed by
``.ci/run``) and are inlined into one HTML page with the diagram, so nothing
is fetched from a network. Used by tests/test_render.py and, run as a
script, to remake the pictures of docs/edit.md:

    .venv/bin/python tests/render_diagram.py

which copies the bundled example, renders its BPMN, runs ``seams suggest``
and ``seams suggest --accept`` (the example's recorded provider answers
offline) and renders the result.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from html import unescape
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DIST = REPO / ".ci" / "node" / "node_modules" / "bpmn-js" / "dist"
VIEWER = DIST / "bpmn-viewer.production.min.js"
STYLES = (DIST / "assets" / "diagram-js.css", DIST / "assets" / "bpmn-js.css")
SIZE = (1600, 350)
TIMEOUT = 90

_PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><style>{styles}
html, body, #canvas {{ margin: 0; width: 100%; height: 100%; background: #fff; }}
</style></head>
<body><div id="canvas"></div>
<script>{viewer}</script>
<script>
const viewer = new BpmnJS({{ container: '#canvas' }});
viewer.importXML({xml}).then(({{ warnings }}) => {{
  const canvas = viewer.get('canvas');
  const inner = canvas.viewbox().inner;  // scale 1 from the diagram's top left corner: pictures compare
  const size = canvas.getSize();
  canvas.viewbox({{ x: inner.x - 20, y: inner.y - 20, width: size.width, height: size.height }});
  document.body.dataset.imported = JSON.stringify({{ warnings: warnings.map((w) => w.message) }});
}}).catch((error) => {{
  document.body.dataset.imported = JSON.stringify({{ error: String(error.message || error) }});
}});
</script></body></html>
"""


def chromium() -> str | None:
    """The Chromium binary (Debian's ``chromium``), or None."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


def ready() -> bool:
    return chromium() is not None and VIEWER.is_file() and all(style.is_file() for style in STYLES)


def page(bpmn: bytes) -> str:
    """One self-contained HTML page that draws ``bpmn`` with the local viewer."""
    xml = json.dumps(bpmn.decode("utf-8")).replace("</", "<\\/")
    styles = "\n".join(style.read_text(encoding="utf-8") for style in STYLES)
    return _PAGE.format(styles=styles, viewer=VIEWER.read_text(encoding="utf-8"), xml=xml)


def _chromium(html: Path, *mode: str, size: tuple[int, int] = SIZE, log: bool = False) -> str:
    """Chromium headless on a local page; its stdout, or with ``log`` what it logged (its console included)."""
    with tempfile.TemporaryDirectory(prefix="seams-chromium-") as profile:
        command = [chromium() or "chromium", "--headless", "--no-sandbox", "--disable-gpu",
                   "--disable-background-networking", "--hide-scrollbars", "--no-first-run",
                   f"--user-data-dir={profile}", f"--window-size={size[0]},{size[1]}",
                   *(["--enable-logging=stderr", "--v=0"] if log else []),
                   "--virtual-time-budget=15000", *mode, html.as_uri()]
        process = subprocess.Popen(command, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE if log else subprocess.DEVNULL, text=True,
                                   start_new_session=True)
        try:
            out, err = process.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            raise
        if process.returncode != 0:
            raise RuntimeError(f"chromium exited {process.returncode}")
        return err if log else out


_IMPORTS = """<!DOCTYPE html>
<html><head><meta charset="utf-8"></head><body><div id="canvas" style="width: 1600px; height: 900px"></div>
<script>{viewer}</script>
<script>
const viewer = new BpmnJS({{ container: '#canvas' }});
const diagrams = {diagrams};
(async () => {{
  const results = {{}};
  for (const [name, xml] of Object.entries(diagrams)) {{
    try {{
      const {{ warnings }} = await viewer.importXML(xml);
      const registry = viewer.get('elementRegistry');
      results[name] = {{ warnings: warnings.map((w) => w.message), ...({collect}) }};
    }} catch (error) {{
      results[name] = {{ error: String(error.message || error) }};
    }}
  }}
  document.getElementById('canvas').remove();
  const out = document.createElement('pre');
  out.id = 'results';
  out.textContent = JSON.stringify(results);
  document.body.appendChild(out);
}})();
</script></body></html>
"""


_DRAWN = "{ drawn: registry.getAll().map((e) => e.id) }"
_GEOMETRY = """{ elements: registry.getAll().filter((e) => e.parent).map((e) => ({
  id: e.id, type: e.type, label: e.labelTarget ? e.labelTarget.id : null,
  x: e.x, y: e.y, width: e.width, height: e.height,
  waypoints: e.waypoints ? e.waypoints.map((p) => [p.x, p.y]) : null,
  text: (() => {
    const text = registry.getGraphics(e) && registry.getGraphics(e).querySelector('text');
    return text ? Array.from(text.querySelectorAll('tspan')).map((t) => t.textContent).join(' ') : null;
  })() })) }"""


def _import_each(diagrams: dict[str, bytes], collect: str) -> dict[str, dict]:
    """Import every diagram into one bpmn-js viewer (one Chromium run); per name, its ``warnings`` (or
    ``error``) and what the JavaScript expression ``collect`` reads from the ``registry`` it drew."""
    payload = json.dumps({name: data.decode("utf-8") for name, data in diagrams.items()}).replace("</", "<\\/")
    with tempfile.TemporaryDirectory(prefix="seams-render-") as folder:
        html = Path(folder) / "imports.html"
        page = _IMPORTS.format(viewer=VIEWER.read_text(encoding="utf-8"), diagrams=payload, collect=collect)
        html.write_text(page, encoding="utf-8")
        dom = _chromium(html, "--dump-dom")
    match = re.search(r'<pre id="results">(.*?)</pre>', dom, re.S)
    if match is None:
        raise RuntimeError("bpmn-js did not finish importing the diagrams")
    return json.loads(unescape(match.group(1)))


def import_all(diagrams: dict[str, bytes]) -> dict[str, dict]:
    """Per diagram, its import ``warnings`` (or ``error``) and the ids of the elements bpmn-js drew."""
    return _import_each(diagrams, _DRAWN)


def geometry_all(diagrams: dict[str, bytes]) -> dict[str, dict]:
    """Per diagram, its import ``warnings`` (or ``error``) and every element bpmn-js drew: id, type,
    bounds or waypoints, the element a label belongs to and the text drawn (tests/test_render_svg.py
    compares seams.render with it)."""
    return _import_each(diagrams, _GEOMETRY)


def screenshot(html: Path, png: Path, size: tuple[int, int]) -> str:
    """A screenshot of a local page at ``size``; what Chromium logged (its console included)."""
    return _chromium(html, f"--screenshot={png}", size=size, log=True)


def render(bpmn: bytes, png: Path) -> dict:
    """Draw ``bpmn`` into ``png``; return what the viewer's import said (``warnings`` or ``error``) and the
    ids of the elements it drew."""
    with tempfile.TemporaryDirectory(prefix="seams-render-") as folder:
        html = Path(folder) / "diagram.html"
        html.write_text(page(bpmn), encoding="utf-8")
        dom = _chromium(html, "--dump-dom")
        _chromium(html, f"--screenshot={png}")
    match = re.search(r'data-imported="([^"]*)"', dom)
    result = json.loads(unescape(match.group(1))) if match else {"error": "no import"}
    result["drawn"] = sorted(set(re.findall(r'data-element-id="([^"]+)"', dom)))
    return result


def accept_suggestion(project: Path) -> None:
    """``seams suggest`` then ``seams suggest --accept <id>`` in ``project`` (its recorded provider)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEAMS_")}
    seams = [sys.executable, "-m", "seams_cli"]
    done = subprocess.run([*seams, "suggest"], cwd=project, env=env, capture_output=True, text=True,
                          timeout=300, check=True)
    ident = next(line.split()[1] for line in done.stdout.splitlines() if line.startswith("suggestion "))
    subprocess.run([*seams, "suggest", "--accept", ident], cwd=project, env=env, capture_output=True, text=True,
                   timeout=300, check=True)


def main() -> int:
    if not ready():
        print("render_diagram: needs chromium and bpmn-js in .ci/node (bash .ci/run installs both)", file=sys.stderr)
        return 2
    images = REPO / "docs" / "images"
    images.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="seams-leave-") as folder:
        project = Path(folder) / "leave"
        shutil.copytree(REPO / "examples" / "leave", project, ignore=shutil.ignore_patterns("__pycache__", ".seams"))
        bpmn = project / "model" / "leave.bpmn"
        for name, step in (("leave-before.png", None), ("leave-after.png", accept_suggestion)):
            if step is not None:
                step(project)
            result = render(bpmn.read_bytes(), images / name)
            print(f"{name}: {len(result['drawn'])} elements drawn, import {result.get('error') or result['warnings']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
