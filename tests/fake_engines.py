"""Fake engines on 127.0.0.1 for the generated workers: a Zeebe gateway and a Camunda 7 REST API.

Both keep their jobs in one :class:`JobStore` whose clock the test moves
(:class:`FakeClock`), so a job timeout or a retry back-off passes exactly
when the test says, never by waiting. Long polling waits in real time, up to
the request's own timeout, and ends as soon as a job can be handed out.

* :class:`FakeZeebeGateway`: a gRPC server built from the gateway protocol
  pyzeebe ships (``pyzeebe.proto.gateway_pb2_grpc``): ActivateJobs (a stream,
  long polling), CompleteJob, FailJob, ThrowError. A job whose timeout has
  passed is handed out again; an answer for a job that is not active is
  NOT_FOUND, as the real gateway answers.
* :class:`FakeCamunda7`: ``/engine-rest/external-task/fetchAndLock``,
  ``/{id}/complete``, ``/{id}/failure`` and ``/{id}/bpmnError`` with the
  standard library's http.server. An answer for a task whose lock expired is
  a 500 naming the lock, as the engine's BadUserRequestException is.

Every request is kept (``requests``; the raw JSON text of answers too), so a
test asserts what went over the wire.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable
from concurrent import futures
from dataclasses import dataclass, field
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from seams.generators.worker_runtime import json_text


class FakeClock:
    """Milliseconds the test moves by hand."""

    def __init__(self) -> None:
        self.now_ms = 1_700_000_000_000


@dataclass
class FakeJob:
    key: int
    type: str
    variables: dict[str, str]  # name -> its JSON text, as the engine keeps it
    retries: int | None  # Zeebe: from the BPMN; Camunda 7: None until a failure sets it
    element: str = "Task_CheckBalance"
    process_instance: int = 2251799813685251
    tenant: str = ""
    state: str = "ready"  # ready, active, completed, error, incident
    available_at: int = 0
    deadline: int = 0
    activations: int = 0
    history: list[tuple] = field(default_factory=list)


class JobStore:
    """The jobs of a fake engine and the rules every engine keeps for them."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.jobs: dict[int, FakeJob] = {}
        self.changed = threading.Condition()
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self._keys = itertools.count(2251799813685249)
        self.active = 0  # jobs handed out and not answered yet; the most there were, and when, in real time
        self.most_active = 0
        self.first_activation_at: float | None = None
        self.last_answer_at: float | None = None

    def add(self, job_type: str, variables: dict[str, str], *, retries: int | None = 3, element: str = "Task_X",
            tenant: str = "") -> int:
        with self.changed:
            key = next(self._keys)
            self.jobs[key] = FakeJob(key, job_type, dict(variables), retries, element, tenant=tenant)
            self.changed.notify_all()
            return key

    def advance(self, ms: int) -> None:
        with self.changed:
            self.clock.now_ms += ms
            self.changed.notify_all()

    def record(self, kind: str, request: dict[str, Any]) -> None:
        with self.changed:
            self.requests.append((kind, request))
            self.changed.notify_all()

    def _available(self, job: FakeJob, job_type: str, tenants: list[str]) -> bool:
        now = self.clock.now_ms
        if job.type != job_type or (tenants and job.tenant not in tenants):
            return False
        return (job.state == "ready" and job.available_at <= now) or (job.state == "active" and job.deadline <= now)

    def activate(self, job_type: str, most: int, timeout_ms: int, tenants: list[str], wait_s: float) -> list[FakeJob]:
        """Up to ``most`` jobs of the type that can be handed out, waiting up to ``wait_s`` for one."""
        end = time.monotonic() + wait_s
        with self.changed:
            while True:
                ready = [j for j in self.jobs.values() if self._available(j, job_type, tenants)][:max(0, most)]
                if ready or time.monotonic() >= end:
                    break
                self.changed.wait(max(0.0, min(0.05, end - time.monotonic())))
            if ready and self.first_activation_at is None:
                self.first_activation_at = time.monotonic()
            for job in ready:
                if job.state != "active":
                    self.active += 1
                job.state, job.deadline = "active", self.clock.now_ms + timeout_ms
                job.activations += 1
                job.history.append(("activated", self.clock.now_ms))
            self.most_active = max(self.most_active, self.active)
            return ready

    def answer(self, key: int, kind: str, **details: Any) -> bool:
        """Apply an answer to an active job; False when the job is not active (its timeout passed,
        or it ended), which the engine refuses."""
        with self.changed:
            job = self.jobs.get(key)
            if job is None or job.state != "active" or job.deadline <= self.clock.now_ms:
                return False
            job.history.append((kind, details))
            self.active -= 1
            self.last_answer_at = time.monotonic()
            if kind == "complete":
                job.state = "completed"
            elif kind == "error":
                job.state = "error"
            else:
                job.retries = details["retries"]
                job.state = "ready" if details["retries"] > 0 else "incident"
                job.available_at = self.clock.now_ms + details["backoff_ms"]
            self.changed.notify_all()
            return True

    def wait_for(self, condition: Callable[[], bool], timeout: float = 10.0) -> None:
        end = time.monotonic() + timeout
        with self.changed:
            while not condition():
                left = end - time.monotonic()
                if left <= 0:
                    raise AssertionError("the fake engine waited in vain")
                self.changed.wait(min(0.05, left))

    def states(self) -> dict[str, int]:
        with self.changed:
            counts: dict[str, int] = {}
            for job in self.jobs.values():
                counts[job.state] = counts.get(job.state, 0) + 1
            return counts


