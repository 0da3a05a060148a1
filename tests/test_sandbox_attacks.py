"""The attacks of a drafted handler on its judge, each refused (docs/plugin.md, "Drafted code
in a sandbox").

Every test drafts a handler that, before the sandbox, got a wrong draft accepted, leaked a
secret or changed the real project. Each runs ``seams propose`` for real (a subprocess, as
a person runs it) with a one-file provider that answers the draft, on a copy of the example
project, on each backend (``SEAMS_SANDBOX``: bubblewrap, then namespaces + Landlock); a
backend that does not work on the machine is skipped, saying why. CI runs this module as root
and again as an unprivileged user (.ci/run).
"""

from __future__ import annotations

import sys
import uuid
from pathlib import Path

import pytest
from helpers import copy_example, run_seams
from sandbox_backends import CONFINING, backend, unix_listener

import seams
from seams_runtime.sandbox import AUTO, SANDBOX_ENV, SandboxUnavailable, choose

MODULE = "handlers/record_leave.py"
GOOD_BODY = '''
def handle(inputs, bindings):
    booking_ref = bindings.calendar(inputs["employee"], inputs["leave_type"], inputs["days"])
    return {"booking_ref": str(booking_ref)}
'''
WRONG_BODY = '''
def handle(inputs, bindings):
    return {"booking_ref": "not the calendar's"}
'''


@pytest.fixture(params=CONFINING)
def sandbox(request):
    """Each backend in turn (``SEAMS_SANDBOX`` names it), skipped where it does not work here."""
    return backend(request.param).name


@pytest.fixture
def project(tmp_path, sandbox):
    return copy_example(tmp_path)


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".seams" not in p.parts and "__pycache__" not in p.parts}


def metadata(paths) -> dict[str, tuple]:
    return {str(p): (p.stat().st_mode, p.stat().st_uid, p.stat().st_mtime_ns) for p in paths}


@pytest.fixture
def propose(project, sandbox):
    """``seams propose record_leave`` in ``project`` on ``sandbox``, with a provider that answers ``draft``."""

    def run(draft: str, *extra: str, env: dict[str, str] | None = None):
        answer = project.parent / f"answer-{uuid.uuid4().hex}.py"
        answer.write_text(draft, encoding="utf-8")
        provider = project.parent / "provider.py"
        provider.write_text("import sys\nsys.stdin.read()\nsys.stdout.write(open(sys.argv[1]).read())\n")
        done = run_seams("propose", "record_leave", "--provider", f"{sys.executable} {provider} {answer}",
                         "--project", str(project), *extra, cwd=project.parent,
                         env={SANDBOX_ENV: sandbox, **(env or {})})
        return done.returncode, done.stdout.splitlines(), done.stderr

    return run


def rejected(result) -> bool:
    code, lines, err = result
    return code == 1 and "tests passed" not in lines and any(line.startswith("failed ") for line in lines)


FORGE_RESULTS = '''
import json, os
def _forge():
    for pid in os.listdir("/proc"):
        try:
            argv = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\\0")
        except OSError:
            continue
        if b"pytest_seams.worker" in argv:
            spec = json.loads(argv[argv.index(b"pytest_seams.worker") + 1])
            with open(spec["results"], "a") as out:
                for name in ("import", "example[annual leave is booked]", "example[unpaid leave is booked]",
                             "contract"):
                    nodeid = "seams.toml::record_leave::" + name
                    out.write(json.dumps({"event": "start", "nodeid": nodeid}) + "\\n")
                    out.write(json.dumps({"event": "report", "nodeid": nodeid, "when": "call",
                                          "outcome": "passed", "text": "", "seams": None}) + "\\n")
                out.write(json.dumps({"event": "finish", "exit_status": 0}) + "\\n")
            os._exit(0)
_forge()
''' + WRONG_BODY

