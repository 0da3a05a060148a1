"""Run every test case of a DMN TCK checkout through seams' DMN interpreter; cross-check generated tables.

Usage: ``python conformance/dmn_tck.py PATH [--summary]`` where PATH is a
checkout of https://github.com/dmn-tck/tck (or its ``TestCases`` folder, or
any folder below it). Not part of the test suite: the TCK is not vendored.
See docs/conformance.md for what it does and the figures of the last run.

For every ``*-test-*.xml`` file and every result node of every test case
it prints one line, ``passed``, ``failed`` or ``out of scope`` (naming the
construct seams does not evaluate), then the totals per folder, per TCK
label (the feature a test file declares) and overall. Each result node's
decision (or the decision service a test case invokes) is evaluated by
seams.lang.dmn_eval, the interpreter ``seams check`` and the generated
module share; a node the TCK marks ``errorResult="true"`` passes when the
value is null. Where a decision is a table the built-in ``decisions``
generator supports, the generated module is run on the same inputs too,
and a value different from the interpreter's fails the node.
"""

from __future__ import annotations

import re
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone
from decimal import Decimal
from pathlib import Path

from lxml import etree

from seams.errors import GeneratorError, SeamsError
from seams.generators.decisions import decisions_source
from seams.lang.dmn_eval import DmnInterpreter, Unsupported, load_models
from seams.lang.dmn_expression import needs_interpreter, read_expression_decision
from seams.lang.dmn_support import read_decision
from seams.lang.feel_parse import parse_name
from seams.lang.feel_temporal import (
    BEYOND_PYTHON,
    BeyondPython,
    YearsMonths,
    parse_date,
    parse_date_time,
    parse_duration,
    parse_time,
)
from seams.lang.feel_values import equal
from seams.model.loading import load_model
from seams.model.payloads import parse_xml
from seams.project.layout import load_project
from seams.vocab import DMN_MODEL_NAMESPACES

TCK_NS = "http://www.omg.org/spec/DMN/20160719/testcase"
XSI_NIL = "{http://www.w3.org/2001/XMLSchema-instance}nil"
XSI_TYPE = "{http://www.w3.org/2001/XMLSchema-instance}type"
_T = f"{{{TCK_NS}}}"
STATUSES = ("passed", "failed", "out of scope")
NUMBER_TOLERANCE = Decimal("0.00000001")
"""Numbers match within this, as the TCK's own runners compare them (its expected values come from
binary floating point, seams computes 34 significant digits)."""


class _OutOfScope(Exception):
    """A decision the runner cannot feed through seams, with the reason."""


@dataclass(frozen=True)
class Outcome:
    status: str  # passed, failed, out of scope
    case: str
    detail: str = ""
    folder: str = ""
    labels: tuple[str, ...] = ()

    def line(self) -> str:
        return f"{self.status} {self.case}" + (f": {self.detail}" if self.detail else "")


def main(argv: list[str]) -> int:
    summary = "--summary" in argv
    argv = [a for a in argv if a != "--summary"]
    if len(argv) != 1:
        print("usage: python conformance/dmn_tck.py PATH [--summary]", file=sys.stderr)
        return 2
    root = Path(argv[0])
    if not root.is_dir():
        print(f"dmn_tck: {root}: not a directory", file=sys.stderr)
        return 2
    outcomes = []
    for test_file in sorted(root.rglob("*-test-*.xml")):
        outcomes += run_test_file(test_file, root)
    if not summary:
        for outcome in outcomes:
            print(outcome.line())
    for title, key in (("folder", lambda o: [o.folder]), ("label", lambda o: list(o.labels) or ["(none)"])):
        table: dict[str, Counter] = defaultdict(Counter)
        for outcome in outcomes:
            for group in key(outcome):
                table[group][outcome.status] += 1
        for group in sorted(table):
            print(f"{title} {group}: " + ", ".join(f"{s} {table[group][s]}" for s in STATUSES))
    reasons = Counter(_reason(o.detail) for o in outcomes if o.status == "out of scope")
    for reason, count in reasons.most_common():
        print(f"out of scope because {reason}: {count}")
    checked = sum(CROSS_CHECKED.values())
    print(f"generated module cross-checked on {checked} passed result nodes ("
          + ", ".join(f"{kind} {count}" for kind, count in sorted(CROSS_CHECKED.items())) + ")")
    counts = {status: sum(o.status == status for o in outcomes) for status in STATUSES}
    total = len(outcomes) or 1
    print(", ".join(f"{status} {count}" for status, count in counts.items())
          + f" ({100 * counts['passed'] / total:.1f}% of {len(outcomes)} result nodes passed)")
    return 1 if counts["failed"] else 0


