"""The session runner: one isolated pytest session in a worker process, verdicts from reports."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import EXAMPLE, edit

from pytest_seams.expected import expected_items
from pytest_seams.runner import run_session
from seams.model.loading import load_model
from seams.project.layout import load_project

REAL = load_project(EXAMPLE)
EXPECTED = {task: expected_items(REAL, load_model(REAL), task=task)
            for task in (None, "check_balance", "record_leave")}
CHECK_BALANCE = EXAMPLE.joinpath("handlers", "check_balance.py").read_text(encoding="utf-8")
RECORD_LEAVE = "def handle(inputs, bindings):\n    return {'booking_ref': bindings.calendar()}\n"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return Path(shutil.copytree(EXAMPLE, tmp_path / "project",
                                ignore=shutil.ignore_patterns("__pycache__", ".seams", "generated")))


def handler(root: Path, name: str, source: str) -> Path:
    path = root / "handlers" / f"{name}.py"
    path.write_text(source, encoding="utf-8")
    return path


def outcomes(result) -> dict[str, str]:
    return {item.name: item.outcome for item in result.items}


def test_session_under_xdist_reports_every_item_with_its_findings(root):
    result = run_session(root, timeout=120, args=("-p", "xdist.plugin", "-n", "2"))
    assert result.error is None and not result.timed_out
    assert sorted(outcomes(result)) == sorted(EXPECTED[None])
    (item,) = [i for i in result.items if i.name == "seams.toml::record_leave::contract"]
    assert (item.gate, item.outcome) == ("contract", "failed")
    assert [f.line() for f in item.findings] == [
        "contract ex:RecordLeave seam:handler: handler module handlers.record_leave not found "
        "(handlers/record_leave.py); run seams propose record_leave, or write it from its stub "
        "(stubs/record_leave.py in the generated directory)"]
    booking = [n for n in EXPECTED[None] if "::scenario[" in n and "refuses" not in n]  # stop at record_leave
    assert sorted(i.name for i in result.failures()) == sorted(EXPECTED["record_leave"] + booking)
    assert result.passed_all(EXPECTED["check_balance"]) and not result.passed_all(EXPECTED[None])


def test_session_is_isolated_from_the_caller_and_from_secrets(root):
    """The judge's session gets a scrubbed environment; the handler's own process gets an
    empty one. The handler reports what it saw by failing with it."""
    handler(root, "check_balance", (
        "import json, os, sys, tempfile\n"
        "def handle(inputs, bindings):\n"
        "    open(tempfile.mktemp(), 'w').close()\n"
        "    raise RuntimeError(json.dumps({'env': dict(os.environ), 'home': os.environ.get('HOME'),\n"
        "                                   'no_bytecode': sys.dont_write_bytecode}))\n"))
    modules, path, cwd, env = set(sys.modules), list(sys.path), os.getcwd(), dict(os.environ)
    result = run_session(root, select="check_balance", timeout=60, env={
        **os.environ, "OPENAI_API_KEY": "sk-test", "my_token": "t", "SEAMS_PLAIN": "kept"})
    assert outcomes(result)["seams.toml::check_balance::import"] == "passed"
    (item,) = [i for i in result.items if i.name == "seams.toml::check_balance::example[annual leave left]"]
    seen = json.loads(item.findings[0].message.split("handle raised RuntimeError: ", 1)[1].rsplit(" (", 1)[0])
    assert set(seen["env"]) <= {"PYTHONHASHSEED", "PWD", "LC_CTYPE"}  # empty but for what Python sets
    assert seen["home"] is None and seen["no_bytecode"] is True
    assert not (root / ".seams").exists()  # the session's HOME and TMPDIR are gone
    assert not list(root.rglob("__pycache__")) and not (root / ".pytest_cache").exists()
    assert not [m for m in set(sys.modules) - modules if m.split(".")[0] in ("handlers", "pytest")]
    assert (sys.path, os.getcwd(), dict(os.environ)) == (path, cwd, env)


def test_next_session_imports_the_handler_fresh(root):
    path = handler(root, "check_balance", CHECK_BALANCE.replace("Decimal(str(left))", "Decimal(str(left+1))"))
    stamp = path.stat()
    first = run_session(root, select="check_balance", timeout=60)
    assert outcomes(first)["seams.toml::check_balance::example[annual leave left]"] == "failed"
    handler(root, "check_balance", CHECK_BALANCE.replace("Decimal(str(left))", "Decimal(str(left+0))"))
    os.utime(path, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))  # same size, same mtime: only fresh reads see it
    assert run_session(root, select="check_balance", timeout=60).passed_all(EXPECTED["check_balance"])


def test_hanging_session_is_stopped_with_everything_it_started(root):
    marker = f"seams-hang-{os.getpid()}-{time.monotonic_ns()}"
    handler(root, "check_balance", (
        "import subprocess, sys, time\n"
        "def handle(inputs, bindings):\n"
        f"    subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)', {marker!r}],\n"
        "                     start_new_session=True)\n"
        "    time.sleep(60)\n"))
    started = time.monotonic()
    result = run_session(root, select="check_balance", timeout=8)
    assert time.monotonic() - started < 25
    assert result.timed_out and "did not finish within 8 s" in result.error
    assert outcomes(result) == {"seams.toml::check_balance::import": "passed",
                                "seams.toml::check_balance::example[annual leave left]": "failed"}
    assert not result.passed_all(EXPECTED["check_balance"])
    assert all(_gone(pid) for pid in _with_marker(marker))


def _with_marker(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and marker.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def _gone(pid: int) -> bool:
    """Dead, or a zombie nobody reaped yet (PID 1 in a container may not)."""
    for _ in range(50):
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.05)
    return False


def test_exiting_or_skipping_drafts_never_pass(root):
    handler(root, "check_balance", "import pytest\n\ndef handle(inputs, bindings):\n    pytest.skip('later')\n")
    handler(root, "record_leave", "import sys\nsys.exit(0)\n")
    result = run_session(root, timeout=60)
    assert result.error is None
    assert outcomes(result)["seams.toml::check_balance::contract"] == "failed"  # a skip is an error there
    assert outcomes(result)["seams.toml::record_leave::import"] == "failed"
    assert not result.passed_all(EXPECTED["check_balance"])
    assert not result.passed_all(EXPECTED["record_leave"])

    handler(root, "record_leave", "import os\nos._exit(0)\n")
    died = run_session(root, select="record_leave", timeout=60)
    assert died.error is None and not died.timed_out  # only the handler's own process ended
    assert set(outcomes(died).values()) == {"failed"}
    (item,) = [i for i in died.items if i.name == "seams.toml::record_leave::import"]
    assert "the drafted code's process ended (exit status 0)" in item.findings[0].message
    assert not died.passed_all(EXPECTED["record_leave"])


def test_verdict_uses_the_real_models_examples_not_the_scratch_copys(root):
    handler(root, "record_leave", RECORD_LEAVE)
    trig = root / "model" / "model.trig"
    text = trig.read_text(encoding="utf-8")
    start = text.index('], [\n            rdfs:label "unpaid leave is booked"')
    trig.write_text(text[:start] + text[text.index("] .", start):], encoding="utf-8")
    result = run_session(root, select="record_leave", timeout=60)
    assert [i.outcome for i in result.items] == ["passed"] * 3  # one example fewer, all passing
    assert not result.passed_all(EXPECTED["record_leave"])


def test_model_that_cannot_load_is_a_collection_error(root):
    edit(root / "model" / "model.trig", "ex:CheckBalance a seam:ServiceTask ;", "ex:CheckBalance a seam:ServiceTask ; ]")
    result = run_session(root, select="check_balance", timeout=60)
    (item,) = result.items
    assert (item.name, item.gate, item.outcome) == ("seams.toml", "collect", "error")
    assert item.text.startswith("seams: model/model.trig:") and "TriG syntax error" in item.text
    assert not result.passed_all(EXPECTED["check_balance"]) and result.failures() == [item]


def test_select_a_sub_directory_runs_only_what_is_collected_there(root):
    (root / "extra").mkdir()
    (root / "extra" / "test_one.py").write_text("def test_one():\n    assert True\n", encoding="utf-8")
    result = run_session(root, select="extra", timeout=60)
    assert [(i.name, i.gate, i.outcome) for i in result.items] == [("extra/test_one.py::test_one", "test", "passed")]
    assert result.passed_all(["extra/test_one.py::test_one"]) and not result.passed_all([])


def test_a_signal_mid_session_ends_everything_it_started(root, tmp_path):
    """SIGTERM to the caller while a handler hangs: the worker's group (judge and sandboxed
    handler, with what it started) is killed and the session's directories are removed."""
    marker = f"seams-signal-{os.getpid()}-{time.monotonic_ns()}"
    handler(root, "check_balance", (
        "import subprocess, sys, time\n"
        "def handle(inputs, bindings):\n"
        f"    subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)', {marker!r}])\n"
        "    time.sleep(60)\n"))
    caller = subprocess.Popen([sys.executable, "-c", (
        "import sys\nfrom pathlib import Path\nfrom pytest_seams.runner import run_session\n"
        "run_session(Path(sys.argv[1]), select='check_balance', timeout=120)\n"), str(root)])
    deadline = time.monotonic() + 60
    while not _with_marker(marker) and time.monotonic() < deadline and caller.poll() is None:
        time.sleep(0.1)
    assert _with_marker(marker), "the handler never started"
    caller.send_signal(signal.SIGTERM)
    assert caller.wait(timeout=30) == 128 + signal.SIGTERM
    assert all(_gone(pid) for pid in _with_marker(marker)), _with_marker(marker)
    assert not (root / ".seams").exists()
