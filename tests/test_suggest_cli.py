"""`seams suggest` end to end with fake providers: store, list, accept, undo, refusals."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from helpers import copy_example, edit

from seams_cli.main import main

FIXTURES = Path(__file__).parent / "fixtures" / "suggest"
PROVIDER = f"{sys.executable} {FIXTURES / 'provider.py'}"
FAILING = f"{sys.executable} {FIXTURES / 'fail.py'}"
MODEL_FILES = ("model/model.trig", "model/leave.bpmn", "model/leave.dmn")


def _provider(answer: str | Path, log: Path | None = None) -> str:
    return f"{PROVIDER} {answer}" + (f" {log}" if log else "")


def _suggest_with(capsys, tmp_path: Path, text: str) -> tuple[Path, int, list[str], list[str]]:
    """Run suggest on a fresh example copy with a provider answering ``text``."""
    root = copy_example(tmp_path)
    answer = tmp_path / "answer.json"
    answer.write_text(text, encoding="utf-8")
    return root, *_run(capsys, root, "--provider", _provider(answer))


def _run(capsys, root: Path, *args: str) -> tuple[int, list[str], list[str]]:
    if "--provider" in args and "--kind" not in args:  # these tests are about condition-to-dmn; the
        args = ("--kind", "condition-to-dmn", *args)  # example also offers the other kinds (test_suggest_kinds)
    code = main(["suggest", "--project", str(root), *args])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err.splitlines()


def _snapshot(root: Path) -> dict[str, bytes]:
    return {name: (root / name).read_bytes() for name in MODEL_FILES}


def _pending(root: Path) -> list[str]:
    folder = root / ".seams" / "suggestions"
    return sorted(p.name for p in folder.iterdir() if p.name != "cache") if folder.is_dir() else []


def test_suggest_then_accept_then_undo_then_cache_hit(tmp_path, capsys):
    root = copy_example(tmp_path)
    before = _snapshot(root)
    log, answer = tmp_path / "calls.log", tmp_path / "answer.json"
    answer.write_bytes((FIXTURES / "escalate.json").read_bytes())
    provider = _provider(answer, log)

    code, out, err = _run(capsys, root, "--provider", provider)
    assert (code, err) == (0, [])
    ident = out[-2].removeprefix("suggestion ")
    assert out == [
        "template suggest-v3.txt", f"provider {provider}", "cache miss", "gateway Gateway_Escalate",
        "shapes passed", "decisions passed", "routing kept (21 samples)", "generate passed",
        "would change model/leave.bpmn", "would change model/leave.dmn", "would change model/model.trig",
        f"suggestion {ident}", f"accept with: seams suggest --accept {ident[:12]}",
    ]
    assert log.read_text() == "called model=-\n"
    assert _snapshot(root) == before  # pending, not applied
    entry = root / ".seams" / "suggestions" / ident
    record = json.loads((entry / "suggestion.json").read_text())
    assert record["files"] == ["model/leave.bpmn", "model/leave.dmn", "model/model.trig"]
    assert record["gateway"] == "Gateway_Escalate" and "llm_model" not in record
    assert record["suggestion"]["rules"][0] == {"when": {"days": "> 20", "leave_type": "-"}, "then": "hr"}
    diff = (entry / "model__model.trig.diff").read_text().splitlines()
    assert diff[:2] == ["--- a/model/model.trig", "+++ b/model/model.trig"]
    assert "+    ex:escalation a seam:Variable, owl:DatatypeProperty ;" in diff
    assert (root / ".seams" / ".gitignore").read_text() == "*\n"

    assert _run(capsys, root, "--list") == (0, [f"{ident} condition-to-dmn Gateway_Escalate fresh"], [])

    code, out, err = _run(capsys, root, "--accept", ident)
    assert (code, err) == (0, [])
    assert out == [f"applied {ident}", "wrote model/leave.bpmn", "wrote model/leave.dmn", "wrote model/model.trig",
                   f"review .seams/review/{ident}.html"]
    assert "Task_Escalation" in (root / ".seams" / "review" / f"{ident}.html").read_text()  # the page of what was applied
    assert '<![CDATA[escalation == "hr"]]>' in (root / "model" / "leave.bpmn").read_text()
    assert _pending(root) == []  # accepted: the pending entry is removed

    assert main(["undo", "--project", str(root)]) == 0
    capsys.readouterr()
    assert _snapshot(root) == before  # byte for byte

    # the model is back to the hash the answer was cached for; the provider would fail if it ran
    answer.unlink()
    code, out, err = _run(capsys, root, "--provider", provider)
    assert (code, out[2], out[-2]) == (0, "cache hit", f"suggestion {ident}")
    assert log.read_text() == "called model=-\n"


def test_accepted_and_generated_model_checks_clean(tmp_path, capsys):
    root = copy_example(tmp_path)
    code, out, _ = _run(capsys, root, "--provider", _provider(FIXTURES / "escalate.json"))
    assert code == 0
    assert _run(capsys, root, "--accept", out[-2].removeprefix("suggestion "))[0] == 0
    assert main(["generate", "--project", str(root)]) == 0
    assert "def escalation(" in (root / "generated" / "decisions.py").read_text()
    capsys.readouterr()
    assert main(["check", "--project", str(root)]) == 0
    assert capsys.readouterr().out.strip() == "seams check: no problems"


def test_a_subtly_wrong_table_is_rejected_and_nothing_is_stored(tmp_path, capsys):
    root, code, out, err = _suggest_with(capsys, tmp_path, (FIXTURES / "escalate_off_by_one.json").read_text())
    assert code == 1
    assert out[-1] == "routing changed (24 samples)"
    assert err == [
        "seams suggest: suggestion rejected: routing failed in the changed model",
        'routing Gateway_Escalate Flow_HR: {"days": 21, "leave_type": "annual"} took Flow_HR before, Flow_Done after',
        'routing Gateway_Escalate Flow_HR: {"days": 21, "leave_type": "sick"} took Flow_HR before, Flow_Done after',
    ]
    assert _pending(root) == []


def test_a_shape_failure_in_the_scratch_copy_names_subject_and_predicate(tmp_path, capsys):
    escalate = (FIXTURES / "escalate.json").read_text()
    root, code, out, err = _suggest_with(capsys, tmp_path, escalate.replace("escalation", "escalación"))
    assert (code, out[-1]) == (1, "shapes failed")
    assert err == ["seams suggest: suggestion rejected: shapes failed in the changed model",
                   "shape ex:escalación seam:name: a variable needs exactly one seam:name, a Python identifier"]
    assert _pending(root) == []


def test_a_generation_failure_in_the_scratch_copy_is_a_rejection(tmp_path, capsys):
    escalate = (FIXTURES / "escalate.json").read_text()
    root, code, out, err = _suggest_with(capsys, tmp_path, escalate.replace('"Escalation"', '"Approval level"'))
    assert (code, out[-4:]) == (1, ["shapes passed", "decisions passed", "routing kept (21 samples)",
                                    "generate failed"])
    assert err == ["seams suggest: suggestion rejected: generate failed in the changed model",
                   "generate decisions: ex:Decision_Escalation rdfs:label: function name approval_level is "
                   "already taken in decisions.py"]
    assert _pending(root) == []


def test_a_stale_suggestion_is_refused_and_nothing_written(tmp_path, capsys):
    root = copy_example(tmp_path)
    code, out, _ = _run(capsys, root, "--provider", _provider(FIXTURES / "escalate.json"))
    ident = out[-2].removeprefix("suggestion ")
    edit(root / "model" / "model.trig", 'rdfs:label "HR review"', 'rdfs:label "HR check"')
    before = _snapshot(root)
    assert _run(capsys, root, "--list") == (0, [f"{ident} condition-to-dmn Gateway_Escalate stale"], [])
    code, out, err = _run(capsys, root, "--accept", ident)
    assert (code, out) == (1, [])
    assert err == [f"seams suggest: suggestion {ident} is stale: the model changed since it was made; "
                   "run seams suggest again"]
    assert _snapshot(root) == before
    assert _pending(root) == [ident]


def test_a_tampered_stored_suggestion_is_checked_again_on_accept(tmp_path, capsys):
    root = copy_example(tmp_path)
    code, out, _ = _run(capsys, root, "--provider", _provider(FIXTURES / "escalate.json"))
    ident = out[-2].removeprefix("suggestion ")
    stored = root / ".seams" / "suggestions" / ident / "suggestion.json"
    text = stored.read_text(encoding="utf-8")
    assert text.count('"> 20"') == 1
    stored.write_text(text.replace('"> 20"', '"> 21"').replace('"<= 20"', '"<= 21"'), encoding="utf-8")
    before = _snapshot(root)
    code, out, err = _run(capsys, root, "--accept", ident)
    assert (code, out) == (1, [])
    assert err[0] == f"seams suggest: suggestion {ident} does not keep the routing of Gateway_Escalate"
    assert err[1].startswith("routing Gateway_Escalate Flow_")
    assert _snapshot(root) == before


@pytest.mark.parametrize("ident", ["../../etc/passwd", "A" * 64, "a" * 65, "g" * 64, "abcde", "abc/../x"])
def test_a_malformed_id_is_refused_before_any_path_is_built(tmp_path, capsys, ident):
    root = copy_example(tmp_path)
    with pytest.raises(SystemExit) as exited:
        main(["suggest", "--project", str(root), "--accept", ident])
    assert exited.value.code == 2
    assert "is not a suggestion id (6 to 64 lowercase hex digits: an id or a unique prefix)" in capsys.readouterr().err
    assert not (root / ".seams").exists()


def test_an_unknown_id_is_refused(tmp_path, capsys):
    root = copy_example(tmp_path)
    assert _run(capsys, root, "--accept", "0" * 64) == (
        1, [], [f"seams suggest: no pending suggestion {'0' * 64} (seams suggest --list shows them)"])


def test_a_provider_failure_exits_1_and_is_not_cached(tmp_path, capsys):
    root = copy_example(tmp_path)
    code, out, err = _run(capsys, root, "--provider", FAILING)
    assert (code, out[-1]) == (1, "cache miss")
    assert err == ["seams suggest: provider " + sys.executable + " exited with status 7: "
                   "fail.py: this provider must not be called"]
    assert not (root / ".seams" / "suggestions" / "cache").exists()


def test_a_refused_answer_exits_1_and_stores_no_suggestion(tmp_path, capsys):
    root, code, out, err = _suggest_with(capsys, tmp_path, "Sure! Here is my suggestion: move the rule into DMN.")
    assert code == 1
    assert err[0].startswith("seams suggest: answer: not one JSON object")
    assert _pending(root) == []


def test_an_unknown_gateway_is_a_rejection_with_exit_1(tmp_path, capsys):
    escalate = (FIXTURES / "escalate.json").read_text()
    _, code, _, err = _suggest_with(capsys, tmp_path, escalate.replace("Gateway_Escalate", "Gateway_Nowhere"))
    assert code == 1
    assert err == ["seams suggest: gateway Gateway_Nowhere: the model has no seam:Gateway with this "
                   "seam:payloadElement (candidates: Gateway_Escalate, Gateway_Reviewed)"]


def test_a_named_llm_model_reaches_the_provider_and_the_keys(tmp_path, capsys):
    root = copy_example(tmp_path)
    log, answer = tmp_path / "calls.log", tmp_path / "answer.json"
    answer.write_bytes((FIXTURES / "escalate.json").read_bytes())
    provider = _provider(answer, log)
    code, out, _ = _run(capsys, root, "--provider", provider, "--llm-model", "m1")
    assert code == 0 and out[1:4] == [f"provider {provider}", "llm-model m1", "cache miss"]
    ident = out[-2].removeprefix("suggestion ")
    assert json.loads((root / ".seams" / "suggestions" / ident / "suggestion.json").read_text())["llm_model"] == "m1"
    answer.write_bytes((FIXTURES / "escalate_off_by_one.json").read_bytes())
    code, out, _ = _run(capsys, root, "--provider", provider)  # no model named: another key
    assert (code, out[2], out[-1]) == (1, "cache miss", "routing changed (24 samples)")
    assert log.read_text() == "called model=m1\ncalled model=-\n"


def test_without_candidates_the_provider_is_not_called(tmp_path, capsys):
    root = copy_example(tmp_path)
    bpmn = root / "model" / "leave.bpmn"
    edit(bpmn, '<![CDATA[days > 20 or leave_type == "unpaid"]]>', 'approval == "manager"')
    edit(bpmn, '<![CDATA[days <= 20 and leave_type != "unpaid"]]>', 'approval == "auto"')
    edit(bpmn, "approved == True", 'approval == "manager"')
    edit(bpmn, "not approved", 'approval == "auto"')
    assert _run(capsys, root, "--provider", FAILING) == (
        0, ["no candidates: every gateway condition reads decision outputs"], [])


def test_an_unknown_kind_is_a_usage_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as exited:
        main(["suggest", "--project", str(tmp_path), "--kind", "rename-things"])
    assert exited.value.code == 2
    assert "invalid choice: 'rename-things'" in capsys.readouterr().err


def test_a_rejected_answer_replays_as_such_until_refresh(tmp_path, capsys):
    """A cached answer whose suggestion was rejected says so; --refresh asks the fixed provider."""
    root = copy_example(tmp_path)
    log, answer = tmp_path / "calls.log", tmp_path / "answer.json"
    answer.write_bytes((FIXTURES / "escalate_off_by_one.json").read_bytes())
    provider = _provider(answer, log)
    code, out, _ = _run(capsys, root, "--provider", provider)
    assert (code, out[2]) == (1, "cache miss")
    answer.write_bytes((FIXTURES / "escalate.json").read_bytes())  # the provider is fixed
    code, out, _ = _run(capsys, root, "--provider", provider)
    assert (code, out[2], out[-1]) == (1, "cache hit (rejected before; --refresh to ask again)",
                                       "routing changed (24 samples)")
    code, out, _ = _run(capsys, root, "--provider", provider, "--refresh")
    assert (code, out[2], out[-3]) == (0, "cache miss (--refresh)", "would change model/model.trig")
    code, out, _ = _run(capsys, root, "--provider", provider)
    assert (code, out[2]) == (0, "cache hit")  # the new answer replaced the rejected one
    assert log.read_text() == "called model=-\ncalled model=-\n"


def test_accept_takes_a_unique_prefix_of_the_id(tmp_path, capsys):
    root = copy_example(tmp_path)
    code, out, _ = _run(capsys, root, "--provider", _provider(FIXTURES / "escalate.json"))
    ident = out[-2].removeprefix("suggestion ")
    assert code == 0 and out[-1] == f"accept with: seams suggest --accept {ident[:12]}"
    # a second pending entry sharing the first six digits makes that prefix ambiguous
    twin = root / ".seams" / "suggestions" / (ident[:6] + "0" * 58)
    twin.mkdir()
    (twin / "suggestion.json").write_text("{}")
    assert _run(capsys, root, "--accept", ident[:6]) == (1, [], [
        f"seams suggest: {ident[:6]} is the start of 2 pending suggestions "
        f"({', '.join(sorted([ident[:12], ident[:6] + '0' * 6]))}); give more digits"])
    assert _run(capsys, root, "--accept", "fedcba98") == (
        1, [], ["seams suggest: no pending suggestion fedcba98 (seams suggest --list shows them)"])
    code, out, err = _run(capsys, root, "--accept", ident[:12])
    assert (code, err, out[0]) == (0, [], f"applied {ident}")


def test_a_second_try_sends_the_rejection_back_and_stores_the_corrected_suggestion(tmp_path, capsys):
    root = copy_example(tmp_path)
    script = tmp_path / "retry.py"  # the off-by-one table first, the right one when shown why it was rejected
    script.write_text(
        "import sys\nprompt = sys.stdin.read()\n"
        "follow_up = prompt.startswith('seams prompt suggest-followup-v1.txt')\n"
        "assert not follow_up or 'took Flow_HR before, Flow_Done after' in prompt\n"
        f"name = 'escalate.json' if follow_up else 'escalate_off_by_one.json'\n"
        f"sys.stdout.write(open({str(FIXTURES)!r} + '/' + name, encoding='utf-8').read())\n", encoding="utf-8")
    code, out, err = _run(capsys, root, "--provider", f"{sys.executable} {script}", "--tries", "2")
    assert code == 0, err
    assert out[:2] == ["try 1 of 2", "template suggest-v3.txt"]
    assert "failed suggestion rejected: routing failed in the changed model" in out
    second = out.index("try 2 of 2")
    assert out[second + 1:second + 3] == ["template suggest-followup-v1.txt", "cache miss"]
    assert out[-1].startswith("accept with: seams suggest --accept ")
    (stored,) = _pending(root)
    assert json.loads((root / ".seams" / "suggestions" / stored / "suggestion.json").read_text())["template"] \
        == "suggest-followup-v1.txt"