def _variables_text(job: FakeJob, names: list[str]) -> str:
    chosen = names or sorted(job.variables)
    return "{" + ", ".join(f"{json.dumps(n)}: {job.variables[n]}" for n in chosen if n in job.variables) + "}"


class FakeZeebeGateway:
    """The Zeebe gateway's job calls over real gRPC on 127.0.0.1 (an ephemeral port)."""

    def __init__(self, store: JobStore) -> None:
        import grpc
        from pyzeebe.proto import gateway_pb2, gateway_pb2_grpc

        self.store = store
        fake = self

        class Servicer(gateway_pb2_grpc.GatewayServicer):
            def ActivateJobs(self, request, context):  # noqa: N802 - the protocol's names
                store.record("ActivateJobs", {
                    "type": request.type, "worker": request.worker, "timeout": request.timeout,
                    "maxJobsToActivate": request.maxJobsToActivate, "fetchVariable": list(request.fetchVariable),
                    "requestTimeout": request.requestTimeout, "tenantIds": list(request.tenantIds)})
                wait = request.requestTimeout / 1000 if request.requestTimeout > 0 else 0.0
                jobs = store.activate(request.type, request.maxJobsToActivate, request.timeout,
                                      list(request.tenantIds), wait)
                if jobs:
                    yield gateway_pb2.ActivateJobsResponse(jobs=[gateway_pb2.ActivatedJob(
                        key=job.key, type=job.type, processInstanceKey=job.process_instance,
                        bpmnProcessId="Process_LeaveRequest", processDefinitionVersion=1,
                        processDefinitionKey=2251799813685250, elementId=job.element,
                        elementInstanceKey=job.key + 7, customHeaders="{}", worker=request.worker,
                        retries=job.retries or 0, deadline=job.deadline,
                        variables=_variables_text(job, list(request.fetchVariable)), tenantId=job.tenant)
                        for job in jobs])

            def CompleteJob(self, request, context):  # noqa: N802
                store.record("CompleteJob", {"jobKey": request.jobKey, "variables": request.variables})
                fake._answer(context, request.jobKey, "complete", variables=request.variables)
                return gateway_pb2.CompleteJobResponse()

            def FailJob(self, request, context):  # noqa: N802
                store.record("FailJob", {"jobKey": request.jobKey, "retries": request.retries,
                                         "errorMessage": request.errorMessage, "retryBackOff": request.retryBackOff})
                fake._answer(context, request.jobKey, "fail", retries=request.retries,
                             backoff_ms=request.retryBackOff, message=request.errorMessage)
                return gateway_pb2.FailJobResponse()

            def ThrowError(self, request, context):  # noqa: N802
                store.record("ThrowError", {"jobKey": request.jobKey, "errorCode": request.errorCode,
                                            "errorMessage": request.errorMessage})
                fake._answer(context, request.jobKey, "error", code=request.errorCode, message=request.errorMessage)
                return gateway_pb2.ThrowErrorResponse()

        self.grpc = grpc
        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=48))
        gateway_pb2_grpc.add_GatewayServicer_to_server(Servicer(), self.server)
        self.port = self.server.add_insecure_port("127.0.0.1:0")
        self.address = f"127.0.0.1:{self.port}"

    def _answer(self, context: Any, key: int, kind: str, **details: Any) -> None:
        if not self.store.answer(key, kind, **details):
            context.abort(self.grpc.StatusCode.NOT_FOUND,
                          f"Expected to {kind} job with key '{key}', but no such job was found")

    def __enter__(self) -> FakeZeebeGateway:
        self.server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.stop(grace=None)


