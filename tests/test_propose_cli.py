"""``seams propose``: exact lines, exit codes, the cache, and nothing written on failure.

Every provider here is a fake (tests/fixtures/providers/fake.py) or the
example's recorded-answer provider; nothing calls an LLM.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shlex
import sys
import time
from pathlib import Path

import pytest
from helpers import edit, run_seams

from seams.model.context import context_for
from seams.model.loading import load_model
from seams.project.layout import load_project
from seams_cli.main import main
from seams_cli.workflows.sandboxing import chosen_sandbox

FAKE = Path(__file__).parent / "fixtures" / "providers" / "fake.py"
TASK = "https://example.org/leave/RecordLeave"
MODULE = "handlers/record_leave.py"


def fake(mode: str, *args: str) -> str:
    return shlex.join([sys.executable, str(FAKE), mode, *args])


def snapshot(root: Path, *, cache: bool = True) -> dict[str, bytes]:
    """Every file of the project (and of .seams unless ``cache`` is False), by relative path."""
    files = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and (cache or not rel.startswith(".seams/")) and "__pycache__" not in rel:
            files[rel] = path.read_bytes()
    return files


def context_hash(root: Path) -> str:
    project = load_project(root)
    return context_for(load_model(project), TASK).hash


def set_timeout(root: Path, seconds: int) -> None:
    edit(root / "seams.toml", "timeout = 120", f"timeout = {seconds}")


@pytest.fixture
def propose(capsys, monkeypatch, tmp_path):
    """Run ``seams propose ARGS --project ROOT`` in-process -> (exit, stdout lines, stderr)."""
    log = tmp_path / "provider.log"
    monkeypatch.setenv("FAKE_PROVIDER_LOG", str(log))
    monkeypatch.delenv("SEAMS_LLM_MODEL", raising=False)
    monkeypatch.delenv("SEAMS_MODEL", raising=False)

    def run(root: Path, *args: str) -> tuple[int, list[str], str]:
        code = main(["propose", *args, "--project", str(root)])
        out, err = capsys.readouterr()
        return code, out.splitlines(), err

    run.calls = lambda: log.read_text().splitlines() if log.exists() else []
    return run


def test_recorded_provider_end_to_end_then_a_cache_hit(example_project):
    """The README walkthrough, ``seams propose record_leave`` in the example; then a re-run
    whose provider would fail if it ran: the cached answer is used, and passes again."""
    started = time.monotonic()
    result = run_seams("propose", "record_leave", cwd=example_project)
    miss = time.monotonic() - started
    assert result.returncode == 0, result.stderr
    written = (example_project / MODULE).read_bytes()
    digest = hashlib.sha256(written).hexdigest()
    assert result.stdout.splitlines() == [
        f"task {TASK}", f"context {context_hash(example_project)}", "template draft-v2.txt",
        "provider python3 provider/recorded.py", "cache miss", f"draft {digest}", "tests passed",
        f"wrote {MODULE}"]
    assert result.stderr == ""
    assert not written.startswith(b"```") and written.endswith(b"}\n")
    lock = json.loads((example_project / "seams.lock").read_text())
    assert lock["drafts"] == [{
        "context_hash": context_hash(example_project), "module": MODULE,
        "provider": "python3 provider/recorded.py", "sha256": digest, "task": TASK,
        "template": "draft-v2.txt", "sandbox": chosen_sandbox(False).record()}]
    assert (example_project / ".seams" / ".gitignore").read_text() == "*\n"

    (example_project / "provider" / "recorded.py").write_text(
        "import sys\nprint('called although cached', file=sys.stderr)\nsys.exit(9)\n")
    started = time.monotonic()
    again = run_seams("propose", "ex:RecordLeave", "--force", cwd=example_project)
    hit = time.monotonic() - started
    assert (again.returncode, again.stderr) == (0, ""), again.stderr
    assert again.stdout.splitlines() == result.stdout.splitlines()[:4] + [
        "cache hit", f"draft {digest}", "tests passed", f"wrote {MODULE}"]
    print(f"propose end to end: cache miss {miss:.2f} s, cache hit {hit:.2f} s")


def test_named_model_reaches_the_provider_and_the_cache_key(example_project, propose, monkeypatch):
    """The ``model`` fake answers invalid Python naming its model: rejected before any session."""
    command = fake("model")
    runs = [propose(example_project, "record_leave", "--provider", command, *extra)
            for extra in (["--llm-model", "m1"], ["--llm-model", "m2"], ["--llm-model", "m1"])]
    assert [lines[3:6] for _, lines, _ in runs] == [
        [f"provider {command}", "llm-model m1", "cache miss"],
        [f"provider {command}", "llm-model m2", "cache miss"],
        [f"provider {command}", "llm-model m1", "cache hit (rejected before; --refresh to ask again)"]]
    assert runs[0][1][6] == runs[2][1][6] != runs[1][1][6]  # the draft lines
    monkeypatch.setenv("SEAMS_LLM_MODEL", "inherited")
    code, lines, _ = propose(example_project, "record_leave", "--provider", command)
    assert code == 1 and lines[4] == "cache miss" and "llm-model" not in " ".join(lines)
    edit(example_project / "seams.toml", "timeout = 120", 'timeout = 120\nmodel = "from-config"')
    code, lines, _ = propose(example_project, "record_leave", "--provider", command)
    assert lines[4:6] == ["llm-model from-config", "cache miss"]
    assert propose.calls() == ["model m1", "model m2", "model <none>", "model from-config"]


@pytest.mark.parametrize("command, message", [
    ("no-such-provider-cmd --x", "provider executable not found: no-such-provider-cmd"),
    (fake("fail"), "exited with status 3: quota exceeded for this key"),
    (fake("silent"), "printed nothing"),
    (fake("binary"), "printed output that is not UTF-8"),
    (fake("flood"), "printed more than 1048576 bytes"),
])
def test_provider_failure_exits_1_and_changes_nothing(example_project, propose, command, message):
    before = snapshot(example_project)
    code, lines, err = propose(example_project, "record_leave", "--provider", command)
    assert code == 1
    assert lines[-1] == "cache miss"
    assert len(err.splitlines()) == 1 and err.startswith("seams propose: provider ") and message in err
    assert snapshot(example_project) == before  # no module, no lock, nothing cached


def _gone(pid: int) -> bool:
    try:
        return "\nState:\tZ" in Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to look at processes")
def test_hanging_provider_is_killed_with_its_children(example_project, propose, tmp_path):
    set_timeout(example_project, 2)
    before = snapshot(example_project)
    pid_file = tmp_path / "child.pid"
    code, _, err = propose(example_project, "record_leave", "--provider", fake("sleep", str(pid_file)))
    assert code == 1 and err == f"seams propose: provider {sys.executable} timed out after 2 s\n"
    child = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while not _gone(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(child)
    assert snapshot(example_project) == before


def test_invalid_python_is_rejected_and_the_answer_cached(example_project, propose):
    before = snapshot(example_project, cache=False)
    code, lines, err = propose(example_project, "record_leave", "--provider", fake("syntax"))
    assert (code, err) == (1, "")
    assert lines[-1] == f"failed {MODULE}: not valid Python: expected ':' (line 1)"
    assert snapshot(example_project, cache=False) == before
    cached = sorted(p.suffix for p in (example_project / ".seams" / "drafts").iterdir())
    assert cached == [".py", ".rejected"]  # the answer, and the note that it was rejected
    code, again, _ = propose(example_project, "record_leave", "--provider", fake("syntax"))
    assert code == 1 and again[-1] == lines[-1]
    assert again[4] == "cache hit (rejected before; --refresh to ask again)"
    assert propose.calls() == ["syntax <none>"]


def test_refresh_asks_again_and_a_better_answer_replaces_the_rejected_one(example_project, propose):
    """A rejected answer replays as such until --refresh asks the (fixed) provider again."""
    mode = example_project / "provider" / "mode.txt"
    command = shlex.join([sys.executable, str(FAKE), "--mode-file", str(mode)])
    mode.write_text("syntax")
    code, lines, _ = propose(example_project, "record_leave", "--provider", command)
    assert (code, lines[4]) == (1, "cache miss")
    mode.write_text("good")  # the provider is fixed, but the same key still holds the old answer
    code, lines, _ = propose(example_project, "record_leave", "--provider", command)
    assert (code, lines[4]) == (1, "cache hit (rejected before; --refresh to ask again)")
    code, lines, _ = propose(example_project, "record_leave", "--provider", command, "--refresh")
    assert (code, lines[4], lines[-1]) == (0, "cache miss (--refresh)", f"wrote {MODULE}")
    code, lines, _ = propose(example_project, "record_leave", "--provider", command, "--force")
    assert (code, lines[4]) == (0, "cache hit")  # the accepted answer replaced the rejected one
    assert propose.calls() == ["syntax <none>", "good <none>"]


def test_failing_draft_names_each_failed_test(example_project, propose):
    before = snapshot(example_project, cache=False)
    code, lines, err = propose(example_project, "record_leave", "--provider", fake("wrong"))
    assert (code, err) == (1, "")
    failed = [line for line in lines if line.startswith("failed ")]
    assert lines[-len(failed):] == failed and "tests passed" not in lines
    assert [line.split(": ")[0] for line in failed] == [
        "failed seams.toml::record_leave::example[annual leave is booked]",
        "failed seams.toml::record_leave::example[unpaid leave is booked]"]
    assert "'BK-1', expected 'BK-1042'" in failed[0]
    assert snapshot(example_project, cache=False) == before


def test_hanging_draft_times_out(example_project, propose):
    set_timeout(example_project, 8)  # each item starts a sandboxed executor: leave it time to reach one
    before = snapshot(example_project, cache=False)
    code, lines, _ = propose(example_project, "record_leave", "--provider", fake("hang"))
    assert code == 1 and lines[-1].startswith("failed ") and "tests passed" not in lines
    assert any("did not finish within 8 s" in line for line in lines)
    assert snapshot(example_project, cache=False) == before


def test_draft_cannot_read_secrets_or_write_outside_its_copy(example_project, propose, monkeypatch, tmp_path):
    """The draft's process has an empty environment and no home, and sees neither the
    caller's HOME and TMPDIR nor the project (docs/propose.md)."""
    home, tmp = tmp_path / "home", tmp_path / "tmp"
    home.mkdir()
    tmp.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.setenv("DATABASE_URL", "postgres://user:hunter2@db/prod")
    before = snapshot(example_project, cache=False)
    code, lines, _ = propose(example_project, "record_leave", "--provider", fake("snoop"))
    assert code == 1
    failed = [line for line in lines if line.startswith("failed ")]
    assert failed and all("handle raised" in line and "hunter2" not in line for line in failed[:2])
    assert list(home.iterdir()) == [] and list(tmp.iterdir()) == []
    assert snapshot(example_project, cache=False) == before


