"""``pytest --seams-check``: the lock items, with the real generate and drafts checks."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import importlib_metadata  # noqa: F401  before any in-process run; see test_plugin_items.py
import pytest
from helpers import EXAMPLE, edit

import pytest_seams.collect  # noqa: F401
import seams.generators.generate  # noqa: F401
from seams.checks.handler_drafts import draft_record, record_draft
from seams.generators.generate import write_generated
from seams.model.context import context_for
from seams.model.loading import load_model
from seams.project.layout import load_project

pytest_plugins = ["pytester"]

QUIET = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-W", "ignore::DeprecationWarning")
LOCK = ("generated-stale", "generated-hand-edited", "draft-stale", "draft-hand-edited")
CHECK_BALANCE = "https://example.org/leave/CheckBalance"


def lock_failures(pytester: pytest.Pytester) -> dict[str, list[tuple[str, str]]]:
    """Failed lock items -> (kind, subject) of their findings; every lock item must have run."""
    reports = [r for r in pytester.inline_run(*QUIET, "--seams-check").getreports("pytest_runtest_logreport")
               if r.when == "call"]
    lock = {r.nodeid.removeprefix("seams.toml::"): r for r in reports if r.nodeid.count("::") == 1
            and r.nodeid.endswith(LOCK)}
    assert list(lock) == list(LOCK)
    out = {}
    for name, report in lock.items():
        if report.failed:
            (data,) = [v for k, v in report.user_properties if k == "seams"]
            out[name] = [(f["kind"], f["subject"]) for f in data["findings"]]
    return out


def test_lock_items_follow_generate_and_drafts_and_never_call_the_provider(pytester):
    root = pytester.path
    shutil.copytree(EXAMPLE, root, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__", ".seams", "generated", "seams.lock"))
    marker = root / "provider-was-called"
    (root / "mark.py").write_text(f"open({str(marker)!r}, 'w').close()\n", encoding="utf-8")
    edit(root / "seams.toml", 'provider = "python3 provider/recorded.py"', 'provider = "python3 mark.py"')

    # no lock items without the flag; of the scenarios, the refusal passes and the four that book
    # stop at the missing record_leave
    assert pytester.inline_run(*QUIET).countoutcomes() == [8, 0, 8]
    fresh = lock_failures(pytester)
    assert list(fresh) == ["generated-stale"]
    assert {kind for kind, _ in fresh["generated-stale"]} == {"generated-stale"}

    project = load_project(root)
    model = load_model(project)
    write_generated(project, model)
    handler = root / "handlers" / "check_balance.py"
    record_draft(project, draft_record(
        task=CHECK_BALANCE, module="handlers/check_balance.py",
        context_hash=context_for(model, CHECK_BALANCE).hash, template="draft-v1.txt",
        provider="python3 mark.py", sha256=hashlib.sha256(handler.read_bytes()).hexdigest()))
    assert lock_failures(pytester) == {}

    handler.write_text(handler.read_text(encoding="utf-8") + "# edited by hand\n", encoding="utf-8")
    generated = sorted(p for p in (root / "generated").rglob("*") if p.is_file())[0]
    generated.write_bytes(generated.read_bytes() + b"\n")
    edit(root / "model" / "model.trig", 'rdfs:label "annual leave left"', 'rdfs:label "annual leave remaining"')
    edited = lock_failures(pytester)
    assert edited["draft-hand-edited"] == [("draft-hand-edited", "handlers/check_balance.py")]
    assert edited["draft-stale"] == [("draft-stale", "ex:CheckBalance")]
    assert ("generated-hand-edited", project.relative(generated)) in edited["generated-hand-edited"]
    assert not marker.exists()


def test_unreadable_lock_is_one_finding_not_a_traceback(pytester):
    root = pytester.path
    shutil.copytree(EXAMPLE, root, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__", ".seams"))
    (root / "seams.lock").write_text("{not json", encoding="utf-8")
    failures = lock_failures(pytester)
    assert set(failures) == set(LOCK)
    assert all(found == [(kind, "seams.lock")] for kind, found in failures.items())
    assert Path(root / "seams.lock").read_text(encoding="utf-8") == "{not json"
