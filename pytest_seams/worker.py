"""The process one session runs in: ``python -m pytest_seams.worker SPEC``.

SPEC is a JSON object: ``directory`` (the tree under test, also the cwd and
the rootdir), ``results`` (the file to append events to), ``args`` (pytest
arguments) and ``only`` (``--seams-only`` or null). The worker appends one
JSON object per line as the session goes: ``start`` and ``report`` per test
phase, ``collect-error``, and ``finish`` once pytest returns. A worker that
dies (``os._exit`` in drafted code, a kill at the time limit) leaves no
``finish`` line, and the parent knows the session did not complete.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import IO, Any

TEXT_LIMIT = 20_000  # characters of failure text kept per report


class Recorder:
    """A pytest plugin object (controller side under xdist) that writes events as they happen."""

    def __init__(self, out: IO[str]):
        self._out = out

    def write(self, event: dict[str, Any]) -> None:
        self._out.write(json.dumps(event, sort_keys=True) + "\n")
        self._out.flush()

    def pytest_runtest_logstart(self, nodeid: str) -> None:
        self.write({"event": "start", "nodeid": nodeid})

    def pytest_runtest_logreport(self, report) -> None:
        self.write({"event": "report", "nodeid": report.nodeid, "when": report.when,
                    "outcome": report.outcome, "text": _text(report),
                    "seams": _seams_property(report.user_properties)})

    def pytest_collectreport(self, report) -> None:
        if report.failed:
            self.write({"event": "collect-error", "nodeid": report.nodeid,
                        "text": report.longreprtext[:TEXT_LIMIT]})


def _text(report) -> str:
    if report.skipped and isinstance(report.longrepr, tuple):
        return str(report.longrepr[2])[:TEXT_LIMIT]  # (path, line, reason)
    return report.longreprtext[:TEXT_LIMIT] if report.failed else ""


def _seams_property(user_properties) -> dict | None:
    for name, value in user_properties:
        if name == "seams" and isinstance(value, dict):
            return value
    return None


def pytest_args(spec: dict[str, Any]) -> list[str]:
    """The seams plugin by module name (xdist workers get the same arguments); rootdir fixed
    to the directory, so node ids are relative to it; no cache written."""
    args = ["--rootdir", spec["directory"], "-p", "no:cacheprovider", "-p", "pytest_seams.plugin",
            "-q", *spec["args"]]
    if spec.get("only") is not None:
        args.append(f"--seams-only={spec['only']}")
    return args


def main(argv: list[str]) -> int:
    spec = json.loads(argv[0])
    sys.dont_write_bytecode = True
    # Only plugins named with -p: a verdict must not depend on what else is installed (a
    # rerun-on-failure plugin would pass a flaky draft), and without bytecode caching every
    # autoloaded plugin package would be re-rewritten by pytest in every session.
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    os.chdir(spec["directory"])
    import pytest

    with Path(spec["results"]).open("a", encoding="utf-8") as out:
        recorder = Recorder(out)
        status = pytest.main(pytest_args(spec), plugins=[recorder])
        recorder.write({"event": "finish", "exit_status": int(status)})
    return 0  # the verdict is in the results file, never in this status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
