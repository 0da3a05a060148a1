"""The ``camunda7`` generator's module, unmodified, against a fake Camunda 7 REST API on 127.0.0.1.

The engine (tests/fake_engines.py, the standard library's http.server) keeps
its external tasks on a clock the test moves, so lock expiry and retry
timeouts are exact and instant. The module runs in this process through its
own ``work(rest, settings, stopping)`` (what its ``main()`` runs), and once
as ``python -m generated.camunda7_workers`` stopped with SIGTERM.
"""

from __future__ import annotations

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
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from fake_engines import FakeCamunda7, FakeClock, JobStore
from workers_support import (
    ANA,
    OPTIONAL_NOTE,
    REPO,
    TYPED,
    TYPED_OUT,
    TYPED_READS,
    TYPED_VARIABLES,
    WORKER_ENV,
    import_workers,
    project_copy,
    roots_on_path,
    sent,
)

ENV = WORKER_ENV


@pytest.fixture
def engine():
    with FakeCamunda7(JobStore(FakeClock())) as fake:
        yield fake


@pytest.fixture
def cleanup():
    yield from roots_on_path()


def _work(module, engine, until, env=None, during=None) -> None:
    """Run the module's ``work`` in a thread until ``until()`` holds on the engine, then stop it and
    wait for it; ``during(store)`` runs in another thread meanwhile."""
    settings = module.env_settings({**ENV, **(env or {})})
    stopping = threading.Event()
    errors: list[BaseException] = []

    def run() -> None:
        try:
            module.work(module.Camunda7Rest(engine.url, {}), settings, stopping)
        except BaseException as exc:
            errors.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    if during:
        threading.Thread(target=during, args=(engine.store,), daemon=True).start()
    engine.store.wait_for(lambda: until() or not worker.is_alive(), 20)
    assert not errors and worker.is_alive(), errors
    stopping.set()
    worker.join(20)
    assert not worker.is_alive() and not errors, errors


def test_tasks_are_fetched_with_the_task_s_settings_and_completed_with_exact_decimals(tmp_path, cleanup, engine,
                                                                                      caplog):
    root = project_copy(tmp_path, "leave-c7", cleanup, settings={
        "check_balance": 'seam:jobTimeout "PT45S"^^xsd:duration ; seam:maxJobs 4 ; seam:tenantId "acme"'},
        workers_toml='job_timeout = "PT2M"\n', handlers={"check_balance": (
            "from decimal import Decimal\n\n"
            "def handle(inputs, bindings):\n"
            "    return {'balance_left': Decimal('12.50') if inputs['leave_type'] == 'annual' else Decimal('0.3')}\n")})
    module = import_workers(root, "camunda7_workers")
    store = engine.store
    annual = store.add("check-balance", ANA, retries=None, element="Task_CheckBalance", tenant="acme")
    sick = store.add("check-balance", {**ANA, "leave_type": '"sick"'}, retries=None, element="Task_CheckBalance",
                     tenant="acme")
    record = store.add("record-leave", ANA, retries=None, element="Task_RecordLeave")
    caplog.set_level(logging.INFO, logger="seams.workers")
    _work(module, engine, lambda: store.states().get("completed") == 3)

    fetches = {f["topics"][0]["topicName"]: f for f in sent(engine, "fetchAndLock")}
    check = fetches["check-balance"]
    assert (check["workerId"], check["usePriority"], check["asyncResponseTimeout"]) == ("test-worker", True, 100)
    assert check["topics"][0] == {"topicName": "check-balance", "lockDuration": 45_000,
                                  "variables": ["employee", "leave_type"], "tenantIdIn": ["acme"]}
    assert max(f["maxTasks"] for f in sent(engine, "fetchAndLock")
               if f["topics"][0]["topicName"] == "check-balance") == 4
    assert fetches["record-leave"]["topics"][0] == {"topicName": "record-leave", "lockDuration": 120_000,
                                                    "variables": ["days", "employee", "leave_type"]}
    bodies = dict(engine.bodies)
    assert sys.modules["workers_bindings"].CALLS.count(("bindings()",)) == 1  # one object for all the threads
    assert bodies[f"/engine-rest/external-task/{annual}/complete"] == (
        '{"workerId": "test-worker", "variables": {"balance_left": {"value": 12.50}}}')
    assert bodies[f"/engine-rest/external-task/{sick}/complete"].endswith('{"balance_left": {"value": 0.3}}}')
    assert bodies[f"/engine-rest/external-task/{record}/complete"].endswith('{"booking_ref": {"value": "BK-1042"}}}')
    jobs = {r.job["job_key"]: r.job for r in caplog.records if hasattr(r, "job")}
    assert {k: (j["job_type"], j["element"], j["outcome"], j["process_instance"]) for k, j in jobs.items()} == {
        str(annual): ("check-balance", "Task_CheckBalance", "completed", "2251799813685251"),
        str(sick): ("check-balance", "Task_CheckBalance", "completed", "2251799813685251"),
        str(record): ("record-leave", "Task_RecordLeave", "completed", "2251799813685251")}