class FakeCamunda7:
    """The external-task part of Camunda 7's REST API over HTTP on 127.0.0.1 (an ephemeral port)."""

    def __init__(self, store: JobStore) -> None:
        fake = self
        self.store = store
        self.bodies: list[tuple[str, str]] = []  # (path, raw JSON text) of every answer

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 - the name http.server calls
                text = self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode("utf-8")
                body = json.loads(text, parse_float=Decimal)
                parts = self.path.split("/")  # '', 'engine-rest', 'external-task', id or fetchAndLock[, verb]
                if parts[:3] != ["", "engine-rest", "external-task"]:
                    return self._send(404, {"message": "no such resource"})
                if parts[3] == "fetchAndLock":
                    return self._send(200, fake._fetch(body))
                store.record(parts[4], body)
                with store.changed:
                    fake.bodies.append((self.path, text))
                key = int(parts[3])
                if parts[4] == "complete":
                    ok = store.answer(key, "complete", variables=body["variables"])
                elif parts[4] == "failure":
                    ok = store.answer(key, "fail", retries=body["retries"], backoff_ms=body["retryTimeout"],
                                      message=body["errorMessage"])
                elif parts[4] == "bpmnError":
                    ok = store.answer(key, "error", code=body["errorCode"], message=body["errorMessage"])
                else:
                    return self._send(404, {"message": "no such resource"})
                if not ok:
                    return self._send(500, {"type": "BadUserRequestException",
                                            "message": f"External task {key} lock expired or is not locked"})
                self._send(204, None)

            def _send(self, status: int, answer: Any) -> None:
                data = b"" if answer is None else json_text(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass

        class Server(ThreadingHTTPServer):
            request_queue_size = 256  # the listen backlog: many workers' threads connect at once

        self.server = Server(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/engine-rest"

    def _fetch(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        self.store.record("fetchAndLock", body)
        [topic] = body["topics"]
        jobs = self.store.activate(topic["topicName"], body["maxTasks"], topic["lockDuration"],
                                   topic.get("tenantIdIn") or [], body.get("asyncResponseTimeout", 0) / 1000)
        answer = []
        for job in jobs:
            names = topic.get("variables") or sorted(job.variables)
            typed = {}
            for name in names:
                if name in job.variables:
                    value = json.loads(job.variables[name], parse_float=Decimal)
                    kind = {bool: "Boolean", int: "Integer", Decimal: "Double", str: "String"}.get(type(value), "Json")
                    typed[name] = {"type": kind, "value": value, "valueInfo": {}}
            answer.append({"id": str(job.key), "topicName": job.type, "workerId": body["workerId"],
                           "activityId": job.element, "processInstanceId": str(job.process_instance),
                           "retries": job.retries, "tenantId": job.tenant or None, "variables": typed})
        return answer

    def __enter__(self) -> FakeCamunda7:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