def _reason(detail: str) -> str:
    """A reason without the value it was met on, so equal reasons count together."""
    return detail.split(": '")[0].split(': "')[0][:160]


def run_test_file(test_file: Path, root: Path) -> list[Outcome]:
    shown = test_file.relative_to(root).as_posix()
    folder = test_file.parent.relative_to(root).as_posix()
    tests = etree.parse(str(test_file)).getroot()
    labels = tuple(sorted({(label.text or "").strip() for label in tests.iter(f"{_T}label")} - {""}))
    model_name = (tests.findtext(f"{_T}modelName") or "").strip()
    model_path = test_file.parent / model_name
    cases = tests.findall(f"{_T}testCase")

    def outcome(status: str, case: str, detail: str = "") -> Outcome:
        return Outcome(status, case, detail, folder, labels)

    try:
        dmn = parse_xml(model_path.read_bytes(), source=model_path.name)
        models = load_models(sorted(test_file.parent.glob("*.dmn")))
    except (OSError, SeamsError) as exc:
        return [outcome("out of scope", f"{shown} {c.get('id')}", f"model does not load: {exc}") for c in cases]
    namespace = etree.QName(dmn.getroot()).namespace
    if namespace not in DMN_MODEL_NAMESPACES:
        return [outcome("out of scope", f"{shown} {c.get('id')}", f"not a DMN 1.1-1.5 model ({namespace})")
                for c in cases]
    main_model = next(m for m in models.values() if m.path == model_path)
    interpreter = DmnInterpreter(main_model, models)
    runner = _ModelRunner(model_path, dmn.getroot(), namespace)
    outcomes = []
    for case in cases:
        try:
            inputs = {node.get("name"): value_of(node) for node in case.findall(f"{_T}inputNode")}
        except ValueError as exc:
            inputs = exc
        service = case.get("invocableName") if case.get("type") == "decisionService" else None
        for result in case.findall(f"{_T}resultNode"):
            name = f"{shown} {case.get('id')} {result.get('name')}"
            try:
                expected = None if result.get("errorResult") == "true" else value_of(result.find(f"{_T}expected"))
            except BeyondPython as exc:
                outcomes.append(outcome("out of scope", name, f"an expected value Python cannot hold: "
                                        f"{re.sub(r': .*', '', str(exc))}"))
                continue
            except ValueError as exc:
                outcomes.append(outcome("failed", name, f"an expected value seams cannot read: {exc}"))
                continue
            if isinstance(inputs, ValueError):
                outcomes.append(outcome("out of scope", name, f"an input value Python cannot hold: {inputs}"))
                continue
            try:
                status, detail = _run(interpreter, runner, service, result.get("name") or "", inputs, expected)
            except Unsupported as exc:
                status, detail = "out of scope", str(exc)
            except Exception as exc:  # one broken case must not hide the others' results
                status, detail = "failed", f"{type(exc).__name__}: {exc}"
            outcomes.append(outcome(status, name, detail))
    return outcomes


def _run(interpreter: DmnInterpreter, runner: _ModelRunner, service: str | None, name: str, inputs: dict,
         expected: object) -> tuple[str, str]:
    if service:
        actual = interpreter.invoke(service, inputs)
        if isinstance(actual, dict) and name in actual and not isinstance(expected, dict):
            actual = actual[name]
        elif isinstance(actual, dict) and isinstance(expected, dict) is False and name not in actual:
            actual = None
    else:
        actual = interpreter.decide(name, inputs)
    if not same(actual, expected):
        beyond = next((error for error in interpreter.errors if BEYOND_PYTHON in error), None)
        if beyond is not None:
            found = re.search(r"a (?:year|fraction)[^:]*", beyond)
            return "out of scope", f"a FEEL value with {found.group() if found else BEYOND_PYTHON}"
        return "failed", f"expected {expected!r}, got {actual!r}"
    generated = runner.generated_value(interpreter, name, inputs) if not service else _NOT_GENERATED
    if generated is not _NOT_GENERATED:
        CROSS_CHECKED[runner.kind(name)] += 1
        if not same(generated, actual):
            return "failed", f"the generated module gives {generated!r}, the interpreter {actual!r}"
    return "passed", ""


CROSS_CHECKED: Counter = Counter()
"""Result nodes whose value the generated module also gave, by the decision's kind (table or boxed expression)."""


_NOT_GENERATED = object()


