"""``seams generate`` and the generated-file checks against ``seams.lock``."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from helpers import copy_example, edit, run_seams

from seams.generators.generate import generated_findings, write_generated
from seams.model.loading import load_model
from seams.project.layout import load_project
from seams_cli.main import main

GENERATED = ["generated/decisions.py", "generated/stubs/check_balance.py", "generated/stubs/record_leave.py"]


def _snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every project file with its mtime; .seams/ (gitignored: the project lock) aside."""
    return {p.relative_to(root).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(root.rglob("*")) if p.is_file() and ".seams" not in p.relative_to(root).parts}


def _findings(root: Path) -> list[str]:
    project = load_project(root)
    return [f.line() for f in generated_findings(project, load_model(project))]


def test_generate_writes_files_and_lock_then_a_second_run_changes_no_byte(tmp_path):
    root = copy_example(tmp_path, generated=False)
    handlers = {p: p.read_bytes() for p in (root / "handlers").rglob("*") if p.is_file()}
    first = run_seams("generate", cwd=root)
    assert first.returncode == 0, first.stderr
    assert first.stdout.splitlines() == [*(f"wrote {p}" for p in GENERATED), "wrote seams.lock", "unchanged 0"]
    lock = json.loads((root / "seams.lock").read_text(encoding="utf-8"))
    assert lock == {"drafts": [], "generated": {
        p: hashlib.sha256((root / p).read_bytes()).hexdigest() for p in GENERATED}}
    before = _snapshot(root)
    second = run_seams("generate", "--project", str(root), cwd=tmp_path)
    assert (second.returncode, second.stdout, second.stderr) == (0, "unchanged 3\n", "")
    assert _snapshot(root) == before
    assert {p: p.read_bytes() for p in (root / "handlers").rglob("*") if p.is_file()} == handlers


@pytest.fixture()
def generate(capsys, monkeypatch):
    """``seams generate`` run by the CLI's own main in this process, from the project root."""
    def run(root: Path, *args: str) -> tuple[int, str, str]:
        monkeypatch.chdir(root)
        code = main(["generate", *args])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run


def test_generate_keeps_the_drafts_of_the_lock(tmp_path, generate):
    root = copy_example(tmp_path, generated=False)
    draft = {"task": "https://example.org/leave/RecordLeave", "module": "handlers/record_leave.py",
             "context_hash": "c" * 64, "template": "draft-v1.txt", "provider": "p", "sha256": "d" * 64}
    (root / "seams.lock").write_text(json.dumps({"drafts": [draft], "generated": {}}), encoding="utf-8")
    assert generate(root)[0] == 0
    assert json.loads((root / "seams.lock").read_text(encoding="utf-8"))["drafts"] == [draft]


def test_before_generate_every_file_is_stale_after_it_none(tmp_path):
    root = copy_example(tmp_path, generated=False)
    assert _findings(root) == [f"generated-stale {p}: regenerating would add it; run seams generate" for p in GENERATED]
    write_generated(load_project(root), load_model(load_project(root)))
    assert _findings(root) == []


@pytest.fixture()
def generated(tmp_path) -> Path:
    root = copy_example(tmp_path, generated=False)
    project = load_project(root)
    write_generated(project, load_model(project))
    return root


def test_a_hand_edited_file_is_reported_once_as_hand_edited(generated):
    path = generated / "generated" / "decisions.py"
    path.write_text(path.read_text(encoding="utf-8") + "# mine\n", encoding="utf-8")
    assert _findings(generated) == [
        "generated-hand-edited generated/decisions.py: its sha256 differs from seams.lock; change the model or the generator instead, then run seams generate"]


def test_a_missing_generated_file_is_hand_edited(generated):
    (generated / "generated" / "stubs" / "record_leave.py").unlink()
    assert _findings(generated) == [
        "generated-hand-edited generated/stubs/record_leave.py: missing; seams.lock records it; run seams generate"]


def test_a_model_change_makes_the_file_stale(generated):
    edit(generated / "model" / "leave.dmn", '<text>"auto"</text>', '<text>"automatic"</text>')
    assert _findings(generated) == ["generated-stale generated/decisions.py: regenerating would change it; run seams generate"]


def test_a_file_the_lock_does_not_record_is_stale(generated):
    lock = json.loads((generated / "seams.lock").read_text(encoding="utf-8"))
    del lock["generated"]["generated/decisions.py"]
    (generated / "seams.lock").write_text(json.dumps(lock), encoding="utf-8")
    assert _findings(generated) == ["generated-stale generated/decisions.py: seams.lock does not record it yet; run seams generate"]


def test_a_file_no_generator_writes_any_more_is_stale_then_removed(generated, generate):
    edit(generated / "model" / "model.trig", 'seam:handler "record_leave"', 'seam:handler "book_leave"')
    assert _findings(generated) == [
        "generated-stale generated/stubs/book_leave.py: regenerating would add it; run seams generate",
        "generated-stale generated/stubs/record_leave.py: no generator produces it any more; run seams generate to remove it",
    ]
    code, out, _ = generate(generated)
    assert code == 0
    assert out.splitlines() == ["wrote generated/stubs/book_leave.py", "removed generated/stubs/record_leave.py",
                                "wrote seams.lock", "unchanged 2"]
    assert not (generated / "generated" / "stubs" / "record_leave.py").exists()
    assert _findings(generated) == []


def test_a_hand_edited_orphan_is_kept_and_dropped_from_the_lock(generated, generate):
    (generated / "generated" / "stubs" / "record_leave.py").write_text("# my notes\n", encoding="utf-8")
    edit(generated / "model" / "model.trig", 'seam:handler "record_leave"', 'seam:handler "book_leave"')
    _, out, _ = generate(generated)
    assert "kept generated/stubs/record_leave.py: edited by hand and no generator writes it any more; " \
           "dropped from seams.lock" in out.splitlines()
    assert (generated / "generated" / "stubs" / "record_leave.py").read_text(encoding="utf-8") == "# my notes\n"
    assert "generated/stubs/record_leave.py" not in json.loads((generated / "seams.lock").read_text())["generated"]


def test_a_failing_generator_writes_nothing_and_exits_1(tmp_path, generate):
    root = copy_example(tmp_path, generated=False)
    edit(root / "model" / "leave.dmn", "<text>&gt; 5</text>", "<text>&gt; days + 1</text>")
    before = _snapshot(root)
    code, out, err = generate(root)
    assert (code, out) == (1, "")
    assert err.startswith("seams generate: generator decisions: ex:ApprovalLevel dec:payloadElement: DMN Rule_Long "
                          "dmn:inputEntry: input \"days\": unexpected")
    assert _snapshot(root) == before


def test_an_unknown_generator_exits_2(tmp_path, generate):
    root = copy_example(tmp_path, generated=False)
    edit(root / "seams.toml", 'generators = ["stubs", "decisions"]', 'generators = ["stubs", "nosuch"]')
    code, _, err = generate(root)
    assert code == 2
    assert "unknown generator nosuch" in err


def test_model_option_picks_another_trig(tmp_path, generate):
    root = copy_example(tmp_path, generated=False)
    other = root / "model" / "other.trig"
    other.write_text((root / "model" / "model.trig").read_text(encoding="utf-8")
                     .replace('seam:handler "record_leave"', 'seam:handler "book_leave"'), encoding="utf-8")
    code, out, err = generate(root, "--model", "model/other.trig")
    assert code == 0, err
    assert "wrote generated/stubs/book_leave.py" in out.splitlines()
