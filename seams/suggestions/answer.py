"""Reading a provider's ``condition-to-dmn`` answer, trusting nothing in it.

The answer is LLM text, so it is held to the schema at the end of
``suggest-v3.txt`` (docs/suggest.md) key by key, and every name in it is checked
against the model: a gateway, flow, variable or decision the model does not
have is a ResolutionError; an answer the model has the names for but that
cannot be built (a decision id already taken, an output of another datatype,
an input not known at the gateway, a FEEL test or condition that does not
parse, conditions that do not cover exactly the gateway's outgoing flows but
its default flow) is a GeneratorError. Each message names the key of the
answer at fault.

A decision has one output (``"output"``, each rule's ``"then"`` one value, the
form of ``suggest-v1.txt`` and ``suggest-v2.txt``, still read) or several
(``"outputs"``, each rule's ``"then"`` an object of one value per output: a
table whose result is a context, each output set on its own process
variable).

An answer's condition may be written in any dialect seams reads; it is kept
in the dialect of the gateway's conditions (docs/conditions.md), so a Camunda
7 gateway gets ``${...}`` and a Camunda 8 gateway ``=...`` back.
"""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from rdflib import URIRef

from seams import vocab as V
from seams.errors import ExpressionError, GeneratorError, ResolutionError
from seams.lang.condition import parse_condition
from seams.lang.feel import parse_unary_tests
from seams.model.loading import Model
from seams.project.limits import loads_json
from seams.suggestions.candidates import Candidate, candidate_for

KIND = "condition-to-dmn"
HIT_POLICIES = ("UNIQUE", "FIRST")
DEFAULT_HIT_POLICY = "UNIQUE"
_REQUIRED = ("kind", "gateway", "decision", "inputs", "rules", "conditions")
_OPTIONAL = ("hit_policy",)
_OUTPUT_KEYS = ("output", "outputs")  # exactly one of them: one output, or several
MAX_OUTPUTS = 20
"""Most outputs of one suggested table: a gateway's rule sets a handful of variables at most."""
_NCNAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")
MAX_ANSWER = 200_000
"""Longest answer read, in characters: a decision table for one gateway is far smaller."""

Value = str | int | Decimal | bool


@dataclass(frozen=True)
class Rule:
    when: tuple[tuple[str, str], ...]  # (input name, FEEL unary tests), in the order of the inputs
    results: tuple[Value, ...]  # one value per output, in the order of the outputs

    @property
    def then(self) -> Value:
        """The value of a one-output rule (its first output's value otherwise)."""
        return self.results[0]


@dataclass(frozen=True)
class Suggestion:
    """A validated condition-to-dmn suggestion; names are as the answer gave them."""

    gateway: str
    decision_id: str
    decision_name: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]  # one, or several (the table's result is then a context)
    hit_policy: str
    rules: tuple[Rule, ...]
    conditions: tuple[tuple[str, str], ...]  # (flow id, condition), in the gateway's flow order
    kind: str = KIND

    @property
    def output(self) -> str:
        """The output of a one-output suggestion (the first output otherwise)."""
        return self.outputs[0]

    @property
    def several(self) -> bool:
        return len(self.outputs) > 1

    def datatypes(self) -> tuple[URIRef, ...]:
        """Each output's datatype, from its column of values."""
        return tuple(values_datatype([rule.results[n] for rule in self.rules]) for n in range(len(self.outputs)))

    def as_json(self) -> dict[str, Any]:
        """The suggestion in the answer schema, every input spelled out; read back by parse_object.
        A one-output suggestion keeps the ``output`` form, so its stored record is what it was."""
        data: dict[str, Any] = {
            "kind": self.kind,
            "gateway": self.gateway,
            "decision": {"id": self.decision_id, "name": self.decision_name},
            "inputs": list(self.inputs),
            "hit_policy": self.hit_policy,
            "conditions": dict(self.conditions),
        }
        if self.several:
            data["outputs"] = list(self.outputs)
            data["rules"] = [{"when": dict(rule.when), "then": dict(zip(self.outputs, rule.results, strict=True))}
                             for rule in self.rules]
        else:
            data["output"] = self.output
            data["rules"] = [{"when": dict(rule.when), "then": rule.then} for rule in self.rules]
        return data


def parse_answer(text: str, model: Model, candidates: list[Candidate]) -> Suggestion:
    """The answer text (fence already stripped) as a validated Suggestion."""
    return parse_object(decode_answer(text), model, candidates)


