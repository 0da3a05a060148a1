"""The ``camunda7`` generator's module, driven with the Camunda 7 client's own ExternalTask.

Each test builds ``camunda.external_task.external_task.ExternalTask`` from
the JSON a fetch-and-lock answer holds (variables typed as the REST API
sends them), calls the generated topic function, and hands its TaskResult to
the library's ExternalTaskExecutor with a client that only records the
calls: no engine, no network.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from workers_support import engine_project, forget_project_modules, import_workers

pytest.importorskip("camunda")

from camunda.external_task.external_task import ExternalTask  # noqa: E402
from camunda.external_task.external_task_executor import ExternalTaskExecutor  # noqa: E402


class RecordingClient:
    """Stands in for the library's ExternalTaskClient (the REST side)."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def complete(self, task_id, global_variables, local_variables=None):
        self.calls.append(("complete", task_id, global_variables))
        return True

    def failure(self, task_id, error_message, error_details, retries, retry_timeout):
        self.calls.append(("failure", task_id, error_message, retries))
        return True

    def bpmn_failure(self, task_id, error_code, error_message, variables=None):
        self.calls.append(("bpmn_error", task_id, error_code, error_message))
        return True


def _task(topic: str, activity: str, variables: dict) -> ExternalTask:
    typed = {name: {"value": value, "type": type(value).__name__.capitalize(), "valueInfo": {}}
             for name, value in variables.items()}
    return ExternalTask({"id": "5d2b8c1a-0f3e-11ef-9a1b-0242ac120002", "topicName": topic, "workerId": "test-worker",
                         "activityId": activity, "processInstanceId": "4c1f7a20-0f3e-11ef-9a1b-0242ac120002",
                         "retries": None, "variables": typed})


def _run(module, task: ExternalTask) -> list[tuple]:
    client = RecordingClient()
    function, _ = module.TOPICS[task.get_topic_name()]
    ExternalTaskExecutor("test-worker", client).execute_task(task, function)
    return client.calls


@pytest.fixture
def project(tmp_path: Path):
    root = engine_project(tmp_path, "leave-c7")
    yield root
    forget_project_modules()
    while str(root) in sys.path:
        sys.path.remove(str(root))


def _handler(root: Path, name: str, body: str) -> None:
    (root / "handlers" / f"{name}.py").write_text(body, encoding="utf-8")


def test_one_function_per_topic_from_camunda_topic_fetching_the_reads(project):
    module = import_workers(project, "camunda7_workers")
    assert {topic: variables for topic, (_, variables) in module.TOPICS.items()} == {
        "check-balance": ["employee", "leave_type"], "record-leave": ["days", "employee", "leave_type"]}


def test_right_outputs_complete_the_task(project):
    module = import_workers(project, "camunda7_workers")
    task = _task("check-balance", "Task_CheckBalance", {"employee": "ana", "leave_type": "annual", "days": 3})
    assert _run(module, task) == [("complete", task.get_task_id(), {"balance_left": 12.5})]
    assert task.get_task_result().is_success()
    task = _task("record-leave", "Task_RecordLeave", {"employee": "ana", "leave_type": "annual", "days": 3})
    assert _run(module, task) == [("complete", task.get_task_id(), {"booking_ref": "BK-1042"})]


def test_a_contract_mismatch_is_a_failure_with_the_reason(project):
    _handler(project, "check_balance", "def handle(inputs, bindings):\n    return {'balance_left': True}\n")
    module = import_workers(project, "camunda7_workers")
    task = _task("check-balance", "Task_CheckBalance", {"employee": "ana", "leave_type": "annual"})
    assert _run(module, task) == [("failure", task.get_task_id(), (
        "check-balance (ex:CheckBalance, BPMN Task_CheckBalance): handlers.check_balance.handle broke the "
        "contract: output 'balance_left': True is not an xsd:decimal"), module.MAX_RETRIES)]
    assert task.get_task_result().is_failure()


def test_a_raising_handler_is_a_failure_and_an_error_code_a_bpmn_error(project):
    _handler(project, "check_balance", "def handle(inputs, bindings):\n    raise KeyError('ana')\n")
    module = import_workers(project, "camunda7_workers")
    task = _task("check-balance", "Task_CheckBalance", {"employee": "ana", "leave_type": "annual"})
    assert _run(module, task)[0][2].endswith("handlers.check_balance.handle raised KeyError: 'ana'")

    _handler(project, "check_balance", (
        "class NoBalance(Exception):\n    error_code = 'no-balance'\n\n"
        "def handle(inputs, bindings):\n    raise NoBalance('no such employee')\n"))
    module = import_workers(project, "camunda7_workers")
    task = _task("check-balance", "Task_CheckBalance", {"employee": "zed", "leave_type": "annual"})
    [(kind, _, code, message)] = _run(module, task)
    assert (kind, code) == ("bpmn_error", "no-balance")
    assert message.endswith("raised NoBalance: no such employee")
