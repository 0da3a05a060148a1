"""Each sandbox backend confines the executor the same way, and the judge trusts only data.

The probe handler tries what drafted code tried before the sandbox existed and reports
what it got; a backend that does not work on this machine is skipped, saying why (CI
installs bubblewrap; the namespaces backend needs unshare and Landlock).
"""

from __future__ import annotations

import json
import os
import socket
from decimal import Decimal
from pathlib import Path

import pytest

import seams
from seams.checks.clean_text import clean_text_problem
from seams_runtime.handler_checks import Bindings, Inputs, example_problems
from seams_runtime.sandbox import RUN_UIDS, SANDBOX_UID, SandboxUnavailable, choose
from seams_runtime.sandbox.channel import Executor, Opaque, decode

PROBE = '''
import json, os, socket

def _try(action):
    try:
        return repr(action())[:80]
    except BaseException as exc:
        return "denied: " + type(exc).__name__

def handle(inputs, bindings):
    return {"uid": os.getuid(), "env": sorted(os.environ),
            "home": _try(lambda: os.path.expanduser("~") != "~" and os.listdir(os.path.expanduser("~"))),
            "secret": _try(lambda: open(SECRET).read()),
            "write": _try(lambda: open(TARGET, "w").write("x")),
            "ppid_environ": _try(lambda: open(f"/proc/{os.getppid()}/environ", "rb").read()),
            "pid1_cmdline": _try(lambda: open("/proc/1/cmdline", "rb").read()),
            "net": _try(lambda: socket.create_connection(("127.0.0.1", PORT), timeout=2)),
            "reply": bindings.lookup(inputs["who"], when="now"),
            "amount": __import__("decimal").Decimal("12.50")}
'''


def backend(name: str):
    try:
        return choose(name)
    except SandboxUnavailable as exc:
        pytest.skip(str(exc))


@pytest.fixture
def listener():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    yield server.getsockname()[1]
    server.close()


@pytest.mark.parametrize("name", ["bubblewrap", "namespaces"])
def test_a_backend_confines_the_executor(name, tmp_path, listener, monkeypatch):
    monkeypatch.setenv("FAKE_API_KEY", "sk-fake-789")
    sandbox = backend(name)
    secret, target = tmp_path / "secret.txt", tmp_path / "written.txt"
    secret.write_text("hunter2")
    handlers = tmp_path / "project" / "handlers"
    handlers.mkdir(parents=True)
    (handlers / "__init__.py").write_text("")
    (handlers / "probe.py").write_text(PROBE.replace("SECRET", repr(str(secret)))
                                       .replace("TARGET", repr(str(target))).replace("PORT", str(listener)))
    with Executor([(handlers, "handlers")], sandbox=sandbox) as executor:
        handle, problems = executor.import_handler("handlers.probe", "handlers/probe.py")
        assert problems == []
        inputs = Inputs({"who": "ann", "undeclared": 1}, ["who"])
        seen = handle(inputs, Bindings(["lookup"], {"lookup": {"found": True}}))
        calls = executor.calls
    assert seen["reply"] == {"found": True} and seen["amount"] == Decimal("12.50")
    assert calls == [{"binding": "lookup", "args": ["ann"], "kwargs": {"when": "now"}, "reply": {"found": True}}]
    for probe in ("secret", "net"):
        assert seen[probe].startswith("denied"), (probe, seen[probe])
    assert "sk-fake" not in seen["ppid_environ"]  # its parent is the sandbox's supervisor, not the judge
    assert not target.exists()  # under /tmp the write may land in the sandbox's own /tmp, never here
    assert set(seen["env"]) <= {"PYTHONHASHSEED", "PWD", "LC_CTYPE"}
    assert b"pytest" not in seen["pid1_cmdline"].encode()  # PID 1 is the sandbox's, not the host's
    assert seen["uid"] in RUN_UIDS if os.geteuid() == 0 else seen["uid"] == SANDBOX_UID


def test_without_a_sandbox_the_judge_still_decides_from_data(tmp_path):
    handlers = tmp_path / "handlers"
    handlers.mkdir()
    (handlers / "__init__.py").write_text("")
    (handlers / "cheat.py").write_text(
        "class Anything(str):\n    def __eq__(self, other):\n        return True\n    __hash__ = str.__hash__\n\n"
        "def handle(inputs, bindings):\n    return {'ref': Anything('nope'), 'obj': object()}\n")
    with Executor([(handlers, "handlers")], sandbox=choose("none")) as executor:
        handle, _ = executor.import_handler("handlers.cheat", "handlers/cheat.py")
        problems = example_problems(handle, (), (), ("one", {}, {}, {"ref": "BK-1", "obj": "x"}))
    assert [m for _, m in problems][0] == "example 'one': output 'ref' is 'nope', expected 'BK-1'"
    assert problems[1][1].startswith("example 'one': output 'obj' is <object <object object at ")
    assert isinstance(decode({"$seams:opaque": "object"}), Opaque) and decode({"$seams:opaque": "x"}) != "x"


