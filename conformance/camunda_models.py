"""Measure how many executable processes of public Camunda example repositories seams runs unchanged.

Usage: ``python conformance/camunda_models.py [--lines] [--json FILE] [--timeout S] PATH [PATH ...]``
where each PATH is a local checkout of a public Camunda 7/8 example
repository (camunda-bpm-examples, camunda-bpm-platform's ``examples/invoice``,
camunda-8-examples, the tutorial repositories). Nothing is downloaded and
nothing of those repositories is kept: every project is made in a temporary
folder and removed. Not part of the test suite; ``tests/fixtures/camunda_mini``
keeps the runner itself tested. docs/scenarios.md ("Measured on public
Camunda examples") has the command and the last figures.

For every BPMN file with a ``bpmn:process`` marked ``isExecutable="true"``
the runner gathers what the file needs from the same repository: the BPMN
files of the processes its call activities name (``calledElement``, also
their callees), the DMN files of the decisions its business-rule tasks name,
the Camunda Forms (``.form``) its tasks link by id and the embedded HTML
forms its ``formKey``s name by path. It imports them with the real CLI,
``seams init --from ... DIR``, and runs each executable process of the file
with ``seams run PROCESS --answers FILE`` (no terminal, no handlers written):
the answers give every form field of every user task a value its form
accepts. Beyond the forms, the runner gives what a Camunda test of the
process gives (:class:`RunData`): the start event's example data, and, when
a run stops for it, a start variable nothing in the process sets, a
multi-instance collection, or the message or timer the instance waits for
(``seams run --given``/``--events``), then runs again. Each process gets one
outcome from the last run's exit code and its first stderr line
(:func:`classify`); the table counts them per repository.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import asdict, dataclass, field, replace
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

from lxml import etree

from seams import vocab
from seams.forms import form_fields, form_problems
from seams.model.loading import load_model
from seams.project.layout import load_project

BPMN_NS = "http://www.omg.org/spec/BPMN/20100524/MODEL"
DMN_NAMESPACES = ("https://www.omg.org/spec/DMN/20191111/MODEL/", "http://www.omg.org/spec/DMN/20180521/MODEL/",
                  "http://www.omg.org/spec/DMN/20151101/dmn.xsd", "https://www.omg.org/spec/DMN/20230324/MODEL/",
                  "https://www.omg.org/spec/DMN/20240513/MODEL/")
CAMUNDA_NS = "http://camunda.org/schema/1.0/bpmn"
ZEEBE_NS = "http://camunda.org/schema/zeebe/1.0"
BPMN_SUFFIXES = (".bpmn", ".bpmn20.xml", ".bpmn2")
SKIPPED_DIRS = {".git", "node_modules", "target", "build", "dist", ".idea", ".venv"}
MAX_FILE_BYTES = 20 * 1024 * 1024
DEFAULT_TIMEOUT = 120.0

ENDED = "ran to an end event"
MISSING_HANDLER = "stopped: missing handler"
NO_ANSWERS = "stopped: user task without answers"
RUNS = (ENDED, MISSING_HANDLER, NO_ANSWERS)
"""The outcomes that count as "starts and runs until a user task without answers, a
missing handler, or an end event"."""

_REFUSED = re.compile(r"does not run (?:an? )?([A-Za-z][A-Za-z0-9_]*)")
_SPIFF = re.compile(r":\s*([A-Za-z0-9_.-]+): SpiffWorkflow cannot run it: (.*)$")
_ELEMENT = re.compile(r"seams run: \S+\.(?:bpmn|bpmn2|xml): ([a-z][A-Za-z]+) \S+")


@dataclass(frozen=True)
class ProcessOutcome:
    repository: str
    file: str  # relative to the repository
    process: str  # the BPMN id
    imported: bool
    started: bool
    outcome: str
    detail: str = ""  # the first stderr line (or why the import failed)
    traceback: bool = False  # seams printed a traceback: a bug, reported apart
    given: str = ""  # the start variables and events the runner gave beyond the forms' answers (JSON)

    @property
    def runs(self) -> bool:
        return self.outcome in RUNS


