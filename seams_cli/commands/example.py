"""``seams example TASK``: add an example to a service task without writing escaped JSON.

An example is what acceptance judges a handler by (docs/model.md,
"Examples"): the inputs the task reads, the replies of the bindings it
uses, and the outputs it must write. This command takes them from
``--given``, ``--replies`` and ``--expect`` (each a JSON object, or a file
holding one), and asks at a terminal for whatever was not given: each input
the task reads, typed and judged as ``seams run`` asks a form field, then
each binding's reply (JSON), then each output. The values are judged by the
same checks as ``seams check`` (keys the task does not read, use or write are
refused by name; values of the wrong type or outside a form field's
constraints too), and the example is added through seams_edit: the TriG keeps
its layout, the JSON is written as a long string (no backslash), and
``seams undo`` takes it back.

Exit codes: 0 added; 2 a project error, bad data, or nothing to ask with.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from decimal import Decimal
from pathlib import Path
from typing import IO, Any

from rdflib import BNode, Literal
from rdflib.namespace import RDFS

from seams import vocab as V
from seams.errors import ProjectError
from seams.model.loading import Model, load_model
from seams.model.resolve import resolve_task
from seams.model.view import Task
from seams.project.layout import load_project
from seams.project.limits import MAX_JSON_BYTES, LimitError, loads_json, read_regular_file
from seams_cli.additions import add_to_model, graph_of, json_literal
from seams_cli.options import add_project_arguments


class ExampleInputError(ProjectError):
    """Data given to ``seams example`` that the task or its variables refuse (exit 2)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("task", metavar="TASK",
                        help="the service task: IRI, prefixed name, BPMN id or handler name")
    parser.add_argument("--label", metavar="TEXT", help="the example's label (asked when left out)")
    for name, what in (("given", "the inputs, by variable name"), ("replies", "the bindings' replies, by name"),
                       ("expect", "the outputs, by variable name")):
        parser.add_argument(f"--{name}", metavar="JSON|FILE", default=None,
                            help=f"{what}: a JSON object, or a file holding one (asked when left out)")
    parser.add_argument("--held-out", action="store_true",
                        help="a held-out example: it judges drafts but is never shown in a prompt")
    add_project_arguments(parser)


def run(args: argparse.Namespace) -> int:
    project = load_project(args.project, model=args.model)
    model = load_model(project)
    task = resolve_task(model, args.task)
    shown = model.qname(task.iri)
    reads, uses, writes = _names(model, task.reads), _binding_names(model, task), _names(model, task.writes)
    asker = _Asker(model, sys.stdin, sys.stdout)
    label = args.label if args.label is not None else asker.text("label")
    if not label.strip():
        raise ExampleInputError("--label: an example needs a label")
    if any(e.label == label for e in task.examples):
        raise ExampleInputError(f"{shown} has an example {label!r} already; choose another --label")
    given = _part(args.given, "--given", reads, "input", lambda: asker.values(reads))
    replies = _part(args.replies, "--replies", uses, "binding", lambda: asker.replies(uses)) if uses else \
        _part(args.replies or "{}", "--replies", uses, "binding", dict)
    expect = _part(args.expect, "--expect", writes, "output", lambda: asker.values(writes))

    graph = graph_of(model, task.iri)
    node = BNode()
    quads = [(task.iri, V.example, node, graph), (node, RDFS.label, Literal(label), graph),
             (node, V.given, json_literal(given), graph)]
    if uses or replies:
        quads.append((node, V.replies, json_literal(replies), graph))
    quads.append((node, V.expect, json_literal(expect), graph))
    if args.held_out:
        quads.append((node, V.heldOut, Literal(True), graph))
    source = add_to_model(project, model, quads, command="seams example",
                          check=lambda trig: _refuse_findings(model, trig, task, label))
    print(f"added example {json.dumps(label, ensure_ascii=False)} to {shown} ({source}); seams undo takes it back")
    return 0


# ------------------------------------------------------------------ the parts


def _names(model: Model, variables: Any) -> dict[str, Any]:
    """Variable name -> its type (seams.checks.types), for ``variables`` of the task."""
    from seams.checks.types import variable_types

    types = variable_types(model)
    return {str(types[v].name): types[v] for v in sorted(variables, key=str) if v in types and types[v].name}


def _binding_names(model: Model, task: Task) -> dict[str, Any]:
    view = model.view
    return {str(view.bindings[b].name): view.bindings[b] for b in sorted(task.uses, key=str)
            if b in view.bindings and view.bindings[b].name}


