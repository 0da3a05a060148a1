"""The ``zeebe`` generator's module, unmodified, against a fake Zeebe gateway over gRPC on 127.0.0.1.

The gateway (tests/fake_engines.py) is built from the protocol pyzeebe ships
and keeps its jobs on a clock the test moves, so job timeouts and retry
back-offs are exact and instant. The module runs in this process through its
own ``work(channel, settings, stopping)`` (what its ``main()`` runs), and once
as ``python -m generated.zeebe_workers`` stopped with SIGTERM.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from fake_engines import FakeClock, FakeZeebeGateway, JobStore
from workers_support import (
    ANA,
    OPTIONAL_NOTE,
    REPO,
    TYPED,
    TYPED_OUT,
    TYPED_READS,
    TYPED_VARIABLES,
    WORKER_ENV,
    forget_project_modules,
    import_workers,
    project_copy,
    roots_on_path,
    sent,
)

grpc = pytest.importorskip("grpc")
pytest.importorskip("pyzeebe")

ENV = WORKER_ENV


@pytest.fixture
def gateway():
    with FakeZeebeGateway(JobStore(FakeClock())) as fake:
        yield fake


@pytest.fixture
def cleanup():
    yield from roots_on_path()


def _work(module, gateway, until, env=None, during=None) -> None:
    """Run the module's ``work`` until ``until()`` holds on the gateway, then stop it and wait for it;
    ``during(store)`` runs in a thread meanwhile (moving the clock, releasing handlers)."""
    settings = module.env_settings({**ENV, **(env or {})})

    async def go() -> None:
        channel = grpc.aio.insecure_channel(gateway.address)
        stopping = asyncio.Event()
        worker = asyncio.create_task(module.work(channel, settings, stopping))
        helper = threading.Thread(target=during, args=(gateway.store,), daemon=True) if during else None
        if helper:
            helper.start()
        waiter = asyncio.create_task(asyncio.to_thread(gateway.store.wait_for, until, 20))
        await asyncio.wait({waiter, worker}, return_when=asyncio.FIRST_COMPLETED)
        if worker.done():
            waiter.cancel()
            worker.result()
            raise AssertionError("the worker stopped on its own")
        waiter.result()
        stopping.set()
        await asyncio.wait_for(worker, 20)
        await channel.close()

    asyncio.run(go())


def test_jobs_are_activated_with_the_task_s_settings_and_completed_with_exact_decimals(tmp_path, cleanup, gateway,
                                                                                       caplog):
    root = project_copy(tmp_path, "leave-c8", cleanup, settings={
        "check_balance": 'seam:jobTimeout "PT45S"^^xsd:duration ; seam:maxJobs 4 ; seam:tenantId "acme", "beta"'},
        workers_toml='job_timeout = "PT2M"\nmax_jobs = 7\n', handlers={"check_balance": (
            "from decimal import Decimal\n\n"
            "def handle(inputs, bindings):\n"
            "    if inputs['leave_type'] == 'annual':\n"
            "        return {'balance_left': Decimal('12.50')}\n"
            "    return {'balance_left': Decimal('0.1') + Decimal('0.2')}\n")})
    module = import_workers(root, "zeebe_workers")
    store = gateway.store
    annual = store.add("check-balance", ANA, element="Task_CheckBalance", tenant="acme")
    sick = store.add("check-balance", {**ANA, "leave_type": '"sick"'}, element="Task_CheckBalance", tenant="beta")
    other = store.add("check-balance", ANA, tenant="gamma")  # a tenant the task does not take
    record = store.add("record-leave", ANA, element="Task_RecordLeave")
    caplog.set_level(logging.INFO, logger="seams.workers")
    _work(module, gateway, lambda: store.states().get("completed") == 3)

    activations = {r["type"]: r for r in sent(gateway, "ActivateJobs")}
    assert {k: activations["check-balance"][k] for k in ("timeout", "fetchVariable", "tenantIds", "worker")} == {
        "timeout": 45_000, "fetchVariable": ["employee", "leave_type"], "tenantIds": ["acme", "beta"],
        "worker": "test-worker"}
    assert max(r["maxJobsToActivate"] for r in sent(gateway, "ActivateJobs") if r["type"] == "check-balance") == 4
    assert {k: activations["record-leave"][k] for k in ("timeout", "fetchVariable", "tenantIds")} == {
        "timeout": 120_000, "fetchVariable": ["days", "employee", "leave_type"], "tenantIds": []}
    assert max(r["maxJobsToActivate"] for r in sent(gateway, "ActivateJobs") if r["type"] == "record-leave") == 7
    completed = {r["jobKey"]: r["variables"] for r in sent(gateway, "CompleteJob")}
    assert completed == {annual: '{"balance_left": 12.50}', sick: '{"balance_left": 0.3}',
                         record: '{"booking_ref": "BK-1042"}'}
    assert store.jobs[other].state == "ready"
    assert sys.modules["workers_bindings"].CALLS.count(("bindings()",)) == 1  # one object for all the threads

    jobs = [r.job for r in caplog.records if r.name == "seams.workers" and hasattr(r, "job")]
    assert {j["job_key"]: (j["job_type"], j["element"], j["outcome"], j["tenant"]) for j in jobs} == {
        annual: ("check-balance", "Task_CheckBalance", "completed", "acme"),
        sick: ("check-balance", "Task_CheckBalance", "completed", "beta"),
        record: ("record-leave", "Task_RecordLeave", "completed", None)}
    assert all(j["process_instance"] == 2251799813685251 and j["duration_ms"] >= 0 for j in jobs)


def test_fractional_inputs_arrive_as_exact_decimals(tmp_path, cleanup, gateway):
    root = project_copy(tmp_path, "leave-c8", cleanup, handlers={"record_leave": (
        "from decimal import Decimal\n\n"
        "def handle(inputs, bindings):\n"
        "    assert inputs['days'] == Decimal('2.10') and isinstance(inputs['days'], Decimal), inputs\n"
        "    return {'booking_ref': str(inputs['days'])}\n")})
    module = import_workers(root, "zeebe_workers")
    key = gateway.store.add("record-leave", {**ANA, "days": "2.10"}, element="Task_RecordLeave")
    _work(module, gateway, lambda: sent(gateway, "CompleteJob") or sent(gateway, "FailJob"))
    assert sent(gateway, "CompleteJob") == [{"jobKey": key, "variables": '{"booking_ref": "2.10"}'}]


def test_a_date_and_a_decimal_input_arrive_as_acceptance_gives_them(tmp_path, cleanup, gateway):
    root = project_copy(tmp_path, "leave-c8", cleanup, settings={"record_leave": TYPED_READS},
                        handlers={"record_leave": TYPED})
    module = import_workers(root, "zeebe_workers")
    whole = gateway.store.add("record-leave", {**ANA, **TYPED_VARIABLES},
                              element="Task_RecordLeave")
    _work(module, gateway, lambda: sent(gateway, "CompleteJob") or sent(gateway, "FailJob"))
    assert not sent(gateway, "FailJob")
    assert sent(gateway, "CompleteJob") == [{"jobKey": whole, "variables": json.dumps({"booking_ref": TYPED_OUT})}]


def test_failures_back_off_exponentially_up_to_the_cap_on_the_engine_s_clock(tmp_path, cleanup, gateway):
    root = project_copy(tmp_path, "leave-c8", cleanup, settings={"check_balance": (
        'seam:retries 3 ; seam:retryBackoff "PT1S"^^xsd:duration ; seam:retryBackoffMax "PT1.5S"^^xsd:duration')},
        handlers={"check_balance": "def handle(inputs, bindings):\n    raise RuntimeError('ledger offline')\n"})
    module = import_workers(root, "zeebe_workers")
    store = gateway.store
    key = store.add("check-balance", ANA, retries=3, element="Task_CheckBalance")
    job = store.jobs[key]

    def clock(store):
        store.wait_for(lambda: len(sent(gateway, "FailJob")) == 1)
        time.sleep(0.3)  # several polls: the job waits for its back-off
        assert job.activations == 1
        store.advance(999)
        time.sleep(0.3)
        assert job.activations == 1
        store.advance(1)
        store.wait_for(lambda: len(sent(gateway, "FailJob")) == 2)
        store.advance(1499)
        time.sleep(0.3)
        assert job.activations == 2
        store.advance(1)

    _work(module, gateway, lambda: job.state == "incident", during=clock)
    assert [(r["retries"], r["retryBackOff"]) for r in sent(gateway, "FailJob")] == [(2, 1000), (1, 1500), (0, 1500)]
    assert job.activations == 3
    assert sent(gateway, "FailJob")[0]["errorMessage"] == (
        "check-balance (ex:CheckBalance, BPMN Task_CheckBalance): handlers.check_balance.handle raised "
        "RuntimeError: ledger offline")


def test_a_contract_mismatch_fails_the_job_and_a_declared_error_code_throws_the_bpmn_error(tmp_path, cleanup,
                                                                                          gateway):
    root = project_copy(tmp_path, "leave-c8", cleanup, settings={"record_leave": 'seam:raises "no-calendar"'},
                        handlers={
        "check_balance": ("class NoLedger(Exception):\n    error_code = 'no-ledger'\n\n"
                          "def handle(inputs, bindings):\n"
                          "    if inputs['employee'] == 'cy':\n        raise NoLedger('ledger closed')\n"
                          "    return {'balance_left': 'lots'}\n"),
        "record_leave": ("from pyzeebe.errors import BusinessError\n\n"
                         "def handle(inputs, bindings):\n    raise BusinessError('no-calendar', 'calendar closed')\n")})
    module = import_workers(root, "zeebe_workers")
    store = gateway.store
    bad = store.add("check-balance", ANA, retries=3, element="Task_CheckBalance")
    missing = store.add("check-balance", {"employee": '"ana"'}, retries=1, element="Task_CheckBalance")
    undeclared = store.add("check-balance", {**ANA, "employee": '"cy"'}, retries=3, element="Task_CheckBalance")
    thrown = store.add("record-leave", ANA, element="Task_RecordLeave")
    _work(module, gateway, lambda: len(sent(gateway, "FailJob")) == 3 and sent(gateway, "ThrowError"))
    failed = {r["jobKey"]: (r["retries"], r["retryBackOff"], r["errorMessage"]) for r in sent(gateway, "FailJob")}
    assert failed == {
        bad: (2, 5000, "check-balance (ex:CheckBalance, BPMN Task_CheckBalance): handlers.check_balance.handle "
                       "broke the contract: output 'balance_left': 'lots' is not an xsd:decimal"),
        missing: (0, 20000, "check-balance (ex:CheckBalance, BPMN Task_CheckBalance): variable(s) not set: "
                            "leave_type (seam:reads)"),
        undeclared: (2, 5000, "check-balance (ex:CheckBalance, BPMN Task_CheckBalance): handlers.check_balance.handle "
                              "raised NoLedger: ledger closed; BPMN error 'no-ledger', which the task does not declare "
                              "(seam:raises: none)")}
    [error] = sent(gateway, "ThrowError")
    assert (error["jobKey"], error["errorCode"]) == (thrown, "no-calendar")
    assert error["errorMessage"].endswith("raised BusinessError: calendar closed")
    assert store.jobs[missing].state == "incident" and not sent(gateway, "CompleteJob")


BLOCKING = (
    "import threading\n\nRELEASE = threading.Event()\nSTARTED = []\n\n"
    "def handle(inputs, bindings):\n"
    "    STARTED.append(inputs['employee'])\n"
    "    assert RELEASE.wait(20)\n"
    "    return {'balance_left': 1}\n")


def test_a_job_past_its_timeout_is_handed_out_again_and_the_late_answer_is_refused(tmp_path, cleanup, gateway,
                                                                                 caplog):
    root = project_copy(tmp_path, "leave-c8", cleanup, settings={"check_balance": 'seam:jobTimeout "PT2S"^^xsd:duration'},
                    handlers={"check_balance": BLOCKING})
    module = import_workers(root, "zeebe_workers")
    store = gateway.store
    key = store.add("check-balance", ANA, element="Task_CheckBalance")
    job = store.jobs[key]
    caplog.set_level(logging.INFO, logger="seams.workers")

    def clock(store):
        import handlers.check_balance as handler

        store.wait_for(lambda: job.activations == 1)
        store.advance(1999)
        time.sleep(0.3)
        assert job.activations == 1
        store.advance(1)
        store.wait_for(lambda: job.activations == 2 and len(handler.STARTED) == 2)
        handler.RELEASE.set()

    _work(module, gateway, lambda: len(sent(gateway, "CompleteJob")) == 2, during=clock)
    assert {r["timeout"] for r in sent(gateway, "ActivateJobs") if r["type"] == "check-balance"} == {2000}
    outcomes = sorted(r.job["outcome"] for r in caplog.records if hasattr(r, "job"))
    assert outcomes == ["completed", "rejected"]


def test_many_jobs_never_run_more_at_once_than_max_jobs(tmp_path, cleanup, gateway):
    root = project_copy(tmp_path, "leave-c8", cleanup, settings={"check_balance": "seam:maxJobs 3"}, handlers={"check_balance": (
        "import threading, time\n\nLOCK = threading.Lock()\nNOW = [0]\nMOST = [0]\n\n"
        "def handle(inputs, bindings):\n"
        "    with LOCK:\n        NOW[0] += 1\n        MOST[0] = max(MOST[0], NOW[0])\n"
        "    time.sleep(0.01)\n"
        "    with LOCK:\n        NOW[0] -= 1\n"
        "    return {'balance_left': 2}\n")})
    module = import_workers(root, "zeebe_workers")
    store = gateway.store
    for _ in range(60):
        store.add("check-balance", ANA, element="Task_CheckBalance")
    _work(module, gateway, lambda: store.states().get("completed") == 60)
    import handlers.check_balance as handler

    assert handler.MOST[0] == 3
    asked = [r["maxJobsToActivate"] for r in sent(gateway, "ActivateJobs") if r["type"] == "check-balance"]
    assert max(asked) == 3 and min(asked) >= 1


def test_a_stop_lets_the_running_job_finish_and_a_job_past_the_grace_period_is_not_lost(tmp_path, cleanup, gateway,
                                                                                         caplog):
    root = project_copy(tmp_path, "leave-c8", cleanup, handlers={"check_balance": BLOCKING})
    module = import_workers(root, "zeebe_workers")
    store = gateway.store
    key = store.add("check-balance", ANA, element="Task_CheckBalance")

    def release_later(store):
        store.wait_for(lambda: store.jobs[key].state == "active")
        time.sleep(0.4)  # the worker is stopping by now
        import handlers.check_balance as handler

        handler.RELEASE.set()

    _work(module, gateway, lambda: store.jobs[key].state == "active", during=release_later)
    assert store.jobs[key].state == "completed"

    forget_project_modules()
    module = import_workers(root, "zeebe_workers")
    caplog.set_level(logging.INFO, logger="seams.workers")
    stuck = store.add("check-balance", ANA, element="Task_CheckBalance")
    _work(module, gateway, lambda: store.jobs[stuck].state == "active", env={"SEAMS_WORKERS_GRACE_SECONDS": "0.2"})
    [abandoned] = [r.job for r in caplog.records if getattr(r, "job", {}).get("job_key") == stuck]
    assert abandoned["outcome"] == "abandoned"
    store.advance(300_000)  # the default job timeout: the engine hands the job out again
    assert store.activate("check-balance", 1, 1000, [], 0)[0].key == stuck
    import handlers.check_balance as handler

    handler.RELEASE.set()  # the abandoned handler ends now, not 20 s into a later test


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _probe(port: int, path: str) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=2) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_sigterm_stops_the_process_after_its_running_job_and_the_probes_answer(tmp_path, cleanup, gateway):
    root = project_copy(tmp_path, "leave-c8", cleanup, handlers={"check_balance": (
        "import time\n\ndef handle(inputs, bindings):\n    time.sleep(0.8)\n    return {'balance_left': 5}\n")})
    store = gateway.store
    port = _free_port()
    env = {**os.environ, **ENV, "ZEEBE_ADDRESS": gateway.address, "SEAMS_WORKERS_HEALTH_PORT": str(port),
           "PYTHONPATH": str(root)}
    env.pop("ZEEBE_CLIENT_ID", None)
    env.pop("CAMUNDA_CLIENT_ID", None)
    process = subprocess.Popen([sys.executable, "-m", "generated.zeebe_workers"], cwd=root, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        store.wait_for(lambda: len(sent(gateway, "ActivateJobs")) >= 2)
        deadline = time.monotonic() + 10
        while _probe(port, "/ready") != 200 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert (_probe(port, "/live"), _probe(port, "/ready"), _probe(port, "/nope")) == (200, 200, 404)
        key = store.add("check-balance", ANA, element="Task_CheckBalance")
        store.wait_for(lambda: store.jobs[key].state == "active")
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, err
    assert store.jobs[key].state == "completed"
    lines = [json.loads(line) for line in err.splitlines()]
    [job] = [line for line in lines if "job_key" in line]
    assert (job["job_key"], job["outcome"], job["logger"], job["level"]) == (key, "completed", "seams.workers",
                                                                            "INFO")
    assert job["duration_ms"] >= 800
    assert lines[-1]["message"] == "stopped"


def test_without_a_task_definition_the_job_type_is_the_handler_name(tmp_path):
    root = tmp_path / "leave-c8"
    shutil.copytree(REPO / "examples" / "leave-c8", root, ignore=shutil.ignore_patterns(".seams", "__pycache__"))
    bpmn = root / "model" / "leave.bpmn"
    bpmn.write_text(bpmn.read_text(encoding="utf-8").replace(
        '<zeebe:taskDefinition type="record-leave" />', ""), encoding="utf-8")
    from seams_cli.main import main

    assert main(["generate", "--project", str(root)]) == 0
    text = (root / "generated" / "zeebe_workers.py").read_text(encoding="utf-8")
    assert '    "record_leave": RECORD_LEAVE_TASK,' in text
    assert '    "check-balance": CHECK_BALANCE_TASK,' in text


def test_the_generated_module_is_deterministic_and_ruff_clean(tmp_path):
    from seams.generators.zeebe import ZeebeGenerator
    from seams.model.loading import load_model
    from seams.project.layout import load_project

    committed = (REPO / "examples" / "leave-c8" / "generated" / "zeebe_workers.py").read_bytes()
    project = load_project(REPO / "examples" / "leave-c8", env={})
    assert ZeebeGenerator().seams_generate(load_model(project)) == {"zeebe_workers.py": committed}
    assert committed.startswith(b'"""Zeebe (Camunda 8) job workers') and b"Generated by `seams generate`" in committed
    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    if not Path(ruff).exists():
        pytest.skip("ruff is not installed (the lint extra)")
    done = subprocess.run([ruff, "check", "--isolated", "--no-cache", "--line-length", "120",
                           "--select", "E,F,W,I,B,UP", "--target-version", "py310", "-"],
                          input=committed, capture_output=True, timeout=60)
    assert done.returncode == 0, done.stdout.decode() + done.stderr.decode()