def test_inputs_arrive_as_exact_decimals(tmp_path, cleanup, engine):
    root = project_copy(tmp_path, "leave-c7", cleanup, handlers={"record_leave": (
        "from decimal import Decimal\n\n"
        "def handle(inputs, bindings):\n"
        "    assert inputs['days'] == Decimal('2.10') and isinstance(inputs['days'], Decimal), inputs\n"
        "    return {'booking_ref': str(inputs['days'])}\n")})
    module = import_workers(root, "camunda7_workers")
    key = engine.store.add("record-leave", {**ANA, "days": "2.10"}, retries=None, element="Task_RecordLeave")
    _work(module, engine, lambda: engine.store.jobs[key].state != "active" and engine.store.jobs[key].activations)
    assert engine.store.jobs[key].state == "completed", sent(engine, "failure")
    assert dict(engine.bodies)[f"/engine-rest/external-task/{key}/complete"].endswith(
        '{"booking_ref": {"value": "2.10"}}}')


def test_a_date_and_a_decimal_input_arrive_as_acceptance_gives_them(tmp_path, cleanup, engine):
    root = project_copy(tmp_path, "leave-c7", cleanup, settings={"record_leave": TYPED_READS},
                        handlers={"record_leave": TYPED})
    module = import_workers(root, "camunda7_workers")
    key = engine.store.add("record-leave", {**ANA, **TYPED_VARIABLES}, retries=None, element="Task_RecordLeave")
    _work(module, engine, lambda: engine.store.jobs[key].state != "active" and engine.store.jobs[key].activations)
    assert engine.store.jobs[key].state == "completed", sent(engine, "failure")
    assert dict(engine.bodies)[f"/engine-rest/external-task/{key}/complete"].endswith(
        '{"booking_ref": {"value": ' + json.dumps(TYPED_OUT) + "}}}")


def test_failures_count_retries_down_and_back_off_up_to_the_cap_on_the_engine_s_clock(tmp_path, cleanup, engine):
    root = project_copy(tmp_path, "leave-c7", cleanup, settings={"check_balance": (
        'seam:retries 3 ; seam:retryBackoff "PT1S"^^xsd:duration ; seam:retryBackoffMax "PT1.5S"^^xsd:duration')},
        handlers={"check_balance": "def handle(inputs, bindings):\n    raise RuntimeError('ledger offline')\n"})
    module = import_workers(root, "camunda7_workers")
    store = engine.store
    key = store.add("check-balance", ANA, retries=None, element="Task_CheckBalance")
    job = store.jobs[key]

    def clock(store):
        store.wait_for(lambda: len(sent(engine, "failure")) == 1)
        time.sleep(0.3)
        assert job.activations == 1
        store.advance(999)
        time.sleep(0.3)
        assert job.activations == 1
        store.advance(1)
        store.wait_for(lambda: len(sent(engine, "failure")) == 2)
        store.advance(1500)

    _work(module, engine, lambda: job.state == "incident", during=clock)
    failures = sent(engine, "failure")
    assert [(f["retries"], f["retryTimeout"]) for f in failures] == [(2, 1000), (1, 1500), (0, 1500)]
    assert failures[0]["errorMessage"] == failures[0]["errorDetails"] == (
        "check-balance (ex:CheckBalance, BPMN Task_CheckBalance): handlers.check_balance.handle raised "
        "RuntimeError: ledger offline")


