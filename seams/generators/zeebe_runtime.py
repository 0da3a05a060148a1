"""The Zeebe (Camunda 8) job loop of the generated ``zeebe_workers.py``, as real code.

The ``zeebe`` generator (seams.generators.zeebe) copies the source text of
the definitions it names here into the module it writes, after the engine-independent runtime
(seams.generators.worker_runtime); seams never imports this module (it needs
grpc and pyzeebe, which only the generated module's users install). It speaks
the gateway protocol through the stubs pyzeebe ships (``pyzeebe.proto``) and
takes pyzeebe's channels (plain, or OAuth for Camunda 8 SaaS), so every
setting the model gives a task reaches the wire as it is:

* ``ActivateJobs`` per job type with the task's ``timeout`` (seam:jobTimeout),
  ``fetchVariable`` (its seam:reads), ``tenantIds`` (seam:tenantId) and at
  most as many jobs as it has room for (seam:maxJobs minus the jobs running);
* ``CompleteJob`` with the outputs as exact JSON (worker_runtime.json_text),
  ``ThrowError`` with the handler's error code, ``FailJob`` with the retries
  left and the back-off (seam:retries, seam:retryBackoff, seam:retryBackoffMax);
* on SIGTERM/SIGINT no new activation; the jobs already activated run to
  their end, for at most the grace period (docs/generators.md, "Deploying
  the workers").
"""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

import grpc
from pyzeebe import create_camunda_cloud_channel, create_insecure_channel
from pyzeebe.proto import gateway_pb2, gateway_pb2_grpc

from seams.generators.worker_runtime import (
    LOG,
    Health,
    backoff_ms,
    configure_logging,
    env_settings,
    job_answer,
    log_job,
    read_json,
)

TASKS: dict[str, dict[str, Any]] = {}  # the generated module defines its own: job type -> task
ANSWER_ATTEMPTS = 4  # the generated module defines its own copy
CALL_TIMEOUT_S = 30.0  # the generated module defines its own copy