def test_existing_module_needs_force_and_costs_no_call(example_project, propose, monkeypatch):
    (example_project / MODULE).write_text("# mine\n")
    before = snapshot(example_project)
    code, lines, err = propose(example_project, "record_leave", "--provider", fake("must-not-run"))
    assert (code, lines) == (1, [])
    assert err == f"seams propose: {MODULE} exists; use --force to replace it\n"
    assert snapshot(example_project) == before and propose.calls() == []

    from seams.project import writes
    real_temporary = writes.temporary_beside

    def disk_full_for_the_lock(target, content):
        if target.name == "seams.lock":
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_temporary(target, content)

    args = ("record_leave", "--provider", fake("good"), "--overwrite", "--llm-model", "m1",
            "--model", str(example_project / "model" / "model.trig"))
    with monkeypatch.context() as patch:  # a full disk: neither the module nor the lock is written
        patch.setattr(writes, "temporary_beside", disk_full_for_the_lock)
        code, lines, err = propose(example_project, *args)
    assert (code, lines[-1], err) == (1, "tests passed", "seams propose: seams.lock: cannot write: "
                                                         "No space left on device; no file was changed\n")
    assert snapshot(example_project, cache=False) == before
    code, lines, _ = propose(example_project, *args)
    assert code == 0 and lines[5] == "cache hit" and lines[-2:] == ["tests passed", f"wrote {MODULE}"]
    assert "# answered by llm model: m1" in (example_project / MODULE).read_text()
    assert json.loads((example_project / "seams.lock").read_text())["drafts"][0]["model"] == "m1"


