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
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from rdflib import URIRef

from seams import vocab as V
from seams.errors import GeneratorError
from seams.generators import worker_runtime
from seams.generators.hookspecs import hookimpl
from seams.generators.parts import assembled, json_part, read_json_part
from seams.generators.pysource import docstring, require_identifier
from seams.lang.field_values import DATATYPES
from seams.model.engine import EngineBinding, engine_binding
from seams.model.view import optional_input
from seams.project.config import MAX_JOBS, MAX_RETRIES, TENANT_ID, WorkersConfig, duration_ms

if TYPE_CHECKING:
    from seams.model.loading import Model


@dataclass(frozen=True)
class JobSettings:
    """How the engine hands a task's jobs to a worker and takes back a failure (docs/generators.md,
    "Job settings"): the task's own seam predicate, else ``[workers]`` of seams.toml, else these."""

    timeout_ms: int = 300_000  # seam:jobTimeout: Zeebe's job timeout, Camunda 7's lock duration
    max_jobs: int = 32  # seam:maxJobs: jobs of the task one worker process runs at once
    retries: int = 3  # seam:retries: attempts before an incident
    backoff_ms: int = 5_000  # seam:retryBackoff: wait before the second attempt, doubled after each
    backoff_max_ms: int = 300_000  # seam:retryBackoffMax: the cap of that wait
    tenants: tuple[str, ...] = ()  # seam:tenantId: the tenants whose jobs it takes (none: the default)


@dataclass(frozen=True)
class WorkerTask:
    """One service task as a worker runs it, in plain data."""

    subject: str  # prefixed name of the task
    label: str
    element_id: str
    handler: str
    module: str  # handlers.check_balance
    job: str  # the job type (Camunda 8) or topic (Camunda 7)
    reads: tuple[tuple[str, str], ...]  # (variable name, xsd local datatype), by name
    uses: tuple[str, ...]
    writes: tuple[tuple[str, str], ...]  # (output name, xsd local datatype), by name
    raises: tuple[str, ...] = ()  # seam:raises: the BPMN error codes thrown as BPMN errors
    optional: tuple[str, ...] = ()  # reads that may be unset (no form field requires them), by name
    settings: JobSettings = JobSettings()

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
        reads, optional = [], []
        for iri in task.reads:
            variable = view.variables.get(iri)
            if variable is None:
                raise GeneratorError(f"{subject} seam:reads: {model.qname(iri)} is not a seam:Variable")
            name = require_identifier(variable.name, subject=model.qname(iri), predicate="seam:name")
            reads.append((name, _local_datatype(variable.datatype)))
            if optional_input(view, iri):
                optional.append(name)
        uses = []
        for iri in task.uses:
            binding = view.bindings.get(iri)
            if binding is None:
                raise GeneratorError(f"{subject} seam:uses: {model.qname(iri)} is not a seam:Binding")
            uses.append(require_identifier(binding.name, subject=model.qname(iri), predicate="seam:name"))
        tasks[job] = WorkerTask(
            subject=subject, label=task.label or handler, element_id=task.element_id or "?", handler=handler,
            module=f"{package}.{handler}", job=job, reads=tuple(sorted(dict(reads).items())),
            uses=tuple(sorted(set(uses))), writes=tuple(sorted(dict(writes).items())), raises=task.raises,
            optional=tuple(sorted(set(optional))),
            settings=job_settings(model, task.iri, model.project.config.workers))
    return [tasks[job] for job in sorted(tasks)]


