"""The Camunda 7 external-task loop of the generated ``camunda7_workers.py``, as real code.

The ``camunda7`` generator (seams.generators.camunda7) copies the source text
of the definitions it names here into the module it writes, after the
engine-independent runtime (seams.generators.worker_runtime). It needs only
the standard library: the engine's REST API (``/external-task/fetchAndLock``,
``/{id}/complete``, ``/{id}/failure``, ``/{id}/bpmnError``) through urllib,
JSON in both directions with exact decimals. Per topic, one thread fetches
and locks with the task's ``lockDuration`` (seam:jobTimeout), its
``variables`` (its seam:reads), ``tenantIdIn`` (seam:tenantId) and at most as
many tasks as it has room for (seam:maxJobs minus those running); each task
runs in a thread of its own. A failure reports the retries left (seam:retries
attempts in all) and the ``retryTimeout`` back-off (seam:retryBackoff, doubled
per attempt up to seam:retryBackoffMax). On SIGTERM/SIGINT it stops fetching
and lets running tasks end for at most the grace period (docs/generators.md,
"Deploying the workers").
"""

from __future__ import annotations

import base64
import json
import os
import signal
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from typing import Any

from seams.generators.worker_runtime import (
    LOG,
    Health,
    backoff_ms,
    configure_logging,
    env_settings,
    job_answer,
    json_text,
    log_job,
    read_json,
)

TASKS: dict[str, dict[str, Any]] = {}  # the generated module defines its own: topic -> task
ANSWER_ATTEMPTS = 4  # the generated module defines its own copy
CALL_TIMEOUT_S = 30.0  # the generated module defines its own copy
MAX_RESPONSE_BYTES = 64 * 1024 * 1024  # the generated module defines its own copy


class Camunda7Rest:
    """The engine's REST API at ``base_url`` (``.../engine-rest``), for the calls a worker makes."""

    def __init__(self, base_url: str, headers: Mapping[str, str]) -> None:
        self.base_url = base_url.rstrip("/")
        self.headers = {"Content-Type": "application/json", "Accept": "application/json", **headers}

    def post(self, path: str, body: str, timeout_s: float) -> tuple[int, Any]:
        """POST JSON text; the status and the answer (JSON with exact decimals, else its text).
        A connection that fails raises OSError."""
        request = urllib.request.Request(self.base_url + path, data=body.encode("utf-8"), headers=self.headers,
                                         method="POST")
        try:
            with urllib.request.urlopen(request, timeout=timeout_s) as response:
                data = response.read(MAX_RESPONSE_BYTES)
                return response.status, read_json(data) if data.strip() else None
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read(4096).decode("utf-8", "replace")


def rest_headers(environ: Mapping[str, str]) -> dict[str, str]:
    """Authorization from CAMUNDA_USER and CAMUNDA_PASSWORD (basic), or CAMUNDA_TOKEN (bearer)."""
    if environ.get("CAMUNDA_TOKEN"):
        return {"Authorization": f"Bearer {environ['CAMUNDA_TOKEN']}"}
    if environ.get("CAMUNDA_USER"):
        pair = f"{environ['CAMUNDA_USER']}:{environ.get('CAMUNDA_PASSWORD', '')}".encode()
        return {"Authorization": "Basic " + base64.b64encode(pair).decode("ascii")}
    return {}


def answer_camunda7(rest: Camunda7Rest, path: str, body: str) -> str | None:
    """Send one answer, again after a short wait while the engine cannot be reached or fails.
    None when it was taken; else why not (the lock expired and another worker has the task, or
    it is gone: a client error, or a 500 that says so)."""
    for attempt in range(ANSWER_ATTEMPTS):
        try:
            status, text = rest.post(path, body, CALL_TIMEOUT_S)
        except OSError as exc:
            status, text = 0, str(exc)
        if 200 <= status < 300:
            return None
        refused = 400 <= status < 500 or (status == 500 and any(
            word in str(text) for word in ("lock", "Lock", "does not exist", "BadUserRequest")))
        if refused:
            return f"the engine refused the answer ({status}: {str(text)[:300]})"
        if attempt == ANSWER_ATTEMPTS - 1:
            return f"the engine did not take the answer ({status or 'no connection'}: {str(text)[:300]})"
        time.sleep(0.5 * 2 ** attempt)
    return None  # not reached