@pytest.mark.parametrize("args, message", [
    (["nope"], "seams propose: nope: no service task has this IRI, prefixed name, BPMN id or handler "
               "(candidates: ex:CheckBalance (check_balance, Task_CheckBalance), "
               "ex:RecordLeave (record_leave, Task_RecordLeave))"),
    (["Task_Submit"], "seams propose: Task_Submit: ex:SubmitRequest is not a service task"),
    (["record_leave", "--llm-model", ""], "seams propose: propose.model (--llm-model) must be a non-empty string"),
])
def test_project_errors_exit_2_before_any_call(example_project, propose, args, message):
    before = snapshot(example_project)
    code, lines, err = propose(example_project, *args, "--provider", fake("must-not-run"))
    assert (code, lines) == (2, [])
    assert err.startswith(message) and len(err.splitlines()) == 1
    assert snapshot(example_project) == before and propose.calls() == []


def test_missing_provider_config_is_a_project_error(example_project, propose):
    edit(example_project / "seams.toml", 'provider = "python3 provider/recorded.py"\n', "")
    code, _, err = propose(example_project, "record_leave")
    assert code == 2 and "no provider: set propose.provider or pass --provider" in err


def test_malformed_lock_fails_before_the_call(example_project, propose):
    (example_project / "seams.lock").write_text("{not json")
    before = snapshot(example_project)
    code, _, err = propose(example_project, "record_leave", "--provider", fake("must-not-run"))
    assert code == 2 and err.startswith("seams propose: seams.lock: not valid JSON")
    assert snapshot(example_project) == before and propose.calls() == []