def in_thread(function: Callable[..., Any], *args: Any) -> asyncio.Future[Any]:
    """Run a (blocking) handler in a daemon thread of its own: the event loop keeps polling and
    answering, and a job still running when the grace period ends does not hold the process."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def settle(result: Any, error: BaseException | None) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    def run() -> None:
        try:
            result, error = function(*args), None
        except BaseException as exc:  # handed to the job's coroutine, which reports it
            result, error = None, exc
        try:
            loop.call_soon_threadsafe(settle, result, error)
        except RuntimeError:  # the loop has closed: the job was abandoned and logged as such
            pass

    threading.Thread(target=run, name="seams-job", daemon=True).start()
    return future


async def answer_zeebe(call: Callable[[], Any]) -> str | None:
    """Send one answer, again after a short wait while the gateway is unavailable. None when it
    was taken; else why not (the job timed out and went to another worker, or was cancelled)."""
    for attempt in range(ANSWER_ATTEMPTS):
        try:
            await call()
            return None
        except grpc.aio.AioRpcError as exc:
            if exc.code() in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.FAILED_PRECONDITION):
                return f"the gateway refused the answer ({exc.code().name}: {exc.details()})"
            if attempt == ANSWER_ATTEMPTS - 1:
                return f"the gateway did not take the answer ({exc.code().name}: {exc.details()})"
            await asyncio.sleep(0.5 * 2 ** attempt)
    return None  # not reached


async def run_zeebe_job(stub: Any, task: Mapping[str, Any], job: Any) -> None:
    """Run one activated job and answer the gateway; log it, whatever happens."""
    started = time.monotonic()
    record = {"job_key": job.key, "job_type": job.type, "process_instance": job.processInstanceKey,
              "element": job.elementId, "tenant": job.tenantId or None}
    try:
        variables = read_json(job.variables or "{}")
        kind, payload, message = await in_thread(job_answer, task, variables)
    except asyncio.CancelledError:
        log_job(record, "abandoned", started, "the worker stopped before the job ended; the engine hands it out "
                "again when its timeout passes")
        raise
    except Exception as exc:  # unreadable variables: nothing ran
        kind, payload, message = "fail", "", f"{task['where']}: the job's variables are not JSON: {exc}"
    if kind == "complete":
        refused = await answer_zeebe(lambda: stub.CompleteJob(
            gateway_pb2.CompleteJobRequest(jobKey=job.key, variables=payload), timeout=CALL_TIMEOUT_S))
        log_job(record, "rejected" if refused else "completed", started, refused or "")
    elif kind == "error":
        refused = await answer_zeebe(lambda: stub.ThrowError(gateway_pb2.ThrowErrorRequest(
            jobKey=job.key, errorCode=payload, errorMessage=message), timeout=CALL_TIMEOUT_S))
        log_job(record, "rejected" if refused else "error-thrown", started, refused or message, error_code=payload)
    else:
        retries, wait = job.retries - 1, backoff_ms(task, job.retries)
        refused = await answer_zeebe(lambda: stub.FailJob(gateway_pb2.FailJobRequest(
            jobKey=job.key, retries=retries, errorMessage=message, retryBackOff=wait), timeout=CALL_TIMEOUT_S))
        log_job(record, "rejected" if refused else "failed", started, refused or message,
                retries_left=retries, backoff_ms=wait)


async def work_job_type(stub: Any, job_type: str, task: Mapping[str, Any], settings: Mapping[str, Any],
                        health: Health, stopping: asyncio.Event) -> None:
    """Activate and run the jobs of one type until ``stopping``; then let the running ones end.

    Never more than ``max_jobs`` at once: each request asks only for the room left, and a full
    worker waits for a job to end before it asks again. A request in flight when the worker
    stops is let finish (long polling ends it within the poll time), and its jobs run too: a
    job the gateway has activated is never dropped unanswered while the grace period lasts."""
    running: set[asyncio.Task[None]] = set()
    poll_ms = max(1, round(settings["poll_s"] * 1000))
    while not stopping.is_set():
        room = task["max_jobs"] - len(running)
        if room <= 0:  # full: wait for a job to end, still alive for the probes
            await asyncio.wait(running, timeout=1.0, return_when=asyncio.FIRST_COMPLETED)
            health.beat(job_type, health.rounds[job_type][1])
            continue
        if room < task["max_jobs"] // 4:  # little room: a moment for more to end, so one request asks for several
            await asyncio.sleep(0.02)
            room = task["max_jobs"] - len(running)
        request = gateway_pb2.ActivateJobsRequest(
            type=job_type, worker=settings["name"], timeout=task["timeout_ms"], maxJobsToActivate=room,
            fetchVariable=list(task["reads"]), requestTimeout=poll_ms, tenantIds=list(task["tenants"]))
        try:
            async for response in stub.ActivateJobs(request, timeout=settings["poll_s"] + CALL_TIMEOUT_S):
                for job in response.jobs:
                    job_task = asyncio.create_task(run_zeebe_job(stub, task, job))
                    running.add(job_task)
                    job_task.add_done_callback(running.discard)
            health.beat(job_type, True)
        except grpc.aio.AioRpcError as exc:
            health.beat(job_type, False)
            LOG.warning("%s: cannot activate jobs (%s: %s); trying again in 5 s", job_type, exc.code().name,
                        exc.details())
            try:
                await asyncio.wait_for(stopping.wait(), timeout=5)
            except TimeoutError:
                pass
    if running:
        await asyncio.wait(running)


async def work(channel: Any, settings: Mapping[str, Any], stopping: asyncio.Event,
               health: Health | None = None) -> None:
    """Work every job type of :data:`TASKS` on ``channel`` until ``stopping`` is set, then give the
    running jobs ``grace_s`` seconds to end; jobs still running then are abandoned (logged), and
    the engine hands them out again once their timeout passes."""
    stub = gateway_pb2_grpc.GatewayStub(channel)
    health = health or Health(list(TASKS), stale_s=settings["poll_s"] + 2 * CALL_TIMEOUT_S)
    loops = [asyncio.create_task(work_job_type(stub, job_type, task, settings, health, stopping))
             for job_type, task in TASKS.items()]
    LOG.info("working job types %s as %s", ", ".join(TASKS), settings["name"])
    stop_wait = asyncio.create_task(stopping.wait())
    await asyncio.wait([*loops, stop_wait], return_when=asyncio.FIRST_COMPLETED)
    stop_wait.cancel()
    for loop in loops:
        if loop.done() and loop.exception() is not None:
            stopping.set()  # one loop broke: stop the others and end with its error
    health.stopping = True
    LOG.info("stopping: no new jobs; waiting up to %s s for the running ones", settings["grace_s"])
    done, pending = await asyncio.wait(loops, timeout=settings["grace_s"])
    for loop in pending:
        loop.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    for loop in done:
        error = loop.exception()
        if error is not None:
            raise error
    LOG.info("stopped")


async def main_async(environ: Mapping[str, str]) -> None:
    settings = env_settings(environ)
    configure_logging(settings)
    if environ.get("ZEEBE_CLIENT_ID") or environ.get("CAMUNDA_CLIENT_ID"):
        channel = create_camunda_cloud_channel()
    else:
        channel = create_insecure_channel()
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(signum, stopping.set)
        except NotImplementedError:  # Windows: Ctrl-C still ends the process, without the grace period
            pass
    health = Health(list(TASKS), stale_s=settings["poll_s"] + 2 * CALL_TIMEOUT_S)
    if settings["health_port"] is not None:
        port = health.serve(settings["health_host"], settings["health_port"])
        LOG.info("health on http://%s:%s/live and /ready", settings["health_host"], port)
    try:
        await work(channel, settings, stopping, health)
    finally:
        health.close()
        await channel.close()


def main() -> None:
    """Work every job type of this module: on Camunda 8 SaaS when ZEEBE_CLIENT_ID (or
    CAMUNDA_CLIENT_ID) is set (with its secret, CAMUNDA_CLUSTER_ID and CAMUNDA_CLUSTER_REGION),
    else on the gateway ZEEBE_ADDRESS names (default localhost:26500), without TLS. Ends after
    SIGTERM or SIGINT, once the running jobs ended or the grace period passed."""
    asyncio.run(main_async(os.environ))

