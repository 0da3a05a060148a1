"""What an existing BPMN file says that seams can model, read once into plain data.

Camunda 7 and Camunda 8 models, as Camunda Modeler writes them: executable
processes (also as the processes of a collaboration's pools), the user,
service and business-rule tasks and exclusive gateways in them (sub-processes
included), each task's handler hint, decision reference, form and IO
mappings, and the variable names of every sequence-flow condition.
Everything else BPMN knows (events, other gateways, script/send/receive/
manual tasks, call activities, lanes) is read past; a ``*Task`` element BPMN
does not define is refused, since it is a typo or a vendor element seams
cannot tie anything to.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from lxml import etree

from seams import vocab as V
from seams.errors import ExpressionError, ProjectError
from seams.importer.forms import FieldSpec, camunda7_fields, camunda_form_fields, example_data_fields, read_form_json
from seams.importer.html_forms import form_key_path, read_html_form
from seams.importer.names import IDENTIFIER
from seams.lang.condition import parse_condition
from seams.model.payloads import parse_xml

_B = f"{{{V.BPMN_NS}}}"
_C = f"{{{V.CAMUNDA_NS}}}"
_Z = f"{{{V.ZEEBE_NS}}}"

MODELLED = {"userTask", "serviceTask", "businessRuleTask", "exclusiveGateway"}
KNOWN_TASKS = {"task", "userTask", "serviceTask", "businessRuleTask", "scriptTask", "sendTask",
               "receiveTask", "manualTask"}

_JUEL = re.compile(r"^\s*[$#]\{(.*)\}\s*$", re.S)
_FEEL = re.compile(r"^\s*=(.*)$", re.S)
_JUEL_OPS = ((re.compile(r"&&"), " and "), (re.compile(r"\|\|"), " or "),
             (re.compile(r"!(?!=)"), " not "), (re.compile(r"\btrue\b"), "True"),
             (re.compile(r"\bfalse\b"), "False"))


@dataclass(frozen=True)
class Element:
    """A user, service or business-rule task or an exclusive gateway."""

    id: str
    kind: str  # BPMN local name, one of MODELLED
    name: str | None
    handler_hint: str | None = None  # where the handler name comes from, before snake_case
    decision_ref: str | None = None
    result_variable: str | None = None
    form: tuple[FieldSpec, ...] | None = None
    reads: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    map_result: str | None = None  # camunda:mapDecisionResult of a business-rule task


@dataclass(frozen=True)
class ProcessSpec:
    id: str
    label: str
    elements: tuple[Element, ...]
    condition_names: tuple[str, ...]  # variable names in the process's conditions, first-seen order
    start_form: tuple[FieldSpec, ...] = ()
    list_variables: tuple[str, ...] = ()  # multi-instance output collections: lists
    input_collections: tuple[str, ...] = ()  # multi-instance input collections named plainly: lists
    mapped_names: tuple[str, ...] = ()  # variables the input mappings of other elements read by name


@dataclass
class BpmnSpec:
    processes: list[ProcessSpec]
    notes: list[str] = field(default_factory=list)  # what was read past, for the user
    linked_forms: list[str] = field(default_factory=list)  # ids of Camunda Forms its tasks link
    linked_html: dict[str, bytes] = field(default_factory=dict)  # formKey path -> the HTML form read
    not_carried: Counter = field(default_factory=Counter)  # construct -> how often it was read past
    called: list[str] = field(default_factory=list)  # process ids its call activities name


HtmlLookup = Callable[[str], "bytes | None"]
"""The bytes of an embedded HTML form by its formKey path (``forms/a.html``), or None."""

_NOT_CARRIED = {
    f"{{{V.CAMUNDA_NS}}}taskListener": "task listener (camunda:taskListener): seams runs no listener",
    f"{{{V.CAMUNDA_NS}}}executionListener": "execution listener (camunda:executionListener): seams runs no "
                                            "listener",
    f"{{{V.ZEEBE_NS}}}executionListener": "execution listener (zeebe:executionListener): seams runs no listener",
    f"{{{V.ZEEBE_NS}}}taskListener": "task listener (zeebe:taskListener): seams runs no listener",
    f"{{{V.CAMUNDA_NS}}}script": "script in an extension (camunda:script): seams runs no script",
    f"{{{V.CAMUNDA_NS}}}connector": "Camunda 7 connector (camunda:connector): its service task needs a handler",
}


def label_text(text: str | None) -> str | None:
    """A modeler's name with its line breaks (``&#10;``) and runs of spaces folded."""
    folded = " ".join((text or "").split())
    return folded or None


