"""The lock of drafts: draft records in seams.lock, draft-stale and draft-hand-edited."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from helpers import edit

from seams.checks.handler_drafts import draft_findings, draft_record, record_draft, with_draft
from seams.errors import ProjectError
from seams.model.context import context_for
from seams.model.loading import load_model
from seams.project.layout import load_project
from seams.project.lock import Lock, lock_bytes, read_lock

RECORD_LEAVE = "https://example.org/leave/RecordLeave"
HANDLER = '"""Record leave."""\n\n\ndef handle(inputs, bindings):\n    return {"booking_ref": bindings.calendar(inputs["employee"], inputs["leave_type"], inputs["days"])}\n'


def _accept(root: Path, *, llm_model: str | None = None) -> dict:
    """What an accepted ``seams propose record_leave`` leaves: the module and its record."""
    project = load_project(root)
    model = load_model(project)
    module = root / "handlers" / "record_leave.py"
    module.write_text(HANDLER, encoding="utf-8")
    record = draft_record(task=RECORD_LEAVE, module="handlers/record_leave.py",
                          context_hash=context_for(model, RECORD_LEAVE).hash, template="draft-v1.txt",
                          provider="python3 provider/recorded.py",
                          sha256=hashlib.sha256(module.read_bytes()).hexdigest(), llm_model=llm_model)
    record_draft(project, record)
    return record


def _findings(root: Path) -> list[str]:
    project = load_project(root)
    return [f.line() for f in draft_findings(project, load_model(project))]


def test_record_byte_format():
    record = draft_record(task="https://e.org/T", module="handlers/t.py", context_hash="c" * 64,
                          template="draft-v1.txt", provider="llm -n", sha256="d" * 64)
    assert lock_bytes(with_draft(Lock(), record)).decode() == (
        '{\n'
        '  "drafts": [\n'
        '    {\n'
        f'      "context_hash": "{"c" * 64}",\n'
        '      "module": "handlers/t.py",\n'
        '      "provider": "llm -n",\n'
        f'      "sha256": "{"d" * 64}",\n'
        '      "task": "https://e.org/T",\n'
        '      "template": "draft-v1.txt"\n'
        '    }\n'
        '  ],\n'
        '  "generated": {}\n'
        '}\n')


def test_model_key_only_when_a_model_is_named():
    common = dict(task="t", module="m", context_hash="c", template="t", provider="p", sha256="s")
    assert "model" not in draft_record(**common)
    assert "model" not in draft_record(**common, llm_model=None)
    assert draft_record(**common, llm_model="gpt-x")["model"] == "gpt-x"


def test_record_replaces_the_tasks_record_and_keeps_others_sorted(example_project):
    project = load_project(example_project)
    project.lock_path.write_text(json.dumps({"drafts": [
        {"task": "https://z.org/Z", "module": "handlers/z.py", "context_hash": "1", "template": "t",
         "provider": "p", "sha256": "2"}], "generated": {"generated/x.py": "e" * 64}}), encoding="utf-8")
    first = _accept(example_project)
    second = _accept(example_project, llm_model="m2")
    lock = read_lock(project)
    assert [d["task"] for d in lock.drafts] == [RECORD_LEAVE, "https://z.org/Z"]
    assert lock.drafts[0] == second and lock.drafts[0] != first
    assert lock.generated == {"generated/x.py": "e" * 64}
    assert project.lock_path.read_bytes() == lock_bytes(lock)


def test_fresh_draft_has_no_findings(example_project):
    _accept(example_project)
    assert _findings(example_project) == []


def test_no_lock_no_findings(example_project):
    assert _findings(example_project) == []


@pytest.mark.parametrize("old, new, message", [
    ('"^BK-[0-9]+$"', '"^BK-[0-9]{4}$"',
     "a fact the draft handlers/record_leave.py was written from changed; review it, "
     "then run seams accept record_leave (or seams propose record_leave --force for a new draft)"),
    ("ex:RecordLeave a seam:ServiceTask", "ex:RecordLeave a seam:UserTask",
     "the task of the draft handlers/record_leave.py no longer resolves; review the draft and its lock record"),
], ids=["dependent-fact", "no-longer-resolves"])
def test_draft_becomes_stale(example_project, old, new, message):
    _accept(example_project)
    edit(example_project / "model" / "model.trig", old, new)
    assert _findings(example_project) == [f"draft-stale ex:RecordLeave: {message}"]


def test_unrelated_fact_leaves_the_draft_fresh(example_project):
    _accept(example_project)
    edit(example_project / "model" / "model.trig", '"Look up how many days of this leave type the employee has left."',
         '"Ask the balance service."')
    edit(example_project / "model" / "leave.bpmn", '<dc:Bounds x="1060" y="80"', '<dc:Bounds x="1070" y="80"')
    assert _findings(example_project) == []


def test_edited_or_missing_module_is_hand_edited(example_project):
    _accept(example_project)
    module = example_project / "handlers" / "record_leave.py"
    module.write_text(HANDLER + "# tweaked\n", encoding="utf-8")
    assert _findings(example_project) == [
        "draft-hand-edited handlers/record_leave.py: the file changed since its draft was accepted; "
        "review it, then run seams accept record_leave to record it"]
    module.unlink()
    assert _findings(example_project) == [
        "draft-hand-edited handlers/record_leave.py: the accepted draft is missing; "
        "restore it, or run seams propose record_leave"]


def test_stale_and_edited_both_reported_stale_first(example_project):
    _accept(example_project)
    edit(example_project / "model" / "model.trig", 'rdfs:label "Record leave"', 'rdfs:label "Book leave"')
    (example_project / "handlers" / "record_leave.py").write_text("x = 1\n", encoding="utf-8")
    assert [line.split(" ", 1)[0] for line in _findings(example_project)] == ["draft-stale", "draft-hand-edited"]


@pytest.mark.parametrize("record, message", [
    ({"task": "t"}, r"drafts\[0\] needs a string module"),
    ({"task": "t", "module": "../../etc/passwd", "context_hash": "c", "template": "t", "provider": "p",
      "sha256": "s"}, "leads outside the project"),
])
def test_malformed_records_are_project_errors(example_project, record, message):
    (example_project / "seams.lock").write_text(json.dumps({"drafts": [record], "generated": {}}), encoding="utf-8")
    with pytest.raises(ProjectError, match=message):
        _findings(example_project)