def decode_answer(text: str) -> Any:
    """An answer's JSON (fence already stripped), within the size and depth caps; every kind reads
    its answer with this."""
    if len(text) > MAX_ANSWER:
        raise GeneratorError(f"answer: longer than {MAX_ANSWER} characters")
    try:
        return loads_json(text, parse_float=Decimal, parse_constant=_no_constant)
    except ValueError as exc:
        raise GeneratorError(f"answer: not one JSON object ({exc})") from None


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def parse_object(data: Any, model: Model, candidates: list[Candidate]) -> Suggestion:
    """Validate a decoded answer (or a stored suggestion) against the model."""
    data = answer_object(data, KIND, allowed=_REQUIRED + _OPTIONAL + _OUTPUT_KEYS, required=_REQUIRED)
    if "output" in data and "outputs" in data:
        raise GeneratorError("answer: both 'output' and 'outputs'; give 'output' for one output, "
                             "'outputs' for several")
    if "output" not in data and "outputs" not in data:
        raise GeneratorError("answer: missing key 'output' (or 'outputs' for several)")
    gateway = _string(data["gateway"], "gateway")
    candidate = candidate_for(candidates, model, gateway)
    decision_id, decision_name = _decision(data["decision"], model)
    inputs = _inputs(data["inputs"], candidate, model)
    several = "outputs" in data
    outputs = _outputs(data["outputs"], inputs) if several else (_output(data["output"], inputs, "output"),)
    hit_policy = _string(data.get("hit_policy", DEFAULT_HIT_POLICY), "hit_policy")
    if hit_policy not in HIT_POLICIES:
        raise GeneratorError(f"answer hit_policy: {hit_policy!r} is not one of {', '.join(HIT_POLICIES)}")
    rules = _rules(data["rules"], inputs, outputs if several else None)
    for number, name in enumerate(outputs):
        output_variable(model, candidate, name, values_datatype([rule.results[number] for rule in rules]))
    conditions = _conditions(data["conditions"], candidate, outputs, model)
    return Suggestion(gateway=gateway, decision_id=decision_id, decision_name=decision_name,
                      inputs=inputs, outputs=outputs, hit_policy=hit_policy, rules=rules,
                      conditions=conditions)


def output_datatype(rules: tuple[Rule, ...]) -> URIRef:
    """The datatype the rules' values give a one-output suggestion's output."""
    return values_datatype([rule.then for rule in rules])


def values_datatype(values: list[Value]) -> URIRef:
    """The datatype one output's values give it: one kind, or integers widened to decimal."""
    if all(isinstance(v, bool) for v in values):
        return V.XSD.boolean
    if all(isinstance(v, str) for v in values):
        return V.XSD.string
    if all(isinstance(v, int) for v in values):
        return V.XSD.integer
    return V.XSD.decimal


def output_variable(model: Model, candidate: Candidate, name: str, datatype: URIRef) -> tuple[URIRef, bool]:
    """The output's variable IRI and whether it is new: an existing one of its name, else ``<base><output>``.

    An existing variable must have the values' datatype and must not be set
    before the gateway already, or the decision would overwrite a fact the
    process already has.
    """
    if name in candidate.known:
        raise GeneratorError(f"answer output: {name} is already set before {candidate.element_id}; "
                             f"the decision's output must be a new variable")
    for variable in model.view.variables.values():
        if variable.name == name:
            if variable.datatype != datatype:
                raise GeneratorError(
                    f"answer output: {name} is {model.qname(variable.iri)} of seam:datatype "
                    f"{model.qname(variable.datatype) if variable.datatype else 'none'}, but the rules "
                    f"give {model.qname(datatype)}")
            return variable.iri, False
    iri = URIRef(model.project.config.base + name)
    if (iri, None, None) in model.union:
        raise GeneratorError(f"answer output: {model.qname(iri)} already names something that is not a "
                             f"seam:Variable")
    return iri, True