def run_camunda7_task(rest: Camunda7Rest, task: Mapping[str, Any], external: Mapping[str, Any],
                      settings: Mapping[str, Any], started: float) -> None:
    """Run one locked external task and answer the engine; log it, whatever happens."""
    record = job_record(external)
    variables = {name: (typed or {}).get("value") for name, typed in (external.get("variables") or {}).items()}
    kind, payload, message = job_answer(task, variables)
    worker = json.dumps(settings["name"])
    path = f"/external-task/{urllib.parse.quote(str(external.get('id')), safe='')}"
    if kind == "complete":
        outputs = read_json(payload)
        body = ('{"workerId": ' + worker + ', "variables": {'
                + ", ".join(f"{json.dumps(name)}: {{\"value\": {json_text(value)}}}" for name, value in outputs.items())
                + "}}")
        refused = answer_camunda7(rest, path + "/complete", body)
        log_job(record, "rejected" if refused else "completed", started, refused or "")
    elif kind == "error":
        body = json_text({"workerId": settings["name"], "errorCode": payload, "errorMessage": message})
        refused = answer_camunda7(rest, path + "/bpmnError", body)
        log_job(record, "rejected" if refused else "error-thrown", started, refused or message, error_code=payload)
    else:
        before = external.get("retries")
        before = task["retries"] if before is None else int(before)
        retries, wait = max(0, before - 1), backoff_ms(task, before)
        body = json_text({"workerId": settings["name"], "errorMessage": message[:500], "errorDetails": message,
                          "retries": retries, "retryTimeout": wait})
        refused = answer_camunda7(rest, path + "/failure", body)
        log_job(record, "rejected" if refused else "failed", started, refused or message,
                retries_left=retries, backoff_ms=wait)


def job_record(external: Mapping[str, Any]) -> dict[str, Any]:
    """What the log says of an external task: its id, topic, process instance, activity, tenant."""
    return {"job_key": external.get("id"), "job_type": external.get("topicName"),
            "process_instance": external.get("processInstanceId"), "element": external.get("activityId"),
            "tenant": external.get("tenantId")}


class Running:
    """The tasks running in this process, by id, so a stop waits for them and names the ones
    it abandons."""

    def __init__(self) -> None:
        self.changed = threading.Condition()
        self.jobs: dict[str, tuple[dict[str, Any], float]] = {}

    def count(self, topic: str) -> int:
        return sum(1 for record, _ in self.jobs.values() if record["job_type"] == topic)

    def wait_idle(self, deadline: float) -> bool:
        with self.changed:
            while self.jobs and time.monotonic() < deadline:
                self.changed.wait(min(0.5, max(0.0, deadline - time.monotonic())))
            return not self.jobs


def work_topic(rest: Camunda7Rest, topic: str, task: Mapping[str, Any], settings: Mapping[str, Any],
               health: Health, stopping: threading.Event, running: Running) -> None:
    """Fetch, lock and run the tasks of one topic until ``stopping``, never more than ``max_jobs``
    at once. A fetch in flight when the worker stops is let finish (long polling ends it within
    the poll time) and its tasks run too: a locked task is never dropped unanswered."""
    poll_ms = max(1, round(settings["poll_s"] * 1000))
    while not stopping.is_set():
        with running.changed:
            while running.count(topic) >= task["max_jobs"] and not stopping.is_set():
                running.changed.wait(0.5)  # full: wait for a task to end, still alive for the probes
                health.beat(topic, health.rounds[topic][1])
            if task["max_jobs"] - running.count(topic) < task["max_jobs"] // 4:
                running.changed.wait(0.02)  # little room: a moment for more to end, so one fetch takes several
            room = task["max_jobs"] - running.count(topic)
        if stopping.is_set():
            break
        fetch = {"topicName": topic, "lockDuration": task["timeout_ms"], "variables": list(task["reads"])}
        if task["tenants"]:
            fetch["tenantIdIn"] = list(task["tenants"])
        body = json_text({"workerId": settings["name"], "maxTasks": room, "usePriority": True,
                          "asyncResponseTimeout": poll_ms, "topics": [fetch]})
        try:
            status, answer = rest.post("/external-task/fetchAndLock", body, settings["poll_s"] + CALL_TIMEOUT_S)
        except OSError as exc:
            status, answer = 0, str(exc)
        if status != 200 or not isinstance(answer, list):
            health.beat(topic, False)
            LOG.warning("%s: cannot fetch and lock (%s: %s); trying again in 5 s", topic, status or "no connection",
                        str(answer)[:300])
            stopping.wait(5)
            continue
        health.beat(topic, True)
        for external in answer:
            start_task(rest, task, external, settings, running)


