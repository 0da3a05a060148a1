"""The engine-independent part of every generated workers module, as real code.

The ``zeebe`` and ``camunda7`` generators copy the source text of
:data:`RUNTIME` (these functions and the value checks of
``seams.lang.field_values``) into the module they write, so a worker judges a
handler's outputs with the same datatype rules as the ``contract`` item of
acceptance (docs/plugin.md) and the generated module needs nothing of seams
at run time. Hence: standard library only, and no name beyond the imports
below, ``BINDINGS_MODULE`` and ``DATATYPES`` (the "python" column of the one
datatype table, ``seams.lang.field_values.DATATYPES``), which the generated
module defines. A handler is given its inputs converted by ``handler_values``,
as acceptance gives them, so it sees one Python type per datatype everywhere
(docs/generators.md, "Inputs a handler is given").

A task is described by a dict the generator writes: ``where`` (job type or
topic, task and BPMN element, for messages), ``module`` (the handler's
module), ``reads`` (variable name -> xsd local datatype), ``optional``
(the reads that may be unset), ``uses`` (binding names), ``writes`` (output
name -> xsd local datatype), ``raises`` (the BPMN error codes of its
seam:raises) and its job settings (``timeout_ms``,
``max_jobs``, ``retries``, ``backoff_ms``, ``backoff_max_ms``, ``tenants``;
seams.generators.workers.JobSettings). The engine loops that use these pieces
are seams.generators.zeebe_runtime and seams.generators.camunda7_runtime.
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import socket
import sys
import threading
import time
from collections.abc import Callable, Mapping
from datetime import UTC, date, datetime
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace
from typing import Any

from seams.lang.field_values import DATATYPES as FIELD_DATATYPES
from seams.lang.field_values import (
    as_date,
    as_decimal,
    datatype_problem,
    handler_value,
    handler_values,
    is_number,
    show,
)

BINDINGS_MODULE = "workers_bindings"  # the generated module defines its own copy
DATATYPES = {name: {"python": row["python"]} for name, row in FIELD_DATATYPES.items()}  # likewise
LOG = logging.getLogger("seams.workers")  # the generated module defines its own copy


class WorkerError(Exception):
    """The job cannot run or its outputs break the contract: the message says why, whole."""


_BINDINGS: list[Any] = []
_BINDINGS_LOCK = threading.Lock()  # jobs run in threads: the first ones must not each make the object


def load_bindings(task: Mapping[str, Any]) -> Any:
    """The object ``workers_bindings.bindings()`` returns, made once per process; an empty
    namespace for a task that uses no binding (it needs no bindings module)."""
    if not task["uses"]:
        return SimpleNamespace()
    with _BINDINGS_LOCK:
        if not _BINDINGS:
            try:
                module = importlib.import_module(BINDINGS_MODULE)
            except ModuleNotFoundError as exc:
                if exc.name != BINDINGS_MODULE:
                    raise
                raise WorkerError(f"{task['where']}: no module {BINDINGS_MODULE}; write {BINDINGS_MODULE}.py "
                                  f"with a bindings() factory in the project's root (docs/generators.md)") from None
            _BINDINGS.append(module.bindings())
    bindings = _BINDINGS[0]
    missing = [name for name in task["uses"] if not callable(getattr(bindings, name, None))]
    if missing:
        raise WorkerError(f"{task['where']}: {BINDINGS_MODULE}.bindings() has no method "
                          f"{', '.join(missing)} (seam:uses)")
    return bindings


def contract_problems(outputs: Any, writes: Mapping[str, str]) -> list[str]:
    """Why ``outputs`` are not exactly the task's seam:writes, each of its datatype."""
    if not isinstance(outputs, Mapping):
        return [f"returned {type(outputs).__name__}, not a mapping"]
    problems = []
    missing = [name for name in writes if name not in outputs]
    extra = sorted(str(name) for name in outputs if name not in writes)
    if missing:
        problems.append(f"declared output(s) missing: {', '.join(missing)}")
    if extra:
        problems.append(f"undeclared output(s) returned: {', '.join(extra)}")
    for name, datatype in writes.items():
        if name in outputs:
            wrong = datatype_problem(outputs[name], datatype)
            if wrong:
                problems.append(f"output {name!r}: {wrong}")
    return problems