@dataclass
class _Bpmn:
    path: Path
    executable: list[str] = field(default_factory=list)
    processes: list[str] = field(default_factory=list)
    called: set[str] = field(default_factory=set)
    decisions: set[str] = field(default_factory=set)
    forms: set[str] = field(default_factory=set)
    html: set[str] = field(default_factory=set)


@dataclass
class _Repository:
    name: str
    root: Path
    bpmn: list[_Bpmn]
    decisions: dict[str, Path]  # decision id -> DMN file (the first by path)
    forms: dict[str, Path]  # Camunda Forms id -> .form file
    html: list[Path]


# ------------------------------------------------------------------ reading a checkout


def _parse(path: Path) -> Any:
    """The XML tree of ``path``, or None: no DTDs, no entities, nothing fetched, size capped."""
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    if b"<!DOCTYPE" in data[:4096]:
        return None
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)
    try:
        return etree.fromstring(data, parser)
    except etree.XMLSyntaxError:
        return None


def _files(root: Path) -> list[Path]:
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED_DIRS and not d.startswith("."))
        out += [Path(dirpath, name) for name in sorted(filenames)]
    return sorted(out, key=lambda p: p.relative_to(root).as_posix())


def _read_bpmn(path: Path, tree: Any) -> _Bpmn:
    found = _Bpmn(path)
    for process in tree.iter(f"{{{BPMN_NS}}}process"):
        pid = process.get("id")
        if not pid:
            continue
        found.processes.append(pid)
        if process.get("isExecutable") == "true":
            found.executable.append(pid)
    for node in tree.iter(f"{{{BPMN_NS}}}callActivity"):
        if node.get("calledElement"):
            found.called.add(node.get("calledElement"))
        for called in node.iter(f"{{{ZEEBE_NS}}}calledElement"):
            if called.get("processId"):
                found.called.add(called.get("processId"))
    for node in tree.iter():
        if not isinstance(node.tag, str):
            continue
        for attribute in (f"{{{CAMUNDA_NS}}}decisionRef",):
            if node.get(attribute):
                found.decisions.add(node.get(attribute))
        if node.tag == f"{{{ZEEBE_NS}}}calledDecision" and node.get("decisionId"):
            found.decisions.add(node.get("decisionId"))
        if node.get(f"{{{CAMUNDA_NS}}}formRef"):
            found.forms.add(node.get(f"{{{CAMUNDA_NS}}}formRef"))
        if node.tag == f"{{{ZEEBE_NS}}}formDefinition" and node.get("formId"):
            found.forms.add(node.get("formId"))
        key = node.get(f"{{{CAMUNDA_NS}}}formKey") or ""
        for prefix in ("embedded:app:", "embedded:deployment:", "app:", "deployment:"):
            if key.startswith(prefix) and key.endswith(".html"):
                found.html.add(key[len(prefix):].lstrip("/"))
                break
    found.called = {c for c in found.called if not c.startswith(("=", "$", "#"))}
    found.decisions = {d for d in found.decisions if not d.startswith(("=", "$", "#"))}
    return found


def read_repository(root: Path, name: str | None = None) -> _Repository:
    """Every BPMN, DMN, Camunda Forms and HTML form file of a checkout, in path order."""
    bpmn: list[_Bpmn] = []
    decisions: dict[str, Path] = {}
    forms: dict[str, Path] = {}
    html: list[Path] = []
    for path in _files(root):
        lower = path.name.lower()
        if lower.endswith(BPMN_SUFFIXES):
            tree = _parse(path)
            if tree is not None and tree.tag == f"{{{BPMN_NS}}}definitions":
                bpmn.append(_read_bpmn(path, tree))
        elif lower.endswith(".dmn") or lower.endswith(".dmn11.xml"):
            tree = _parse(path)
            if tree is not None:
                for namespace in DMN_NAMESPACES:
                    for decision in tree.iter(f"{{{namespace}}}decision"):
                        decisions.setdefault(decision.get("id") or "", path)
        elif lower.endswith(".form"):
            try:
                document = json.loads(path.read_text(encoding="utf-8")) if path.stat().st_size < MAX_FILE_BYTES else {}
            except (OSError, ValueError, UnicodeDecodeError):
                document = {}
            if isinstance(document, dict) and isinstance(document.get("id"), str):
                forms.setdefault(document["id"], path)
        elif lower.endswith(".html"):
            html.append(path)
    return _Repository(name or root.resolve().name, root, bpmn, decisions, forms, html)