def test_handler_outside_the_handlers_package_is_refused(example_project, propose, tmp_path):
    outside = tmp_path / "elsewhere.py"
    outside.write_text("x = 1\n")
    (example_project / MODULE).symlink_to(outside)
    code, _, err = propose(example_project, "record_leave", "--provider", fake("must-not-run"), "--force")
    assert code == 2 and "is outside the handlers directory handlers" in err
    assert outside.read_text() == "x = 1\n" and propose.calls() == []


def test_handler_name_that_is_no_module_name_is_refused(example_project, propose):
    edit(example_project / "model" / "model.trig", 'seam:handler "record_leave"', 'seam:handler "../evil"')
    code, _, err = propose(example_project, "Task_RecordLeave", "--provider", fake("must-not-run"))
    assert code == 2 and err == "seams propose: ex:RecordLeave seam:handler: '../evil' is not a module name\n"
    assert not (example_project.parent / "evil.py").exists()


def test_scratch_copy_holds_only_the_allow_list(example_project, tmp_path):
    """Unrelated trees are never read; symlinks, hidden entries and bytecode are not copied."""
    from seams_cli.workflows.scratch import scratch_project

    root = example_project
    for junk in (".git/objects/ab", ".venv/lib", "node_modules/x", "data/big", ".seams/drafts",
                 "handlers/__pycache__", "handlers/.hidden"):
        (root / junk).mkdir(parents=True)
        (root / junk / "f").write_text("junk")
    (root / "handlers" / "sub").mkdir()
    (root / "handlers" / "sub" / "helper.py").write_text("X = 1\n")
    (root / "handlers" / "linked.py").symlink_to(tmp_path / "outside.py")
    (root / "seams.lock").write_text('{"drafts": [], "generated": {}}\n')
    outside_model = tmp_path / "elsewhere" / "model.trig"
    outside_model.parent.mkdir()
    for name in ("model.trig", "leave.bpmn", "leave.dmn"):
        (outside_model.parent / name).write_bytes((root / "model" / name).read_bytes())
    for model_arg in (None, outside_model):
        project = load_project(root, model=model_arg)
        model = load_model(project)
        with scratch_project(project, model) as scratch:
            copied = sorted(p.relative_to(scratch.root).as_posix() for p in scratch.root.rglob("*") if p.is_file())
            assert copied == ["handlers/__init__.py", "handlers/check_balance.py", "handlers/sub/helper.py",
                              "model/leave.bpmn", "model/leave.dmn", "model/model.trig", "seams.lock",
                              "seams.toml"]
            assert scratch.model_path == scratch.root / "model" / "model.trig"
            env = scratch.env({"PATH": "/bin", "AWS_SECRET_ACCESS_KEY": "x", "DATABASE_URL": "y", "HOME": "/h"})
            assert env == {"PATH": "/bin", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0",
                           "SEAMS_MODEL": str(scratch.model_path)}
        assert not scratch.root.exists()
