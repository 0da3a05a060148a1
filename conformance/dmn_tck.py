"""Run the in-scope decision-table cases of a DMN TCK checkout through seams' generated decisions module.

Usage: ``python conformance/dmn_tck.py PATH`` where PATH is a checkout of
https://github.com/dmn-tck/tck (or its ``TestCases`` folder, or any folder
below it). Not part of the test suite: the TCK is not vendored. See
docs/conformance.md for what it does and the figures of the last run.

For every ``*-test-*.xml`` file and every result node of every test case
it prints one line, ``passed``, ``failed`` or ``out of scope``, then the
totals. A result is in scope when its decision is a decision table seams
supports (seams.lang.dmn_support, the same table ``seams check`` and the
generator read) whose inputs are the test's input data (names or dotted
paths into them) or the results of other such decisions, which are
evaluated first the same way. Each such decision becomes a one-decision seams project
in a temporary folder, the built-in ``decisions`` generator writes its
module, and the module's function is called with the test's inputs; a
``DecisionError`` (a broken hit policy) counts as a null result, as the
standard makes it.
"""

from __future__ import annotations

import re
import sys
import tempfile
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone
from decimal import Decimal
from pathlib import Path

from lxml import etree

from seams.errors import GeneratorError, SeamsError
from seams.generators.decisions import decisions_source
from seams.lang.dmn_support import read_decision
from seams.lang.feel_parse import parse_name
from seams.model.loading import load_model
from seams.model.payloads import parse_xml
from seams.project.layout import load_project
from seams.vocab import DMN_MODEL_NAMESPACES

TCK_NS = "http://www.omg.org/spec/DMN/20160719/testcase"
XSI_NIL = "{http://www.w3.org/2001/XMLSchema-instance}nil"
XSI_TYPE = "{http://www.w3.org/2001/XMLSchema-instance}type"
_T = f"{{{TCK_NS}}}"


class _OutOfScope(Exception):
    """A decision the runner cannot feed through seams, with the reason."""


@dataclass(frozen=True)
class Outcome:
    status: str  # passed, failed, out of scope
    case: str
    detail: str = ""

    def line(self) -> str:
        return f"{self.status} {self.case}" + (f": {self.detail}" if self.detail else "")


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python conformance/dmn_tck.py PATH", file=sys.stderr)
        return 2
    root = Path(argv[0])
    if not root.is_dir():
        print(f"dmn_tck: {root}: not a directory", file=sys.stderr)
        return 2
    outcomes = []
    for test_file in sorted(root.rglob("*-test-*.xml")):
        outcomes += run_test_file(test_file, root)
    for outcome in outcomes:
        print(outcome.line())
    counts = {status: sum(o.status == status for o in outcomes) for status in ("passed", "failed", "out of scope")}
    print(", ".join(f"{status} {count}" for status, count in counts.items()))
    return 1 if counts["failed"] else 0


def run_test_file(test_file: Path, root: Path) -> list[Outcome]:
    shown = test_file.relative_to(root).as_posix()
    tests = etree.parse(str(test_file)).getroot()
    model_name = (tests.findtext(f"{_T}modelName") or "").strip()
    model_path = test_file.parent / model_name
    outcomes = []
    cases = tests.findall(f"{_T}testCase")
    try:
        dmn = parse_xml(model_path.read_bytes(), source=model_path.name)
    except (OSError, SeamsError) as exc:
        return [Outcome("out of scope", f"{shown} {c.get('id')}", f"model does not load: {exc}") for c in cases]
    namespace = etree.QName(dmn.getroot()).namespace
    if namespace not in DMN_MODEL_NAMESPACES:
        return [Outcome("out of scope", f"{shown} {c.get('id')}", f"not a DMN 1.1-1.5 model ({namespace})")
                for c in cases]
    runner = _ModelRunner(model_path, dmn.getroot(), namespace)
    for case in cases:
        try:
            inputs = {node.get("name"): value_of(node) for node in case.findall(f"{_T}inputNode")}
        except ValueError as exc:
            inputs = exc
        for result in case.findall(f"{_T}resultNode"):
            name = f"{shown} {case.get('id')} {result.get('name')}"
            if result.get("errorResult") == "true":
                outcomes.append(Outcome("out of scope", name, "an expected error result"))
                continue
            try:
                expected = value_of(result.find(f"{_T}expected"))
            except ValueError as exc:
                outcomes.append(Outcome("out of scope", name, f"an expected value Python cannot hold: {exc}"))
                continue
            if isinstance(inputs, ValueError):
                outcomes.append(Outcome("out of scope", name, f"an input value Python cannot hold: {inputs}"))
                continue
            try:
                outcomes.append(runner.run(name, result.get("name") or "", inputs, expected))
            except Exception as exc:  # one broken case must not hide the others' results
                outcomes.append(Outcome("failed", name, f"{type(exc).__name__}: {exc}"))
    return outcomes


