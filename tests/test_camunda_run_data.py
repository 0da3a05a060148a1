"""What real Camunda models need to run unchanged, on files written in the shapes of the public
examples (tests/fixtures/camunda_mini): a Camunda 8 condition over a variable nothing set reads it as
null (a Camunda 7 one stops naming it), a FEEL script task is evaluated, ``seams run --events``
fires what the instance waits for, and the import reads a form script's declared variables, a
start event's example data, a multi-instance collection and an input mapping's variable. The files
are the survey runner's own test repositories (tests/fixtures/camunda_mini), so one copy serves both."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import run_seams

from seams.importer.html_forms import declared_variables, read_html_form
from seams.model.loading import load_model
from seams.project.layout import load_project
from seams_runtime.engine import run_instance

MINI = Path(__file__).resolve().parent / "fixtures" / "camunda_mini"
REVIEW = MINI / "c8-examples" / "review" / "src" / "main" / "resources" / "review.bpmn"
PICK = MINI / "c7-examples" / "script-form" / "src" / "main" / "resources" / "pick.bpmn"
PICK_FORM = MINI / "c7-examples" / "script-form" / "src" / "main" / "webapp" / "forms" / "check-parcel.html"
LINES = [{"item": "desk", "price": 250, "monthly": None}, {"item": "support", "price": 20, "monthly": True}]


def _project(tmp_path: Path, *paths: Path) -> Path:
    args = [a for path in paths for a in ("--from", str(path))]
    done = run_seams("init", *args, "project", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return tmp_path / "project"


@pytest.fixture(scope="module")
def review(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _project(tmp_path_factory.mktemp("review"), REVIEW)


@pytest.fixture(scope="module")
def pick(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _project(tmp_path_factory.mktemp("pick"), PICK, PICK_FORM)


def _run(root: Path, process: str, *, given=None, answers=None, events=()):
    project = load_project(root)
    model = load_model(project)
    return run_instance(project, model, process, given=given or {},
                        user_task_data=lambda info: dict((answers or {}).get(info.element_id, {})), events=events)


# ------------------------------------------------------------------ Camunda 8: null, FEEL scripts, events


def test_a_c8_gateway_over_an_unset_variable_stops_naming_the_gateway_and_the_null(review: Path) -> None:
    result = _run(review, "quote-review", given={"lines": LINES})
    assert result.error_element == "Gateway_Approved"
    assert result.error.startswith("Gateway_Approved: no condition of its outgoing flows holds and it has no "
                                   "default flow (variables: ")
    assert result.error.endswith("; not set, so null: 'approved')")


def test_a_c8_condition_reads_null_as_zeebe_does_and_takes_the_flow_that_holds(review: Path) -> None:
    # Gateway_Big's condition reads totals.once > 200 or totals.monthly > 100: with no monthly line
    # the sum is null, null > 100 is null, and "true or null" is true, as in FEEL
    result = _run(review, "quote-review", given={"lines": LINES[:1], "approved": True}, events=["Task_Signature"])
    assert result.ok, result.error
    assert result.variables["totals"] == {"once": 250, "monthly": None}
    assert result.flows == ["Flow_1", "Flow_2", "Flow_3", "Flow_Accept", "Flow_Big", "Flow_Signed"]
    assert result.end_event == "End_Accepted"


def test_a_feel_script_task_sets_its_result_variable(review: Path) -> None:
    result = _run(review, "quote-review", given={"lines": LINES, "approved": False})
    assert result.ok, result.error
    assert result.variables["totals"] == {"once": 250, "monthly": 20}
    assert result.end_event == "End_Rejected"


def test_seams_run_events_fires_the_message_the_receive_task_waits_for(review: Path) -> None:
    given = json.dumps({"lines": LINES, "approved": True})
    waiting = run_seams("run", "quote-review", "--given", given, cwd=review)
    assert waiting.returncode == 1
    assert waiting.stderr.splitlines() == ["seams run: stopped at Task_Signature: the instance stopped before an end "
                                           "event (waiting at Task_Signature)"]
    done = run_seams("run", "quote-review", "--given", given, "--events", '["Task_Signature"]', cwd=review)
    assert done.returncode == 0, done.stderr
    assert 'receiveTask Task_Signature "Receive signed quote"' in done.stdout.splitlines()
    assert 'endEvent End_Accepted "Quote accepted"' in done.stdout.splitlines()
    bad = run_seams("run", "quote-review", "--events", '{"Task_Signature": 1}', cwd=review)
    assert bad.returncode == 2
    assert bad.stderr.splitlines() == ['seams run: --events: expected a JSON array of element ids or {"element": '
                                       'id, "variables": {...}} objects']


def test_check_counts_the_feel_script_s_result_and_the_example_start_data_as_set(review: Path) -> None:
    out = run_seams("check", cwd=review).stdout
    assert "totals" not in out.replace("shape ex:totals seam:datatype", "")  # set by Task_Totals: no dataflow line
    assert '"lines"' not in out and '"customer"' not in out
    assert 'decision Flow_Accept bpmn:conditionExpression: reads "approved" (ex:approved), which no task of ' \
           "ex:quote-review sets yet" in out


# ------------------------------------------------------------------ Camunda 7: JUEL stops, form scripts


def test_a_c7_condition_over_an_unset_variable_still_stops_naming_it(pick: Path) -> None:
    root = pick
    bpmn = root / "model" / "pick.bpmn"
    text = bpmn.read_text(encoding="utf-8")
    bpmn.write_text(text.replace("${complete}", "${parcelOk}").replace("${not complete}", "${not parcelOk}"),
                    encoding="utf-8")
    try:
        result = _run(root, "pick-order", given={"orderLines": [{}], "shippingAddress": "Main St 1"},
                      answers={"Task_Check": {"complete": True}})
    finally:
        bpmn.write_text(text, encoding="utf-8")
    assert result.error == "Gateway_Complete: Flow_Yes conditionExpression: variable 'parcelOk' is not set"


def test_the_form_script_s_default_decides_when_the_answer_leaves_it_out(pick: Path) -> None:
    result = _run(pick, "pick-order", given={"orderLines": [{"sku": "A"}, {"sku": "B"}], "shippingAddress": "x"})
    assert result.ok, result.error
    assert result.elements.count("Task_PickLine") == 2  # one pick per line of the collection
    assert result.variables["complete"] is True and result.end_event == "End_Shipped"


def test_the_import_reads_form_script_variables_example_data_collections_and_mappings(pick: Path,
                                                                                       review: Path) -> None:
    c7 = (pick / "model" / "model.trig").read_text(encoding="utf-8")
    assert 'sh:path ex:complete ; sh:name "complete" ; sh:datatype xsd:boolean ; sh:defaultValue true' in c7
    assert 'sh:path ex:weight ; sh:name "weight" ; sh:datatype xsd:decimal ; sh:order 2 ]' in c7  # no default
    assert "photo" not in c7  # a File variable is a note
    assert 'seam:name "orderLines" ;\n        seam:list true .' in c7  # the multi-instance collection
    assert 'seam:name "shippingAddress" .' in c7  # read by the script task's input mapping
    c8 = (review / "model" / "model.trig").read_text(encoding="utf-8")
    assert 'sh:path ex:customer ; sh:name "customer" ; sh:datatype xsd:string ; sh:order 1 ]' in c8
    assert 'seam:name "lines" ;\n        seam:datatype rdf:JSON ;\n        seam:list true .' in c8
    assert "seam:startForm ex:quote-review_StartForm" in c8


def test_only_plain_literals_of_a_form_script_are_read() -> None:
    script = """
      camForm.variableManager.createVariable({'name': 'approved', 'type': 'Boolean', 'value': false});
      camForm.variableManager.createVariable({name: "amount", type: "Long", value: 12, valueInfo: {a: '}'}});
      camForm.variableManager.createVariable({name: pick(), type: 'String'});
      camForm.variableManager.createVariable({name: 'note', type: kind});
      camForm.variableManager.createVariable({name: 'open', type: 'String', value: "x
    """
    assert declared_variables(script) == [("approved", "boolean", False), ("amount", "long", 12)]
    form = read_html_form(b"<form><script cam-script>camForm.variableManager.createVariable({name: 'n', "
                          b"type: 'Integer', value: 'not a number'});</script></form>", source="f.html")
    assert [(f.key, f.datatype, f.default) for f in form.fields] == [("n", "integer", None)]
    assert form.notes == ("a form script (cam-script) seams does not run",)


def test_seams_run_names_the_kind_of_an_element_the_run_s_data_answers(pick: Path, tmp_path: Path) -> None:
    answers = tmp_path / "answers.json"
    answers.write_text('{"Task_Check": {"complete": false, "weight": 2.5}}', encoding="utf-8")
    done = run_seams("run", "pick-order", "--given", '{"orderLines": [{}], "shippingAddress": "Main St 1"}',
                     "--answers", str(answers), cwd=pick)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert 'manualTask Task_PickLine "Pick line"' in lines and 'scriptTask Task_Label "Print label"' in lines
    assert 'userTask Task_Check "Check parcel"' in lines and 'endEvent End_Held "Parcel held"' in lines


def test_a_data_store_a_task_writes_and_a_compensation_boundary_never_thrown_are_no_ops(tmp_path: Path) -> None:
    text = REVIEW.read_text(encoding="utf-8")
    text = text.replace('''      <bpmn:outgoing>Flow_2</bpmn:outgoing>
    </bpmn:scriptTask>''', '''      <bpmn:outgoing>Flow_2</bpmn:outgoing>
      <bpmn:dataOutputAssociation id="DataOut_1"><bpmn:targetRef>Store_Quotes</bpmn:targetRef></bpmn:dataOutputAssociation>
    </bpmn:scriptTask>
    <bpmn:dataStoreReference id="Store_Quotes" name="Quotes" dataStoreRef="DataStore_Quotes" />
    <bpmn:boundaryEvent id="Compensate_Totals" attachedToRef="Task_Totals">
      <bpmn:compensateEventDefinition id="CompensateDefinition_1" />
    </bpmn:boundaryEvent>
    <bpmn:serviceTask id="Task_Undo" name="Undo totals" isForCompensation="true">
      <bpmn:extensionElements><zeebe:taskDefinition type="undo-totals" /></bpmn:extensionElements>
    </bpmn:serviceTask>
    <bpmn:association id="Association_1" associationDirection="One" sourceRef="Compensate_Totals" targetRef="Task_Undo" />''')
    text = text.replace('  <bpmn:message id="Message_Signed"', '  <bpmn:dataStore id="DataStore_Quotes" name="Quotes" />\n'
                        '  <bpmn:message id="Message_Signed"')
    assert "DataStore_Quotes" in text and "Compensate_Totals" in text
    (tmp_path / "quotes.bpmn").write_text(text, encoding="utf-8")
    root = _project(tmp_path, tmp_path / "quotes.bpmn")
    result = _run(root, "quote-review", given={"lines": [], "approved": False})
    assert result.ok, result.error
    assert result.end_event == "End_Rejected" and "Task_Undo" not in result.elements
    assert not [line for line in run_seams("check", cwd=root).stdout.splitlines()
                if "Store_Quotes" in line or "Compensate_Totals" in line or "engine" in line]