def test_an_executor_that_dies_or_lies_fails_cleanly(tmp_path):
    from seams_runtime.sandbox.channel import ExecutorGone

    handlers = tmp_path / "handlers"
    handlers.mkdir()
    (handlers / "__init__.py").write_text("")
    (handlers / "dies.py").write_text("import os\ndef handle(inputs, bindings):\n    os._exit(3)\n")
    with Executor([(handlers, "handlers")], sandbox=choose("none")) as executor:
        handle, _ = executor.import_handler("handlers.dies", "handlers/dies.py")
        with pytest.raises(ExecutorGone, match=r"process ended \(exit status 3\)"):
            handle(Inputs({}, []), Bindings([], {}))


@pytest.mark.parametrize(("text", "problem"), [
    ("x = 1\n", None),
    ("x = 1\n\ty = 2\n", None),
    ("a = 1\nb = '\u202e'\n", "line 2: U+202E RIGHT-TO-LEFT OVERRIDE is a bidirectional control"),
    ("a\u200b = 1\n", "line 1: U+200B ZERO WIDTH SPACE is a zero-width character"),
    ("\n\n# \x1b[2J\n", "line 3: U+001B is a control character"),
    ("x = 1\r\n", "line 1: U+000D is a control character"),
    ("s = '\x85'\n", "line 1: U+0085 is a control character"),
    ("\ufeffx = 1\n", "line 1: U+FEFF ZERO WIDTH NO-BREAK SPACE is a zero-width character"),
    ("# \u2067isolate\n", "line 1: U+2067 RIGHT-TO-LEFT ISOLATE is a bidirectional control"),
])
def test_clean_text_names_line_and_code_point(text, problem):
    found = clean_text_problem(text)
    assert (found is None) if problem is None else found == f"{problem}, not allowed in accepted text"


def test_old_lock_records_without_a_sandbox_stay_valid(tmp_path):
    """A record written before the lock named the sandbox reads and checks as before."""
    import hashlib

    from helpers import copy_example

    from seams.checks.handler_drafts import draft_findings, draft_record, record_draft
    from seams.model.context import context_for
    from seams.model.loading import load_model
    from seams.project.layout import load_project

    root = copy_example(tmp_path)
    project = load_project(root)
    model = load_model(project)
    task = "https://example.org/leave/CheckBalance"
    module = root / "handlers" / "check_balance.py"
    old = draft_record(task=task, module="handlers/check_balance.py", context_hash=context_for(model, task).hash,
                       template="draft-v1.txt", provider="llm", sha256=hashlib.sha256(module.read_bytes()).hexdigest())
    assert "sandbox" not in old
    record_draft(project, old)
    assert draft_findings(project, model) == []
    record_draft(project, {**old, "sandbox": "bubblewrap 0.8.0"})
    assert draft_findings(project, model) == []
    assert json.loads((root / "seams.lock").read_text())["drafts"][0]["sandbox"] == "bubblewrap 0.8.0"


LISTING_PROBE = '''
import os
from importlib.machinery import PathFinder

def handle(inputs, bindings):
    spec = PathFinder.find_spec("seams", [ROOT])
    return {"found": None if spec is None else spec.origin, "listed": sorted(os.listdir(ROOT))}
'''


@pytest.mark.parametrize("name", ["bubblewrap", "namespaces"])
def test_a_checkout_on_sys_path_finds_seams_and_shows_nothing_else(name, tmp_path):
    """A checkout put on sys.path by a ``.pth`` file (as ``pip install -e`` or the README test's
    venv does) is listed by the import system before it finds ``seams`` in it: the executor may
    list it (Landlock once refused, and drafted generators failed with "No module named
    'seams'"), and sees only what is bound of it, never the rest of the checkout."""
    sandbox = backend(name)
    checkout = Path(seams.__file__).resolve().parents[1]
    handlers = tmp_path / "project" / "handlers"
    handlers.mkdir(parents=True)
    (handlers / "__init__.py").write_text("")
    (handlers / "probe.py").write_text(LISTING_PROBE.replace("ROOT", repr(str(checkout))))
    with Executor([(handlers, "handlers")], sandbox=sandbox) as executor:
        handle, problems = executor.import_handler("handlers.probe", "handlers/probe.py")
        assert problems == []
        seen = handle(Inputs({}, []), Bindings([], {}))
    assert seen["found"] == str(checkout / "seams" / "__init__.py")
    assert "seams" in seen["listed"] and not {"README.md", "tests", "pyproject.toml"} & set(seen["listed"])
