"""Turning a validated suggestion into a model change, by code and not by the LLM
(docs/architecture.md, D-llm-proposes).

The change is a seams_edit Patch for the TriG facts plus new texts for the
BPMN and DMN payloads, edited with seams_edit so the modeler's layout stays.
Every name comes from the model or the suggestion, and every convention is
copied from what the model already does:

* the decision goes into the DMN payload of the process's existing
  decisions (in that file's DMN version), or a new ``<bpmn stem>.dmn`` next
  to the BPMN payload, DMN 1.3 unless every other DMN file of the project
  is of one other version;
* the business-rule task names its decision the way the payload's existing
  business-rule tasks do (Camunda 7 ``camunda:decisionRef``, Camunda 8
  ``zeebe:calledDecision``; Camunda 7 when there is none), and its BPMN id
  follows their id pattern (``Task_ApprovalLevel`` for
  ``Decision_ApprovalLevel`` gives ``Task_Escalation`` for
  ``Decision_Escalation``; ``Task_<decision id>`` when nothing shows one);
* the task and decision IRIs are ``<base><BPMN id>`` and ``<base><DMN id>``;
  the task carries seam:reads / seam:writes when the existing business-rule
  tasks do (both when there are none);
* each output variable has the rdf:types every existing variable has.

A table of several outputs returns a context; the task keeps it in a result
variable (``<decision id as a name>_result``) and maps each output onto its
own process variable, as each engine does it: Camunda 7
``mapDecisionResult="singleResult"`` and a ``camunda:outputParameter`` per
output (``${<result>.<output>}``), Camunda 8 a ``zeebe:output`` per output
(``=<result>.<output>``) beside ``zeebe:calledDecision``. In the model each
output has its own ``dec:output`` (docs/suggest.md).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from lxml import etree
from rdflib import BNode, Literal, URIRef

from seams import vocab as V
from seams.errors import EditError, GeneratorError
from seams.generators.pysource import snake_name
from seams.lang.condition import parse_condition
from seams.lang.field_values import DATATYPES
from seams.model.loading import Model, PayloadFile
from seams.suggestions.answer import Suggestion, feel_literal, output_variable
from seams.suggestions.candidates import Candidate, candidate_for, find_candidates
from seams_edit import Patch, apply_patch
from seams_edit.bpmn import insert_task_before, outcome_name, restates, set_condition
from seams_edit.dmn import add_decision, new_dmn_payload
from seams_edit.xml import load_payload, save_payload

TYPE_REFS = {V.XSD[name]: row["type_ref"] for name, row in DATATYPES.items()}
"""DMN typeRef per variable datatype (FEEL's names; ``integer`` as Camunda writes it)."""
DEFAULT_MAP_RESULT = "singleEntry"
"""camunda:mapDecisionResult for a one-output table when no existing task shows another."""
CONTEXT_MAP_RESULT = "singleResult"
"""camunda:mapDecisionResult for a table of several outputs: one rule's outputs as a map."""


def _camunda(local: str) -> str:
    return f"{{{V.CAMUNDA_NS}}}{local}"


@dataclass(frozen=True)
class Change:
    patch: Patch
    payloads: dict[Path, bytes]  # absolute path -> new BPMN / DMN text


def build_change(model: Model, suggestion: Suggestion) -> Change:
    """The change for ``suggestion``; the same model and suggestion give the same bytes."""
    candidate = candidate_for(find_candidates(model), model, suggestion.gateway)
    try:
        return _Builder(model, candidate, suggestion).build()
    except EditError as exc:
        raise GeneratorError(f"{suggestion.gateway}: the change cannot be built: {exc}") from None


def change_files(model: Model, change: Change) -> dict[Path, bytes]:
    """Every file the change writes: the TriG with the patch applied, and the payloads."""
    source = model.project.relative(model.trig_path)
    trig = apply_patch(model.trig_bytes.decode("utf-8"), change.patch, source=source).encode("utf-8")
    return {model.trig_path: trig, **change.payloads}


class _Builder:
    def __init__(self, model: Model, candidate: Candidate, suggestion: Suggestion):
        self.model, self.view = model, model.view
        self.candidate, self.suggestion = candidate, suggestion
        self.graph = model.project.graphs["seams"]
        self.base = model.project.config.base
        self.quads: list[tuple] = []

    def add(self, subject, predicate, obj, graph: URIRef | None = None) -> None:
        self.quads.append((subject, predicate, obj, graph or self.graph))

    def build(self) -> Change:
        s = self.suggestion
        process_payload = self.candidate.process.payload
        bpmn = self.model.payloads.get(process_payload) if process_payload is not None else None
        if bpmn is None:
            raise GeneratorError(f"{self.model.qname(self.candidate.process.iri)} seam:payload: no BPMN payload")
        task_id = self._task_id(bpmn)
        decision_iri, task_iri = URIRef(self.base + s.decision_id), URIRef(self.base + task_id)
        for iri in (decision_iri, task_iri):
            if (iri, None, None) in self.model.union:
                raise GeneratorError(f"{self.model.qname(iri)}: the model already has this subject")
        dmn_iri, dmn_path, dmn_data = self._dmn_payload(bpmn)
        output_iris = []
        for name, datatype in zip(s.outputs, s.datatypes(), strict=True):
            output_iri, output_is_new = output_variable(self.model, self.candidate, name, datatype)
            if output_is_new:
                self._variable(output_iri, name, datatype)
            output_iris.append(output_iri)
        self._task(task_iri, task_id, decision_iri, output_iris)
        self._decision(decision_iri, dmn_iri, output_iris)
        return Change(patch=Patch(add=tuple(self.quads)), payloads={
            bpmn.path: self._bpmn_text(bpmn, task_id),
            dmn_path: self._dmn_text(dmn_data, self.model.project.relative(dmn_path)),
        })

    # -- TriG facts

    def _variable(self, iri: URIRef, name: str, datatype: URIRef) -> None:
        """A new output variable, labelled by the decision's name (and its output's, when several)."""
        kinds = [set(self.model.union.objects(v, V.RDF.type)) for v in self.view.variables]
        common = set.intersection(*kinds) if kinds else {V.Variable}
        for kind in [V.Variable, *sorted(common - {V.Variable}, key=str)]:
            self.add(iri, V.RDF.type, kind)
        label = self.suggestion.decision_name
        self.add(iri, V.RDFS.label, Literal(f"{label}: {name}" if self.suggestion.several else label))
        self.add(iri, V.name, Literal(name))
        self.add(iri, V.datatype, datatype)

    def _task(self, iri: URIRef, task_id: str, decision: URIRef, outputs: list[URIRef]) -> None:
        existing = [t.iri for t in self.view.tasks.values() if t.kind == V.BusinessRuleTask]
        carried = {p for t in existing for p in self.model.union.predicates(t, None)}
        self.add(iri, V.RDF.type, V.BusinessRuleTask)
        self.add(iri, V.RDFS.label, Literal(self.suggestion.decision_name))
        self.add(iri, V.inProcess, self.candidate.process.iri)
        self.add(iri, V.payloadElement, Literal(task_id))
        self.add(iri, V.decidedBy, decision)
        if not existing or V.reads in carried:
            for name in self.suggestion.inputs:
                self.add(iri, V.reads, self.candidate.known[name])
        if not existing or V.writes in carried:
            for output in outputs:
                self.add(iri, V.writes, output)

    def _decision(self, iri: URIRef, payload: URIRef, outputs: list[URIRef]) -> None:
        s = self.suggestion
        self.add(iri, V.RDF.type, V.Decision)
        self.add(iri, V.RDFS.label, Literal(s.decision_name))
        self.add(iri, V.payload, payload)
        self.add(iri, V.dec_payloadElement, Literal(s.decision_id))
        nodes = [BNode(f"{s.decision_id}_input_{n}") for n in range(1, len(s.inputs) + 1)]
        for node in nodes:
            self.add(iri, V.dec_input, node)
        outs = [BNode(f"{s.decision_id}_output")] if not s.several else \
            [BNode(f"{s.decision_id}_output_{n}") for n in range(1, len(s.outputs) + 1)]
        for out in outs:
            self.add(iri, V.dec_output, out)
        for name in s.inputs:
            self.add(iri, V.reads, self.candidate.known[name])
        for node, name in zip(nodes, s.inputs, strict=True):
            self.add(node, V.dec_variable, Literal(name))
            self.add(node, V.dec_fromPath, self.candidate.known[name])
        for out, name, output in zip(outs, s.outputs, outputs, strict=True):
            self.add(out, V.dec_variable, Literal(name))
            self.add(out, V.dec_processVariable, output)

    # -- payloads

    def _dmn_payload(self, bpmn: PayloadFile) -> tuple[URIRef, Path, bytes]:
        """The DMN payload the process's decisions live in, or a new one beside the BPMN payload."""
        process = self.candidate.process.iri
        used = {self.view.decisions[t.decided_by].payload for t in self.view.tasks.values()
                if t.process == process and t.decided_by in self.view.decisions}
        existing = sorted((p for iri, p in self.model.payloads.items() if iri in used and p.format == "dmn"),
                          key=lambda p: p.relpath)
        if existing:
            return existing[0].iri, existing[0].path, existing[0].data
        relpath = Path(bpmn.relpath).with_suffix(".dmn").as_posix()
        text = str(bpmn.iri)
        iri = URIRef(text[:-len(bpmn.format)] + "dmn" if text.endswith(bpmn.format) else text + "-dmn")
        path = (self.model.trig_path.parent / relpath).resolve()
        if any(p.relpath == relpath for p in self.model.payloads.values()) or os.path.lexists(path):
            raise GeneratorError(f"{self.model.project.relative(path)}: a new DMN payload would replace this file")
        if (iri, None, None) in self.model.union:
            raise GeneratorError(f"{self.model.qname(iri)}: the model already has this subject")
        graph = self.model.graph_of(bpmn.iri) or self.graph
        self.add(iri, V.RDF.type, V.Payload, graph)
        self.add(iri, V.path, Literal(relpath), graph)
        self.add(iri, V.format, Literal("dmn"), graph)
        root = bpmn.tree.getroot()
        versions = {p.dmn.version for p in self.model.payloads.values() if p.format == "dmn"}
        data = new_dmn_payload(definitions_id=root.get("id") or f"Definitions_{self.suggestion.decision_id}",
                               name=self.candidate.process.label or self.candidate.process.element_id or "",
                               namespace=self.base + Path(relpath).stem,
                               version=versions.pop() if len(versions) == 1 else V.DMN_DEFAULT_VERSION)
        return iri, path, data

    def _dmn_text(self, data: bytes, source: str) -> bytes:
        s = self.suggestion
        payload = load_payload(data, source=source)
        inputs = []
        for name in s.inputs:
            variable = self.view.variables[self.candidate.known[name]]
            type_ref = TYPE_REFS.get(variable.datatype, "string") if variable.datatype is not None else "string"
            inputs.append((variable.label or name, name, type_ref))
        columns = [(name, TYPE_REFS[datatype]) for name, datatype in zip(s.outputs, s.datatypes(), strict=True)]
        if s.several:
            add_decision(payload, decision_id=s.decision_id, name=s.decision_name, hit_policy=s.hit_policy,
                         inputs=inputs, outputs=columns,
                         rules=[([text for _, text in rule.when], [feel_literal(v) for v in rule.results])
                                for rule in s.rules])
        else:
            add_decision(payload, decision_id=s.decision_id, name=s.decision_name, hit_policy=s.hit_policy,
                         inputs=inputs, output=columns[0],
                         rules=[([text for _, text in rule.when], feel_literal(rule.then)) for rule in s.rules])
        return save_payload(payload)

    def _bpmn_text(self, bpmn: PayloadFile, task_id: str) -> bytes:
        s = self.suggestion
        payload = load_payload(bpmn.data, source=self.model.project.relative(bpmn.path))
        attributes, children = self._decision_reference(bpmn)
        insert_task_before(payload, s.gateway, tag="businessRuleTask", task_id=task_id, name=s.decision_name,
                           attributes=attributes, children=children)
        names = {flow.id: flow.name or "" for flow in self.candidate.flows}
        for flow_id, text in s.conditions:  # a name that restated its old condition is renamed (docs/edit.md)
            read = sorted(parse_condition(text, where=flow_id).names)
            renamed = outcome_name(text, read[0] if len(read) == 1 else s.output)
            keep = not restates(names.get(flow_id, ""), self._condition_terms(flow_id))
            set_condition(payload, flow_id, text, name=None if keep else renamed)
        return save_payload(payload)

    def _condition_terms(self, flow_id: str) -> list[str]:
        """What a flow's old condition tests: its variables' names and labels, the values it
        compares them with (none for a flow that had no condition)."""
        condition = self.candidate.conditions.get(flow_id)
        if condition is None:
            return []
        terms: list[str] = []
        for name, values in condition.boundaries().items():
            variable = self.view.variables.get(self.candidate.known[name]) if name in self.candidate.known else None
            terms += [name, *([variable.label] if variable is not None and variable.label else [])]
            terms += [str(value) for value in values]
        return terms

    def _decision_reference(self, bpmn: PayloadFile) -> tuple[dict[str, str], list[etree._Element]]:
        """How the new task names its decision: as the payload's first business-rule task does."""
        s = self.suggestion
        if s.several:
            return self._context_reference(bpmn)
        for task in bpmn.tree.getroot().iter(f"{{{V.BPMN_NS}}}businessRuleTask"):
            if task.find(f".//{{{V.ZEEBE_NS}}}calledDecision") is not None:
                extension = etree.Element(f"{{{V.BPMN_NS}}}extensionElements")
                etree.SubElement(extension, f"{{{V.ZEEBE_NS}}}calledDecision",
                                 {"decisionId": s.decision_id, "resultVariable": s.output})
                return {}, [extension]
            if task.get(_camunda("decisionRef")) is not None:
                values = {_camunda("decisionRef"): s.decision_id, _camunda("resultVariable"): s.output,
                          _camunda("mapDecisionResult"): task.get(_camunda("mapDecisionResult"))}
                return {key: values[key] for key in task.attrib if values.get(key) is not None}, []
        return {_camunda("resultVariable"): s.output, _camunda("decisionRef"): s.decision_id,
                _camunda("mapDecisionResult"): DEFAULT_MAP_RESULT}, []

    def _context_reference(self, bpmn: PayloadFile) -> tuple[dict[str, str], list[etree._Element]]:
        """A table of several outputs: its context kept in a result variable, each output mapped
        onto its process variable by the engine's output mapping (Camunda 8 when the payload's
        business-rule tasks call decisions with zeebe:calledDecision, else Camunda 7)."""
        s = self.suggestion
        result = self.result_variable()
        extension = etree.Element(f"{{{V.BPMN_NS}}}extensionElements")
        zeebe = any(task.find(f".//{{{V.ZEEBE_NS}}}calledDecision") is not None
                    for task in bpmn.tree.getroot().iter(f"{{{V.BPMN_NS}}}businessRuleTask"))
        if zeebe:
            etree.SubElement(extension, f"{{{V.ZEEBE_NS}}}calledDecision",
                             {"decisionId": s.decision_id, "resultVariable": result})
            mapping = etree.SubElement(extension, f"{{{V.ZEEBE_NS}}}ioMapping")
            for name in s.outputs:
                etree.SubElement(mapping, f"{{{V.ZEEBE_NS}}}output", {"source": f"={result}.{name}", "target": name})
            return {}, [extension]
        mapping = etree.SubElement(extension, _camunda("inputOutput"))
        for name in s.outputs:
            etree.SubElement(mapping, _camunda("outputParameter"), {"name": name}).text = f"${{{result}.{name}}}"
        return {_camunda("resultVariable"): result, _camunda("decisionRef"): s.decision_id,
                _camunda("mapDecisionResult"): CONTEXT_MAP_RESULT}, [extension]

    def result_variable(self) -> str:
        """The variable a table of several outputs keeps its context in: named after the decision,
        and no variable, input or output of the model."""
        taken = {v.name for v in self.view.variables.values()} | set(self.suggestion.outputs) \
            | set(self.suggestion.inputs)
        base = f"{snake_name(self.suggestion.decision_id)}_result"
        name, number = base, 1
        while name in taken:
            number += 1
            name = f"{base}_{number}"
        return name

    def _task_id(self, bpmn: PayloadFile) -> str:
        """The new task's BPMN id, following the existing task-id / decision-id pattern."""
        decision_id = self.suggestion.decision_id
        for task in sorted((t for t in self.view.tasks.values() if t.kind == V.BusinessRuleTask and t.element_id),
                           key=lambda t: t.element_id or ""):
            decision = self.view.decisions.get(task.decided_by) if task.decided_by else None
            if decision is None or not decision.element_id:
                continue
            task_id = task.element_id or ""
            suffix = os.path.commonprefix([task_id[::-1], decision.element_id[::-1]])[::-1]
            task_prefix = task_id[:len(task_id) - len(suffix)]
            decision_prefix = decision.element_id[:len(decision.element_id) - len(suffix)]
            if suffix and task_prefix and decision_id.startswith(decision_prefix):
                return task_prefix + decision_id[len(decision_prefix):]
        return f"Task_{decision_id}"