def read_bpmn(data: bytes, *, source: str, forms: Mapping[str, dict] | None = None,
              html_forms: HtmlLookup | None = None) -> BpmnSpec:
    """Read a BPMN file; ``forms`` are Camunda Forms documents by form id (files beside it),
    ``html_forms`` finds an embedded HTML form by its formKey path."""
    tree = parse_xml(data, source=source)
    root = tree.getroot()
    if etree.QName(root).namespace != V.BPMN_NS or etree.QName(root).localname != "definitions":
        raise ProjectError(f"{source}: not a BPMN 2.0 document (root element {_tag(root)}); "
                           "expected bpmn:definitions")
    for element in root.iter():
        if isinstance(element.tag, str):
            qname = etree.QName(element)
            if qname.namespace == V.BPMN_NS and qname.localname.endswith("Task") \
                    and qname.localname not in KNOWN_TASKS:
                raise ProjectError(f"{source}:{element.sourceline}: unknown task type bpmn:{qname.localname}"
                                   f' (id "{element.get("id", "")}"); expected one of '
                                   f"{', '.join('bpmn:' + k for k in sorted(KNOWN_TASKS))}")
    pools = {p.get("processRef"): label_text(p.get("name"))
             for p in root.iter(f"{_B}participant") if p.get("processRef")}
    processes = root.findall(f"{_B}process")
    if not processes:
        raise ProjectError(f"{source}: no bpmn:process in the file; expected at least one process to import")
    spec = BpmnSpec(processes=[])
    lookup = _HtmlForms(html_forms, source, spec)
    for element in root.iter(*_NOT_CARRIED):
        spec.not_carried[_NOT_CARRIED[element.tag]] += 1
    for process in processes:
        pid = process.get("id")
        if not pid:
            raise ProjectError(f"{source}:{process.sourceline}: a bpmn:process without an id")
        if process.get("isExecutable") == "false":
            spec.notes.append(f'skipped process "{pid}" in {source}: not executable (isExecutable="false")')
            continue
        spec.processes.append(_process(process, pools, source, forms or {}, spec.notes, lookup))
        spec.called.extend(c for c in (_called_element(a) for a in process.iter(f"{_B}callActivity")) if c)
    if not spec.processes:
        raise ProjectError(f'{source}: no executable bpmn:process; set isExecutable="true" on the '
                           "process to import")
    linked = {d.get("formId") for d in root.iter(f"{_Z}formDefinition")}
    linked |= {t.get(f"{_C}formRef") for t in root.iter(f"{_B}userTask")}
    spec.linked_forms = sorted(f for f in linked if f)
    return spec


def _tag(element: etree._Element) -> str:
    qname = etree.QName(element)
    return f"{{{qname.namespace}}}{qname.localname}" if qname.namespace else qname.localname


class _HtmlForms:
    """Embedded HTML forms read once per formKey path; what they hold that is not carried is counted."""

    def __init__(self, lookup: HtmlLookup | None, source: str, spec: BpmnSpec):
        self.lookup, self.source, self.spec = lookup, source, spec
        self.read: dict[str, tuple[FieldSpec, ...] | None] = {}

    def fields(self, node: etree._Element) -> tuple[FieldSpec, ...] | None:
        path = form_key_path(node.get(f"{_C}formKey"))
        if path is None:
            return None
        if path not in self.read:
            data = self.lookup(path) if self.lookup is not None else None
            if data is None:
                self.spec.notes.append(f'{node.get("id")} in {self.source} has the embedded form "{path}", '
                                       "which is neither beside the BPMN nor given with --from; its fields are "
                                       "left to you")
                self.read[path] = None
            else:
                form = read_html_form(data, source=path)
                self.spec.linked_html[path] = data
                for note in form.notes:
                    self.spec.not_carried[f"{note} in an embedded form"] += 1
                self.read[path] = form.fields
        return self.read[path]


def _called_element(activity: etree._Element) -> str | None:
    """The process id a call activity calls: ``calledElement`` or ``zeebe:calledElement processId``
    (not an expression)."""
    called = activity.find(f"{_B}extensionElements/{_Z}calledElement")
    text = (called.get("processId") if called is not None else activity.get("calledElement")) or ""
    text = text.strip()
    return text if text and not text.startswith(("=", "${", "#{")) else None