def json_text(value: Any) -> str:
    """``value`` as JSON text with exact numbers: a Decimal written from its own digits (12.50
    stays 12.50, never the binary float 12.5 is), a float from its shortest repr, a date as its
    ISO text. Anything JSON cannot hold is a WorkerError."""
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise WorkerError(f"{value} is not a JSON number")
        return str(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise WorkerError(f"{value} is not a JSON number")
        return repr(value)
    if value is None or isinstance(value, (bool, int, str)):
        return json.dumps(value)
    if type(value) is date:
        return json.dumps(value.isoformat())
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{json.dumps(str(k))}: {json_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(json_text(v) for v in value) + "]"
    raise WorkerError(f"a {type(value).__name__} is not a JSON value")


def read_json(text: str | bytes) -> Any:
    """JSON from the engine with its fractional numbers as exact Decimals, not binary floats."""
    return json.loads(text, parse_float=Decimal)


def run_handler(task: Mapping[str, Any], variables: Mapping[str, Any]) -> dict[str, Any]:
    """Call the task's handler with exactly its reads (an unset optional one left out, as acceptance
    leaves it out) and return its checked outputs.

    A missing variable, bindings module or handler, and outputs that break the
    contract, raise WorkerError; whatever the handler raises passes through."""
    missing = [name for name in task["reads"] if name not in variables and name not in task["optional"]]
    if missing:
        raise WorkerError(f"{task['where']}: variable(s) not set: {', '.join(missing)} (seam:reads)")
    inputs = handler_values({name: variables[name] for name in task["reads"] if name in variables}, task["reads"])
    bindings = load_bindings(task)
    try:
        handler = importlib.import_module(task["module"])
    except ModuleNotFoundError as exc:
        if exc.name is None or not (task["module"] == exc.name or task["module"].startswith(exc.name + ".")):
            raise
        raise WorkerError(f"{task['where']}: no handler module {task['module']}") from None
    outputs = handler.handle(inputs, bindings)
    problems = contract_problems(outputs, task["writes"])
    if problems:
        raise WorkerError(f"{task['where']}: {task['module']}.handle broke the contract: {'; '.join(problems)}")
    return {name: outputs[name] for name in task["writes"]}


def failure_message(task: Mapping[str, Any], exc: BaseException) -> str:
    """What the engine shows for a failed job: a WorkerError's own text, else what the handler raised."""
    if isinstance(exc, WorkerError):
        return str(exc)
    return f"{task['where']}: {task['module']}.handle raised {type(exc).__name__}: {exc}"


def error_code(exc: BaseException) -> str | None:
    """The BPMN error code a handler's exception carries (a non-empty str ``error_code``), or None."""
    code = getattr(exc, "error_code", None)
    return code if isinstance(code, str) and code else None


def job_answer(task: Mapping[str, Any], variables: Mapping[str, Any]) -> tuple[str, str, str]:
    """What to tell the engine about one job: ``("complete", outputs as JSON text, "")``,
    ``("error", BPMN error code, message)`` or ``("fail", "", message)``.

    Only a code the task declares (``raises``, its seam:raises) is thrown as a BPMN error, as
    acceptance accepts only those; an undeclared code fails the job, saying so."""
    try:
        outputs = run_handler(task, variables)
        try:
            return ("complete", json_text(outputs), "")
        except WorkerError as exc:
            raise WorkerError(f"{task['where']}: {task['module']}.handle returned outputs JSON cannot hold: {exc}") \
                from None
    except Exception as exc:
        code = error_code(exc)
        if code is not None and not isinstance(exc, WorkerError):
            if code in task["raises"]:
                return ("error", code, failure_message(task, exc))
            declared = ", ".join(task["raises"]) or "none"
            return ("fail", "", f"{failure_message(task, exc)}; BPMN error {code!r}, which the task does not "
                                f"declare (seam:raises: {declared})")
        return ("fail", "", failure_message(task, exc))


def backoff_ms(task: Mapping[str, Any], retries_before: int) -> int:
    """The wait before the next attempt of a job that fails with ``retries_before`` retries left:
    the task's back-off doubled for every attempt before this one, at most its cap."""
    attempt = max(1, task["retries"] - retries_before + 1)
    return min(task["backoff_ms"] * 2 ** min(attempt - 1, 40), task["backoff_max_ms"])


def log_job(job: Mapping[str, Any], outcome: str, started: float, detail: str = "", **fields: Any) -> None:
    """One record per job on the ``seams.workers`` logger: its key, type, process instance,
    element, tenant, outcome and duration as fields (``extra``), and a line that says them."""
    duration = round((time.monotonic() - started) * 1000)
    record = {**job, "outcome": outcome, "duration_ms": duration, **fields}
    level = logging.INFO if outcome == "completed" else logging.WARNING
    text = (f"{job['job_type']} job {job['job_key']} {outcome} in {duration} ms (process instance "
            f"{job['process_instance']}, element {job['element']})")
    LOG.log(level, text + (f": {detail}" if detail else ""), extra={"job": record})


class JsonLogFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message and a job record's fields."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname, "logger": record.name, "message": record.getMessage()}
        entry.update(getattr(record, "job", None) or {})
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


def env_settings(environ: Mapping[str, str]) -> dict[str, Any]:
    """The process's settings from its environment (docs/generators.md, "Deploying the workers");
    a bad value ends the process with one line naming the variable (exit 2)."""

    def seconds(name: str, default: float, low: float = 0.0) -> float:
        text = environ.get(name, "").strip()
        if not text:
            return default
        try:
            value = float(text)
        except ValueError:
            value = -1.0
        if not low <= value <= 86400:
            sys.exit(f"{name}: {text[:40]!r} is not a number of seconds from {low:g} to 86400")
        return value

    port_text = environ.get("SEAMS_WORKERS_HEALTH_PORT", "").strip()
    if port_text and not (port_text.isdigit() and 0 <= int(port_text) <= 65535):
        sys.exit(f"SEAMS_WORKERS_HEALTH_PORT: {port_text[:40]!r} is not a port number from 0 to 65535")
    log_format = environ.get("SEAMS_WORKERS_LOG_FORMAT", "json").strip() or "json"
    if log_format not in ("json", "text"):
        sys.exit(f"SEAMS_WORKERS_LOG_FORMAT: {log_format[:40]!r} is not json or text")
    level = environ.get("SEAMS_WORKERS_LOG_LEVEL", "INFO").strip().upper() or "INFO"
    if level not in ("DEBUG", "INFO", "WARNING", "ERROR"):
        sys.exit(f"SEAMS_WORKERS_LOG_LEVEL: {level[:40]!r} is not DEBUG, INFO, WARNING or ERROR")
    return {
        "name": environ.get("SEAMS_WORKER_NAME", "").strip() or f"{socket.gethostname()}-{os.getpid()}",
        "poll_s": seconds("SEAMS_WORKERS_POLL_SECONDS", 10.0, 0.01),
        "grace_s": seconds("SEAMS_WORKERS_GRACE_SECONDS", 25.0),
        "health_host": environ.get("SEAMS_WORKERS_HEALTH_HOST", "").strip() or "127.0.0.1",
        "health_port": int(port_text) if port_text else None,
        "log_format": log_format, "log_level": level,
    }


def configure_logging(settings: Mapping[str, Any]) -> None:
    """Log to stderr as the settings say; only ``main()`` calls it, so a program that imports the
    module keeps its own logging configuration."""
    handler = logging.StreamHandler()
    handler.setFormatter(JsonLogFormatter() if settings["log_format"] == "json"
                         else logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(settings["log_level"])


class Health:
    """Liveness and readiness of one worker process, for a container's probes.

    Every poll loop calls :meth:`beat` once per round (``ok``: the engine answered). Live: every
    loop beat within ``stale_s``. Ready: live, every loop's last round reached the engine, and the
    process is not stopping. :meth:`serve` answers ``GET /live`` and ``GET /ready`` with 200 or 503.
    """

    def __init__(self, loops: list[str], stale_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.stale_s = stale_s
        self.stopping = False
        now = clock()
        self.rounds: dict[str, tuple[float, bool]] = {loop: (now, False) for loop in loops}
        self.server: ThreadingHTTPServer | None = None

    def beat(self, loop: str, ok: bool) -> None:
        self.rounds[loop] = (self.clock(), ok)

    def live(self) -> bool:
        now = self.clock()
        return all(now - at <= self.stale_s for at, _ in self.rounds.values())

    def ready(self) -> bool:
        return not self.stopping and self.live() and all(ok for _, ok in self.rounds.values())

    def serve(self, host: str, port: int) -> int:
        """Answer the probes on ``host:port`` in a daemon thread; returns the port (0 picks one)."""
        health = self

        class Probe(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - the name http.server calls
                checks = {"/live": health.live, "/ready": health.ready}
                check = checks.get(self.path.split("?")[0])
                good = check is not None and check()
                body = (b"ok\n" if good else b"unavailable\n") if check is not None else b"not found\n"
                self.send_response(200 if good else 503 if check is not None else 404)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - http.server's name
                pass

        self.server = ThreadingHTTPServer((host, port), Probe)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, name="seams-health", daemon=True).start()
        return int(self.server.server_address[1])

    def close(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()


RUNTIME = (is_number, as_decimal, as_date, show, datatype_problem, handler_value, handler_values, WorkerError,
           load_bindings, contract_problems, json_text, read_json, run_handler, failure_message, error_code, job_answer,
           backoff_ms, log_job, JsonLogFormatter, env_settings, configure_logging, Health)
"""What every generated workers module holds, in this order (its source text, copied)."""
RUNTIME_IMPORTS = ("import importlib", "import json", "import logging", "import os", "import re", "import socket",
                   "import sys", "import threading", "import time", "from collections.abc import Callable, Mapping",
                   "from datetime import UTC, date, datetime", "from decimal import Decimal",
                   "from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer",
                   "from types import SimpleNamespace", "from typing import Any")
"""The standard-library imports :data:`RUNTIME` needs (``re``: the copied value checks)."""