def job_settings(model: Model, iri: URIRef, defaults: WorkersConfig) -> JobSettings:
    """The task's job settings: each seam predicate it has, else the ``[workers]`` default, else
    the built-in one. A value the seam shapes refuse is refused here too, naming subject and predicate."""
    subject = model.qname(iri)
    graph = model.union
    base = JobSettings()

    def one(predicate):
        values = list(graph.objects(iri, predicate))
        if len(values) > 1:
            raise GeneratorError(f"{subject} {model.qname(predicate)}: more than one value")
        return values[0] if values else None

    def duration(predicate, default: int | None, builtin: int) -> int:
        value = one(predicate)
        if value is None:
            return default if default is not None else builtin
        ms = duration_ms(str(value))
        if ms is None:
            raise GeneratorError(f"{subject} {model.qname(predicate)}: {str(value)[:40]!r} is not a duration above "
                                 f"zero and at most a year in days, hours, minutes and seconds (like PT30S)")
        return ms

    def count(predicate, default: int | None, builtin: int, high: int) -> int:
        value = one(predicate)
        if value is None:
            return default if default is not None else builtin
        number = getattr(value, "value", None)
        if not isinstance(number, int) or isinstance(number, bool) or not 1 <= number <= high:
            raise GeneratorError(f"{subject} {model.qname(predicate)}: {str(value)[:40]!r} is not a whole number "
                                 f"from 1 to {high}")
        return number

    tenants = sorted(str(t) for t in graph.objects(iri, V.tenantId))
    for tenant in tenants:
        if not TENANT_ID.match(tenant):
            raise GeneratorError(f"{subject} seam:tenantId: {tenant[:40]!r} is not a tenant id "
                                 f"(1 to 128 letters, digits, _ . @ -)")
    backoff = duration(V.retryBackoff, defaults.retry_backoff_ms, base.backoff_ms)
    backoff_max = duration(V.retryBackoffMax, defaults.retry_backoff_max_ms, base.backoff_max_ms)
    if backoff_max < backoff:
        raise GeneratorError(f"{subject} seam:retryBackoffMax: the cap ({backoff_max} ms) is below the "
                             f"back-off itself ({backoff} ms)")
    return JobSettings(
        timeout_ms=duration(V.jobTimeout, defaults.job_timeout_ms, base.timeout_ms),
        max_jobs=count(V.maxJobs, defaults.max_jobs, base.max_jobs, MAX_JOBS),
        retries=count(V.retries, defaults.retries, base.retries, MAX_RETRIES),
        backoff_ms=backoff, backoff_max_ms=backoff_max,
        tenants=tuple(tenants) if tenants else (defaults.tenant_ids or ()))


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
    reads = ", ".join(f"{literal(n)}: {literal(d)}" for n, d in task.reads)
    writes = ", ".join(f"{literal(n)}: {literal(d)}" for n, d in task.writes)
    return [
        f"{name} = {{",
        f"    \"where\": {literal(task.where)},",
        f"    \"module\": {literal(task.module)},",
        "    # seam:reads -> datatype: the handler is given each as acceptance gives it (handler_values)",
        f"    \"reads\": {{{reads}}},",
        "    # reads a form field sets and none requires: left out of the inputs when unset (NotRequired)",
        f"    \"optional\": {_tuple(task.optional)},",
        f"    \"uses\": {_tuple(task.uses)},",
        f"    \"writes\": {{{writes}}},",
        "    # seam:raises: the BPMN error codes thrown as BPMN errors; another code fails the job",
        f"    \"raises\": {_tuple(task.raises)},",
        f"    \"timeout_ms\": {task.settings.timeout_ms},  # seam:jobTimeout, else [workers] job_timeout",
        f"    \"max_jobs\": {task.settings.max_jobs},  # seam:maxJobs, else [workers] max_jobs",
        f"    \"retries\": {task.settings.retries},  # seam:retries, else [workers] retries",
        f"    \"backoff_ms\": {task.settings.backoff_ms},  # seam:retryBackoff, else [workers] retry_backoff",
        f"    \"backoff_max_ms\": {task.settings.backoff_max_ms},  # seam:retryBackoffMax, else [workers] "
        "retry_backoff_max",
        f"    \"tenants\": {_tuple(task.settings.tenants)},  # seam:tenantId, else [workers] tenant_ids",
        "}",
    ]


def _tuple(names: tuple[str, ...]) -> str:
    if not names:
        return "()"
    return "(" + ", ".join(literal(n) for n in names) + ("," if len(names) == 1 else "") + ")"


