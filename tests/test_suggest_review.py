"""The review page's parts that need no provider: applying a stored diff, refusals, run pages.

The page made end to end by ``seams suggest --show`` is tested in tests/test_render_pages.py.
"""

from __future__ import annotations

import pytest
from lxml import etree

from seams.errors import GeneratorError
from seams.model.loading import load_model
from seams.project.layout import load_project
from seams.render.pages import run_page
from seams.runs import RunResult, Step
from seams_cli.workflows.suggest.review import _compare, apply_unified_diff
from seams_cli.workflows.suggest.store import unified_diff


@pytest.mark.parametrize(("old", "new"), [
    (b"a\nb\nc\n", b"a\nB\nc\nd\n"),
    (None, b"new file\n"),
    (b"one\ntwo", b"one\ntwo\nthree"),  # no newline at the end, before and after
    (b"x\n" * 30 + b"y\n" + b"x\n" * 30, b"x\n" * 30 + b"z\n" + b"x\n" * 29 + b"w\n"),  # two hunks
])
def test_a_stored_diff_applies_back_to_the_after_bytes(old, new) -> None:
    assert apply_unified_diff(old, unified_diff("f.txt", old, new), where="f.txt") == new


def test_a_diff_of_another_file_is_refused() -> None:
    diff = unified_diff("f.txt", b"a\nb\n", b"a\nc\n")
    with pytest.raises(GeneratorError, match="f.txt: the stored diff does not apply"):
        apply_unified_diff(b"a\nX\n", diff, where="f.txt")


def test_changed_elements_ignore_incoming_outgoing_and_layout() -> None:
    ns = 'xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"'
    old = etree.fromstring(f'<bpmn:definitions {ns}><bpmn:process id="P"><bpmn:task id="A" name="a">'
                           f'<bpmn:incoming>F1</bpmn:incoming></bpmn:task><bpmn:task id="B" name="b"/>'
                           f'<bpmn:task id="C"/></bpmn:process></bpmn:definitions>'.encode())
    new = etree.fromstring(f'<bpmn:definitions {ns}><bpmn:process id="P">\n  <bpmn:task id="A" name="a">'
                           f'<bpmn:incoming>F2</bpmn:incoming></bpmn:task><bpmn:task id="B" name="b2"/>'
                           f'<bpmn:task id="D"/></bpmn:process></bpmn:definitions>'.encode())
    assert _compare(old, new) == ({"C"}, {"D"}, {"B"})


def test_a_stale_suggestion_has_no_page(tmp_path) -> None:
    from helpers import copy_example, edit, run_seams

    root = copy_example(tmp_path)
    ident = next(line.split()[1] for line in run_seams("suggest", cwd=root).stdout.splitlines()
                 if line.startswith("suggestion "))
    edit(root / "model" / "leave.bpmn", 'name="HR review"', 'name="HR check"')
    result = run_seams("suggest", "--show", ident[:12], cwd=root)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.strip() == (f"seams suggest: suggestion {ident} is stale: the model changed since it "
                                     "was made; run seams suggest again")
    assert not (root / ".seams" / "review").exists()
    assert run_seams("suggest", "--show", "0123456789", cwd=root).returncode == 1  # no such suggestion


def test_a_stopped_run_marks_where_it_stopped(tmp_path) -> None:
    from helpers import copy_example

    project = load_project(copy_example(tmp_path))
    model = load_model(project)
    process = next(iter(model.view.processes.values()))
    result = RunResult(steps=[Step("StartEvent_1", "Leave wanted", "startEvent"),
                              Step("Task_Submit", "<b>Submit</b>", "userTask", flow="Flow_1",
                                   outputs={"days": 3, "note": "</td><script>x</script>"})],
                       variables={"days": 3}, error="handler raised", error_element="Task_CheckBalance")
    page = run_page(model, process, result, {"employee": "ana"})
    root = etree.fromstring(page.encode(), etree.HTMLParser())
    marked = {e.get("data-element-id"): e.get("data-mark") for e in root.iter() if e.get("data-mark")}
    assert marked == {"StartEvent_1": "taken", "Task_Submit": "taken", "Flow_1": "taken",
                      "Task_CheckBalance": "stopped"}
    assert root.find(".//script") is None and "stopped at Task_CheckBalance: handler raised" in page
    rows = root.findall(".//section[2]//tbody/tr")
    assert '"employee": "ana"' in " ".join(rows[0].itertext())  # the given variables before the first step
