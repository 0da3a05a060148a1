"""``seams run PROCESS``: one instance on the embedded engine, from the command line.

The way to try a model before any engine is set up (docs/cli.md, "seams
run"): the process runs on seams_runtime.engine, exactly as a scenario item
runs it (seams' conditions, the generated decisions, the project's handlers
behind the sandbox boundary). Each user task's form is asked at the terminal,
every answer judged by seams.forms.form_problems (the engine's own check of a form)
and asked again with a one-line reason when refused, or read from
``--answers FILE``. One line per element as it runs, then the final
variables as one sorted JSON object.

Exit codes: 0 the instance reached an end event; 1 it stopped before one (a
handler raised, no condition held: the line names the element); 2 a project
error, an unknown process, bad ``--given``/``--answers``/``--replies``/``--events`` data,
or a user task to fill with no terminal and no answers for it.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from seams import vocab as V
from seams.errors import ProjectError, ResolutionError
from seams.project.layout import load_project
from seams_cli.additions import json_text
from seams_cli.lifetime import command_model


class RunInputError(ProjectError):
    """Data given to ``seams run`` that the model refuses (exit 2)."""


variables_json = json_text
"""The run's values as JSON lines show them (seams_cli.additions.json_text)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("process", metavar="PROCESS",
                        help="the process: its label, BPMN id, prefixed name or IRI")
    parser.add_argument("--given", metavar="JSON", default=None,
                        help='start variables as a JSON object by variable name, e.g. \'{"days": 3}\'')
    parser.add_argument("--answers", metavar="FILE", default=None,
                        help="user task data: a JSON object keyed by user task BPMN id or label, "
                             "each a JSON object of form field values (else asked at the terminal)")
    parser.add_argument("--replies", metavar="FILE", default=None,
                        help="binding replies: a JSON object keyed by binding name (else each binding "
                             "answers as in the first example of a task that uses it)")
    parser.add_argument("--events", metavar="JSON", default=None,
                        help='what happens while the instance waits, as a scenario\'s seam:events: a JSON array of '
                             'element ids (a timer that fires) or {"element": id, "variables": {...}} objects '
                             '(a message that arrives), in order')
    parser.add_argument("--scenario", metavar="LABEL", default=None,
                        help="run with a seam:scenario's start variables, user task data and replies "
                             "(the options above win), then hold the run to the scenario")
    parser.add_argument("--save-scenario", metavar="LABEL", default=None,
                        help="keep this run as a seam:scenario of the process: its start variables, what each "
                             "user task submitted, the replies, the end event, the flows and the final variables "
                             "(added through seams_edit; seams undo takes it back)")
    parser.add_argument("--html", metavar="FILE", default=None,
                        help="also write the run as one HTML page: the path on the diagram, each step with the "
                             "variables after it, the decisions with the rules that matched")
    parser.add_argument("--project", metavar="DIR",
                        help="the project directory (default: the nearest seams.toml upwards)")
    parser.add_argument("--model", metavar="TRIG",
                        help="the TriG model (default: SEAMS_MODEL, else project.model)")