def task_block(task: WorkerTask) -> str:
    """One task's table under a comment naming its label, subject, element and handler."""
    comment = f"# {task.label} ({task.subject}, BPMN {task.element_id}): {task.module}.handle"
    return "\n".join([comment.replace("\n", " "), *task_table(f"{task.handler.upper()}_TASK", task)])


def task_entry(task: WorkerTask) -> str:
    """The task's line in ``TASKS``: its job type or topic -> its table."""
    return f"    {literal(task.job)}: {task.handler.upper()}_TASK,"


def tasks_body(blocks: list[str], entries: list[str]) -> list[str]:
    """The end of a workers module: each task's :func:`task_block`, ``TASKS`` (job type or topic
    -> table, :func:`task_entry`) and the ``main()`` guard; both lists in the tasks' order."""
    body: list[str] = []
    for block in blocks:
        body += [block, "", ""]
    return [*body, "TASKS = {", *entries, "}", "", "", "if __name__ == \"__main__\":", "    main()"]


JOB_KEY = "job:"
"""The part of one task (its table and ``TASKS`` entry) is keyed by this and its job name, so the
tables sort by job name as the whole-model run sorts them, and a job name two components both use
is a key clash (the whole-model run refuses it)."""
TABLE_KEY = "table:"
"""Each task also claims its table's name (``<HANDLER>_TASK``) with an empty part keyed by this and
the name: two handlers that differ only in case would name one table, which the whole-model run
refuses, so across components they are a key clash too."""


def worker_frame(model: Model, module_file: str) -> dict[str, str]:
    """The project's facts a workers module's header names: the TriG file, the handlers package
    and the module's own dotted path (``module_file`` under the generated directory)."""
    rel = model.project.relative(model.project.generated_dir)
    return {"trig": model.project.relative(model.trig_path), "handlers": model.project.handlers_dir.name,
            "module": ".".join([*rel.split("/"), module_file.removesuffix(".py")])}


def worker_parts(tasks: list[WorkerTask], frame: Mapping[str, str]) -> dict[str, bytes]:
    """The parts of a workers module: per task its block and entry with the module's ``frame``
    (the project's facts its header names, the same in every part), and the claim of its table name."""
    parts: dict[str, bytes] = {}
    for task in tasks:
        parts[f"{JOB_KEY}{task.job}"] = json_part({"frame": dict(frame), "block": task_block(task),
                                                   "entry": task_entry(task)})
        parts[f"{TABLE_KEY}{task.handler.upper()}_TASK"] = b""
    return parts


def read_worker_parts(generator: str, path: str, parts: Mapping[str, bytes]) -> tuple[dict[str, str], list[str]]:
    """The frame and the body of a workers module from its parts (:func:`worker_parts`, of one model
    or merged), the tasks in job-name order; a GeneratorError for parts it did not write, for
    frames that differ, and for no task at all (the generator writes no module then)."""
    frames, blocks, entries = [], [], []
    for key in sorted(parts):
        if key.startswith(TABLE_KEY):
            continue
        if not key.startswith(JOB_KEY):
            raise GeneratorError(f"{generator}: {path} part {key!r} is no task's part")
        part = read_json_part(generator, path, key, parts[key], {"frame": dict, "block": str, "entry": str})
        frames.append(part["frame"])
        blocks.append(part["block"])
        entries.append(part["entry"])
    if not frames:
        raise GeneratorError(f"{generator}: {path} has no task's part")
    if any(frame != frames[0] for frame in frames[1:]):
        raise GeneratorError(f"{generator}: {path} parts come from different projects (their frames differ)")
    return {str(k): str(v) for k, v in frames[0].items()}, tasks_body(blocks, entries)