def test_two_tasks_with_one_job_type_are_refused_naming_both(tmp_path, capsys):
    root = tmp_path / "leave-c8"
    shutil.copytree(REPO / "examples" / "leave-c8", root, ignore=shutil.ignore_patterns(".seams", "__pycache__"))
    bpmn = root / "model" / "leave.bpmn"
    bpmn.write_text(bpmn.read_text(encoding="utf-8").replace('type="record-leave"', 'type="check-balance"'),
                    encoding="utf-8")
    from seams_cli.main import main

    assert main(["generate", "--project", str(root)]) == 1
    assert capsys.readouterr().err.splitlines() == [
        "seams generate: generator zeebe: ex:RecordLeave: job type 'check-balance' is also the job type of "
        "ex:CheckBalance"]


def test_an_optional_read_left_unset_is_absent_from_the_inputs(tmp_path, cleanup, gateway):
    root = project_copy(tmp_path, "leave-c8", cleanup, settings={"record_leave": "seam:reads ex:reviewNote"},
                        handlers={"record_leave": OPTIONAL_NOTE})
    module = import_workers(root, "zeebe_workers")
    store = gateway.store
    unset = store.add("record-leave", ANA, element="Task_RecordLeave")
    noted = store.add("record-leave", {**ANA, "review_note": '"enjoy"'}, element="Task_RecordLeave")
    _work(module, gateway, lambda: sent(gateway, "FailJob") or all(store.jobs[k].state == "completed" for k in (unset, noted)))
    assert not sent(gateway, "FailJob")
    assert {r["jobKey"]: json.loads(r["variables"])["booking_ref"] for r in sent(gateway, "CompleteJob")} == {unset: "no note", noted: "enjoy"}
