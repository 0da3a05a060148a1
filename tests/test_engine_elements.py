"""The embedded engine on the elements real Camunda 7 and 8 models are made of, each run end to end on
files written in the shapes of the public examples (tests/fixtures/engine): call activities,
embedded sub-processes, boundary events (error from a handler, timer, message; interrupting or
not), event-based gateways, intermediate catch events, receive, script and send tasks, inclusive
gateways, multi-instance with an output collection, standard loops, element ids SpiffWorkflow uses
itself; and each element it still refuses, refused in one line by the engine and by ``seams check``."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import edit, run_seams

from seams.model.loading import load_model
from seams.project.layout import load_project
from seams_runtime.engine import EngineRefused, run_instance

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "engine"


def _project(tmp_path: Path, *names: str, handlers: dict[str, str] | None = None) -> Path:
    args = [a for name in names for a in ("--from", str(FIXTURES / name))]
    done = run_seams("init", *args, "project", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    root = tmp_path / "project"
    for name, source in (handlers or {}).items():
        (root / "handlers" / f"{name}.py").write_text(source, encoding="utf-8")
    return root


def _run(root: Path, process: str, *, given=None, answers=None, events=()):
    project = load_project(root)
    model = load_model(project)
    queues = {key: list(value) if isinstance(value, list) else [value] for key, value in (answers or {}).items()}

    def data(info):
        queue = queues.get(info.element_id)
        return queue.pop(0) if queue else {}

    return run_instance(project, model, process, given=given or {}, user_task_data=data, events=events)


DECLINE = '''class BpmnError(Exception):
    """Raised with the BPMN error code, as a Camunda worker throws one."""


def handle(inputs, bindings):
    raise BpmnError("CARD_DECLINED")
'''
CHARGE = "def handle(inputs, bindings):\n    return {}\n"


@pytest.fixture(scope="module")
def orders(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _project(tmp_path_factory.mktemp("orders"), "order-events.bpmn", handlers={"charge_card": CHARGE})


def test_a_handler_s_bpmn_error_takes_the_error_boundary(tmp_path: Path) -> None:
    root = _project(tmp_path, "order-events.bpmn", handlers={"charge_card": DECLINE})
    result = _run(root, "order-events")
    assert result.ok, result.error
    assert result.elements == ["Start", "chargeCard", "declined", "End_Declined"]
    assert result.flows == ["Flow_1", "Flow_Declined"]
    assert result.end_event == "End_Declined"


def test_an_undeclared_bpmn_error_stops_the_run_in_one_line(tmp_path: Path) -> None:
    root = _project(tmp_path, "order-events.bpmn", handlers={"charge_card": DECLINE.replace("CARD_DECLINED",
                                                                                            "CARD_STOLEN")})
    edit(root / "model" / "order-events.bpmn", 'errorRef="Error_Declined" ', "")
    result = _run(root, "order-events")  # a boundary without errorRef catches every code
    assert result.end_event == "End_Declined"


def test_the_event_gateway_waits_for_the_timer_the_run_fires(orders: Path) -> None:
    result = _run(orders, "order-events", events=["paymentTimeout"])
    assert result.ok, result.error
    assert result.flows == ["Flow_1", "Flow_2", "Flow_ToTimeout", "Flow_TimedOut"]
    assert result.end_event == "End_Unpaid"


def test_a_message_brings_its_variables_and_the_inclusive_gateway_takes_every_true_branch(orders: Path) -> None:
    result = _run(orders, "order-events", given={"gift": True},
                  events=[{"element": "paymentConfirmed", "variables": {"paidAmount": 150}}])
    assert result.ok, result.error
    assert result.end_event == "End"  # the id SpiffWorkflow gives its own end task runs like any other
    assert result.variables["paid"] == 150  # the catch event's zeebe:output mapping
    assert {"wrapGift", "bookCourier", "shipping", "packParcel"} <= set(result.elements)
    assert "Flow_Plain" not in result.flows


def test_no_true_branch_takes_the_inclusive_default(orders: Path) -> None:
    result = _run(orders, "order-events", given={"gift": False},
                  events=[{"element": "paymentConfirmed", "variables": {"paidAmount": 20}}])
    assert "Flow_Plain" in result.flows and "wrapGift" not in result.elements and result.end_event == "End"


def test_an_interrupting_timer_on_a_sub_process_cancels_it(orders: Path) -> None:
    result = _run(orders, "order-events", given={"gift": False},
                  events=[{"element": "paymentConfirmed", "variables": {"paidAmount": 20}}, "shippingLate"])
    assert result.ok, result.error
    assert "packParcel" not in result.elements and result.elements[-2:] == ["shippingLate", "End_Late"]


def test_waiting_without_an_event_stops_in_one_line(orders: Path) -> None:
    result = _run(orders, "order-events")
    assert result.error == "the instance stopped before an end event (waiting at waitForPayment)"
    result = _run(orders, "order-events", events=["shippingLate"])
    assert result.error == "the run fires shippingLate, but the instance does not wait for it (waiting at " \
                           "waitForPayment)"


def test_c7_sub_process_receive_task_loop_script_and_call_activity(tmp_path: Path) -> None:
    root = _project(tmp_path, "claim-c7.bpmn", "payment-c7.bpmn")
    result = _run(root, "claim", given={"claimAmount": 500},
                  answers={"assessClaim": [{"complete": False}, {"complete": True}], "transfer": {"receipt": "R-1"}},
                  events=["reminded", {"element": "awaitDocuments", "variables": {"pages": 3}}])
    assert result.ok, result.error
    assert result.elements.count("assessClaim") == 2  # the standard loop ran until complete
    assert {"logReminder", "EndEvent_Reminded", "EndEvent_Paid"} <= set(result.elements)  # non-interrupting
    assert ["Flow_P1", "Flow_P2", "Flow_4"] == [f for f in result.flows if f in ("Flow_P1", "Flow_P2", "Flow_4")]
    # camunda:in source/target, camunda:out sourceExpression; nothing else comes back from the call
    assert result.variables["paymentReceipt"] == "R-1" and "receipt" not in result.variables
    assert result.variables["pages"] == 3


def test_multi_instance_collects_its_outputs(tmp_path: Path) -> None:
    root = _project(tmp_path, "approvals.bpmn")
    seen = []
    project = load_project(root)
    model = load_model(project)
    votes = iter([{"vote": True}, {"vote": False}])

    def data(info):
        seen.append((info.element_id, info.variables.get("approver"), info.variables.get("counted")))
        return next(votes) if info.element_id == "castVote" else {}

    result = run_instance(project, model, "approvals", given={"approvers": ["ana", "ben"]}, user_task_data=data)
    assert result.ok, result.error
    assert result.variables["votes"] == [True, False]
    assert "approver" not in result.variables and "counted" not in result.variables
    assert seen == [("castVote", "ana", None), ("castVote", "ben", None), ("countVotes", None, True),
                    ("countVotes", None, False)]


def test_a_called_process_outside_the_project_is_answered_like_a_user_task(tmp_path: Path) -> None:
    root = _project(tmp_path, "claim-c7.bpmn")
    result = _run(root, "claim", given={"claimAmount": 5},
                  answers={"assessClaim": {"complete": True}, "payOut": {"paymentReceipt": "R-9"}},
                  events=[{"element": "awaitDocuments"}])
    assert result.ok, result.error
    assert result.variables["paymentReceipt"] == "R-9" and result.end_event == "EndEvent_Paid"


def test_a_process_that_loops_stops_at_the_element_limit(tmp_path: Path) -> None:
    root = _project(tmp_path, "claim-c7.bpmn", "payment-c7.bpmn")
    project = load_project(root)
    model = load_model(project)
    result = run_instance(project, model, "claim", given={"claimAmount": 1},
                          user_task_data=lambda info: {"complete": False}, events=["awaitDocuments"], max_steps=50)
    assert result.error == "more than 50 elements run: does the process loop?"
    assert result.error_element == "assessClaim"


@pytest.mark.parametrize("element, kind, lacks", [
    ('<bpmn:complexGateway id="Gateway_X" />', "complexGateway", "a complexGateway"),
    ('<bpmn:intermediateThrowEvent id="Cancel_X"><bpmn:cancelEventDefinition /></bpmn:intermediateThrowEvent>',
     "intermediateThrowEvent", "a cancelEventDefinition"),
    ('<bpmn:transaction id="Transaction_X" />', "transaction", "a transaction"),
])
def test_what_the_engine_lacks_is_refused_by_it_and_by_check(tmp_path: Path, element: str, kind: str,
                                                              lacks: str) -> None:
    root = _project(tmp_path, "approvals.bpmn")
    edit(root / "model" / "approvals.bpmn", '    <bpmn:endEvent id="EndEvent_1">', f"    {element}\n"
         '    <bpmn:endEvent id="EndEvent_1">')
    element_id = element.split('id="')[1].split('"')[0]
    with pytest.raises(EngineRefused) as refused:
        _run(root, "approvals")
    assert str(refused.value) == f"approvals.bpmn: {kind} {element_id}: the embedded engine does not run {lacks}"
    lines = run_seams("check", cwd=root).stdout.splitlines()
    assert (f"decision ex:approvals seam:payloadElement: approvals.bpmn: {kind} {element_id}: the embedded engine "
            f"does not run {lacks}; seams run and the scenarios refuse the process") in lines


def test_a_compensation_throw_stops_the_run_where_it_is_reached(tmp_path: Path) -> None:
    root = _project(tmp_path, "approvals.bpmn")
    bpmn = root / "model" / "approvals.bpmn"
    edit(bpmn, '<bpmn:sequenceFlow id="Flow_3" sourceRef="countVotes" targetRef="EndEvent_1" />',
         '<bpmn:sequenceFlow id="Flow_3" sourceRef="countVotes" targetRef="Undo" />'
         '<bpmn:intermediateThrowEvent id="Undo"><bpmn:incoming>Flow_3</bpmn:incoming>'
         '<bpmn:outgoing>Flow_U</bpmn:outgoing><bpmn:compensateEventDefinition /></bpmn:intermediateThrowEvent>'
         '<bpmn:sequenceFlow id="Flow_U" sourceRef="Undo" targetRef="EndEvent_1" />')
    result = _run(root, "approvals", given={"approvers": []})
    assert result.error == "Undo: the embedded engine does not compensate (a compensateEventDefinition); the run " \
                           "stops here"
    assert ("decision ex:approvals seam:payloadElement: approvals.bpmn: intermediateThrowEvent Undo: the embedded "
            "engine does not compensate; a run that reaches it stops there") in run_seams("check", cwd=root).stdout
