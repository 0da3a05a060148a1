"""Reading the files handed to ``seams init --from``: which kind each is, and its spec.

The kind is the document's, not its name's: a BPMN file saved as ``.xml``
is BPMN, and a file that claims ``.bpmn`` but holds something else is
refused with one line naming it. Camunda Forms (``*.form``) are JSON.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from lxml import etree
from rdflib import URIRef

from seams import vocab as V
from seams.errors import ProjectError
from seams.importer.bpmn_read import read_bpmn
from seams.importer.build import Existing, Source, key_of
from seams.importer.dmn_read import DMN_NAMESPACES, read_dmn
from seams.importer.forms import read_form_json
from seams.model.payloads import parse_xml
from seams.project.limits import LimitError, read_regular_file

MAX_FILE_BYTES = 20_000_000


def read_file(path: Path) -> bytes:
    """A regular file's bytes, at most MAX_FILE_BYTES: a FIFO, a device (``/dev/zero``) or a
    socket is refused before a byte is read, so nothing handed to ``--from`` can stall or
    exhaust the command."""
    try:
        return read_regular_file(path, max_bytes=MAX_FILE_BYTES)
    except LimitError as exc:
        raise ProjectError(f"{path}: {exc}; expected a .bpmn, .dmn or .form file") from None
    except FileNotFoundError:
        raise ProjectError(f"{path}: file not found") from None
    except IsADirectoryError:
        raise ProjectError(f"{path}: is a directory; expected a .bpmn, .dmn or .form file") from None
    except OSError as exc:
        raise ProjectError(f"{path}: cannot read: {exc.strerror}") from None


def kind_of(data: bytes, *, source: str) -> str:
    """``bpmn``, ``dmn`` or ``form``, from the content."""
    if source.endswith(".form"):
        return "form"
    root = parse_xml(data, source=source).getroot()
    namespace = etree.QName(root).namespace
    if namespace == V.BPMN_NS:
        return "bpmn"
    if namespace in DMN_NAMESPACES:
        return "dmn"
    raise ProjectError(f"{source}: not a BPMN or DMN file (root element {{{namespace}}}"
                       f"{etree.QName(root).localname}); expected bpmn:definitions or DMN definitions")


@dataclass(frozen=True)
class FormFile:
    """A Camunda Forms file: where it is, its bytes (copied to model/ when linked), its document."""

    path: Path
    data: bytes
    document: dict


def read_form_file(path: Path) -> tuple[str | None, FormFile]:
    data = read_file(path)
    form_id, document = read_form_json(data, source=str(path))
    return form_id, FormFile(path, data, document)


def forms_beside(paths: list[Path], explicit: Mapping[str, FormFile], notes: list[str]) -> dict[str, FormFile]:
    """Camunda Forms by form id: the ``--from`` ones, then ``*.form`` files beside each BPMN."""
    forms = dict(explicit)
    for directory in dict.fromkeys(p.parent for p in paths):
        for candidate in sorted(directory.glob("*.form")):
            try:
                form_id, form = read_form_file(candidate)
            except ProjectError as exc:
                notes.append(f"skipped {exc}")
                continue
            if form_id:
                forms.setdefault(form_id, form)
    return forms


def read_sources(files: list[tuple[str, Path, bytes]], forms: Mapping[str, FormFile]) -> list[Source]:
    """``(name in model/, path, bytes)`` of each BPMN/DMN file -> read sources, in order."""
    documents = {form_id: form.document for form_id, form in forms.items()}
    sources = []
    for name, path, data in files:
        kind = kind_of(data, source=str(path))
        if kind == "bpmn":
            sources.append(Source(name, "bpmn", read_bpmn(data, source=name, forms=documents)))
        else:
            sources.append(Source(name, "dmn", read_dmn(data, source=name)))
    return sources


def existing_of(graph) -> Existing:
    """What a loaded model already holds, keyed as :func:`build.key_of` keys imports."""
    existing = Existing()
    g = graph
    existing.iris = {s for s in g.subjects() if isinstance(s, URIRef)}
    paths = {s: str(o) for s, o in g.subject_objects(V.path)}

    def path_of(subject) -> str | None:
        return paths.get(g.value(subject, V.payload))

    process_keys = {}
    for process in g.subjects(V.RDF.type, V.Process):
        path, pid = path_of(process), g.value(process, V.payloadElement)
        if path and pid is not None:
            process_keys[process] = (path, str(pid))
            existing.subjects[key_of("process", path, str(pid))] = process
    for payload, path in paths.items():
        existing.subjects[key_of("payload", path)] = payload
    for cls in V.FLOW_ELEMENT_CLASSES:
        for element in g.subjects(V.RDF.type, cls):
            owner = process_keys.get(g.value(element, V.inProcess))
            eid = g.value(element, V.payloadElement)
            if owner and eid is not None:
                existing.subjects[key_of("element", *owner, str(eid))] = element
                form = g.value(element, V.form)
                if form is not None:
                    existing.subjects[key_of("form", *owner, str(eid))] = form
    for decision in g.subjects(V.RDF.type, V.Decision):
        path, did = path_of(decision), g.value(decision, V.dec_payloadElement)
        if path and did is not None:
            existing.subjects[key_of("decision", path, str(did))] = decision
    for variable in g.subjects(V.RDF.type, V.Variable):
        name = g.value(variable, V.name)
        if name is not None:
            existing.subjects.setdefault(key_of("variable", str(name)), variable)
    existing.handlers = {str(o) for o in g.objects(None, V.handler)}
    return existing