def start_task(rest: Camunda7Rest, task: Mapping[str, Any], external: Mapping[str, Any],
               settings: Mapping[str, Any], running: Running) -> None:
    """Run one locked task in a daemon thread of its own, counted in ``running`` while it runs."""
    key, started = str(external.get("id")), time.monotonic()
    with running.changed:
        running.jobs[key] = (job_record(external), started)

    def run() -> None:
        try:
            run_camunda7_task(rest, task, external, settings, started)
        except Exception:
            LOG.exception("%s: task %s: the worker broke answering it", external.get("topicName"), key)
        finally:
            with running.changed:
                running.jobs.pop(key, None)
                running.changed.notify_all()

    threading.Thread(target=run, name="seams-job", daemon=True).start()


def work(rest: Camunda7Rest, settings: Mapping[str, Any], stopping: threading.Event,
         health: Health | None = None) -> None:
    """Work every topic of :data:`TASKS` until ``stopping`` is set, then give the running tasks
    ``grace_s`` seconds to end; tasks still running then are abandoned (logged), and the engine
    hands them out again once their lock expires."""
    health = health or Health(list(TASKS), stale_s=settings["poll_s"] + 2 * CALL_TIMEOUT_S)
    running = Running()
    loops = [threading.Thread(target=work_topic, args=(rest, topic, task, settings, health, stopping, running),
                              name=f"seams-{topic}", daemon=True) for topic, task in TASKS.items()]
    for loop in loops:
        loop.start()
    LOG.info("working topics %s as %s", ", ".join(TASKS), settings["name"])
    while not stopping.wait(0.2):
        if not all(loop.is_alive() for loop in loops):
            LOG.error("a topic loop ended; stopping")
            stopping.set()
    health.stopping = True
    LOG.info("stopping: no new tasks; waiting up to %s s for the running ones", settings["grace_s"])
    deadline = time.monotonic() + settings["grace_s"]
    for loop in loops:
        loop.join(max(0.0, deadline - time.monotonic()))
    if not running.wait_idle(deadline):
        with running.changed:
            for record, started in list(running.jobs.values()):
                log_job(record, "abandoned", started, "the worker stopped before the task ended; the engine hands "
                        "it out again when its lock expires")
    LOG.info("stopped")


def main() -> None:
    """Work every topic of this module on the engine CAMUNDA_URL names (default
    http://localhost:8080/engine-rest); ends after SIGTERM or SIGINT, once the running tasks
    ended or the grace period passed."""
    settings = env_settings(os.environ)
    configure_logging(settings)
    rest = Camunda7Rest(os.environ.get("CAMUNDA_URL", "http://localhost:8080/engine-rest"), rest_headers(os.environ))
    stopping = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stopping.set())
    health = Health(list(TASKS), stale_s=settings["poll_s"] + 2 * CALL_TIMEOUT_S)
    if settings["health_port"] is not None:
        port = health.serve(settings["health_host"], settings["health_port"])
        LOG.info("health on http://%s:%s/live and /ready", settings["health_host"], port)
    try:
        work(rest, settings, stopping, health)
    finally:
        health.close()