def dependencies(repo: _Repository, main: _Bpmn) -> tuple[list[Path], list[Path]]:
    """What ``main`` needs from its repository, in order: ``(files, html_forms)``.

    The files are the BPMN files defining the processes its call activities
    name (and theirs, transitively; only a file with an executable process, as
    only those are deployed, and imported), the DMN files of the decisions and the
    Camunda Forms every one of them names; the HTML forms are the files whose
    path ends with a ``formKey``'s path. A file whose name another already has
    is left out (``seams init`` refuses two ``--from`` files of one name)."""
    by_process: dict[str, _Bpmn] = {}
    for each in repo.bpmn:
        for pid in each.processes:
            by_process.setdefault(pid, each)
    group, queue = [main], [main]
    while queue:
        current = queue.pop(0)
        for called in sorted(current.called):
            callee = by_process.get(called)
            if callee is not None and callee.executable and callee not in group:
                group.append(callee)
                queue.append(callee)
    files = [each.path for each in group]
    for each in group:
        files += [repo.decisions[d] for d in sorted(each.decisions) if d in repo.decisions]
        files += [repo.forms[f] for f in sorted(each.forms) if f in repo.forms]
    html = []
    for each in group:
        for key in sorted(each.html):
            found = [p for p in repo.html if p.as_posix().endswith("/" + key)]
            # the form of the BPMN's own module: the one sharing the longest folder path with it
            html += sorted(found, key=lambda p: (-_shared(p, each.path), p.as_posix()))[:1]
    kept, names = [], set()
    for path in files + html:
        if path.name not in names:
            names.add(path.name)
            kept.append(path)
    return [p for p in kept if p not in html], [p for p in kept if p in html]


def _shared(a: Path, b: Path) -> int:
    """How many leading folders two paths share."""
    count = 0
    for x, y in zip(a.parent.parts, b.parent.parts):
        if x != y:
            break
        count += 1
    return count


# ------------------------------------------------------------------ running seams


def _seams(args: list[str], cwd: Path, timeout: float) -> tuple[int | None, str, str]:
    """``seams ARGS`` as a subprocess of this interpreter: ``(exit code or None on timeout, out, err)``.
    Its own process group, ended whole on a timeout; stdin is empty (no terminal)."""
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    process = subprocess.Popen([sys.executable, "-m", "seams_cli", *args], cwd=cwd, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                               start_new_session=True)
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        return None, out, err
    return process.returncode, out, err