def feel_literal(value: object) -> str:
    """A value as a FEEL literal (an output entry, or a sample boundary)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, date):
        return f'date("{value.isoformat()}")'
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    raise GeneratorError(f"no FEEL literal for {value!r}")


def answer_object(data: Any, kind: str, *, allowed: tuple[str, ...], required: tuple[str, ...]) -> dict:
    """The outer checks every kind's answer passes first: a JSON object of ``kind``, no key
    outside ``allowed`` (first in key order named), every ``required`` key present."""
    if not isinstance(data, dict):
        raise GeneratorError(f"answer: not a JSON object but {_json_type(data)}")
    if data.get("kind") != kind:
        raise GeneratorError(f"answer kind: {data.get('kind')!r} is not {kind!r}")
    for key in sorted(data):
        if key not in allowed:
            raise GeneratorError(f"answer: unknown key {key!r}")
    for key in required:
        if key not in data:
            raise GeneratorError(f"answer: missing key {key!r}")
    return data


def json_type(value: Any) -> str:
    """How an answer's value is named in a refusal (``an object``, ``a string``)."""
    return _json_type(value)


def one_line(value: Any, key: str) -> str:
    """A non-empty one-line string of the answer, else a GeneratorError naming ``key``."""
    return _string(value, key)


def _json_type(value: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean",
            type(None): "null"}.get(type(value), "a number")


def _string(value: Any, key: str) -> str:
    if not isinstance(value, str) or not value.strip() or "\n" in value:
        raise GeneratorError(f"answer {key}: must be a non-empty one-line string, not {_json_type(value)}")
    return value


def _decision(value: Any, model: Model) -> tuple[str, str]:
    if not isinstance(value, dict) or sorted(value) != ["id", "name"]:
        raise GeneratorError("answer decision: must be an object with exactly the keys 'id' and 'name'")
    decision_id = _string(value["id"], "decision.id")
    name = _string(value["name"], "decision.name")
    if not _NCNAME.match(decision_id):
        raise GeneratorError(f"answer decision.id: {decision_id!r} is not an XML id")
    for payload in model.payloads.values():
        if any(el.get("id") == decision_id for el in payload.tree.getroot().iter()):
            raise GeneratorError(f"answer decision.id: {decision_id} already exists in {payload.relpath}")
    for decision in model.view.decisions.values():
        if decision.element_id == decision_id:
            raise GeneratorError(f"answer decision.id: {decision_id} is already the dec:payloadElement "
                                 f"of {model.qname(decision.iri)}")
    return decision_id, name


def _inputs(value: Any, candidate: Candidate, model: Model) -> tuple[str, ...]:
    if not isinstance(value, list) or not value:
        raise GeneratorError("answer inputs: must be a non-empty array of variable names")
    names = tuple(_string(item, "inputs") for item in value)
    if len(set(names)) != len(names):
        raise GeneratorError("answer inputs: a variable is named twice")
    all_names = {v.name for v in model.view.variables.values()}
    for name in names:
        if name in candidate.known:
            continue
        if name not in all_names:
            raise ResolutionError(f"answer inputs: the model has no seam:Variable with seam:name {name!r}",
                                  sorted(candidate.known))
        raise GeneratorError(f"answer inputs: {name} is not set on every path to {candidate.element_id}")
    return names


def _output(value: Any, inputs: tuple[str, ...], key: str) -> str:
    output = _string(value, key)
    if not output.isidentifier() or keyword.iskeyword(output) or output in ("true", "false", "null"):
        raise GeneratorError(f"answer {key}: {output!r} is not a variable name")
    if output in inputs:
        raise GeneratorError(f"answer {key}: {output} is also an input")
    return output


def _outputs(value: Any, inputs: tuple[str, ...]) -> tuple[str, ...]:
    """Several outputs: two to MAX_OUTPUTS distinct variable names (one output is ``output``)."""
    if not isinstance(value, list) or len(value) < 2:
        raise GeneratorError("answer outputs: must be an array of at least two variable names "
                             "(give one output as 'output')")
    if len(value) > MAX_OUTPUTS:
        raise GeneratorError(f"answer outputs: more than {MAX_OUTPUTS} outputs")
    names = tuple(_output(item, inputs, f"outputs[{n}]") for n, item in enumerate(value))
    if len(set(names)) != len(names):
        raise GeneratorError("answer outputs: an output is named twice")
    return names