def run(args: argparse.Namespace) -> int:
    from seams_runtime.engine import find_process, run_instance

    project = load_project(args.project, model=args.model)
    answers = _json_file(args.answers, "--answers") if args.answers is not None else None
    replies_file = _json_file(args.replies, "--replies") if args.replies is not None else None
    from seams.scenarios import run_scope

    with command_model(project) as model:
        process = find_process(model, args.process)
        scope = run_scope(model, process)  # with the processes its call activities call
        plan = scenario(model, process, args.scenario) if args.scenario is not None else None
        given = {**(plan.given if plan else {}), **start_variables(model, args.given)}
        tasks = user_tasks(model, scope, answers, args.answers)
        print(_head("run", process.element_id or "", process.label), flush=True)
        replies = binding_replies(model, process, {**(plan.replies if plan else {}), **(replies_file or {})},
                                  out=sys.stdout)
        printer = StepPrinter(scope, sys.stdout)
        forms = FormAsker(model, scope, tasks, answers, printer, sys.stdin, sys.stdout,
                          answers_name=args.answers, scenario=plan)
        if args.save_scenario is not None:
            refuse_repeated_label(process, args.save_scenario)
        result = run_instance(project, model, process, given=given, user_task_data=forms,
                              replies=replies, on_step=printer.step,
                              events=run_events(args.events) if args.events is not None
                              else plan.events if plan else (),
                              start_at=plan.start_at if plan else None)
        printer.flush(result.error_element)
        if args.html is not None:
            _write_html(Path(args.html), model, process, result, given)
    if not result.ok:
        print(f"seams run: stopped at {result.error_element or 'the start'}: {result.error}", file=sys.stderr)
    print(f"variables {variables_json(result.variables)}", flush=True)
    if args.save_scenario is not None:
        if not result.ok:
            raise RunInputError("--save-scenario: the run stopped before an end event; only a run that ended "
                                "is kept as a scenario")
        where = save_scenario(project, model, process, args.save_scenario, given=given, replies=replies,
                              result=result)
        print(f"saved scenario {_quoted(args.save_scenario)} of {model.qname(process.iri)} ({where}); "
              "seams undo takes it back", flush=True)
    if plan is None:
        return 0 if result.ok else 1
    from seams.scenarios import scenario_problems

    problems = scenario_problems(scope, plan, result)
    for predicate, message in problems:
        print(f"scenario {_quoted(plan.label)} {predicate}: {message}", flush=True)
    if not problems:
        print(f"scenario {_quoted(plan.label)}: as expected", flush=True)
    return 1 if problems or not result.ok else 0


def _write_html(path: Path, model: Any, process: Any, result: Any, given: Mapping[str, Any]) -> None:
    """``--html FILE``: the run's page (seams.render.pages), written atomically; ``html <FILE>``."""
    from seams.fs import atomic_write
    from seams.render.pages import run_page

    try:
        atomic_write(path, run_page(model, process, result, given).encode("utf-8"))
    except OSError as exc:
        raise ProjectError(f"{path}: cannot write the run's page: {exc.strerror or exc}") from None
    print(f"html {path}", flush=True)


def scenario(model: Any, process: Any, label: str) -> Any:
    """The plan of the process's scenario called ``label`` (its item label, as pytest names it)."""
    from seams.scenarios import scenario_labels, scenario_plan

    labels = scenario_labels(process)
    found = next((each for name, each in labels if name == label), None)
    if found is None:
        raise ResolutionError(f"--scenario: no scenario {label!r} of {process.element_id}",
                              [name for name, _ in labels])
    plan = scenario_plan(model, label, found)
    if plan.problem:
        raise RunInputError(f"--scenario {label!r}: {plan.problem}")
    return plan


# ------------------------------------------------------------------ inputs