def test_a_contract_mismatch_is_a_failure_and_a_declared_error_code_a_bpmn_error(tmp_path, cleanup, engine):
    root = project_copy(tmp_path, "leave-c7", cleanup, settings={"record_leave": 'seam:raises "no-calendar"'},
                        handlers={
        "check_balance": ("class NoLedger(Exception):\n    error_code = 'no-ledger'\n\n"
                          "def handle(inputs, bindings):\n"
                          "    if inputs['employee'] == 'cy':\n        raise NoLedger('ledger closed')\n"
                          "    return {'balance_left': True}\n"),
        "record_leave": ("class NoCalendar(Exception):\n    error_code = 'no-calendar'\n\n"
                         "def handle(inputs, bindings):\n    raise NoCalendar('calendar closed')\n")})
    module = import_workers(root, "camunda7_workers")
    store = engine.store
    bad = store.add("check-balance", ANA, retries=None, element="Task_CheckBalance")
    undeclared = store.add("check-balance", {**ANA, "employee": '"cy"'}, retries=None, element="Task_CheckBalance")
    thrown = store.add("record-leave", ANA, retries=None, element="Task_RecordLeave")
    _work(module, engine, lambda: len(sent(engine, "failure")) == 2 and sent(engine, "bpmnError"))
    failures = {int(path.split("/")[-2]): json.loads(body) for path, body in engine.bodies
                if path.endswith("/failure")}
    assert {key: (f["retries"], f["retryTimeout"], f["errorMessage"]) for key, f in failures.items()} == {
        bad: (2, 5000, "check-balance (ex:CheckBalance, BPMN Task_CheckBalance): handlers.check_balance.handle "
                       "broke the contract: output 'balance_left': True is not an xsd:decimal"),
        undeclared: (2, 5000, "check-balance (ex:CheckBalance, BPMN Task_CheckBalance): handlers.check_balance.handle "
                              "raised NoLedger: ledger closed; BPMN error 'no-ledger', which the task does not declare "
                              "(seam:raises: none)")}
    [error] = sent(engine, "bpmnError")
    assert error["errorCode"] == "no-calendar" and error["errorMessage"].endswith("raised NoCalendar: calendar closed")
    assert store.jobs[bad].state == "ready" and store.jobs[thrown].state == "error"


BLOCKING = (
    "import threading\n\nRELEASE = threading.Event()\n\n"
    "def handle(inputs, bindings):\n"
    "    assert RELEASE.wait(20)\n"
    "    return {'balance_left': 1}\n")


def test_a_task_whose_lock_expired_is_fetched_again_and_the_late_answer_is_refused(tmp_path, cleanup, engine,
                                                                                 caplog):
    root = project_copy(tmp_path, "leave-c7", cleanup, settings={"check_balance": 'seam:jobTimeout "PT2S"^^xsd:duration'},
                    handlers={"check_balance": BLOCKING})
    module = import_workers(root, "camunda7_workers")
    store = engine.store
    key = store.add("check-balance", ANA, retries=None, element="Task_CheckBalance")
    job = store.jobs[key]
    caplog.set_level(logging.INFO, logger="seams.workers")

    def clock(store):
        store.wait_for(lambda: job.activations == 1)
        store.advance(1999)
        time.sleep(0.3)
        assert job.activations == 1
        store.advance(1)
        store.wait_for(lambda: job.activations == 2)
        sys.modules["handlers.check_balance"].RELEASE.set()

    _work(module, engine, lambda: len(sent(engine, "complete")) == 2, during=clock)
    outcomes = sorted(r.job["outcome"] for r in caplog.records if hasattr(r, "job"))
    assert outcomes == ["completed", "rejected"]


