"""The ``zeebe`` generator's module, driven with pyzeebe's own Job and JobController.

Each test builds a ``pyzeebe.Job`` as the gateway would hand it over and
runs the generated task's job handler (the coroutine pyzeebe's worker runs)
with a real ``pyzeebe.JobController`` whose gateway adapter only records the
calls, so no network is used: a right answer completes the job, a contract
mismatch or a raising handler fails it, and an ``error_code`` throws a BPMN
error.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from workers_support import REPO, engine_project, forget_project_modules, import_workers

pyzeebe = pytest.importorskip("pyzeebe")


class RecordingAdapter:
    """Stands in for pyzeebe's ZeebeAdapter (the gRPC side): records what the controller sends."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []

    async def complete_job(self, job_key, variables):
        self.calls.append(("complete", job_key, variables))

    async def fail_job(self, job_key, retries, message, retry_back_off_ms, variables):
        self.calls.append(("fail", job_key, retries, message))

    async def throw_error(self, job_key, message, error_code, variables):
        self.calls.append(("error", job_key, error_code, message))


def _job(job_type: str, element: str, variables: dict) -> pyzeebe.Job:
    return pyzeebe.Job(key=2251799813685249, type=job_type, process_instance_key=2251799813685251,
                       bpmn_process_id="Process_LeaveRequest", process_definition_version=1,
                       process_definition_key=2251799813685250, element_id=element,
                       element_instance_key=2251799813685260, custom_headers={}, worker="test-worker",
                       retries=3, deadline=0, variables=variables)


def _run(module, job: pyzeebe.Job) -> list[tuple]:
    adapter = RecordingAdapter()
    task = module.router.get_task(job.type)
    asyncio.run(task.job_handler(job, pyzeebe.JobController(job, adapter)))
    return adapter.calls


@pytest.fixture
def project(tmp_path: Path):
    root = engine_project(tmp_path, "leave-c8")
    yield root
    forget_project_modules()
    while str(root) in sys.path:
        sys.path.remove(str(root))


def _handler(root: Path, name: str, body: str) -> None:
    (root / "handlers" / f"{name}.py").write_text(body, encoding="utf-8")


def test_the_module_has_one_task_per_service_task_with_the_bpmn_job_type_and_the_reads(project):
    module = import_workers(project, "zeebe_workers")
    tasks = {task.type: task.config.variables_to_fetch for task in module.router.tasks}
    assert tasks == {"check-balance": ["employee", "leave_type"],
                     "record-leave": ["days", "employee", "leave_type"]}
    assert all(task.config.exception_handler is module.fail_job for task in module.router.tasks)


def test_right_outputs_complete_the_job_with_json_values(project):
    _handler(project, "check_balance", (
        "from decimal import Decimal\n\n"
        "def handle(inputs, bindings):\n"
        "    assert set(inputs) == {'employee', 'leave_type'}, inputs\n"
        "    return {'balance_left': Decimal(str(bindings.balances(inputs['employee'], inputs['leave_type'])))}\n"))
    module = import_workers(project, "zeebe_workers")
    job = _job("check-balance", "Task_CheckBalance",
               {"employee": "ana", "leave_type": "annual", "days": 3, "approval": "auto"})
    assert _run(module, job) == [("complete", job.key, {"balance_left": 12.5})]
    assert job.status == pyzeebe.JobStatus.Completed
    import workers_bindings

    assert workers_bindings.CALLS == [("bindings()",), ("balances", "ana", "annual")]
    record = _job("record-leave", "Task_RecordLeave", {"employee": "ana", "leave_type": "annual", "days": 3})
    assert _run(module, record) == [("complete", record.key, {"booking_ref": "BK-1042"})]
    assert workers_bindings.CALLS[0] == ("bindings()",) and workers_bindings.CALLS.count(("bindings()",)) == 1


@pytest.mark.parametrize(("returns", "reason"), [
    ("{'balance_left': 'lots'}", "output 'balance_left': 'lots' is not an xsd:decimal"),
    ("{}", "declared output(s) missing: balance_left"),
    ("{'balance_left': 1, 'note': 'x'}", "undeclared output(s) returned: note"),
    ("['balance_left']", "returned list, not a mapping"),
])
def test_a_contract_mismatch_fails_the_job_and_never_completes_it(project, returns, reason):
    _handler(project, "check_balance", f"def handle(inputs, bindings):\n    return {returns}\n")
    module = import_workers(project, "zeebe_workers")
    job = _job("check-balance", "Task_CheckBalance", {"employee": "ana", "leave_type": "annual"})
    assert _run(module, job) == [("fail", job.key, 2, (
        "check-balance (ex:CheckBalance, BPMN Task_CheckBalance): handlers.check_balance.handle "
        f"broke the contract: {reason}"))]


def test_a_raising_handler_fails_the_job_with_what_it_raised(project):
    _handler(project, "check_balance", "def handle(inputs, bindings):\n    raise RuntimeError('ledger offline')\n")
    module = import_workers(project, "zeebe_workers")
    job = _job("check-balance", "Task_CheckBalance", {"employee": "ana", "leave_type": "annual"})
    assert _run(module, job) == [("fail", job.key, 2, (
        "check-balance (ex:CheckBalance, BPMN Task_CheckBalance): handlers.check_balance.handle "
        "raised RuntimeError: ledger offline"))]


def test_an_exception_with_an_error_code_throws_that_bpmn_error(project):
    _handler(project, "check_balance", (
        "from pyzeebe.errors import BusinessError\n\n"
        "def handle(inputs, bindings):\n"
        "    raise BusinessError('no-balance', 'no such employee')\n"))
    module = import_workers(project, "zeebe_workers")
    job = _job("check-balance", "Task_CheckBalance", {"employee": "zed", "leave_type": "annual"})
    [(kind, key, code, message)] = _run(module, job)
    assert (kind, key, code) == ("error", job.key, "no-balance")
    assert message.endswith("raised BusinessError: no such employee")


def test_a_missing_variable_or_bindings_module_fails_the_job_naming_it(project):
    module = import_workers(project, "zeebe_workers")
    job = _job("check-balance", "Task_CheckBalance", {"employee": "ana"})
    assert _run(module, job)[0][3] == ("check-balance (ex:CheckBalance, BPMN Task_CheckBalance): "
                                       "variable(s) not set: leave_type (seam:reads)")
    (project / "workers_bindings.py").unlink()
    module = import_workers(project, "zeebe_workers")
    job = _job("check-balance", "Task_CheckBalance", {"employee": "ana", "leave_type": "annual"})
    assert _run(module, job)[0][3] == (
        "check-balance (ex:CheckBalance, BPMN Task_CheckBalance): no module workers_bindings; write "
        "workers_bindings.py with a bindings() factory in the project's root (docs/generators.md)")


def test_without_a_task_definition_the_job_type_is_the_handler_name(tmp_path):
    root = tmp_path / "leave-c8"
    shutil.copytree(REPO / "examples" / "leave-c8", root, ignore=shutil.ignore_patterns(".seams", "__pycache__"))
    bpmn = root / "model" / "leave.bpmn"
    bpmn.write_text(bpmn.read_text(encoding="utf-8").replace(
        '<zeebe:taskDefinition type="record-leave" />', ""), encoding="utf-8")
    from seams_cli.main import main

    assert main(["generate", "--project", str(root)]) == 0
    text = (root / "generated" / "zeebe_workers.py").read_text(encoding="utf-8")
    assert '@router.task("record_leave", exception_handler=fail_job,' in text
    assert '@router.task("check-balance", exception_handler=fail_job,' in text


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