class _ModelRunner:
    """One DMN model of the TCK; each decision is generated once and kept."""

    def __init__(self, path: Path, root: etree._Element, namespace: str):
        self.path, self.root, self.ns = path, root, f"{{{namespace}}}"
        self.functions: dict[str, object] = {}

    def kind(self, name: str) -> str:
        element = self.decision(name)
        if element is None or not needs_interpreter(element):
            return "decision table"
        return "decision table (interpreter)" if element.find(f"{self.ns}decisionTable") is not None \
            else "boxed expression"

    def others(self) -> list[Path]:
        """The test folder's other DMN files: the models this one may import."""
        return sorted(self.path.parent.glob("*.dmn"))

    def imported(self) -> dict[str, etree._Element]:
        """The folder's other DMN files by their definitions namespace (what the check finds in a project)."""
        found: dict[str, etree._Element] = {}
        for path in self.others():
            root = parse_xml(path.read_bytes(), source=path.name).getroot()
            found.setdefault(root.get("namespace") or "", root)
        return found

    def decision(self, name: str) -> etree._Element | None:
        for element in self.root.iter(f"{self.ns}decision"):
            if element.get("name") == name:
                return element
        return None

    def generated_value(self, interpreter: DmnInterpreter, name: str, inputs: dict) -> object:
        """The generated module's value for a decision table it supports, its required decisions' values
        taken from the interpreter; _NOT_GENERATED when the generator does not take the decision."""
        element = self.decision(name)
        if element is None:
            return _NOT_GENERATED
        compiled = self.functions.get(name)
        if compiled is None:
            compiled = self.functions[name] = self.compile(element)
        if isinstance(compiled, str):
            return _NOT_GENERATED
        function, columns = compiled
        if needs_interpreter(element):  # the interpreter, called by the module, evaluates what it requires
            return function(**{parameter: inputs[text] if text in inputs  # an imported one's: "import.name"
                                else _path_value(inputs, tuple(text.split(".")))
                                for text, parameter in columns.items()})
        known = dict(inputs)
        for requirement in element.iterfind(f"{self.ns}informationRequirement/{self.ns}requiredDecision"):
            href = requirement.get("href", "")
            required = next((d for d in self.root.iter(f"{self.ns}decision")
                             if href.startswith("#") and d.get("id") == href[1:]), None)
            if required is None:
                return _NOT_GENERATED
            known[required.get("name")] = interpreter.decide(required.get("name") or "", inputs)
        arguments = {}
        for text, parameter in columns.items():
            path = parse_name(text)
            assert path is not None
            arguments[parameter] = _path_value(known, path.parts)
        arguments = {k: (str(v) if isinstance(v, YearsMonths) else v) for k, v in arguments.items()}
        try:
            return function(**arguments)
        except ValueError as exc:
            if type(exc).__name__ != "DecisionError":
                raise
            return None

    def compile(self, element: etree._Element) -> tuple | str:
        """The decision's generated function and its parameter per input, or why it is out of scope."""
        input_data = {e.get("name") or "" for e in self.root.iter(f"{self.ns}inputData")} - {""}
        input_data |= {e.get("name") or "" for e in self.root.iter(f"{self.ns}decision")} - {""}
        if needs_interpreter(element):
            read, problems = read_expression_decision(element, self.imported())
            if problems or read is None:
                return "; ".join(f"{p.predicate}: {p.message}" for p in problems[:1])
            names: tuple[str, ...] = read.inputs
        else:
            table, problems = read_decision(element, names=sorted(input_data))
            if problems or table is None:
                return "; ".join(f"{p.predicate}: {p.message}" for p in problems[:1])
            names = (*table.inputs, *table.extra_names)
        columns = {}
        for text in names:
            path = parse_name(text)
            if needs_interpreter(element):
                columns[text] = f"v{len(columns) + 1}"  # input data it requires, by their names
                continue
            if path is None or not any(".".join(path.parts[:n]) in input_data for n in range(1, len(path.parts) + 1)):
                return f"input {text!r} is no input data of the model"
            columns[text] = f"v{len(columns) + 1}"
        try:
            with tempfile.TemporaryDirectory() as folder:
                source = _generate(Path(folder), self.path, element.get("id") or "", columns,
                                   tuple(p for p in self.others() if p.resolve() != self.path.resolve()))
        except (GeneratorError, SeamsError) as exc:
            return f"the generator refuses it: {exc}"
        namespace: dict = {"__name__": "tck_decisions"}
        exec(compile(source, "tck_decisions.py", "exec"), namespace)  # noqa: S102 - seams' own generated module
        function = next(value for key, value in namespace.items()
                        if callable(value) and not key.startswith("_") and key != "DecisionError"
                        and getattr(value, "__module__", None) == "tck_decisions")
        return function, columns


