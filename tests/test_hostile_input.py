"""Hostile input (issue 21): each case is a hostile copy of the example and the exact command.

Each gives one clear line and the documented exit code with nothing written
(0 ok, 1 check problem / rejected answer, 2 project error), never a
traceback, a hang or a blow-up.
"""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path

import pytest
from helpers import copy_example, edit, run_seams

from seams_cli.main import main

DEEP = "[" * 100_000 + "]" * 100_000
SUGGEST_PROVIDER = Path(__file__).parent / "fixtures" / "suggest" / "provider.py"


def snapshot(root: Path) -> dict[str, bytes]:
    """Every project file but the caches under .seams/."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".seams" not in p.relative_to(root).parts and "__pycache__" not in p.parts}


def one_line(result, code: int, *needles: str) -> str:
    """The command exited ``code`` with exactly one stderr line holding every needle."""
    lines = result.stderr.splitlines()
    assert "Traceback" not in result.stderr, result.stderr[-3000:]
    assert result.returncode == code, (result.returncode, result.stdout[-2000:], result.stderr[-2000:])
    assert len(lines) == 1, lines[:5]
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


@pytest.fixture()
def project(tmp_path):
    return copy_example(tmp_path)


def trig(root: Path) -> Path:
    return root / "model" / "model.trig"


# --- JSON, TOML, XML caps ----------------------------------------------------------


def test_deep_json_in_a_given_is_a_check_finding(project):
    edit(trig(project), '"""{"employee": "ana", "days": 3, "leave_type": "annual"}"""^^rdf:JSON',
         f'"{DEEP}"^^rdf:JSON', 1)
    before = snapshot(project)
    result = run_seams("check", cwd=project)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr[-2000:]
    assert "is not valid JSON (nested deeper than the limit of 64 levels)" in result.stdout
    assert snapshot(project) == before


def test_deep_json_in_a_given_does_not_crash_propose(project):
    edit(trig(project), '"""{"employee": "ana", "days": 3, "leave_type": "annual"}"""^^rdf:JSON',
         f'"{DEEP}"^^rdf:JSON', 1)
    answer = project.parent / "answer.py"
    answer.write_text("def handle(inputs, bindings):\n    return {}\n", encoding="utf-8")
    provider = f"{sys.executable} -c \"import sys; sys.stdin.read(); print(open({str(answer)!r}).read())\""
    result = run_seams("propose", "record_leave", "--provider", provider, cwd=project)
    assert "Traceback" not in result.stderr and result.returncode == 1, result.stderr[-2000:]
    # the deep example is what fails, by name: the provider answered and the session ran
    assert ("example[annual leave is booked]: example 'annual leave is booked': seam:given is missing or not "
            "a JSON object") in result.stdout, result.stdout[-2000:]


def test_deep_json_from_the_provider_is_refused_by_suggest_every_time(project, tmp_path):
    answer = tmp_path / "answer.json"
    answer.write_text(DEEP)
    before = snapshot(project)
    provider = f"{sys.executable} {SUGGEST_PROVIDER} {answer}"
    for _ in range(2):  # the answer is cached: the second run reads it from the cache
        result = run_seams("suggest", "--kind", "condition-to-dmn", "--provider", provider, cwd=project)
        one_line(result, 1, "seams suggest: answer: not one JSON object", "nested deeper than the limit of 64")
    assert snapshot(project) == before


def test_deep_json_from_the_provider_is_refused_by_draft_generator(project, tmp_path):
    answer = tmp_path / "answer.txt"
    answer.write_text(DEEP)
    reference = project / "reference"
    sample = next(p for p in sorted(reference.rglob("*")) if p.is_file()) if reference.is_dir() else trig(project)
    before = snapshot(project)
    result = run_seams("draft-generator", "deep", "--reference", str(sample), "--provider",
                       f"{sys.executable} {SUGGEST_PROVIDER} {answer}", cwd=project)
    one_line(result, 1, "nested deeper than the limit of 64 levels")
    assert snapshot(project) == before


def test_deep_suggestion_record_is_skipped_by_list_and_refused_by_accept(project):
    ident = "a" * 64
    entry = project / ".seams" / "suggestions" / ident
    entry.mkdir(parents=True)
    (entry / "suggestion.json").write_text(DEEP)
    result = run_seams("suggest", "--list", cwd=project)
    assert (result.returncode, result.stdout, result.stderr) == (0, "no pending suggestions\n", "")
    before = snapshot(project)
    one_line(run_seams("suggest", "--accept", ident, cwd=project), 1, "not a readable suggestion record")
    assert snapshot(project) == before


def test_deep_undo_manifest_is_one_line(project):
    entry = project / ".seams" / "undo" / "000001-aaaaaaaaaaaa"
    entry.mkdir(parents=True)
    (entry / "manifest.json").write_text(DEEP)
    before = snapshot(project)
    one_line(run_seams("undo", cwd=project), 1, "manifest.json", "nested deeper than the limit of 64 levels")
    assert snapshot(project) == before
    listed = run_seams("suggest", "--list", cwd=project)  # other commands do not stop for it
    assert (listed.returncode, listed.stderr) == (0, "")


def test_deep_seams_toml_is_one_line(project):
    with (project / "seams.toml").open("a") as config:
        config.write(f"\n[limits]\ndeep = {'[' * 100_000}{']' * 100_000}\n")
    one_line(run_seams("check", cwd=project), 2, "seams.toml", "nested deeper than the limit")


def test_deep_xml_payload_is_one_line(project):
    bpmn = project / "model" / "leave.bpmn"
    edit(bpmn, "</bpmn:definitions>", "<x>" * 100_000 + "</x>" * 100_000 + "</bpmn:definitions>")
    one_line(run_seams("check", cwd=project), 2, "model/leave.bpmn", "not well-formed XML", "depth")


# --- payload files -----------------------------------------------------------------


def test_fifo_payload_is_refused_without_blocking(project):
    dmn = project / "model" / "leave.dmn"
    dmn.unlink()
    os.mkfifo(dmn)
    result = run_seams("check", cwd=project, timeout=60)
    one_line(result, 2, "model/leave.dmn", "not a regular file (a FIFO)")


def test_huge_payload_is_refused_before_it_is_read(project):
    dmn = project / "model" / "leave.dmn"
    with dmn.open("r+b") as handle:
        handle.truncate(3 << 30)  # sparse: 3 GB long, no disk used
    one_line(run_seams("check", cwd=project), 2, "model/leave.dmn", "over the limit of 67108864 bytes",
             "limits.payload_bytes")


def test_payload_limit_comes_from_the_config(project):
    with (project / "seams.toml").open("a") as config:
        config.write("\n[limits]\npayload_bytes = 1000\n")
    one_line(run_seams("check", cwd=project), 2, "model/leave.bpmn", "over the limit of 1000 bytes")


# --- path-like values and config values ----------------------------------------------


def test_nul_in_seam_path_is_one_line(project):
    edit(trig(project), 'seam:path "leave.dmn"', 'seam:path "leave\\u0000.dmn"')
    one_line(run_seams("check", cwd=project), 2, "seam:path contains a NUL byte")


def test_nul_in_project_model_is_one_line(project):
    edit(project / "seams.toml", 'model = "model/model.trig"', 'model = "model/model\\u0000.trig"')
    one_line(run_seams("check", cwd=project), 2, "seams.toml: project.model contains a NUL byte")


def test_nul_in_model_option_is_one_line(project):
    one_line(run_seams("check", "--model", "model/model\x01.trig", cwd=project), 2, "model file not found")


def test_300_character_handler_name_is_one_line(project):
    name = "h" * 300
    edit(trig(project), 'seam:handler "record_leave"', f'seam:handler "{name}"')
    before = snapshot(project)
    one_line(run_seams("propose", "ex:RecordLeave", cwd=project), 2, "seam:handler", "longer than 255 bytes")
    result = run_seams("generate", cwd=project)
    assert "Traceback" not in result.stderr and result.returncode in (1, 2), result.stderr[-2000:]
    assert snapshot(project) == before


@pytest.mark.parametrize("value, needle", [
    ("nan", "propose.timeout must be a finite number of seconds above 0, not nan"),
    ("inf", "propose.timeout must be a finite number of seconds above 0, not inf"),
    ("0", "propose.timeout must be a finite number"),
])
def test_timeout_must_be_finite_and_positive(project, value, needle):
    edit(project / "seams.toml", "timeout = 120", f"timeout = {value}")
    one_line(run_seams("check", cwd=project), 2, needle)


@pytest.mark.parametrize("base", ["", "https://example.org/le ave/", "example.org/leave/", "urn:x<y"])
def test_base_must_be_an_absolute_iri(project, base):
    edit(project / "seams.toml", 'base = "https://example.org/leave/"', f'base = "{base}"')
    one_line(run_seams("check", cwd=project), 2, "project.base must be an absolute IRI")


def test_graph_iri_must_be_valid(project):
    with (project / "seams.toml").open("a") as config:
        config.write('\n[model.graphs]\nshapes = "https://example.org/a graph"\n')
    one_line(run_seams("check", cwd=project), 2, "model.graphs.shapes must be an absolute IRI")


# --- a full disk ---------------------------------------------------------------------


def _disk_full_after(monkeypatch, module, name: str, allowed: int):
    """Make ``module.name`` (a write function) fail with ENOSPC after ``allowed`` calls."""
    real, calls = getattr(module, name), []

    def write(*args, **kwargs):
        calls.append(args)
        if len(calls) > allowed:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, write)


def test_full_disk_during_generate_writes_nothing(tmp_path, monkeypatch, capsys):
    from seams.project import writes

    root = copy_example(tmp_path, generated=False)
    before = snapshot(root)
    _disk_full_after(monkeypatch, writes, "temporary_beside", 1)  # the second file fails
    assert main(["generate", "--project", str(root)]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith("seams generate: ") and err.endswith(": cannot write: No space left on device; "
                                                               "no file was changed\n")
    assert snapshot(root) == before and not [p for p in root.rglob("*.tmp")]


def test_full_disk_while_storing_a_suggestion_stores_nothing(tmp_path, monkeypatch, capsys):
    from seams_cli.workflows.suggest import store

    root = copy_example(tmp_path)
    before = snapshot(root)
    answer = Path(__file__).parent / "fixtures" / "suggest" / "escalate.json"
    _disk_full_after(monkeypatch, store, "atomic_write", 2)  # the cache and one diff, then full
    assert main(["suggest", "--project", str(root), "--kind", "condition-to-dmn",
                 "--provider", f"{sys.executable} {SUGGEST_PROVIDER} {answer}"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot write: No space left on device" in err, err
    assert snapshot(root) == before
    assert [p.name for p in (root / ".seams" / "suggestions").iterdir()] == ["cache"]


# --- tampered suggestions and undo entries ---------------------------------------------


@pytest.fixture()
def pending(tmp_path, capsys) -> tuple[Path, str]:
    root = copy_example(tmp_path)
    answer = Path(__file__).parent / "fixtures" / "suggest" / "escalate.json"
    assert main(["suggest", "--project", str(root), "--kind", "condition-to-dmn",
                 "--provider", f"{sys.executable} {SUGGEST_PROVIDER} {answer}"]) == 0
    ident = capsys.readouterr().out.splitlines()[-2].removeprefix("suggestion ")
    return root, ident


def test_an_edited_suggestion_record_is_not_applied(pending):
    import json

    root, ident = pending
    record = root / ".seams" / "suggestions" / ident / "suggestion.json"
    data = json.loads(record.read_text())
    data["suggestion"]["decision"]["name"] = "Something else"  # routing kept, other bytes: only the diffs tell
    record.write_text(json.dumps(data))
    before = snapshot(root)
    one_line(run_seams("suggest", "--accept", ident, cwd=root), 1, f"suggestion {ident}",
             "differs from its reviewed diff", "run seams suggest again")
    assert snapshot(root) == before


def test_an_edited_diff_is_refused(pending):
    root, ident = pending
    diff = root / ".seams" / "suggestions" / ident / "model__leave.dmn.diff"
    diff.write_bytes(diff.read_bytes().replace(b"hr", b"HR"))
    before = snapshot(root)
    one_line(run_seams("suggest", "--accept", ident, cwd=root), 1,
             "differs from its reviewed diff model__leave.dmn.diff")
    assert snapshot(root) == before


def test_two_simultaneous_accepts_apply_once(pending):
    import subprocess

    root, ident = pending
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEAMS_")}
    runs = [subprocess.Popen([sys.executable, "-m", "seams_cli", "suggest", "--accept", ident], cwd=root, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    results = sorted((run.wait(timeout=120), run.stderr.read()) for run in runs)
    assert [code for code, _ in results] == [0, 1], results
    assert "no pending suggestion" in results[1][1]
    assert len(list((root / ".seams" / "undo").iterdir())) == 1
    undone = run_seams("undo", cwd=root)
    assert undone.returncode == 0 and undone.stderr == "", undone.stderr


def test_a_symlinked_undo_entry_is_refused(project, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "manifest.json").write_text('{"version": 1, "files": []}')
    (project / ".seams" / "undo").mkdir(parents=True)
    (project / ".seams" / "undo" / "000001-aaaaaaaaaaaa").symlink_to(outside)
    before = snapshot(project)
    one_line(run_seams("undo", cwd=project), 1, "000001-aaaaaaaaaaaa", "not a symlink")
    assert snapshot(project) == before


def test_a_missing_saved_file_in_an_undo_entry_is_one_line(pending, capsys):
    root, ident = pending
    assert main(["suggest", "--project", str(root), "--accept", ident]) == 0
    entry = next((root / ".seams" / "undo").iterdir())
    next(entry.glob("*.before")).unlink()
    before = snapshot(root)
    one_line(run_seams("undo", cwd=root), 1, "is missing; this entry cannot be undone")
    assert snapshot(root) == before


# --- accepted nonsense: now findings -------------------------------------------------
# (the BPMN edits follow Camunda Modeler's shapes: a sequenceFlow holding a
# bpmn:conditionExpression of xsi:type bpmn:tFormalExpression, ids like Task_X)


def check_lines(root: Path) -> list[str]:
    result = run_seams("check", cwd=root)
    assert result.returncode == 1 and result.stderr == "", result.stderr[-2000:]
    return result.stdout.splitlines()


def test_malformed_shapes_are_findings_and_stop_propose_before_the_provider(project):
    edit(trig(project), 'sh:pattern "^BK-[0-9]+$"', 'sh:pattern "^BK-[0-9+$"')
    edit(trig(project), "sh:maxLength 500", "sh:maxLength -5")
    edit(trig(project), 'sh:in ( "annual" "sick" "unpaid" )', 'sh:in "annual"')
    lines = check_lines(project)
    assert "shape ex:BookingShape sh:pattern: '^BK-[0-9+$' is not a regular expression: " \
           "unterminated character set at position 4" in lines
    assert "shape ex:ReviewForm sh:maxLength: -5 is not a length: expected an integer of 0 or more" in lines
    assert any(line.startswith("shape ex:LeaveForm sh:in: not a well-formed shape (SHACL-SHACL)") for line in lines)
    before = snapshot(project)
    provider = f"{sys.executable} -c 'raise SystemExit(3)'"  # never asked
    one_line(run_seams("propose", "record_leave", "--force", "--provider", provider, cwd=project), 1,
             "sh:pattern", "the shapes graph must be well-formed first")
    assert snapshot(project) == before


def test_an_ill_typed_literal_is_a_finding_not_a_logged_traceback(project):
    edit(trig(project), "seam:datatype xsd:integer .",
         'seam:datatype xsd:integer ; rdfs:comment "abc"^^xsd:integer .', 1)
    assert 'shape ex:days rdfs:comment: "abc" is not a valid xsd:integer' in check_lines(project)


def test_duplicate_ids_and_doubled_conditions_are_findings(project):
    bpmn = project / "model" / "leave.bpmn"
    edit(bpmn, '<![CDATA[days <= 20 and leave_type != "unpaid"]]></bpmn:conditionExpression>',
         '<![CDATA[days <= 20 and leave_type != "unpaid"]]></bpmn:conditionExpression>'
         '<bpmn:conditionExpression xsi:type="bpmn:tFormalExpression">days &gt; 1</bpmn:conditionExpression>')
    edit(bpmn, 'id="Task_CheckBalance"', 'id="Task_RecordLeave"', 1)
    lines = check_lines(project)
    assert "decision Task_RecordLeave: leave.bpmn has 2 elements with the id Task_RecordLeave; " \
           "ids must be unique in a file" in lines
    assert "decision Flow_Done bpmn:conditionExpression: leave.bpmn: the flow has 2 condition expressions; " \
           "a flow has at most one" in lines


def test_a_name_that_normalises_to_another_is_a_finding(project):
    edit(project / "model" / "leave.bpmn", '<![CDATA[days > 20 or leave_type == "unpaid"]]>',
         '<![CDATA[\uff44\uff41\uff59\uff53 > 20 or leave_type == "\uff55npaid"]]>')
    lines = [line for line in check_lines(project) if "NFKC" in line]
    assert lines == ["decision Flow_HR bpmn:conditionExpression: the name '\uff44\uff41\uff59\uff53' is 'days' after "
                     "Unicode normalisation (NFKC): Python would read 'days', an engine another name; "
                     "write it as 'days'"]  # the string literal is data, not a name: not reported
