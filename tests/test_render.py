"""The bpmn-js viewer (npm, no CDN) in headless Chromium draws what seams_edit wrote.

Runs where Chromium and .ci/node's bpmn-js are installed (``.ci/run``
installs both); skipped elsewhere. The pictures of docs/edit.md are made by
``tests/render_diagram.py`` with the same code.
"""

from __future__ import annotations

import shutil
import struct
import zlib
from pathlib import Path

import pytest
import render_diagram
from test_layout_corpus import CASES

from seams_edit.bpmn import insert_task_before
from seams_edit.xml import load_payload, save_payload

pytestmark = pytest.mark.skipif(not render_diagram.ready(),
                                reason="chromium and bpmn-js in .ci/node (installed by .ci/run)")


def png_facts(path: Path) -> tuple[int, int, int]:
    """Width, height and the number of distinct scanline bytes of an 8-bit RGB(A) PNG."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    chunks, position = [], 8
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        if kind == b"IDAT":
            chunks.append(data[position + 8:position + 8 + length])
        position += 12 + length
    return width, height, len(set(zlib.decompress(b"".join(chunks))))


def test_the_example_is_drawn_before_and_after_suggest_accept(tmp_path: Path) -> None:
    project = tmp_path / "leave"
    shutil.copytree(render_diagram.REPO / "examples" / "leave", project,
                    ignore=shutil.ignore_patterns("__pycache__", ".seams"))
    bpmn = project / "model" / "leave.bpmn"
    before = render_diagram.render(bpmn.read_bytes(), tmp_path / "before.png")
    render_diagram.accept_suggestion(project)
    after = render_diagram.render(bpmn.read_bytes(), tmp_path / "after.png")
    assert before["warnings"] == [] and after["warnings"] == []
    assert set(after["drawn"]) - set(before["drawn"]) == {"Task_Escalation", "Flow_Task_Escalation"}
    for name in ("before.png", "after.png"):
        width, height, shades = png_facts(tmp_path / name)
        assert (width, height) == render_diagram.SIZE
        assert shades > 50  # a drawing, not a blank page
    assert (tmp_path / "before.png").read_bytes() != (tmp_path / "after.png").read_bytes()


def test_bpmn_js_imports_every_edited_corpus_diagram_without_a_new_warning() -> None:
    originals = {path.name: path.read_bytes() for path, _ in CASES}
    edited = {}
    for path, target in CASES:
        payload = load_payload(path.read_bytes(), source=path.name)
        insert_task_before(payload, target, tag="businessRuleTask", task_id="Activity_Inserted", name="Decide")
        edited[f"{path.name} {target}"] = save_payload(payload)
    results = render_diagram.import_all({**originals, **edited})
    for name in edited:
        original = results[name.split()[0]]
        assert "error" not in results[name], (name, results[name])
        assert [w for w in results[name]["warnings"] if w not in original["warnings"]] == [], name
        assert "Activity_Inserted" in results[name]["drawn"], name