def _rules(value: Any, inputs: tuple[str, ...], outputs: tuple[str, ...] | None) -> tuple[Rule, ...]:
    """The rules; ``outputs`` None for the one-output form (``then`` one value), else each
    ``then`` is an object of exactly one value per output."""
    if not isinstance(value, list) or not value:
        raise GeneratorError("answer rules: must be a non-empty array")
    rules = []
    for index, item in enumerate(value):
        where = f"answer rules[{index}]"
        if not isinstance(item, dict) or sorted(item) != ["then", "when"]:
            raise GeneratorError(f"{where}: must be an object with exactly the keys 'when' and 'then'")
        when = item["when"]
        if not isinstance(when, dict):
            raise GeneratorError(f"{where}.when: must be an object")
        for name in when:
            if name not in inputs:
                raise GeneratorError(f"{where}.when: {name!r} is not one of the inputs")
        entries = []
        for name in inputs:
            text = when.get(name, "-")
            if not isinstance(text, str):
                raise GeneratorError(f"{where}.when.{name}: must be a FEEL unary test as a string")
            try:
                parse_unary_tests(text, where=f"{where}.when.{name}")
            except ExpressionError as exc:
                raise GeneratorError(str(exc)) from None
            entries.append((name, text.strip() or "-"))
        rules.append(Rule(when=tuple(entries), results=_results(item["then"], f"{where}.then", outputs)))
    for number, name in enumerate(outputs or (None,)):
        kinds = {_value_kind(rule.results[number]) for rule in rules}
        if len(kinds) > 1:
            what = f"the 'then' values of {name}" if name is not None else "the 'then' values"
            raise GeneratorError(f"answer rules: {what} mix {' and '.join(sorted(kinds))}")
    return tuple(rules)


def _results(value: Any, where: str, outputs: tuple[str, ...] | None) -> tuple[Value, ...]:
    if outputs is None:
        return (_then(value, where),)
    if not isinstance(value, dict) or sorted(value) != sorted(outputs):
        raise GeneratorError(f"{where}: must be an object with one value for each output "
                             f"({', '.join(outputs)})")
    return tuple(_then(value[name], f"{where}.{name}") for name in outputs)


def _then(value: Any, where: str) -> Value:
    if isinstance(value, (bool, int, str)):
        if isinstance(value, str) and ("\n" in value or len(value) > 200):
            raise GeneratorError(f"{where}: a string value must be one line of at most 200 characters")
        return value
    if isinstance(value, Decimal):
        exact = Decimal(repr(float(value)))
        if exact != value or not value.is_finite():
            raise GeneratorError(f"{where}: number {value} cannot be stored exactly")
        return exact
    raise GeneratorError(f"{where}: must be a string, number or boolean, not {_json_type(value)}")


def _value_kind(value: Value) -> str:
    if isinstance(value, bool):
        return "booleans"
    return "strings" if isinstance(value, str) else "numbers"


def _conditions(value: Any, candidate: Candidate, outputs: tuple[str, ...],
                model: Model) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, dict):
        raise GeneratorError("answer conditions: must be an object of flow id to condition")
    outgoing = list(candidate.conditional_flows)
    all_flows = {f for p in model.view.processes.values() for f in p.flows}
    for flow_id in value:
        if flow_id not in all_flows:
            raise ResolutionError(f"answer conditions: the model has no sequence flow {flow_id}", outgoing)
        if flow_id == candidate.default:
            raise GeneratorError(f"answer conditions: {flow_id} is the gateway's default flow; "
                                 f"it keeps no condition")
        if flow_id not in outgoing:
            raise GeneratorError(f"answer conditions: {flow_id} is not an outgoing flow of {candidate.element_id}")
    missing = [f for f in outgoing if f not in value]
    if missing:
        raise GeneratorError(f"answer conditions: no condition for {', '.join(missing)} "
                             f"(outgoing flow of {candidate.element_id})")
    conditions = []
    for flow_id in outgoing:
        text = _string(value[flow_id], f"conditions.{flow_id}")
        try:
            condition = parse_condition(text, where=f"answer conditions.{flow_id}")
        except ExpressionError as exc:
            raise GeneratorError(str(exc)) from None
        if not condition.names or not condition.names <= set(outputs):
            what = f"the output {outputs[0]}" if len(outputs) == 1 else f"the outputs ({', '.join(outputs)})"
            raise GeneratorError(f"answer conditions.{flow_id}: must read only {what}, "
                                 f"not {', '.join(sorted(condition.names)) or 'nothing'}")
        try:
            written = condition.in_dialect(candidate.dialect)
        except ExpressionError as exc:
            raise GeneratorError(str(exc)) from None
        conditions.append((flow_id, written))
    return tuple(conditions)
