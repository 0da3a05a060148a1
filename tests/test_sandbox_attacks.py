"""The attacks of a drafted handler on its judge, each refused (docs/plugin.md, "Drafted code
in a sandbox").

Every test drafts a handler that, before the sandbox, got a wrong draft accepted, leaked a
secret or changed the real project. Each runs ``seams propose`` for real (a subprocess, as
a person runs it) with a one-file provider that answers the draft, on a copy of the example
project. Where no sandbox works on the machine the tests skip, saying why.
"""

from __future__ import annotations

import hashlib
import sys
import time
import uuid
from pathlib import Path

import pytest
from helpers import copy_example, run_seams

import seams
from seams_runtime.sandbox import AUTO, SandboxUnavailable, choose

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


@pytest.fixture(scope="module")
def sandbox():
    try:
        return choose(AUTO)
    except SandboxUnavailable as exc:
        pytest.skip(f"no sandbox on this machine: {exc}")


@pytest.fixture
def project(tmp_path, sandbox):
    return copy_example(tmp_path)


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".seams" not in p.parts and "__pycache__" not in p.parts}


def propose(root: Path, draft: str, *extra: str, env: dict[str, str] | None = None):
    """``seams propose record_leave`` with a provider that answers ``draft``."""
    answer = root.parent / f"answer-{uuid.uuid4().hex}.py"
    answer.write_text(draft, encoding="utf-8")
    provider = root.parent / "provider.py"
    provider.write_text("import sys\nsys.stdin.read()\nsys.stdout.write(open(sys.argv[1]).read())\n")
    done = run_seams("propose", "record_leave", "--provider", f"{sys.executable} {provider} {answer}",
                     "--project", str(root), *extra, cwd=root.parent, env=env)
    return done.returncode, done.stdout.splitlines(), done.stderr


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
def test_a_wrong_draft_cannot_forge_its_verdict(project, draft):
    before = snapshot(project)
    result = propose(project, draft)
    assert rejected(result), result
    assert snapshot(project) == before


@pytest.mark.parametrize("draft", [FORGE_RESULTS, WRITE_REAL_PROJECT], ids=["forged-results-file", "writes"])
def test_the_namespaces_fallback_refuses_the_same_attacks(project, draft):
    """SEAMS_SANDBOX=namespaces: the kernel-only backend (unshare + Landlock) judges."""
    try:
        choose("namespaces")
    except SandboxUnavailable as exc:
        pytest.skip(str(exc))
    before = snapshot(project)
    draft = draft.replace("ROOT", repr(str(project))).replace(GOOD_BODY, WRONG_BODY)
    result = propose(project, draft, env={"SEAMS_SANDBOX": "namespaces"})
    assert rejected(result), result
    assert snapshot(project) == before


def test_a_draft_cannot_read_secrets_of_its_parents_or_the_real_project(project):
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
    result = propose(project, draft, env={"FAKE_API_KEY": "sk-fake-123"})
    assert rejected(result)
    text = "\n".join(result[1]) + result[2]
    assert "loot:" in text  # the draft ran and reported what it found
    assert "sk-fake-123" not in text and "hunter2" not in text and "hunter3" not in text




def test_a_draft_cannot_write_the_real_project_accepted_or_not(project):
    before = snapshot(project)
    bad = propose(project, WRITE_REAL_PROJECT.replace("ROOT", repr(str(project))).replace(GOOD_BODY, WRONG_BODY))
    assert rejected(bad)
    assert snapshot(project) == before  # a rejected draft leaves the project byte for byte
    code, lines, _ = propose(project, WRITE_REAL_PROJECT.replace("ROOT", repr(str(project))))
    assert code == 0 and lines[-1] == f"wrote {MODULE}"
    after = snapshot(project)
    assert set(after) - set(before) == {MODULE} and after["model/model.trig"] == before["model/model.trig"]
    assert b'"sandbox": ' in after["seams.lock"]


def test_a_daemon_started_by_a_draft_does_not_outlive_the_session(project):
    draft = f'''
import os, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(1.5)
        try:
            open({str(project / MODULE)!r}, "w").write("def handle(inputs, bindings):\\n    return {{}}\\n")
        except OSError:
            pass
        os._exit(0)
    os._exit(0)
''' + GOOD_BODY
    code, lines, _ = propose(project, draft)
    assert code == 0 and lines[-1] == f"wrote {MODULE}"
    time.sleep(3)
    digest = [line.split()[1] for line in lines if line.startswith("draft ")][0]
    assert hashlib.sha256((project / MODULE).read_bytes()).hexdigest() == digest


def test_a_draft_cannot_drop_code_where_python_or_seams_import_from(project):
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
        code, lines, _ = propose(project, draft)
        assert code == 0 and lines[-1] == f"wrote {MODULE}"
        assert [t for t in targets if t.exists()] == []
    finally:
        for target in targets:
            target.unlink(missing_ok=True)


def test_unclean_text_is_refused_naming_line_and_code_point(project):
    before = snapshot(project)
    trojan = '    # \u202e}"fer_gnikoob"{ nruter\n    return {"booking_ref"'
    draft = GOOD_BODY.replace('    return {"booking_ref"', trojan)
    code, lines, _ = propose(project, draft)
    assert code == 1 and lines[-1] == (f"failed {MODULE}: line 3: U+202E RIGHT-TO-LEFT OVERRIDE is a "
                                       "bidirectional control, not allowed in accepted text")
    assert snapshot(project) == before


def test_no_sandbox_is_refused_before_the_provider_unless_asked(project, monkeypatch):
    from seams_cli.workflows import sandboxing

    def unavailable(mode):
        raise SandboxUnavailable("no sandbox for drafted code (bubblewrap: bwrap is not installed): install it")

    monkeypatch.setattr(sandboxing, "choose", lambda mode: unavailable(mode) if mode == AUTO else choose(mode))
    with pytest.raises(Exception, match="no sandbox for drafted code"):
        sandboxing.chosen_sandbox(False)
    assert sandboxing.chosen_sandbox(True).name == "none"