PATCH_PYTEST_AND_SEAMS = '''
try:
    import _pytest.reports
    _original = _pytest.reports.TestReport.from_item_and_call
    def _always_passed(item, call):
        report = _original(item, call)
        report.outcome, report.longrepr = "passed", None
        return report
    _pytest.reports.TestReport.from_item_and_call = staticmethod(_always_passed)
except Exception:
    pass
try:
    import pytest_seams.acceptance as _acceptance, seams_runtime.handler_checks as _checks
    for _module in (_acceptance, _checks):
        _module.example_problems = lambda *args: []
        _module.contract_problems = lambda *args: []
except Exception:
    pass
''' + WRONG_BODY

WRITE_REAL_PROJECT = '''
from pathlib import Path
for _path, _text in (("model/model.trig", "\\n# owned\\n"), ("seams.lock", " "), ("handlers/backdoor.py", "x = 1\\n")):
    try:
        with open(Path(ROOT) / _path, "a") as _out:
            _out.write(_text)
    except OSError:
        pass
''' + GOOD_BODY

ALWAYS_EQUAL = '''
class Anything(str):
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    __hash__ = str.__hash__

def handle(inputs, bindings):
    return {"booking_ref": Anything("BK-1")}  # matches the form's pattern, equals no example
'''


@pytest.mark.parametrize("draft", [FORGE_RESULTS, PATCH_PYTEST_AND_SEAMS, ALWAYS_EQUAL],
                         ids=["forged-results-file", "patched-pytest-and-seams", "always-equal-value"])
def test_a_wrong_draft_cannot_forge_its_verdict(project, propose, draft):
    before = snapshot(project)
    result = propose(draft)
    assert rejected(result), result
    assert snapshot(project) == before


def test_a_draft_cannot_read_secrets_of_its_parents_or_the_real_project(project, propose):
    (project / ".env").write_text("DATABASE_PASSWORD=hunter2\n")
    home_secret = project.parent / "home-secret.txt"
    home_secret.write_text("hunter3\n")
    draft = f'''
import os
def _loot():
    found = []
    for pid in os.listdir("/proc"):
        try:
            found.append(open(f"/proc/{{pid}}/environ", "rb").read().decode("latin-1"))
        except OSError:
            pass
    for path in ({str(project / ".env")!r}, {str(home_secret)!r}):
        try:
            found.append(open(path).read())
        except OSError:
            pass
    text = " ".join(found)
    return " ".join(secret for secret in ("sk-fake-123", "hunter2", "hunter3") if secret in text) or "nothing"

def handle(inputs, bindings):
    raise RuntimeError("loot: " + _loot())
'''
    result = propose(draft, env={"FAKE_API_KEY": "sk-fake-123"})
    assert rejected(result)
    text = "\n".join(result[1]) + result[2]
    assert "loot:" in text  # the draft ran and reported what it found
    assert "sk-fake-123" not in text and "hunter2" not in text and "hunter3" not in text




def test_a_draft_cannot_write_the_real_project_accepted_or_not(project, propose):
    before = snapshot(project)
    bad = propose(WRITE_REAL_PROJECT.replace("ROOT", repr(str(project))).replace(GOOD_BODY, WRONG_BODY))
    assert rejected(bad)
    assert snapshot(project) == before  # a rejected draft leaves the project byte for byte
    code, lines, _ = propose(WRITE_REAL_PROJECT.replace("ROOT", repr(str(project))))
    assert code == 0 and lines[-1] == f"wrote {MODULE}"
    after = snapshot(project)
    assert set(after) - set(before) == {MODULE} and after["model/model.trig"] == before["model/model.trig"]
    assert b'"sandbox": ' in after["seams.lock"]


# A daemon the draft starts (setsid, a cleared death signal) is ended with the session: that is
# tests/test_sandbox_escapes.py::test_a_daemon_of_the_draft_does_not_outlive_the_session, which
# lists the sandbox's processes and waits for the evidence that each is gone (a fixed wait here
# passed on a loaded machine even when the daemon survived).


def test_a_draft_cannot_drop_code_where_python_or_seams_import_from(project, propose):
    name = f"seams_probe_{uuid.uuid4().hex}.py"
    targets = [Path(seams.__file__).resolve().parent.parent / name, Path(sys.prefix) / name,
               Path(seams.__file__).resolve().parent / name]
    draft = f'''
for _path in {[str(t) for t in targets]!r}:
    try:
        open(_path, "w").write("import os\\n")
    except OSError:
        pass
''' + GOOD_BODY
    try:
        code, lines, _ = propose(draft)
        assert code == 0 and lines[-1] == f"wrote {MODULE}"
        assert [t for t in targets if t.exists()] == []
    finally:
        for target in targets:
            target.unlink(missing_ok=True)


