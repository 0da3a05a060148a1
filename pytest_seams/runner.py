"""One pytest session over a directory, in a fresh worker process, as structured results.

The CLI runs drafted code here, so the session is kept away from the caller:
a new process (nothing it imports stays in the caller's ``sys.modules``, path,
environment or cwd), its own process group killed whole at the time limit,
an environment without secret-looking variables, HOME and TMPDIR inside the
directory, and no bytecode or pytest cache written. Verdicts come from the
item reports the worker writes, never from an exit status. The worker is the
judge: drafted code runs in its own sandboxed processes (seams_runtime.sandbox),
never in the worker, so the results file and the reports are out of its reach.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from pytest_seams import CONFIG_NAME, MODEL_ONLY
from seams.errors import ProjectError
from seams.findings import Finding
from seams.process_groups import kill_group, wait_unreaped

SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL", re.I)
# options a caller's shell may carry that would change what the session runs
DROPPED_ENV = ("PYTEST_ADDOPTS", "PYTEST_PLUGINS", "PYTHONSTARTUP", "PYTHONINSPECT")
OUTPUT_LIMIT = 64_000  # bytes of the worker's stdout and stderr kept


@dataclass(frozen=True)
class ItemResult:
    nodeid: str  # relative to the session directory, e.g. seams.toml::check_balance::contract
    name: str  # the name expected_items uses (the node id)
    gate: str  # the seams gate, "test" for an ordinary test, "collect" for a collection error
    outcome: str  # passed, failed, skipped, error
    findings: list[Finding] = field(default_factory=list)
    text: str = ""
    facts: dict = field(default_factory=dict)  # what a gate reported besides findings (routing: samples)


@dataclass
class SessionResult:
    items: list[ItemResult]
    timed_out: bool
    exit_status: int | None  # pytest's, or the worker's when pytest never returned
    error: str | None  # why the session did not complete (time limit, worker died)
    stdout: str = ""
    stderr: str = ""
    seconds: float = 0.0

    def passed_all(self, expected: Iterable[str]) -> bool:
        """True only when the session completed, nothing failed to collect, and every expected
        item ran and passed (nothing expected is never a pass)."""
        expected = list(expected)
        outcomes = {item.name: item.outcome for item in self.items}
        return (bool(expected) and not self.timed_out and self.error is None
                and not any(item.gate == "collect" for item in self.items)
                and all(outcomes.get(name) == "passed" for name in expected))

    def failures(self) -> list[ItemResult]:
        return [item for item in self.items if item.outcome in ("failed", "error")]


def run_session(directory: Path, *, select: str | None = None, timeout: float,
                args: Sequence[str] = (), env: Mapping[str, str] | None = None) -> SessionResult:
    """Run pytest over ``directory`` in a worker process.

    ``select``: None (everything); ``"model"`` (only the model gates); a sub-directory
    (a generator package, say: what pytest collects there); else a task (IRI, prefixed
    name, BPMN id or handler name: only its acceptance items). ``env`` is the environment
    to start from (default: this process's), cleaned as described above.
    """
    directory = Path(directory).resolve()
    if not directory.is_dir():
        raise ProjectError(f"{directory}: not a directory")
    paths, only = _selection(directory, select)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="seams-session-") as control, \
            _private_dirs(directory) as (home, tmp):
        results, out, err = (Path(control) / n for n in ("results.jsonl", "stdout", "stderr"))
        spec = {"directory": str(directory), "results": str(results), "args": [*paths, *args],
                "only": only}
        with out.open("wb") as stdout, err.open("wb") as stderr, _signals_end_the_session():
            worker = subprocess.Popen(
                [sys.executable, "-m", "pytest_seams.worker", json.dumps(spec)],
                cwd=directory, env=session_env(directory, env, home=home, tmp=tmp),
                stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr, start_new_session=True)
            try:
                finished = wait_unreaped(worker, timeout)
            finally:  # a time-out, a signal, any exception: everything the session started ends
                kill_group(worker)
                worker.wait()
        result = _result(_events(results), timed_out=not finished, timeout=timeout,
                         returncode=worker.returncode)
        result.stdout, result.stderr = _capped(out), _capped(err)
    result.seconds = time.monotonic() - started
    return result


@contextmanager
def _signals_end_the_session() -> Iterator[None]:
    """SIGTERM and SIGHUP raise SystemExit while a session runs (in the main thread), so
    the ``finally`` that kills the worker's group and removes the session's directories
    runs when the caller is told to stop; Python's default would end it on the spot."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def session_env(directory: Path, base: Mapping[str, str] | None, *, home: Path, tmp: Path) -> dict[str, str]:
    """``base`` without secret-looking names, HOME and temp dirs inside the directory, and a
    PYTHONPATH that finds seams (as installed for this interpreter) and the project."""
    base = os.environ if base is None else base
    env = {k: v for k, v in base.items() if not SECRET_NAME.search(k) and k not in DROPPED_ENV}
    package_root = Path(__file__).resolve().parent.parent
    env.update(HOME=str(home), TMPDIR=str(tmp), TEMP=str(tmp), TMP=str(tmp),
               PYTHONDONTWRITEBYTECODE="1",
               PYTHONPATH=os.pathsep.join(dict.fromkeys([str(package_root), str(directory)])))
    return env


def _selection(directory: Path, select: str | None) -> tuple[list[str], str | None]:
    """(pytest paths, --seams-only)."""
    if select is None:
        return ["."], None
    path = (directory / select).resolve()
    if select != MODEL_ONLY and path.is_dir() and (path == directory or directory in path.parents):
        return [path.relative_to(directory).as_posix()], None
    if not (directory / CONFIG_NAME).is_file():
        raise ProjectError(f"{directory}: no {CONFIG_NAME} to select {select!r} from")
    return [CONFIG_NAME], select


@contextmanager
def _private_dirs(directory: Path) -> Iterator[tuple[Path, Path]]:
    """HOME and TMPDIR for the session under ``<directory>/.seams`` (ignored by git and by
    pytest's collection), removed afterwards."""
    cache = directory / ".seams"
    created = not cache.exists()
    cache.mkdir(exist_ok=True)
    private = Path(tempfile.mkdtemp(prefix="session-", dir=cache))
    home, tmp = private / "home", private / "tmp"
    home.mkdir()
    tmp.mkdir()
    try:
        yield home, tmp
    finally:
        shutil.rmtree(private, ignore_errors=True)
        if created and not any(cache.iterdir()):
            cache.rmdir()


def _events(path: Path) -> list[dict]:
    if not path.is_file():
        return []
    events = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            event = json.loads(line)
        except ValueError:  # the last line of a worker killed mid-write
            continue
        if isinstance(event, dict):
            events.append(event)
    return events


def _result(events: list[dict], *, timed_out: bool, timeout: float, returncode: int) -> SessionResult:
    items: dict[str, dict] = {}
    exit_status = None
    for event in events:
        kind, nodeid = event.get("event"), str(event.get("nodeid", ""))
        if kind == "start":
            items.setdefault(nodeid, {"outcome": None, "texts": [], "seams": None})
        elif kind == "report":
            _merge(items.setdefault(nodeid, {"outcome": None, "texts": [], "seams": None}), event)
        elif kind == "collect-error":
            items[nodeid or "<session>"] = {"outcome": "error", "texts": [event.get("text", "")],
                                            "seams": {"gate": "collect"}}
        elif kind == "finish":
            exit_status = event.get("exit_status")
    error = None
    if timed_out:
        error = f"the session did not finish within {timeout:g} s and was stopped"
    elif exit_status is None:
        error = f"the session ended without finishing (worker exit status {returncode})"
    results = []
    for nodeid, data in items.items():
        seams = data["seams"] or {}
        if data["outcome"] is None:
            data["outcome"] = "failed"
            data["texts"].append(error or "the test did not report a result")
        results.append(ItemResult(
            nodeid=nodeid, name=nodeid, gate=str(seams.get("gate", "test")), outcome=data["outcome"],
            findings=[Finding.from_dict(f) for f in seams.get("findings", [])],
            text="\n".join(t for t in data["texts"] if t),
            facts=dict(seams.get("facts") or {})))
    return SessionResult(items=results, timed_out=timed_out,
                         exit_status=exit_status if exit_status is not None else returncode, error=error)


def _merge(data: dict, event: dict) -> None:
    """Fold one phase report into an item's outcome: a failed setup or teardown is an error."""
    when, outcome = event.get("when"), event.get("outcome")
    if event.get("seams"):
        data["seams"] = event["seams"]
    if event.get("text"):
        data["texts"].append(event["text"])
    if outcome == "failed":
        data["outcome"] = "failed" if when == "call" else "error"
    elif outcome == "skipped" and data["outcome"] not in ("failed", "error"):
        data["outcome"] = "skipped"
    elif outcome == "passed" and when == "call" and data["outcome"] is None:
        data["outcome"] = "passed"


def _capped(path: Path) -> str:
    with path.open("rb") as handle:
        data = handle.read(OUTPUT_LIMIT + 1)
    text = data[:OUTPUT_LIMIT].decode("utf-8", errors="replace")
    return text + "\n[... output truncated]" if len(data) > OUTPUT_LIMIT else text
