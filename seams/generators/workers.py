"""What the worker generators share: the task table read from the model, and the module's runtime.

The built-ins ``zeebe`` (seams.generators.zeebe) and ``camunda7``
(seams.generators.camunda7) each write one module that runs the project's
handlers on a real engine. Both read the same facts per service task with a
handler: its job type or topic (from the BPMN, seams.model.engine, else the
handler name), its reads, its bindings and its writes with their datatypes,
and both copy the same runtime (seams.generators.worker_runtime), so the two
engines call a handler and judge its outputs alike (docs/generators.md,
"Workers for real engines").
"""

from __future__ import annotations

import ast
import importlib.util
import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from seams import vocab as V
from seams.errors import GeneratorError
from seams.generators import worker_runtime
from seams.generators.pysource import docstring, require_identifier
from seams.model.engine import EngineBinding, engine_binding

if TYPE_CHECKING:
    from seams.model.loading import Model


@dataclass(frozen=True)
class WorkerTask:
    """One service task as a worker runs it, in plain data."""

    subject: str  # prefixed name of the task
    label: str
    element_id: str
    handler: str
    module: str  # handlers.check_balance
    job: str  # the job type (Camunda 8) or topic (Camunda 7)
    reads: tuple[str, ...]
    uses: tuple[str, ...]
    writes: tuple[tuple[str, str], ...]  # (output name, xsd local datatype), by name

    @property
    def where(self) -> str:
        return f"{self.job} ({self.subject}, BPMN {self.element_id})"


def worker_tasks(model: Model, job_of: Callable[[EngineBinding], str | None], what: str) -> list[WorkerTask]:
    """The service tasks with a handler, by job name; ``job_of`` reads the BPMN's job type or
    topic (None: use the handler name). Two tasks with one job name are refused (``what``
    names it in the message: ``job type``, ``topic``)."""
    view = model.view
    package = require_identifier(model.project.handlers_dir.name, subject="seams.toml", predicate="project.handlers")
    tasks: dict[str, WorkerTask] = {}
    for task in sorted(view.service_tasks(), key=lambda t: (t.handler or "", str(t.iri))):
        if task.handler is None:
            continue  # the seam shapes report a service task without a handler
        subject = model.qname(task.iri)
        handler = require_identifier(task.handler, subject=subject, predicate="seam:handler")
        job = job_of(engine_binding(model, task)) or handler
        if job in tasks:
            raise GeneratorError(f"{subject}: {what} {job!r} is also the {what} of {tasks[job].subject}")
        clash = next((t for t in tasks.values() if t.handler.upper() == handler.upper()), None)
        if clash is not None:  # the module names each task's table <HANDLER>_TASK
            raise GeneratorError(f"{subject} seam:handler: {handler} differs only in case from the handler "
                                 f"{clash.handler} of {clash.subject}")
        writes = []
        for iri in task.writes:
            variable = view.variables.get(iri)
            if variable is None:
                raise GeneratorError(f"{subject} seam:writes: {model.qname(iri)} is not a seam:Variable")
            name = require_identifier(variable.name, subject=model.qname(iri), predicate="seam:name")
            local = _local_datatype(variable.datatype)  # a list variable: list:<datatype>, as the runtime reads it
            writes.append((name, f"list:{local or 'any'}" if variable.many else local))
        reads = []
        for iri in task.reads:
            variable = view.variables.get(iri)
            if variable is None:
                raise GeneratorError(f"{subject} seam:reads: {model.qname(iri)} is not a seam:Variable")
            reads.append(require_identifier(variable.name, subject=model.qname(iri), predicate="seam:name"))
        uses = []
        for iri in task.uses:
            binding = view.bindings.get(iri)
            if binding is None:
                raise GeneratorError(f"{subject} seam:uses: {model.qname(iri)} is not a seam:Binding")
            uses.append(require_identifier(binding.name, subject=model.qname(iri), predicate="seam:name"))
        tasks[job] = WorkerTask(
            subject=subject, label=task.label or handler, element_id=task.element_id or "?", handler=handler,
            module=f"{package}.{handler}", job=job, reads=tuple(sorted(set(reads))),
            uses=tuple(sorted(set(uses))), writes=tuple(sorted(dict(writes).items())))
    return [tasks[job] for job in sorted(tasks)]