def test_many_tasks_never_run_more_at_once_than_max_jobs(tmp_path, cleanup, engine):
    root = project_copy(tmp_path, "leave-c7", cleanup, settings={"check_balance": "seam:maxJobs 3"}, handlers={"check_balance": (
        "import threading, time\n\nLOCK = threading.Lock()\nNOW = [0]\nMOST = [0]\n\n"
        "def handle(inputs, bindings):\n"
        "    with LOCK:\n        NOW[0] += 1\n        MOST[0] = max(MOST[0], NOW[0])\n"
        "    time.sleep(0.01)\n"
        "    with LOCK:\n        NOW[0] -= 1\n"
        "    return {'balance_left': 2}\n")})
    module = import_workers(root, "camunda7_workers")
    store = engine.store
    for _ in range(60):
        store.add("check-balance", ANA, retries=None, element="Task_CheckBalance")
    _work(module, engine, lambda: store.states().get("completed") == 60)
    assert sys.modules["handlers.check_balance"].MOST[0] == 3
    asked = [f["maxTasks"] for f in sent(engine, "fetchAndLock") if f["topics"][0]["topicName"] == "check-balance"]
    assert max(asked) == 3 and min(asked) >= 1


def test_a_task_past_the_grace_period_is_abandoned_not_lost(tmp_path, cleanup, engine, caplog):
    root = project_copy(tmp_path, "leave-c7", cleanup, handlers={"check_balance": BLOCKING})
    module = import_workers(root, "camunda7_workers")
    store = engine.store
    key = store.add("check-balance", ANA, retries=None, element="Task_CheckBalance")
    caplog.set_level(logging.INFO, logger="seams.workers")
    _work(module, engine, lambda: store.jobs[key].state == "active", env={"SEAMS_WORKERS_GRACE_SECONDS": "0.2"})
    [abandoned] = _job_records(caplog, str(key))
    assert abandoned["outcome"] == "abandoned"
    assert store.jobs[key].state == "active"
    store.advance(300_000)  # the default lock duration: the engine hands the task out again
    assert store.activate("check-balance", 1, 1000, [], 0)[0].key == key
    sys.modules["handlers.check_balance"].RELEASE.set()
    # The abandoned handler's late answer is logged; wait for it while this test's engine is up,
    # so that it is not logged (as a failed connection) into a later test.
    store.wait_for(lambda: len(_job_records(caplog, str(key))) == 2)


def _job_records(caplog, job_key: str) -> list[dict]:
    return [r.job for r in caplog.records if getattr(r, "job", {}).get("job_key") == job_key]


def test_the_probes_say_live_but_not_ready_while_the_engine_cannot_be_reached(tmp_path, cleanup, caplog):
    module = import_workers(project_copy(tmp_path, "leave-c7", cleanup), "camunda7_workers")
    settings = module.env_settings({**ENV, "SEAMS_WORKERS_HEALTH_PORT": "0"})
    health = module.Health(list(module.TASKS), stale_s=60)
    port = health.serve("127.0.0.1", 0)
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        nowhere = f"http://127.0.0.1:{closed.getsockname()[1]}/engine-rest"  # bound, never listening
        stopping = threading.Event()
        worker = threading.Thread(target=module.work, args=(module.Camunda7Rest(nowhere, {}), settings, stopping,
                                                            health), daemon=True)
        worker.start()
        try:
            deadline = time.monotonic() + 10
            while len([r for r in caplog.records if "cannot fetch and lock" in r.getMessage()]) < len(module.TASKS):
                assert time.monotonic() < deadline, "no failed fetch"
                time.sleep(0.05)
            assert (_probe(port, "/live"), _probe(port, "/ready")) == (200, 503)
        finally:
            stopping.set()
            worker.join(10)
            health.close()
    assert not worker.is_alive()