class _ModelRunner:
    """One DMN model of the TCK; each decision is generated once and kept."""

    def __init__(self, path: Path, root: etree._Element, namespace: str):
        self.path, self.root, self.ns = path, root, f"{{{namespace}}}"
        self.functions: dict[str, object] = {}

    def decision(self, name: str) -> etree._Element | None:
        for element in self.root.iter(f"{self.ns}decision"):
            if element.get("name") == name:
                return element
        return None

    def run(self, case: str, name: str, inputs: dict, expected: object) -> Outcome:
        element = self.decision(name)
        if element is None:
            return Outcome("out of scope", case, "the result node names no decision")
        try:
            actual = self.evaluate(element, inputs, depth=0)
        except _OutOfScope as exc:
            return Outcome("out of scope", case, str(exc))
        if same(actual, expected):
            return Outcome("passed", case)
        return Outcome("failed", case, f"expected {expected!r}, got {actual!r}")

    def evaluate(self, element: etree._Element, inputs: dict, depth: int) -> object:
        """The decision's value for the inputs, the decisions it requires evaluated first the same way."""
        if depth > 20:
            raise _OutOfScope("decisions require each other too deeply")
        known = dict(inputs)
        for requirement in element.iterfind(f"{self.ns}informationRequirement/{self.ns}requiredDecision"):
            href = requirement.get("href", "")
            required = next((d for d in self.root.iter(f"{self.ns}decision")
                             if href.startswith("#") and d.get("id") == href[1:]), None)
            if required is None:
                raise _OutOfScope(f"requires decision {href} of another model")
            try:
                known[required.get("name")] = self.evaluate(required, inputs, depth + 1)
            except _OutOfScope as exc:
                raise _OutOfScope(f"requires decision {required.get('name')!r}, out of scope: {exc}") from None
        name = element.get("name") or ""
        compiled = self.functions.get(name)
        if compiled is None:
            compiled = self.functions[name] = self.compile(element)
        if isinstance(compiled, str):
            raise _OutOfScope(compiled)
        function, columns = compiled
        arguments = {}
        for text, parameter in columns.items():
            path = parse_name(text)
            assert path is not None
            arguments[parameter] = _path_value(known, path.parts)
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
        table, problems = read_decision(element, names=sorted(input_data))
        if problems or table is None:
            return "; ".join(f"{p.predicate}: {p.message}" for p in problems[:1])
        columns = {}
        for text in (*table.inputs, *table.extra_names):
            path = parse_name(text)
            if path is None or not any(".".join(path.parts[:n]) in input_data for n in range(1, len(path.parts) + 1)):
                return f"input {text!r} is no input data of the model"
            columns[text] = f"v{len(columns) + 1}"
        try:
            with tempfile.TemporaryDirectory() as folder:
                source = _generate(Path(folder), self.path, element.get("id") or "", columns)
        except (GeneratorError, SeamsError) as exc:
            return f"the generator refuses it: {exc}"
        namespace: dict = {"__name__": "tck_decisions"}
        exec(compile(source, "tck_decisions.py", "exec"), namespace)  # noqa: S102 - seams' own generated module
        function = next(value for key, value in namespace.items()
                        if callable(value) and not key.startswith("_") and key != "DecisionError"
                        and getattr(value, "__module__", None) == "tck_decisions")
        return function, columns


def _generate(folder: Path, dmn_path: Path, decision_id: str, columns: dict[str, str]) -> str:
    """The decisions module of a one-decision seams project around the TCK model."""
    (folder / "model").mkdir()
    (folder / "model" / "tck.dmn").write_bytes(dmn_path.read_bytes())
    (folder / "seams.toml").write_text('[project]\nbase = "urn:tck:"\n[generate]\ngenerators = ["decisions"]\n',
                                       encoding="utf-8")
    lines = ["@prefix seam: <https://w3id.org/seams/seam#> .", "@prefix dec: <https://w3id.org/seams/dec#> .",
             "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .", "<urn:tck:graph/seams> {",
             '<urn:tck:dmn> a seam:Payload ; seam:path "tck.dmn" ; seam:format "dmn" .',
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


_DURATION = re.compile(r"(-)?P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?")


def value_of(node: etree._Element | None) -> object:
    """A TCK value element (``value``, ``component``s, ``list``) as the Python value seams uses."""
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
    if value.get(XSI_NIL) == "true":
        return None
    text = value.text or ""
    kind = (value.get(XSI_TYPE) or "xsd:string").split(":")[-1]
    if kind in ("decimal", "double", "float"):
        return Decimal(text.strip())
    if kind in ("integer", "int", "long"):
        return int(text.strip())
    if kind == "boolean":
        return text.strip() == "true"
    if kind == "date":
        return date.fromisoformat(text.strip())
    if kind == "dateTime":
        return datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    if kind == "time":
        return time.fromisoformat(text.strip().replace("Z", "+00:00"))
    if kind == "duration":
        found = _DURATION.fullmatch(text.strip())
        if found is None:
            return text
        sign, days, hours, minutes, seconds = found.groups()
        span = timedelta(days=int(days or 0), hours=int(hours or 0), minutes=int(minutes or 0),
                         seconds=float(seconds or 0))
        return -span if sign else span
    return text


def same(actual: object, expected: object) -> bool:
    """Equal as FEEL sees it: numbers by value, contexts and lists member by member."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        return actual.keys() == expected.keys() and all(same(actual[k], expected[k]) for k in expected)
    if isinstance(expected, list) and isinstance(actual, list):
        return len(actual) == len(expected) and all(same(a, e) for a, e in zip(actual, expected))
    if isinstance(expected, Decimal) and type(actual) in (int, Decimal, float) and not isinstance(actual, bool):
        return Decimal(str(actual)) == expected
    if isinstance(expected, datetime) and isinstance(actual, datetime):
        return actual == expected and (actual.utcoffset() is None) == (expected.utcoffset() is None)
    return type(actual) is type(expected) and actual == expected


_ = timezone  # the TCK's offsets arrive through datetime.fromisoformat

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