def _local_datatype(datatype: object) -> str:
    """``xsd:decimal`` -> ``"decimal"``, as the runtime's ``datatype_problem`` takes it; another
    IRI as written (the runtime checks no other datatype); "" for none."""
    if datatype is None:
        return ""
    text, xsd = str(datatype), str(V.XSD)
    if text == str(V.RDF.JSON):
        return "JSON"
    return text[len(xsd):] if text.startswith(xsd) else text


def literal(value: str) -> str:
    """A Python string literal of ``value`` (double quotes; anything unusual escaped)."""
    return json.dumps(value)


def task_table(name: str, task: WorkerTask) -> list[str]:
    """``NAME = {...}``: the dict the runtime takes (see seams.generators.worker_runtime)."""
    writes = ", ".join(f"{literal(n)}: {literal(d)}" for n, d in task.writes)
    return [
        f"{name} = {{",
        f"    \"where\": {literal(task.where)},",
        f"    \"module\": {literal(task.module)},",
        f"    \"reads\": {_tuple(task.reads)},",
        f"    \"uses\": {_tuple(task.uses)},",
        f"    \"writes\": {{{writes}}},",
        "}",
    ]


def _tuple(names: tuple[str, ...]) -> str:
    if not names:
        return "()"
    return "(" + ", ".join(literal(n) for n in names) + ("," if len(names) == 1 else "") + ")"


def task_doc(task: WorkerTask) -> str:
    """A job function's docstring: the task's label, subject and element, and its handler."""
    return docstring(f"{task.label} ({task.subject}, BPMN {task.element_id}): {task.module}.handle.", "    ")


def module_source(*, header: str, imports: list[str], constants: list[str], body: list[str]) -> str:
    """A whole workers module: the header docstring, imports (the runtime's standard-library ones
    and the engine's, as isort groups them), constants, the copied runtime, then ``body``."""
    stdlib = sorted({*worker_runtime.RUNTIME_IMPORTS, *(i for i in imports if not i.startswith("from pyzeebe")
                                                        and not i.startswith("from camunda"))},
                    key=_import_key)
    third = sorted((i for i in imports if i.startswith(("from pyzeebe", "from camunda"))), key=_import_key)
    runtime = runtime_sources()
    parts = [docstring(header), "", *stdlib, "", *third, "", *constants, "_BINDINGS: list[Any] = []"]
    for source in runtime:
        parts += ["", "", source]
    parts += ["", "", *body]
    return "\n".join(parts).rstrip("\n") + "\n"


@cache
def runtime_sources() -> list[str]:
    """The source of each :data:`worker_runtime.RUNTIME` definition, read from its module's file.

    Read with ``ast`` from the file rather than with ``inspect.getsource``,
    which looks a class up through ``sys.modules`` and fails once a caller
    has replaced that entry (a test that re-imports the project's modules).
    """
    return [_definition_source(obj.__module__, obj.__name__) for obj in worker_runtime.RUNTIME]


def _definition_source(module: str, name: str) -> str:
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise GeneratorError(f"the workers runtime: cannot find the source of {module}")
    text = Path(spec.origin).read_text(encoding="utf-8")
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and node.name == name:
            return str(ast.get_source_segment(text, node))
    raise GeneratorError(f"the workers runtime: {module} defines no {name}")


def _import_key(line: str) -> tuple[int, str]:
    """isort's order within a group: ``import x`` lines first, then ``from x import y``, by module."""
    words = line.split()
    return (0 if words[0] == "import" else 1, words[1])