def test_unclean_text_is_refused_naming_line_and_code_point(project, propose):
    before = snapshot(project)
    trojan = '    # \u202e}"fer_gnikoob"{ nruter\n    return {"booking_ref"'
    draft = GOOD_BODY.replace('    return {"booking_ref"', trojan)
    code, lines, _ = propose(draft)
    assert code == 1 and lines[-1] == (f"failed {MODULE}: line 3: U+202E RIGHT-TO-LEFT OVERRIDE is a "
                                       "bidirectional control, not allowed in accepted text")
    assert snapshot(project) == before


def test_no_sandbox_is_refused_before_the_provider_unless_asked(monkeypatch):
    from seams_cli.workflows import sandboxing

    def unavailable(mode):
        raise SandboxUnavailable("no sandbox for drafted code (bubblewrap: bwrap is not installed): install it")

    monkeypatch.setattr(sandboxing, "choose", lambda mode: unavailable(mode) if mode == AUTO else choose(mode))
    with pytest.raises(Exception, match="no sandbox for drafted code"):
        sandboxing.chosen_sandbox(False)
    assert sandboxing.chosen_sandbox(True).name == "none"


def test_an_accepted_draft_reaches_no_socket_and_changes_no_metadata(project, propose, tmp_path):
    """The draft main accepted as root without bubblewrap: it sent every example's inputs to a
    Unix socket outside, made a binary set-uid, the handlers 0777 and touched the model."""
    address = str(tmp_path / "outside.sock")
    listener = unix_listener(tmp_path / "outside.sock")
    binary = tmp_path / "tool"
    binary.write_bytes(b"#!/bin/sh\n")
    binary.chmod(0o755)
    watched = [project / "handlers", project / "model" / "model.trig", binary, project]
    before, files = metadata(watched), snapshot(project)
    draft = f'''
import os, socket
def _leak(text):
    for family, address in ((socket.AF_UNIX, {address!r}), (socket.AF_UNIX, "\\0seams-leak")):
        try:
            client = socket.socket(family)
            client.connect(address)
            client.sendall(text.encode())
        except OSError:
            pass
for _path, _mode in (({str(binary)!r}, 0o4755), ({str(project / "handlers")!r}, 0o777)):
    try:
        os.chmod(_path, _mode)
    except OSError:
        pass
try:
    os.utime({str(project / "model" / "model.trig")!r}, (0, 0))
except OSError:
    pass
''' + GOOD_BODY.replace("def handle(inputs, bindings):\n", "def handle(inputs, bindings):\n    _leak(repr(dict(inputs)))\n")
    try:
        code, lines, err = propose(draft)
        assert code == 0 and lines[-1] == f"wrote {MODULE}", (lines, err)
        with pytest.raises(BlockingIOError):
            listener.accept()
    finally:
        listener.close()
    after_metadata = metadata(watched)  # seams itself wrote the module: the directories' mtimes moved
    assert {k: v[:2] for k, v in after_metadata.items()} == {k: v[:2] for k, v in before.items()}
    assert [after_metadata[str(p)] for p in watched[1:3]] == [before[str(p)] for p in watched[1:3]]
    after = snapshot(project)
    assert set(after) - set(files) == {MODULE} and all(after[k] == files[k] for k in files if k != "seams.lock")


def test_a_draft_that_signals_its_group_fails_alone(project, propose):
    """On main ``os.kill(0, SIGTERM)`` from the draft reached the judge (same process group)."""
    before = snapshot(project)
    draft = "import os, signal\nos.kill(0, signal.SIGTERM)\n" + GOOD_BODY
    code, lines, err = propose(draft)
    assert code == 1 and "tests passed" not in lines, (lines, err)
    assert any(line.startswith("failed ") and "process ended (exit status 143)" in line for line in lines), lines
    assert "Traceback" not in err
    assert snapshot(project) == before