def _process(process: etree._Element, pools: Mapping[str | None, str | None], source: str,
             forms: Mapping[str, dict], notes: list[str], html: _HtmlForms) -> ProcessSpec:
    pid = process.get("id", "")
    label = label_text(process.get("name")) or pools.get(pid) or pid
    embedded = {f.get("id"): f.text or "" for f in process.iter(f"{_Z}userTaskForm") if f.get("id")}
    elements: list[Element] = []
    names: dict[str, None] = {}
    start_form: list[FieldSpec] = []
    mapped: dict[str, None] = {}
    collections: dict[str, None] = {}
    for node in process.iter():
        if not isinstance(node.tag, str) or etree.QName(node).namespace != V.BPMN_NS:
            continue
        kind = etree.QName(node).localname
        if kind == "sequenceFlow":
            condition = node.find(f"{_B}conditionExpression")
            if condition is not None and (condition.text or "").strip():
                found = condition_names(condition.text or "", where=node.get("id", "?"))
                if found is None:
                    notes.append(f'condition of {node.get("id")} in {source} is not in the condition '
                                 "language; its variables are left to you")
                for name in found or ():
                    names.setdefault(name)
        elif kind == "startEvent" and node.getparent() is process:
            start_form.extend(camunda7_fields(node) or html.fields(node) or example_data_fields(node) or ())
        elif kind in MODELLED and node.get("id"):
            elements.append(_element(node, kind, source, forms, embedded, notes, html))
        else:
            for name in _io_mappings(node.find(f"{_B}extensionElements"))[0]:
                mapped.setdefault(name)
        if kind != "sequenceFlow":
            collection = _input_collection(node)
            if collection:
                collections.setdefault(collection)
    lists = tuple(dict.fromkeys(
        (loop.get("outputCollection") or "").strip() for loop in process.iter(f"{_Z}loopCharacteristics")
        if IDENTIFIER.fullmatch((loop.get("outputCollection") or "").strip())))
    return ProcessSpec(id=pid, label=label, elements=tuple(elements), condition_names=tuple(names),
                       start_form=tuple(start_form), list_variables=lists, input_collections=tuple(collections),
                       mapped_names=tuple(mapped))


def _input_collection(node: etree._Element) -> str | None:
    """The variable a multi-instance activity iterates over, where it is named plainly:
    ``camunda:collection="items"`` (or ``${items}``), ``zeebe:loopCharacteristics
    inputCollection="=items"``; None for an expression or no multi-instance."""
    loop = node.find(f"{_B}multiInstanceLoopCharacteristics")
    if loop is None:
        return None
    z = loop.find(f"{_B}extensionElements/{_Z}loopCharacteristics")
    if z is not None:
        return _single_name(z.get("inputCollection"), _FEEL)
    text = (loop.get(f"{_C}collection") or "").strip()
    return text if IDENTIFIER.fullmatch(text) else _single_name(text, _JUEL)


def condition_names(text: str, *, where: str) -> frozenset[str] | None:
    """The variable names a condition reads, or None when it cannot be parsed.

    Tries the condition language first (as ``seams check`` reads it); then,
    as a documented fallback for the names only, the body of a JUEL
    ``${...}`` or FEEL ``=...`` expression with ``&&``/``||``/``!`` spelt as
    Python would (docs/init.md).
    """
    try:
        return parse_condition(text.strip(), where=where).names
    except ExpressionError:
        pass
    body = None
    for wrapper in (_JUEL, _FEEL):
        found = wrapper.match(text)
        if found:
            body = found.group(1)
            break
    if body is None:
        return None
    for pattern, replacement in _JUEL_OPS:
        body = pattern.sub(replacement, body)
    body = re.sub(r"(?<![=!<>])=(?!=)", "==", body)  # FEEL's equality is a single =
    try:
        return parse_condition(body.strip(), where=where).names
    except ExpressionError:
        return None


def _element(node: etree._Element, kind: str, source: str, forms: Mapping[str, dict],
             embedded: Mapping[str, str], notes: list[str], html: _HtmlForms) -> Element:
    ext = node.find(f"{_B}extensionElements")
    element_id = node.get("id", "")
    name = label_text(node.get("name"))
    reads, writes = _io_mappings(ext)
    if kind == "serviceTask":
        return Element(element_id, kind, name, handler_hint=_handler_hint(node, ext), reads=reads, writes=writes)
    if kind == "businessRuleTask":
        ref, result = node.get(f"{_C}decisionRef"), node.get(f"{_C}resultVariable")
        called = ext.find(f"{_Z}calledDecision") if ext is not None else None
        if called is not None:
            ref, result = called.get("decisionId"), called.get("resultVariable")
        if ref is not None and not IDENTIFIER.fullmatch(ref.strip()) and not re.fullmatch(r"[\w.\-]+", ref.strip()):
            notes.append(f'{element_id} in {source} names its decision by an expression ("{ref}"); '
                         "bind seam:decidedBy yourself")
            ref = None
        return Element(element_id, kind, name, decision_ref=ref.strip() if ref else None,
                       result_variable=result.strip() if result else None, reads=reads, writes=writes,
                       map_result=(node.get(f"{_C}mapDecisionResult") or "").strip() or None)
    if kind == "userTask":
        form = camunda7_fields(node)
        if form is None:
            form = html.fields(node)
        if form is None:
            form = _camunda_form(node, ext, element_id, source, forms, embedded, notes)
        return Element(element_id, kind, name, form=form, reads=reads, writes=writes)
    return Element(element_id, kind, name)