def _first_line(text: str) -> str:
    """The first message of ``text``: its first line, with the lines after it joined on while they do
    not start a new ``seams`` message (a BPMN name may hold a line break)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return ""
    message = [lines[0]]
    for line in lines[1:]:
        if line.startswith(("seams", "Traceback", "warning", "note:")):
            break
        message.append(line)
    return " ".join(message)


def _traceback_line(err: str) -> str | None:
    """The exception line of a traceback in ``err`` (its last non-indented line), or None."""
    if "Traceback (most recent call last)" not in err:
        return None
    lines = [line for line in err.splitlines() if line.strip() and not line.startswith((" ", "\t"))]
    return lines[-1] if lines else "Traceback"


def refused_kind(line: str) -> str | None:
    """The element kind a refusal line names, or None when ``line`` is no refusal.

    ``leave.bpmn: boundaryEvent Timer_1: the embedded engine does not run a boundaryEvent (...)``
    gives ``boundaryEvent``; ``... does not run a timerEventDefinition (only plain start and end
    events)`` gives ``timerEventDefinition``; ``... does not run multiInstanceLoopCharacteristics``
    gives that; ``x.bpmn: Task_1: SpiffWorkflow cannot run it: <why>`` gives
    ``SpiffWorkflow: <why>``."""
    match = _REFUSED.search(line)
    if match:
        return match.group(1)
    match = _SPIFF.search(line)
    if match:
        return "SpiffWorkflow: " + " ".join(re.sub(r"<[^<>]*>", "", match.group(2)).split()).rstrip(". ")[:80]
    if "refuse" in line and "engine" in line:
        element = _ELEMENT.search(line)
        return element.group(1) if element else "element"
    return None


def classify(code: int | None, out: str, err: str) -> tuple[str, str, bool]:
    """``(outcome, detail, traceback)`` of one ``seams run`` from its exit code and output."""
    if code is None:
        return "error: timed out", "", False
    crash = _traceback_line(err)
    if crash is not None:
        return f"error: {crash}", crash, True
    line = re.sub(r" at 0x[0-9a-fA-F]+", "", _first_line(err))  # object addresses change run to run
    if code == 0:
        return ENDED, "", False
    kind = refused_kind(line)
    if kind is not None:
        return f"refused: {kind}", line, False
    element = _ELEMENT.match(line)
    if code == 1 and element and not _ran(out):
        # a refusal seams cut at a line break in the element's name: the element's kind is all it says
        return f"refused: {element.group(1)}", line, False
    lower = line.lower()
    if ("handler module" in lower and "not found" in lower) or "no seam:handler" in lower:
        return MISSING_HANDLER, line, False
    if "needs its form filled" in lower or "before field" in lower:
        return NO_ANSWERS, line, False
    if code == 1 and line.startswith("seams run: stopped at"):
        return "stopped: " + _stop_kind(line), line, False
    return f"error: {_short(line)}", line, False


def _ran(out: str) -> bool:
    """Whether the engine ran an element: ``seams run`` prints one line per element, the first
    ``startEvent <id>`` (docs/cli.md)."""
    return any(line.startswith("startEvent ") for line in out.splitlines())


def _stop_kind(line: str) -> str:
    """A short name for why a run stopped at an element (the stop lines seams_runtime.engine gives)."""
    lower = line.lower()
    for words, kind in ((("no condition of its outgoing flows",), "no condition held"),
                        (("the data submitted is",), "form data refused"),
                        (("decision", "business-rule task"), "decision"),
                        (("stopped before an end event",), "waiting before an end event"),
                        (("elements run",), "element limit"),
                        (("spiffworkflow stopped",), "SpiffWorkflow stopped"),
                        (("handle raised", "handle returned", "read input", "used binding", "seam:handler"),
                         "handler"),
                        (("is not set",), "condition on an unset variable"),
                        (("condition", "expression", "feel", "juel"), "condition error")):
        if any(word in lower for word in words):
            return kind
    return "other"


def _short(line: str) -> str:
    """A refusal or error line without its file and element, so equal causes count together."""
    text = re.sub(r"^seams(?: \w+)?: ", "", line)
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "…", text)
    return text[:90]


# ------------------------------------------------------------------ answers


def answers_for(project: Path, process_id: str) -> dict[str, dict[str, Any]]:
    """Every user task of the process with a form: a value for each field its form accepts.

    Read with seams' own model (seams.forms), so what is answered is what ``seams run``
    judges. A model that does not load gives no answers (the run will say why)."""
    try:
        loaded = load_project(str(project))
        model = load_model(loaded)
    except Exception:  # noqa: BLE001 - the run reports the model's problem itself
        return {}
    view = model.view
    process = next((p for p in view.processes.values() if p.element_id == process_id), None)
    if process is None:
        return {}
    out: dict[str, dict[str, Any]] = {}
    for task in sorted(view.tasks.values(), key=lambda t: t.element_id or ""):
        if task.process != process.iri or task.kind != vocab.UserTask or task.element_id not in process.nodes:
            continue
        form = view.forms.get(task.form) if task.form is not None else None
        values: dict[str, Any] = {}
        for each in form_fields(model, task):
            constraints = next((f for f in form.fields if f.path is not None
                                and view.variables.get(f.path) is not None
                                and view.variables[f.path].name == each.variable), None) if form else None
            candidates = _candidates(each, constraints)
            chosen = next((c for c in candidates
                           if not [p for p in form_problems(model, task, {each.variable: c})
                                   if p.startswith(f"{each.variable!r}: ")]), None)
            if chosen is not None:
                values[each.variable] = chosen
        if values:
            out[task.element_id] = values
    return out


def _json_value(value: Any) -> Any:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, date):
        return value.isoformat()
    return value if isinstance(value, (str, int, float, bool)) else str(value)


def _candidates(each: Any, constraints: Any) -> list[Any]:
    """Values to try for a form field, most plausible first (the form judges which fit)."""
    if each.choices:
        return [_json_value(c) for c in each.choices]
    if each.datatype in ("integer", "decimal"):
        numbers = []
        for bound, step in ((getattr(constraints, "min_inclusive", None), 0),
                            (getattr(constraints, "min_exclusive", None), 1),
                            (getattr(constraints, "max_inclusive", None), 0),
                            (getattr(constraints, "max_exclusive", None), -1)):
            if bound is not None:
                try:
                    numbers.append(Decimal(str(bound)) + step)
                except ArithmeticError:
                    pass
        numbers += [Decimal(1), Decimal(0), Decimal(100)]
        return [int(n) if each.datatype == "integer" else _json_value(n) for n in numbers]
    if each.datatype == "boolean":
        return [True, False]
    if each.datatype == "date":
        return ["2024-05-02"]
    minimum = getattr(constraints, "min_length", None) or 1
    maximum = getattr(constraints, "max_length", None)
    texts = ["example", "a" * minimum, "A1", "1", "a@example.org"]
    pattern = getattr(constraints, "pattern", None)
    if pattern:
        texts = _matching(pattern, minimum, maximum) + texts
    return [t for t in texts if maximum is None or len(t) <= maximum]


def _matching(pattern: str, minimum: int, maximum: int | None) -> list[str]:
    """The simplest text matching ``pattern`` within the lengths (hypothesis, derandomized), or none."""
    try:
        from hypothesis import HealthCheck, find, settings
        from hypothesis import strategies as st

        strategy = st.from_regex(pattern, fullmatch=True)
        found = find(strategy, lambda s: len(s) >= minimum and (maximum is None or len(s) <= maximum),
                     settings=settings(derandomize=True, database=None, max_examples=200,
                                       suppress_health_check=list(HealthCheck)))
        return [found]
    except Exception:  # noqa: BLE001 - a pattern Python's re does not read, or none found
        return []


# ------------------------------------------------------------------ one repository


def measure(repo: _Repository, timeout: float, work: Path) -> list[ProcessOutcome]:
    """The outcome of every executable process of ``repo``, in file and process order."""
    outcomes = []
    for number, main in enumerate(b for b in repo.bpmn if b.executable):
        relpath = main.path.relative_to(repo.root).as_posix()
        files, html = dependencies(repo, main)
        place = work / f"{number:04d}"
        place.mkdir()
        code, failure = _import(place, files, html, timeout)
        for pid in main.executable:
            if code != 0:
                outcomes.append(ProcessOutcome(repo.name, relpath, pid, False, False,
                                               f"import failed: {_short(failure)}", failure))
                continue
            outcomes.append(_run(repo.name, relpath, pid, place / "project", timeout))
    scratch = str(work.resolve())
    return [replace(o, detail=o.detail.replace(scratch, "…")) for o in outcomes]


def _import(place: Path, files: list[Path], html: list[Path], timeout: float) -> tuple[int | None, str]:
    """``seams init --from ... project`` in ``place``; embedded HTML forms are offered too, and
    left out when the import refuses them (the import then reads what it can)."""
    for offered in ([*files, *html], files) if html else (files,):
        args = ["init"]
        for path in offered:
            args += ["--from", str(path.resolve())]
        code, _, err = _seams([*args, "project"], place, timeout)
        crash = _traceback_line(err)
        line = crash or _first_line(err) or ("timed out" if code is None else f"exit {code}")
        if code == 0:
            return 0, ""
        if not (offered is not files and any(p.name in line for p in html)):
            return code, line
    return code, line


def _run(repository: str, relpath: str, pid: str, project: Path, timeout: float) -> ProcessOutcome:
    """``seams run`` with the forms' answers; when the run stops for data a Camunda test would
    give (a start variable nothing in the process sets, a multi-instance collection, a message or
    timer it waits for), run again with it (:class:`RunData`), at most ``MAX_RERUNS`` times."""
    answers = answers_for(project, pid)
    answers_file = project.parent / f"answers-{len(list(project.parent.glob('answers-*')))}.json"
    answers_file.write_text(json.dumps(answers, sort_keys=True, indent=1), encoding="utf-8")
    data = RunData(project, pid)
    for _ in range(MAX_RERUNS + 1):
        args = ["run", pid, "--answers", str(answers_file), "--project", str(project)]
        if data.given:
            args += ["--given", json.dumps(data.given, sort_keys=True)]
        if data.events:
            args += ["--events", json.dumps(data.events)]
        code, out, err = _seams(args, project, timeout)
        outcome, detail, crash = classify(code, out, err)
        if outcome in RUNS or crash or not data.more(detail):
            break
    started = _ran(out) or outcome in RUNS
    return ProcessOutcome(repository, relpath, pid, True, started, outcome, detail, crash, data.shown())


MAX_RERUNS = 6
_UNSET = re.compile(r"variable '([A-Za-z_][A-Za-z0-9_]*)' is not set")
_NULLS = re.compile(r"not set, so null: ((?:'[A-Za-z_][A-Za-z0-9_]*'(?:, )?)+)")
_COLLECTION = re.compile(r"the multi-instance collection '([A-Za-z_][A-Za-z0-9_]*)' is not a list")
_WAITING = re.compile(r"\(waiting at ([^)]*)\)")
EXAMPLE_START = "camundaModeler:exampleOutputJson"


class RunData:
    """What the runner gives a run beyond the forms' answers, as a Camunda test gives it.

    * Start variables the model shows: a start event's example data (the Camunda Modeler's
      ``camundaModeler:exampleOutputJson`` property), each a variable of the model with a value
      of its type.
    * After a run stopped at a variable nothing set (``variable 'x' is not set``; Camunda 8:
      ``not set, so null: 'x'``): ``x`` as a start variable, the first literal a condition of
      the model compares it with (``true`` where a condition is the variable alone), else a value
      of its datatype.
    * After a run stopped at a multi-instance collection that is not a list: a one-element list.
    * After a run stopped waiting (``waiting at A, B``): the first of those elements that is no
      boundary event fires (a message arrives, a timer fires), else the first.
    Nothing is tried twice, so the reruns end."""

    def __init__(self, project: Path, process_id: str):
        self.given: dict[str, Any] = {}
        self.events: list[str] = []
        self.model: Any = None
        try:
            self.model = load_model(load_project(str(project)))
        except Exception:  # noqa: BLE001 - the run reports the model's problem itself
            return
        from seams.checks.types import variable_types

        self.types = {t.name: t for t in variable_types(self.model).values() if t.name}
        self.kinds = {n.id: n.kind for p in self.model.view.processes.values() for n in p.nodes.values()}
        for name, value in sorted(self._example_start(process_id).items()):
            if name in self.types and not self.types[name].problems(value):
                self.given[name] = value

    def _example_start(self, process_id: str) -> dict[str, Any]:
        process = next((p for p in self.model.view.processes.values() if p.element_id == process_id), None)
        payload = self.model.payloads.get(process.payload) if process is not None and process.payload else None
        if payload is None or payload.format != "bpmn":
            return {}
        for element in payload.tree.getroot().iter(f"{{{BPMN_NS}}}process"):
            if element.get("id") != process_id:
                continue
            for start in element.findall(f"{{{BPMN_NS}}}startEvent"):
                for prop in start.iter(f"{{{ZEEBE_NS}}}property"):
                    if prop.get("name") == EXAMPLE_START:
                        try:
                            value = json.loads(prop.get("value") or "")
                        except ValueError:
                            continue
                        if isinstance(value, dict):
                            return value
        return {}

    def more(self, line: str) -> bool:
        """Add what ``line`` (the stop line of the last run) says is missing; False when nothing new."""
        if self.model is None:
            return False
        names = _UNSET.findall(line)
        nulls = _NULLS.search(line)
        if nulls:
            names += re.findall(r"'([^']+)'", nulls.group(1))
        collection = _COLLECTION.search(line)
        added = False
        if collection and collection.group(1) not in self.given:
            item = self.types[collection.group(1)].item_type() if collection.group(1) in self.types else None
            added = self._give(collection.group(1), [self._sample(item) if item and item.datatype else {}])
        for name in names:
            if name not in self.given:
                added = self._give(name, self._value(name)) or added
        waiting = _WAITING.search(line)
        if waiting and not added:
            elements = [e.strip() for e in waiting.group(1).split(",") if e.strip()]
            chosen = [e for e in elements if self.kinds.get(e) != "boundaryEvent"] or elements
            if chosen and self.events.count(chosen[0]) < 3:
                self.events.append(chosen[0])
                added = True
        return added

    def _give(self, name: str, value: Any) -> bool:
        vtype = self.types.get(name)
        if vtype is None or vtype.problems(value):
            return False
        self.given[name] = value
        return True

    def _value(self, name: str) -> Any:
        from seams.errors import ExpressionError
        from seams.lang.condition import parse_condition

        for process in sorted(self.model.view.processes.values(), key=lambda p: str(p.iri)):
            for flow in sorted(process.flows.values(), key=lambda f: f.id):
                if not flow.condition:
                    continue
                try:
                    condition = parse_condition(flow.condition, where=flow.id, language=flow.language)
                except ExpressionError:
                    continue
                if name in condition.truth_names():
                    return True
                literals = [v for v in condition.boundaries().get(name, []) if v is not None]
                if literals:
                    return _json_value(literals[0])
        return self._sample(self.types.get(name))

    def _sample(self, vtype: Any) -> Any:
        datatype = (vtype.datatype if vtype is not None else None) or ""
        if datatype.startswith("list:"):
            return [self._sample(vtype.item_type())]
        return {"boolean": True, "integer": 1, "decimal": 1, "date": "2024-05-02", "JSON": {}}.get(datatype, "example")

    def shown(self) -> str:
        """What was given, as one JSON text (empty when nothing was)."""
        data = {k: v for k, v in (("given", self.given), ("events", self.events)) if v}
        return json.dumps(data, sort_keys=True) if data else ""


# ------------------------------------------------------------------ the table


def summary(outcomes: list[ProcessOutcome], repositories: list[str]) -> list[dict[str, Any]]:
    """One row per repository (in the order given), then the total."""
    rows = []
    for name in [*repositories, "total"]:
        mine = [o for o in outcomes if name == "total" or o.repository == name]
        counts = Counter(o.outcome for o in mine)
        runs = sum(o.runs for o in mine)
        rows.append({"repository": name, "found": len(mine), "imported": sum(o.imported for o in mine),
                     "started": sum(o.started for o in mine), "runs": runs,
                     "share": f"{runs / len(mine):.0%}" if mine else "-",
                     "outcomes": dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))})
    return rows


def refusals(outcomes: list[ProcessOutcome]) -> dict[str, int]:
    """Refusals by element kind, most first."""
    counts = Counter(o.outcome.removeprefix("refused: ") for o in outcomes if o.outcome.startswith("refused: "))
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def table(outcomes: list[ProcessOutcome], repositories: list[str]) -> str:
    """The Markdown tables docs/scenarios.md shows: per repository, outcomes, refusals by kind."""
    rows = summary(outcomes, repositories)
    lines = ["| repository | executable processes | imported | started | run until an end event, a missing "
             "handler or a user task without answers |",
             "| --- | ---: | ---: | ---: | ---: |"]
    for row in rows:
        name = f"**{row['repository']}**" if row["repository"] == "total" else row["repository"]
        lines.append(f"| {name} | {row['found']} | {row['imported']} | {row['started']} | "
                     f"{row['runs']} ({row['share']}) |")
    lines += ["", "| outcome | " + " | ".join(r["repository"] for r in rows) + " |",
              "| --- |" + " ---: |" * len(rows)]
    every = sorted({k for r in rows for k in r["outcomes"]},
                   key=lambda k: (k not in RUNS, RUNS.index(k) if k in RUNS else 0, -rows[-1]["outcomes"].get(k, 0), k))
    for kind in every:
        lines.append(f"| {kind} | " + " | ".join(str(r["outcomes"].get(kind, 0)) for r in rows) + " |")
    kinds = refusals(outcomes)
    if kinds:
        lines += ["", "| refused element kind | processes |", "| --- | ---: |"]
        lines += [f"| {kind} | {count} |" for kind, count in kinds.items()]
    crashes = [o for o in outcomes if o.traceback]
    if crashes:
        lines += ["", "Tracebacks (bugs):", ""]
        lines += [f"* {o.repository}/{o.file} {o.process}: {o.detail}" for o in crashes]
    return "\n".join(lines)


def report(outcomes: list[ProcessOutcome], repositories: list[str]) -> dict[str, Any]:
    """The ``--json`` document: every process's outcome, the rows and the refusals by kind."""
    return {"processes": [{**asdict(o), "runs": o.runs} for o in outcomes],
            "summary": summary(outcomes, repositories), "refusals": refusals(outcomes)}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="camunda_models.py", description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", metavar="PATH", help="a local checkout of a Camunda example repository")
    parser.add_argument("--json", metavar="FILE", default=None,
                        help="also write every outcome, the rows and the refusals as one JSON document "
                             "to FILE (- for stdout, instead of the table)")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds per import and per run")
    parser.add_argument("--lines", action="store_true", help="also print one line per process before the table")
    args = parser.parse_args(argv)
    roots = [Path(p) for p in args.paths]
    for root in roots:
        if not root.is_dir():
            print(f"camunda_models: {root}: not a directory", file=sys.stderr)
            return 2
    repos = [read_repository(root) for root in roots]
    names = [r.name for r in repos]
    if len(set(names)) != len(names):
        print(f"camunda_models: two checkouts have one name ({', '.join(names)}); give folders of distinct names",
              file=sys.stderr)
        return 2
    outcomes: list[ProcessOutcome] = []
    with tempfile.TemporaryDirectory(prefix="seams-camunda-") as scratch:
        for number, repo in enumerate(repos):
            work = Path(scratch, str(number))
            work.mkdir()
            outcomes += measure(repo, args.timeout, work)
    if args.json is not None:
        document = json.dumps(report(outcomes, names), indent=1, sort_keys=True) + "\n"
        if args.json == "-":
            sys.stdout.write(document)
            return 0
        Path(args.json).write_text(document, encoding="utf-8")
    if args.lines:
        for o in outcomes:
            print(f"{o.repository}/{o.file} {o.process}: {o.outcome}" + (f" ({o.detail})" if o.detail else "")
                  + (f" [runner gave {o.given}]" if o.given else ""))
        print()
    print(table(outcomes, names))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