def _json_file(path: str, option: str) -> Any:
    from seams.project.limits import MAX_JSON_BYTES, LimitError, loads_json, read_regular_file

    try:
        data = read_regular_file(Path(path), max_bytes=MAX_JSON_BYTES)
    except LimitError as exc:
        raise RunInputError(f"{option} {path}: {exc}") from None
    except OSError as exc:
        raise RunInputError(f"{option} {path}: cannot read it ({exc.strerror or exc})") from None
    try:
        value = loads_json(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise RunInputError(f"{option} {path}: not JSON ({str(exc).splitlines()[0]})") from None
    if not isinstance(value, dict):
        raise RunInputError(f"{option} {path}: expected a JSON object")
    return value


def run_events(text: str) -> tuple[Any, ...]:
    """``--events``: the run's events, as a scenario's ``seam:events`` holds them (docs/scenarios.md):
    element ids, or ``{"element": id, "variables": {...}}`` objects."""
    from seams.project.limits import loads_json
    from seams.scenarios import EVENTS_SHAPE, run_events_valid

    try:
        data = loads_json(text)
    except ValueError as exc:
        raise RunInputError(f"--events: not JSON ({str(exc).splitlines()[0]})") from None
    if not run_events_valid(data):
        raise RunInputError(f"--events: expected {EVENTS_SHAPE}")
    return tuple(data)


def start_variables(model: Any, text: str | None) -> dict[str, Any]:
    """``--given``: a JSON object of values by variable name, each a value of its variable
    (datatype and every shape field on it), as the process holds it."""
    from seams.checks.types import runtime_value, variable_types
    from seams.project.limits import loads_json

    if text is None:
        return {}
    try:
        data = loads_json(text)
    except ValueError as exc:
        raise RunInputError(f"--given: not JSON ({str(exc).splitlines()[0]})") from None
    if not isinstance(data, dict):
        raise RunInputError("--given: expected a JSON object of start variables by name")
    types = {t.name: t for t in variable_types(model).values() if t.name}
    out = {}
    for name in sorted(data):
        vtype = types.get(name)
        if vtype is None:
            raise RunInputError(f"--given: {name!r} is no variable of the model "
                                f"(variables: {', '.join(sorted(types))})")
        problems = vtype.problems(data[name])
        if problems:
            raise RunInputError(f"--given: {name!r}: {problems[0][1]}")
        out[name] = runtime_value(data[name], vtype.datatype)
    return out


def binding_replies(model: Any, process: Any, replies: Mapping[str, Any] | None,
                    out: IO[str]) -> dict[str, Any]:
    """What each binding answers (seams_runtime.run_replies); each default taken from an
    example is printed, so the run says where its data came from."""
    from seams_runtime.run_replies import binding_replies as chosen_replies

    try:
        chosen, defaults = chosen_replies(model, process, replies)
    except ProjectError as exc:
        raise RunInputError(str(exc)) from None
    for default in defaults:
        print(f"reply {default.binding} {variables_json(default.reply)} "
              f"(example {_quoted(default.example)} of {default.task})", file=out)
    return chosen


def user_tasks(model: Any, process: Any, answers: Mapping[str, Any] | None,
               answers_name: str | None) -> dict[str, Any]:
    """BPMN id -> model task of the process's user tasks; every ``--answers`` key must name one
    (by BPMN id, the model's label or the BPMN name)."""
    from seams.scenarios import called_processes

    tasks: dict[str, Any] = {}
    for each in [model.view.processes.get(process.iri, process), *called_processes(model, process)]:
        for node in each.nodes.values():
            if node.kind in ("userTask", "manualTask") and node.id not in tasks:
                tasks[node.id] = next((t for t in model.view.tasks.values() if t.process == each.iri
                                       and t.element_id == node.id and t.kind == V.UserTask), None)
    for key in sorted(answers or {}):
        if _answer_key(model, process, tasks, key) is None:
            raise RunInputError(f"--answers {answers_name}: {key!r} is no user task of {process.element_id} "
                                f"(user tasks: {', '.join(tasks) or 'none'})")
    return tasks


def _answer_key(model: Any, process: Any, tasks: Mapping[str, Any], key: str) -> str | None:
    for element, task in tasks.items():
        node = process.nodes.get(element)
        if key in (element, node.name if node is not None else None, task.label if task is not None else None):
            return element
    return None


# ------------------------------------------------------------------ user tasks


class AnswerMissing(ProjectError):
    """A user task to fill, and nothing to fill it from (exit 2)."""


class FormAsker:
    """``user_task_data`` of the run: the answers file's entry for the task, else its form's
    questions asked at the terminal, each answer judged before it is kept."""

    def __init__(self, model: Any, process: Any, tasks: Mapping[str, Any], answers: Mapping[str, Any] | None,
                 printer: StepPrinter, stdin: IO[str], stdout: IO[str], *, answers_name: str | None,
                 scenario: Any = None):
        self.model, self.process, self.tasks = model, process, tasks
        self.answers = {_answer_key(model, process, tasks, key): value for key, value in (answers or {}).items()}
        self.scenario = dict(scenario.submits) if scenario is not None else {}  # BPMN id -> values
        self.visits: dict[tuple[str, str], int] = {}  # (source, BPMN id) -> answers used so far
        self.printer, self.stdin, self.stdout = printer, stdin, stdout
        self.answers_name = answers_name

    def __call__(self, info: Any) -> dict[str, Any]:
        from seams.forms import form_fields, submitted

        self.printer.arriving(info.element_id)
        task = self.tasks.get(info.element_id)
        fields = form_fields(self.model, task)
        self.printer.line(info.element_id)
        for source, entries in ((f"--answers {self.answers_name}", self.answers), ("--scenario", self.scenario)):
            if info.element_id in entries:
                entry = entries[info.element_id]
                if isinstance(entry, list):  # a task visited again submits the next values
                    visit = self.visits.get((source, info.element_id), 0)
                    self.visits[(source, info.element_id)] = visit + 1
                    if visit >= len(entry):
                        continue
                    entry = entry[visit]
                try:
                    return submitted(self.model, task, fields, entry, f"{source}: task {info.element_id}")
                except ValueError as exc:
                    raise RunInputError(str(exc)) from None
        if not fields:
            return {}
        if not _interactive(self.stdin):
            source = f"--answers {self.answers_name} has no entry for it" if self.answers_name else \
                "stdin is no terminal and no --answers FILE was given"
            raise AnswerMissing(f"{_head('user task', info.element_id, info.name)} needs its form filled, "
                                f"but {source}; pass --answers FILE (a JSON object keyed by user task id)")
        return self.ask(task, fields)

    def ask(self, task: Any, fields: tuple[Any, ...]) -> dict[str, Any]:
        from seams_cli.form_prompts import answer, prompt

        data: dict[str, Any] = {}
        for field in fields:
            while True:
                self.stdout.write(f"  {prompt(field)}: ")
                self.stdout.flush()
                text = self.stdin.readline()
                if not text:
                    raise AnswerMissing(f"input ended before field {field.variable!r} was answered")
                value, reason = answer(self.model, task, field, text.rstrip("\r\n"))
                if reason is None:
                    if value is not None:
                        data[field.variable] = value
                    break
                self.stdout.write(f"  invalid: {reason}\n")
        return data


def _interactive(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


# ------------------------------------------------------------------ output


class StepPrinter:
    """One line per element: ``<BPMN kind> <id> "<name>"``, a business-rule task with its
    decision's matched rules, an exclusive gateway with the flow it took (printed once the
    next element is known, as the engine reports the choice by the flow the token took; a
    parallel gateway takes every flow and says nothing more)."""

    def __init__(self, process: Any, out: IO[str]):
        self.process, self.out = process, out
        self.pending: list[Any] = []  # gateway steps whose taken flow is not known yet
        self.printed: set[str] = set()  # user tasks already printed (before their questions)

    def step(self, step: Any) -> None:
        if step.flow is not None:
            self._resolve(step.flow)
        if step.kind == "exclusiveGateway" and len(self.process.outgoing(step.element_id)) > 1:
            self.pending.append(step)
            return
        if step.element_id in self.printed:
            self.printed.discard(step.element_id)
            return
        text = _head(step.kind, step.element_id, step.name)
        if step.decision is not None:
            text += f": {step.decision} {decided(step.hit_policy, step.rules)}"
        self._write(text)

    def arriving(self, element_id: str | None) -> None:
        """The next element is known before its step (a user task about to be asked, the element
        a run stopped at): print the gateway that led to it first."""
        for gateway in list(self.pending):
            flow = next((f.id for f in self.process.outgoing(gateway.element_id) if f.target == element_id), None)
            if flow is not None:
                self._resolve(flow)

    def line(self, element_id: str) -> None:
        """A user task's line (or a manual, script or send task's the run's data answers), printed
        before its questions (its step then prints nothing)."""
        node = self.process.nodes.get(element_id)
        self._write(_head(node.kind if node is not None else "userTask", element_id,
                          node.name if node is not None else None))
        self.printed.add(element_id)

    def flush(self, stopped_at: str | None = None) -> None:
        """The end of the run: gateways still waiting for their flow print what they took toward
        the element the run stopped at, else nothing more."""
        self.arriving(stopped_at)
        for gateway in self.pending:
            self._write(_head(gateway.kind, gateway.element_id, gateway.name))
        self.pending = []

    def _resolve(self, flow_id: str) -> None:
        flow = self.process.flows.get(flow_id)
        for gateway in list(self.pending):
            if flow is not None and flow.source == gateway.element_id:
                self.pending.remove(gateway)
                taken = f"{flow.id} {_quoted(flow.name)}" if flow.name else flow.id
                self._write(f"{_head(gateway.kind, gateway.element_id, gateway.name)}: took {taken}")

    def _write(self, text: str) -> None:
        self.out.write(text.rstrip() + "\n")
        self.out.flush()


def _head(kind: str, element_id: str, name: str | None) -> str:
    """``<kind> <id> "<name>"``; without the name when the element has none."""
    return f"{kind} {element_id} {_quoted(name)}" if name else f"{kind} {element_id}"


def _quoted(text: str | None) -> str:
    return json.dumps(text, ensure_ascii=False) if text else ""


# ------------------------------------------------------------------ --save-scenario


def refuse_repeated_label(process: Any, label: str) -> None:
    if not label.strip():
        raise RunInputError("--save-scenario: a scenario needs a label")
    if any(s.label == label for s in process.scenarios):
        raise RunInputError(f"--save-scenario: {process.element_id} has a scenario {label!r} already; "
                            "choose another label")


def save_scenario(project: Any, model: Any, process: Any, label: str, *, given: Mapping[str, Any],
                  replies: Mapping[str, Any], result: Any) -> str:
    """The run as a ``seam:scenario`` of the process (docs/scenarios.md), added to the model."""
    from rdflib import BNode, Literal
    from rdflib.namespace import RDFS

    from seams import vocab as V
    from seams_cli.additions import add_to_model, graph_of, json_literal

    tasks = {t.element_id: t for t in model.view.tasks.values() if t.process == process.iri and t.element_id}
    graph = graph_of(model, process.iri)
    node = BNode()
    quads = [(process.iri, V.scenario, node, graph), (node, RDFS.label, Literal(label), graph)]
    if given:
        quads.append((node, V.given, json_literal(dict(given)), graph))
    for step in result.steps:
        task = tasks.get(step.element_id)
        if step.kind in ("userTask", "manualTask") and task is not None:
            submission = BNode()
            quads += [(node, V.submits, submission, graph), (submission, V.task, task.iri, graph),
                      (submission, V.values, json_literal(dict(step.outputs)), graph)]
    if replies:
        quads.append((node, V.replies, json_literal(dict(replies)), graph))
    if result.end_event:
        quads.append((node, V.expectEnd, Literal(result.end_event), graph))
    quads.append((node, V.expectFlows, json_literal(result.flows), graph))
    quads.append((node, V.expect, json_literal(dict(result.variables)), graph))
    return add_to_model(project, model, quads, command="seams run")


_HIT_POLICIES = frozenset({"UNIQUE", "FIRST", "PRIORITY", "ANY", "COLLECT", "RULE ORDER", "OUTPUT ORDER"})


def decided(hit_policy: str | None, rules: tuple[str, ...]) -> str:
    """A decision's result as its hit policy gives it: ``decided by R`` where one rule decides
    (UNIQUE, FIRST, PRIORITY, ANY's agreeing rules), ``matched R1, R2`` where every matching rule
    counts (COLLECT, RULE ORDER, OUTPUT ORDER); ``no rule`` when none matched. A decision that is
    no table (``hit_policy`` names its boxed expression, seams.lang.dmn_expression) says so."""
    if hit_policy is not None and hit_policy not in _HIT_POLICIES:
        return f"evaluated ({hit_policy})"
    if not rules:
        return "no rule matched"
    if hit_policy in ("COLLECT", "RULE ORDER", "OUTPUT ORDER"):
        return f"{hit_policy} matched {', '.join(rules)}"
    return f"decided by {', '.join(rules)}" + (f" ({hit_policy})" if hit_policy in ("FIRST", "PRIORITY") else "")