def _handler_hint(node: etree._Element, ext: etree._Element | None) -> str | None:
    """camunda:class, camunda:delegateExpression, camunda:topic, zeebe:taskDefinition type."""
    java_class = node.get(f"{_C}class")
    if java_class and java_class.strip():
        return java_class.strip().rsplit(".", 1)[-1].rsplit("$", 1)[-1]
    delegate = node.get(f"{_C}delegateExpression")
    if delegate:
        inner = _JUEL.match(delegate)
        body = (inner.group(1) if inner else delegate).strip()
        if IDENTIFIER.fullmatch(body):
            return body
    topic = node.get(f"{_C}topic")
    if topic and topic.strip() and not _JUEL.match(topic):
        return topic.strip()
    definition = ext.find(f"{_Z}taskDefinition") if ext is not None else None
    if definition is not None:
        task_type = (definition.get("type") or "").strip()
        if task_type and not task_type.startswith("="):
            return task_type
    return None


def _io_mappings(ext: etree._Element | None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Variables a task reads (input sources naming one variable) and writes (output targets).

    Camunda 8 ``zeebe:ioMapping`` (``source="=name"``) and Camunda 7
    ``camunda:inputOutput`` (``${name}``); a source that is a longer
    expression names no single variable and is left out.
    """
    if ext is None:
        return (), ()
    reads: dict[str, None] = {}
    writes: dict[str, None] = {}
    for mapping in ext.findall(f"{_Z}ioMapping"):
        for item in mapping.findall(f"{_Z}input"):
            name = _single_name(item.get("source"), _FEEL)
            if name:
                reads.setdefault(name)
        for item in mapping.findall(f"{_Z}output"):
            target = (item.get("target") or "").strip()
            if IDENTIFIER.fullmatch(target):
                writes.setdefault(target)
    for mapping in ext.findall(f"{_C}inputOutput"):
        for item in mapping.findall(f"{_C}inputParameter"):
            name = _single_name(item.text, _JUEL)
            if name:
                reads.setdefault(name)
        for item in mapping.findall(f"{_C}outputParameter"):
            target = (item.get("name") or "").strip()
            if IDENTIFIER.fullmatch(target):
                writes.setdefault(target)
    return tuple(reads), tuple(writes)


def _single_name(text: str | None, wrapper: re.Pattern[str]) -> str | None:
    found = wrapper.match(text or "")
    body = found.group(1).strip() if found else ""
    return body if IDENTIFIER.fullmatch(body) else None


def _camunda_form(node: etree._Element, ext: etree._Element | None, element_id: str, source: str,
                  forms: Mapping[str, dict], embedded: Mapping[str, str],
                  notes: list[str]) -> tuple[FieldSpec, ...] | None:
    """The fields of a Camunda 8 task's linked form (``formId``) or embedded form (``formKey``),
    or of a Camunda 7 task's ``camunda:formRef``."""
    definition = ext.find(f"{_Z}formDefinition") if ext is not None else None
    form_ref = node.get(f"{_C}formRef")  # Camunda 7.15+: a Camunda Form by id
    if definition is None and not form_ref:
        return None
    document = None
    form_id = definition.get("formId") if definition is not None else form_ref
    form_key = (definition.get("formKey") if definition is not None else None) or ""
    if form_id:
        document = forms.get(form_id)
        if document is None:
            notes.append(f'{element_id} in {source} links form "{form_id}", but no .form file beside it '
                         "has that id; its form is left to you")
            return None
    elif form_key.startswith("camunda-forms:bpmn:"):
        text = embedded.get(form_key.rsplit(":", 1)[-1])
        if text is None:
            return None
        _, document = read_form_json(text.encode("utf-8"), source=f"{source} ({form_key})")
    if document is None:
        return None
    fields, skipped = camunda_form_fields(document)
    for what in skipped:
        notes.append(f"{element_id} in {source}: skipped {what}")
    return fields