def _probe(port: int, path: str) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=2) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_sigterm_stops_the_process_after_its_running_task(tmp_path, cleanup, engine):
    root = project_copy(tmp_path, "leave-c7", cleanup, handlers={"check_balance": (
        "import time\n\ndef handle(inputs, bindings):\n    time.sleep(0.8)\n    return {'balance_left': 5}\n")})
    store = engine.store
    env = {**os.environ, **ENV, "CAMUNDA_URL": engine.url, "PYTHONPATH": str(root)}
    process = subprocess.Popen([sys.executable, "-m", "generated.camunda7_workers"], cwd=root, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        store.wait_for(lambda: len(sent(engine, "fetchAndLock")) >= 2)
        key = store.add("check-balance", ANA, retries=None, element="Task_CheckBalance")
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
    assert (job["job_key"], job["outcome"], job["duration_ms"] >= 800) == (str(key), "completed", True)
    assert lines[-1]["message"] == "stopped"


def test_the_generated_module_is_deterministic_needs_only_the_standard_library_and_is_ruff_clean():
    from seams.generators.camunda7 import Camunda7Generator
    from seams.model.loading import load_model
    from seams.project.layout import load_project

    committed = (REPO / "examples" / "leave-c7" / "generated" / "camunda7_workers.py").read_bytes()
    project = load_project(REPO / "examples" / "leave-c7", env={})
    assert Camunda7Generator().seams_generate(load_model(project)) == {"camunda7_workers.py": committed}
    imported = {line.split()[1].split(".")[0] for line in committed.decode().splitlines()
                if line.startswith(("import ", "from "))}
    assert imported <= set(sys.stdlib_module_names), imported - set(sys.stdlib_module_names)
    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    if not Path(ruff).exists():
        pytest.skip("ruff is not installed (the lint extra)")
    done = subprocess.run([ruff, "check", "--isolated", "--no-cache", "--line-length", "120",
                           "--select", "E,F,W,I,B,UP", "--target-version", "py310", "-"],
                          input=committed, capture_output=True, timeout=60)
    assert done.returncode == 0, done.stdout.decode() + done.stderr.decode()


def test_the_typed_answer_the_worker_tests_expect_is_what_acceptance_gives_the_handler():
    from seams.lang.field_values import handler_values

    namespace: dict = {}
    exec(TYPED, namespace)  # the handler of the two workers' tests, given its inputs as acceptance gives them
    datatypes = {"start_date": "date", "balance_left": "decimal", "days": "integer", "leave_type": "string"}
    given = handler_values({name: json.loads(text) for name, text in {**ANA, **TYPED_VARIABLES}.items()}, datatypes)
    assert namespace["handle"](given, None) == {"booking_ref": TYPED_OUT}


def test_an_optional_read_left_unset_is_absent_from_the_inputs(tmp_path, cleanup, engine):
    root = project_copy(tmp_path, "leave-c7", cleanup, settings={"record_leave": "seam:reads ex:reviewNote"},
                        handlers={"record_leave": OPTIONAL_NOTE})
    module = import_workers(root, "camunda7_workers")
    store = engine.store
    unset = store.add("record-leave", ANA, retries=None, element="Task_RecordLeave")
    noted = store.add("record-leave", {**ANA, "review_note": '"enjoy"'}, retries=None, element="Task_RecordLeave")
    _work(module, engine, lambda: sent(engine, "failure") or all(store.jobs[k].state == "completed" for k in (unset, noted)))
    assert not sent(engine, "failure")
    assert {int(path.split("/")[-2]): json.loads(body)["variables"]["booking_ref"]["value"]
               for path, body in engine.bodies if path.endswith("/complete")} == {unset: "no note", noted: "enjoy"}
