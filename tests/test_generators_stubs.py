"""The built-in ``stubs`` generator on the example project and hostile model text."""

from __future__ import annotations

import ast
import datetime
import typing
from decimal import Decimal

import pytest
from helpers import EXAMPLE, copy_example, edit
from hypothesis import given, settings
from hypothesis import strategies as st

from seams.errors import GeneratorError
from seams.generators.pysource import docstring
from seams.generators.stubs import stub_files
from seams.model.loading import load_model
from seams.project.layout import load_project


@pytest.fixture(scope="module")
def example_stubs() -> dict[str, bytes]:
    return stub_files(load_model(load_project(EXAMPLE)))


def _load(source: bytes, name: str) -> dict:
    namespace: dict = {"__name__": name}
    exec(compile(source, name, "exec"), namespace)
    return namespace


def _hints(namespace: dict, name: str) -> dict:
    """Annotations evaluated in the stub's own namespace (exec'd modules are not in sys.modules)."""
    return typing.get_type_hints(namespace[name], globalns=namespace)


def test_one_stub_per_service_task_under_stubs(example_stubs):
    assert sorted(example_stubs) == ["stubs/check_balance.py", "stubs/record_leave.py"]


def test_stubs_type_inputs_outputs_and_bindings_from_the_model(example_stubs):
    check = _load(example_stubs["stubs/check_balance.py"], "check_balance")
    assert _hints(check, "Inputs") == {"employee": str, "leave_type": str}
    assert _hints(check, "Outputs") == {"balance_left": Decimal}
    assert check["Inputs"].__required_keys__ == frozenset({"employee", "leave_type"})
    assert [n for n in vars(check["Bindings"]) if not n.startswith("_")] == ["balances"]
    assert "Leave balance service" in check["Bindings"].balances.__doc__
    assert "Returns how many days" in check["Bindings"].balances.__doc__

    record = _load(example_stubs["stubs/record_leave.py"], "record_leave")
    assert _hints(record, "Inputs") == {"days": int, "employee": str, "leave_type": str}
    assert _hints(record, "Outputs") == {"booking_ref": str}
    assert [n for n in vars(record["Bindings"]) if not n.startswith("_")] == ["calendar"]


def test_handle_documents_the_task_and_raises_not_implemented(example_stubs):
    check = _load(example_stubs["stubs/check_balance.py"], "check_balance")
    doc = check["handle"].__doc__
    assert doc.startswith("Check leave balance")
    assert "Look up how many days of this leave type the employee has left." in doc
    assert 'annual leave left: given {"employee": "ana", "leave_type": "annual"}' in doc
    assert 'expect {"balance_left": 12.5}' in doc
    with pytest.raises(NotImplementedError, match="check_balance"):
        check["handle"]({"employee": "ana", "leave_type": "annual"}, object())


def test_stubs_are_deterministic_and_leave_the_handlers_package_alone(tmp_path):
    root = copy_example(tmp_path)
    before = {p: p.read_bytes() for p in (root / "handlers").rglob("*")}
    first = stub_files(load_model(load_project(root)))
    second = stub_files(load_model(load_project(root)))
    assert first == second
    assert {p: p.read_bytes() for p in (root / "handlers").rglob("*")} == before


def test_date_and_boolean_variables_get_their_python_types(tmp_path):
    root = copy_example(tmp_path)
    trig = root / "model" / "model.trig"
    edit(trig, "seam:reads ex:employee, ex:leaveType ;\n        seam:writes ex:balanceLeft ;",
         "seam:reads ex:employee, ex:leaveType, ex:startDate ;\n        seam:writes ex:balanceLeft, ex:approved ;")
    stub = _load(stub_files(load_model(load_project(root)))["stubs/check_balance.py"], "stub")
    assert _hints(stub, "Inputs")["start_date"] == datetime.date
    assert _hints(stub, "Outputs")["approved"] is bool


def test_hostile_model_text_still_compiles_and_reads_back(tmp_path):
    root = copy_example(tmp_path)
    trig = root / "model" / "model.trig"
    nasty = 'ends in quotes \\"\\"\\" and a backslash \\\\ and \\"'
    edit(trig, 'rdfs:label "Check leave balance" ;', f'rdfs:label "{nasty}" ;')
    source = stub_files(load_model(load_project(root)))["stubs/check_balance.py"]
    tree = ast.parse(source)
    handle = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "handle")
    assert ast.get_docstring(handle).startswith('ends in quotes """ and a backslash \\ and "')


@pytest.mark.parametrize(("old", "new", "fault"), [
    ('seam:handler "check_balance"', 'seam:handler "../check-balance"',
     r"ex:CheckBalance seam:handler: '../check-balance' is not a Python identifier"),
    ('seam:handler "record_leave"', 'seam:handler "check_balance"', "check_balance is also the handler of"),
    ('seam:name "balances"', 'seam:name "class"', r"ex:Balances seam:name: 'class' is not a Python identifier"),
    ('seam:reads ex:employee, ex:leaveType ;', 'seam:reads ex:employee, ex:Calendar ;',
     r"ex:CheckBalance seam:reads: ex:Calendar is not a seam:Variable"),
])
def test_what_cannot_become_a_stub_is_a_generator_error_naming_it(tmp_path, old, new, fault):
    root = copy_example(tmp_path)
    edit(root / "model" / "model.trig", old, new)
    with pytest.raises(GeneratorError, match=fault):
        stub_files(load_model(load_project(root)))


@settings(max_examples=300, deadline=None)
@given(text=st.text(), indent=st.sampled_from(["", "    ", "        "]))
def test_docstring_literal_holds_any_text(text, indent):
    literal = docstring(text, indent)
    value = ast.literal_eval(literal)
    lines = text.split("\n")
    expected = "\n".join([lines[0], *[f"{indent}{line}" if line else "" for line in lines[1:]]])
    assert value == expected + (f"\n{indent}" if "\n" in text else "")
