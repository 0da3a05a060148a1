"""The judge answers only what the model declares (issue 27): a binding request reaches
nothing but a declared binding's reply, every message on the pipe is checked against its
schema before it is read, and so a draft cannot forge its verdict -- on every backend,
``none`` included (what the judge does is the same whatever runs the draft)."""

from __future__ import annotations

import pytest
from sandbox_backends import CONFINING, backend, handlers

from seams_runtime.handler_checks import Bindings, Inputs, example_problems
from seams_runtime.sandbox.channel import SCHEMAS, Executor, ExecutorGone, valid

BACKENDS = [*CONFINING, "none"]

# Through the executor's own channel object the draft sends requests the judge once
# answered with getattr(bindings, name)(...): blank the signature and the given inputs
# the wrong call is held to, then call the calendar with the wrong employee.
BLANK_THE_JUDGE = '''
def handle(inputs, bindings):
    channel = bindings._channel
    for field in ("_signatures", "_given", "_replies"):
        channel.ask({"op": "call", "name": "__setattr__", "args": [field, {}], "kwargs": {}})
    channel.ask({"op": "call", "name": "__dict__", "args": [], "kwargs": {}})
    return {"booking_ref": bindings.calendar("mallory", "annual", 3)}
'''

READ_THE_REPLIES = '''
def handle(inputs, bindings):
    channel = bindings._channel
    seen = [channel.ask({"op": "call", "name": name, "args": args, "kwargs": {}})
            for name, args in (("__getattribute__", ["_replies"]), ("_replies", []), ("answer",
                               ["calendar", ["ann", "annual", 3], {}]), ("unused", []), ("require", ["calendar"]))]
    seen.append(channel.ask({"op": "binding", "name": "__class__"}))
    return {"booking_ref": repr(seen)}
'''

EXAMPLE = ("annual", {"employee": "ann", "leave_type": "annual", "days": 3}, {"calendar": "BK-1"},
           {"booking_ref": "BK-1"})
SIGNATURES = {"calendar": [("employee", "employee"), ("leave_type", "leave_type"), ("days", "days")]}


def judge(name, tmp_path, source):
    package = handlers(tmp_path, draft=source)
    with Executor([(package, "handlers")], sandbox=backend(name)) as executor:
        handle, problems = executor.import_handler("handlers.draft", "handlers/draft.py")
        assert problems == []
        bindings = Bindings(["calendar"], {"calendar": "BK-1"}, SIGNATURES, EXAMPLE[1])
        result = handle(Inputs(EXAMPLE[1], ["employee", "leave_type", "days"]), bindings)
        verdict = example_problems(handle, ("employee", "leave_type", "days"), ("calendar",), EXAMPLE, SIGNATURES)
        return result, bindings, verdict, list(executor.calls)


@pytest.mark.parametrize("name", BACKENDS)
def test_a_draft_cannot_blank_the_judges_bindings(name, tmp_path):
    package = handlers(tmp_path, draft=BLANK_THE_JUDGE)
    with Executor([(package, "handlers")], sandbox=backend(name)) as executor:
        handle, _ = executor.import_handler("handlers.draft", "handlers/draft.py")
        verdict = example_problems(handle, ("employee", "leave_type", "days"), ("calendar",), EXAMPLE, SIGNATURES)
        calls = executor.calls
    assert [c["binding"] for c in calls] == ["__setattr__", "__setattr__", "__setattr__", "__dict__", "calendar"]
    assert all("error" in c for c in calls) and "reply" not in calls[-1]
    assert any("calendar('mallory', 'annual', 3): employee is 'mallory', expected 'ann'" in message
               for _, message in verdict), verdict


@pytest.mark.parametrize("name", BACKENDS)
def test_no_attribute_of_the_judge_is_reachable(name, tmp_path):
    result, bindings, _, calls = judge(name, tmp_path, READ_THE_REPLIES)
    text = result["booking_ref"]
    assert "BK-1" not in text and "mallory" not in text
    assert text.count("is not a binding of this task") == 6, text
    assert bindings.undeclared[:6] == ["__getattribute__", "_replies", "answer", "unused", "require", "__class__"]
    assert [c["binding"] for c in calls][:5] == ["__getattribute__", "_replies", "answer", "unused", "require"]


FORGED_MESSAGES = {
    "extra-field": '{"op": "returned", "value": {"booking_ref": "BK-1"}, "undeclared": [], "passed": true}',
    "verdict-op": '{"op": "passed"}',
    "wrong-type": '{"op": "returned", "value": {"booking_ref": "BK-1"}, "undeclared": [1]}',
    "out-of-turn": '{"op": "ready", "uid": 0}',
    "missing-field": '{"op": "returned", "value": {"booking_ref": "BK-1"}}',
    "oversized-description": '{"op": "raised", "description": "' + "x" * 5000 + '", "undeclared": []}',
    "not-an-object": '[1, 2]',
    "nested-too-deep": '{"op": "returned", "value": ' + "[" * 100000 + "]" * 100000 + ', "undeclared": []}',
}


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize("forged", sorted(FORGED_MESSAGES))
def test_a_message_off_its_schema_ends_the_executor(name, forged, tmp_path):
    source = f'''
import os
def handle(inputs, bindings):
    bindings._channel.out.write({FORGED_MESSAGES[forged]!r} + "\\n")
    bindings._channel.out.flush()
    return {{"booking_ref": "BK-1"}}
'''
    package = handlers(tmp_path, draft=source)
    with Executor([(package, "handlers")], sandbox=backend(name)) as executor:
        handle, _ = executor.import_handler("handlers.draft", "handlers/draft.py")
        with pytest.raises(ExecutorGone, match="broke the protocol"):
            handle(Inputs(EXAMPLE[1], ["employee"]), Bindings(["calendar"], {"calendar": "BK-1"}))


def test_every_schema_field_is_checked():
    good = {"op": "call", "name": "calendar", "args": ["ann"], "kwargs": {"days": 3}}
    assert valid(good, ("call",))
    assert not valid(good, ("returned",))
    assert not valid({**good, "name": 7}, ("call",))
    assert not valid({**good, "name": "x" * 201}, ("call",))
    assert not valid({**good, "kwargs": {"k" * 201: 1}}, ("call",))
    assert not valid({**good, "args": {}}, ("call",))
    assert not valid({k: v for k, v in good.items() if k != "args"}, ("call",))
    assert not valid({"op": "imported", "problems": [["seam:handler", 1]]}, ("imported",))
    assert valid({"op": "imported", "problems": [["seam:handler", "x"]]}, ("imported",))
    assert set(SCHEMAS) == {"ready", "refused", "imported", "returned", "raised", "binding", "call", "extracted",
                            "failed"}