def _part(value: str | None, option: str, known: Mapping[str, Any], kind: str, ask: Any) -> dict[str, Any]:
    """One part of the example: given as JSON text or a file, else asked; its keys checked."""
    data = ask() if value is None else _json_object(value, option)
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise ExampleInputError(f"{option}: {unknown[0]!r} is no {kind} of the task "
                                f"({kind}s: {', '.join(sorted(known)) or 'none'})")
    if kind != "binding":
        for name in sorted(data):
            problems = known[name].problems(_typed(data[name], known[name].datatype))
            if problems:
                raise ExampleInputError(f"{option}: {name!r}: {problems[0][1]}")
    return data


def _json_object(value: str, option: str) -> dict[str, Any]:
    text = value
    if not value.lstrip().startswith("{"):
        try:
            text = read_regular_file(Path(value), max_bytes=MAX_JSON_BYTES).decode("utf-8")
        except (LimitError, UnicodeDecodeError) as exc:
            raise ExampleInputError(f"{option} {value}: {exc}") from None
        except OSError as exc:
            raise ExampleInputError(f"{option} {value}: cannot read it ({exc.strerror or exc})") from None
    try:
        data = loads_json(text, parse_float=Decimal)
    except ValueError as exc:
        raise ExampleInputError(f"{option}: not JSON ({str(exc).splitlines()[0]})") from None
    if not isinstance(data, dict):
        raise ExampleInputError(f"{option}: expected a JSON object")
    return data


def _typed(value: Any, datatype: str | None) -> Any:
    """A JSON value as the type checks take it (a date's text as a date)."""
    from seams.lang.field_values import as_date

    if datatype == "date" and isinstance(value, str):
        return as_date(value) or value
    return value


def _refuse_findings(model: Model, trig: bytes, task: Task, label: str) -> None:
    """What ``seams check`` would say of the new example, before anything is written."""
    from seams.checks.examples import example_findings
    from seams.model.loading import Model as Loaded
    from seams.model.loading import parse_trig

    dataset = parse_trig(trig, source=model.project.relative(model.trig_path), base=model.project.config.base)
    changed = Loaded(model.project, model.trig_path, trig, dataset, model.payloads)
    prefix = f"{json.dumps(label, ensure_ascii=False)}: "
    for finding in example_findings(changed):
        if finding.subject == model.qname(task.iri) and prefix in finding.message:
            raise ExampleInputError(finding.message)


# ------------------------------------------------------------------ asking


class _Asker:
    """Questions at a terminal, each answer judged before it is kept (as ``seams run`` asks)."""

    def __init__(self, model: Model, stdin: IO[str], stdout: IO[str]):
        self.model, self.stdin, self.stdout = model, stdin, stdout

    def _line(self, question: str) -> str:
        try:
            interactive = self.stdin.isatty()
        except (AttributeError, ValueError):
            interactive = False
        if not interactive:
            raise ExampleInputError(f"{question}: stdin is no terminal; give --label, --given, --replies and "
                                    "--expect (each a JSON object or a file)")
        self.stdout.write(f"  {question}: ")
        self.stdout.flush()
        text = self.stdin.readline()
        if not text:
            raise ExampleInputError(f"input ended before {question} was answered")
        return text.rstrip("\r\n")

    def text(self, question: str) -> str:
        return self._line(question)

    def values(self, known: Mapping[str, Any]) -> dict[str, Any]:
        from seams_cli.form_prompts import read_typed

        data: dict[str, Any] = {}
        for name, vtype in known.items():
            while True:
                text = self._line(f"{name} ({vtype.datatype or 'text'}, empty to leave out)")
                if not text.strip():
                    break
                value, reason = read_typed(text, vtype.datatype)
                problems = vtype.problems(value) if reason is None else [("", reason)]
                if not problems:
                    data[name] = value
                    break
                self.stdout.write(f"  invalid: {problems[0][1]}\n")
        return data

    def replies(self, known: Mapping[str, Any]) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for name in known:
            while True:
                text = self._line(f"reply of binding {name} (JSON, e.g. \"BK-1\" or 3)")
                try:
                    data[name] = loads_json(text, parse_float=Decimal)
                    break
                except ValueError as exc:
                    self.stdout.write(f"  invalid: not JSON ({str(exc).splitlines()[0]})\n")
        return data