def _generate(folder: Path, dmn_path: Path, decision_id: str, columns: dict[str, str],
              others: tuple[Path, ...] = ()) -> str:
    """The decisions module of a one-decision seams project around the TCK model (``others``: the
    folder's other DMN files, payloads too, for the models it imports)."""
    (folder / "model").mkdir()
    (folder / "model" / "tck.dmn").write_bytes(dmn_path.read_bytes())
    for number, other in enumerate(others, 1):
        (folder / "model" / f"other{number}.dmn").write_bytes(other.read_bytes())
    (folder / "seams.toml").write_text('[project]\nbase = "urn:tck:"\n[generate]\ngenerators = ["decisions"]\n',
                                       encoding="utf-8")
    lines = ["@prefix seam: <https://w3id.org/seams/seam#> .", "@prefix dec: <https://w3id.org/seams/dec#> .",
             "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .", "<urn:tck:graph/seams> {",
             '<urn:tck:dmn> a seam:Payload ; seam:path "tck.dmn" ; seam:format "dmn" .',
             *(f'<urn:tck:other{n}> a seam:Payload ; seam:path "other{n}.dmn" ; seam:format "dmn" .'
               for n in range(1, len(others) + 1)),
             "<urn:tck:decision> a dec:Decision ; seam:payload <urn:tck:dmn> ; "
             f"dec:payloadElement {_turtle(decision_id)}"]
    for number, text in enumerate(columns, 1):
        lines.append(f"  ; dec:input [ dec:variable {_turtle(text)} ; dec:fromPath <urn:tck:v{number}> ]")
    lines.append("  .")
    for number, parameter in enumerate(columns.values(), 1):
        lines.append(f'<urn:tck:v{number}> a seam:Variable ; seam:name "{parameter}" .')
    lines.append("}")
    (folder / "model" / "model.trig").write_text("\n".join(lines) + "\n", encoding="utf-8")
    source = decisions_source(load_model(load_project(folder)))
    assert source is not None
    return source


def _turtle(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _path_value(inputs: dict, parts: tuple[str, ...]) -> object:
    for cut in range(len(parts), 0, -1):
        head = ".".join(parts[:cut])
        if head in inputs:
            value = inputs[head]
            for key in parts[cut:]:
                value = value.get(key) if isinstance(value, dict) else None
            return value
    return None


def value_of(node: etree._Element | None) -> object:
    """A TCK value element (``value``, ``component``s, ``list``) as the FEEL value seams uses."""
    if node is None:
        return None
    value = node.find(f"{_T}value")
    if value is not None:
        return _scalar(value)
    components = node.findall(f"{_T}component")
    if components:
        return {c.get("name"): value_of(c) for c in components}
    listed = node.find(f"{_T}list")
    if listed is not None:
        return [value_of(item) for item in listed.findall(f"{_T}item")]
    return None


def _scalar(value: etree._Element) -> object:
    """An ``xsd:`` typed value, read with the rules of seams' FEEL (seams.lang.feel_temporal)."""
    if value.get(XSI_NIL) == "true":
        return None
    kind = (value.get(XSI_TYPE) or "xsd:string").split(":")[-1]
    text = (value.text or "") if kind == "string" else (value.text or "").strip()
    if kind in ("decimal", "double", "float", "integer", "int", "long"):
        if text in ("NaN", "INF", "-INF"):
            raise ValueError(f"{text} is no FEEL number")
        return Decimal(text)
    if kind == "boolean":
        return text == "true"
    if kind == "date":
        return parse_date(text)
    if kind == "dateTime":
        return parse_date_time(text)
    if kind == "time":
        return parse_time(text)
    if kind in ("duration", "dayTimeDuration", "yearMonthDuration"):
        return parse_duration(text)
    return text


def same(actual: object, expected: object) -> bool:
    """Equal as FEEL sees it (numbers by value, contexts and lists member by member), null only to null."""
    if expected is None or actual is None:
        return expected is None and actual is None
    if isinstance(actual, (int, float)) and not isinstance(actual, bool):
        actual = Decimal(str(actual))
    if isinstance(expected, dict) and isinstance(actual, dict):
        return actual.keys() == expected.keys() and all(same(actual[k], expected[k]) for k in expected)
    if isinstance(expected, list) and isinstance(actual, list):
        return len(actual) == len(expected) and all(same(a, e) for a, e in zip(actual, expected))
    if isinstance(expected, Decimal) and isinstance(actual, Decimal):
        return abs(expected - actual) < NUMBER_TOLERANCE
    if isinstance(expected, datetime) and isinstance(actual, datetime):
        return actual == expected and (actual.utcoffset() is None) == (expected.utcoffset() is None)
    return equal(actual, expected) is True


_ = (timezone, date, time, timedelta, YearsMonths)

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