class WorkersGenerator:
    """The plugin of a worker generator (``zeebe``, ``camunda7``): a subclass names its module
    file, reads a task's job name from its engine binding and writes the module around the
    tasks. Composable: one part per task (:func:`worker_parts`), the module assembled from them."""

    name = ""  # the generator's name, in a problem with its parts
    module_file = ""  # the module it writes, under the generated directory
    job_what = ""  # what a job name is called in a message: "job type", "topic"

    def job_of(self, binding: EngineBinding) -> str | None:
        """The task's job name from the BPMN (None: the handler name)."""
        raise NotImplementedError

    def source(self, frame: Mapping[str, str], body: list[str]) -> str:
        """The module around ``body`` (:func:`tasks_body`), its header from ``frame`` (:func:`worker_frame`)."""
        raise NotImplementedError

    @hookimpl
    def seams_generate(self, model: Model) -> dict[str, bytes]:
        return assembled(self.seams_generate_parts(model), self.seams_assemble)

    @hookimpl
    def seams_generate_parts(self, model: Model) -> dict[str, dict[str, bytes]]:
        tasks = worker_tasks(model, self.job_of, self.job_what)
        return {self.module_file: worker_parts(tasks, worker_frame(model, self.module_file))} if tasks else {}

    @hookimpl
    def seams_assemble(self, path: str, parts: Mapping[str, bytes]) -> bytes:
        frame, body = read_worker_parts(self.name, path, parts)
        return self.source(frame, body).encode("utf-8")


def module_source(*, header: str, imports: list[str], constants: list[str], engine_runtime: str,
                  engine_names: tuple[str, ...], body: list[str]) -> str:
    """A whole workers module: the header docstring, imports (the runtime's standard-library ones
    and the engine's, as isort groups them), constants, the copied shared runtime, the copied
    definitions ``engine_names`` of the module ``engine_runtime``, then ``body``."""
    def third_party(line: str) -> bool:
        return line.split()[1].split(".")[0] in ("grpc", "pyzeebe")

    stdlib = sorted({*worker_runtime.RUNTIME_IMPORTS, *(i for i in imports if not third_party(i))}, key=_import_key)
    third = sorted((i for i in imports if third_party(i)), key=_import_key)
    parts = [docstring(header), "", *stdlib, ""]
    if third:
        parts += [*third, ""]
    parts += [*constants, "_BINDINGS: list[Any] = []", "_BINDINGS_LOCK = threading.Lock()"]
    for source in [*runtime_sources(), *(_definition_source(engine_runtime, name) for name in engine_names)]:
        parts += ["", "", source]
    parts += ["", "", *body]
    return "\n".join(parts).rstrip("\n") + "\n"


SHARED_CONSTANTS = (
    f"BINDINGS_MODULE = {literal('workers_bindings')}",
    "# the one datatype table (its \"python\" column): the type a handler is given for each datatype",
    "\n".join(["DATATYPES = {", *(f"    {literal(name)}: {{\"python\": {literal(row['python'])}}},"
                                 for name, row in DATATYPES.items()), "}"]),
    f"LOG = logging.getLogger({literal('seams.workers')})  # every job, logged (docs/generators.md)",
    "ANSWER_ATTEMPTS = 4  # an answer the engine could not take is sent again, this many times in all",
    "CALL_TIMEOUT_S = 30.0  # seconds an engine call may take, beyond the long poll",
)
"""The constants every workers module defines for the copied runtime."""


@cache
def runtime_sources() -> list[str]:
    """The source of each :data:`worker_runtime.RUNTIME` definition, read from its module's file.

    Read with ``ast`` from the file rather than with ``inspect.getsource``,
    which looks a class up through ``sys.modules`` and fails once a caller
    has replaced that entry (a test that re-imports the project's modules).
    """
    return [_definition_source(obj.__module__, obj.__name__) for obj in worker_runtime.RUNTIME]


@cache
def _definition_source(module: str, name: str) -> str:
    """The source of ``name`` in ``module``, read from the file without importing the module (the
    engine runtimes import libraries only the generated modules' users install)."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise GeneratorError(f"the workers runtime: cannot find the source of {module}")
    text = Path(spec.origin).read_text(encoding="utf-8")
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.name == name:
            return str(ast.get_source_segment(text, node))
    raise GeneratorError(f"the workers runtime: {module} defines no {name}")


def _import_key(line: str) -> tuple[int, str]:
    """isort's order within a group: ``import x`` lines first, then ``from x import y``, by module."""
    words = line.split()
    return (0 if words[0] == "import" else 1, words[1])
