"""The model: a TriG dataset plus the native payloads it names.

Reading is strict where a reader would otherwise guess (a TriG syntax error
names the file and line; a payload path that leaves the model's directory is
refused) and lenient about missing facts, which the checks report as
findings instead of failing the load.
"""

from __future__ import annotations

import hashlib
import os
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from lxml import etree
from rdflib import Dataset, Graph, Literal, URIRef
from rdflib.graph import DATASET_DEFAULT_GRAPH_ID

from seams import vocab as V
from seams.errors import ProjectError
from seams.model.payloads import PayloadFile, parse_xml
from seams.model.trig_parse import parse_trig
from seams.model.union_store import UnionReads
from seams.model.view import View, build_view
from seams.project.limits import LimitError, path_text_problem, read_regular_file

if TYPE_CHECKING:
    from seams.model.statement_cache import StatementPack, Statements
    from seams.project.layout import Project


class Model:
    """A loaded model. ``dataset`` is the rdflib Dataset; ``union`` its union graph."""

    def __init__(self, project: Project, trig_path: Path, trig_bytes: bytes, dataset: Dataset,
                 payloads: dict[URIRef, PayloadFile]):
        self.project = project
        self.trig_path = trig_path
        self.trig_bytes = trig_bytes
        self.dataset = dataset
        self.payloads = payloads
        self.statements: Statements | None = None  # what the dataset was built from, when it was statement-wise
        self.memo: dict[str, Any] = {}  # what a check derived and may keep (seams.checks.shapes_wellformed)

    @cached_property
    def union(self) -> Graph:
        """All quads as one graph: readers use the union (docs/architecture.md, D-model-is-data)."""
        return UnionGraph(self.dataset)

    @cached_property
    def hash(self) -> str:
        """sha256 over the TriG file and every payload it names, sorted by path."""
        return model_hash(self.trig_path, self.trig_bytes,
                          {p.relpath: p.data for p in self.payloads.values()})

    @cached_property
    def view(self) -> View:
        return build_view(self.union, self.payloads)

    def graph_of(self, subject: URIRef) -> URIRef | None:
        """The named graph a subject already lives in (edits write there)."""
        for _, _, _, g in self.dataset.quads((subject, None, None, None)):
            return cast("URIRef | None", getattr(g, "identifier", g))
        return None

    def payload_for(self, subject: URIRef) -> PayloadFile | None:
        iri = self.union.value(subject, V.payload)
        return self.payloads.get(iri) if isinstance(iri, URIRef) else None

    def qname(self, iri: URIRef) -> str:
        """A short, stable name for messages: a prefixed name where a prefix fits."""
        try:
            return self.union.namespace_manager.normalizeUri(iri)
        except Exception:  # rdflib raises several kinds for IRIs with no fitting prefix
            return f"<{iri}>"


class UnionGraph(UnionReads):
    """Every graph of a dataset read as one plain ``Graph``, without copying a quad.

    Copying the union into a new graph cost nearly as much as parsing the
    model again (and a quarter of ``seams check``'s peak memory, see
    docs/performance.md); reading the dataset's store with no
    context is the union already (what ``Dataset(default_union=True)``
    reads), and being a plain ``Graph`` keeps pyshacl validating it as one
    data graph instead of graph by graph. A triple added here goes into the
    dataset's default graph.
    """

    def __init__(self, dataset: Dataset):
        super().__init__(store=dataset.store, identifier=DATASET_DEFAULT_GRAPH_ID,
                         namespace_manager=dataset.namespace_manager)

    def triples_choices(self, triple, context=None):
        for found, _ in self.store.triples_choices(triple, context=None):
            yield found

    def __len__(self) -> int:
        return self.store.__len__(context=None)  # type: ignore[call-arg]


def model_hash(trig_path: Path, trig_bytes: bytes, payloads: dict[str, bytes]) -> str:
    digest = hashlib.sha256()
    entries = {trig_path.name: trig_bytes, **payloads}
    for name in sorted(entries):
        data = entries[name]
        digest.update(name.encode() + b"\0" + str(len(data)).encode() + b"\0")
        digest.update(data)
    return digest.hexdigest()


def load_model(project: Project, *, statements: StatementPack | None = None) -> Model:
    """The project's model; ``statements``: reuse and keep each TriG statement's parsed quads
    there (seams.model.statement_cache), which builds the same dataset."""
    trig_path = project.model_path
    display = project.relative(trig_path)
    try:
        trig_bytes = trig_path.read_bytes()
    except OSError as exc:
        raise ProjectError(f"{display}: cannot read model: {exc.strerror}") from None
    kept = None
    if statements is None:
        dataset = parse_trig(trig_bytes, source=display, base=project.config.base)
    else:
        from seams.model.statement_cache import parse_trig_kept

        dataset, kept = parse_trig_kept(trig_bytes, source=display, base=project.config.base, pack=statements)
    payloads: dict[URIRef, PayloadFile] = {}
    model_dir = trig_path.parent.resolve()
    for iri in sorted(cast("set[URIRef]", set(dataset.subjects(V.RDF.type, V.Payload)))):
        payloads[iri] = read_payload(dataset, iri, model_dir, display, project)
    model = Model(project, trig_path, trig_bytes, dataset, payloads)
    model.statements = kept
    return model


def read_payload(dataset: Dataset, iri: URIRef, model_dir: Path, display: str,
                  project: Project) -> PayloadFile:
    rel = dataset.value(iri, V.path)
    fmt = dataset.value(iri, V.format)
    if not isinstance(rel, Literal) or not str(rel):
        raise ProjectError(f"{display}: payload <{iri}> has no seam:path")
    if str(fmt) not in ("bpmn", "dmn"):
        raise ProjectError(f"{display}: payload <{iri}> seam:format must be \"bpmn\" or \"dmn\"")
    problem = path_text_problem(str(rel))
    if problem:
        raise ProjectError(f"{display}: payload <{iri}> seam:path {problem}")
    path = (model_dir / str(rel)).resolve()
    # lexically inside too: a copy (the scratch session's) joins the same text to its own
    # directory, where a ".." or absolute path that came back in here would lead elsewhere
    lexical = os.path.normpath(str(rel))
    if model_dir not in path.parents or os.path.isabs(lexical) or lexical.split(os.sep)[0] == "..":
        raise ProjectError(f"{display}: payload <{iri}> seam:path {rel} leads outside the model directory")
    shown = project.relative(path)
    try:
        data = read_regular_file(path, max_bytes=project.config.payload_bytes)
    except FileNotFoundError:
        raise ProjectError(f"{shown}: payload file not found (seam:path of <{iri}>)") from None
    except LimitError as exc:
        raise ProjectError(f"{shown}: payload refused: {exc} (limits.payload_bytes in seams.toml)") from None
    except OSError as exc:
        raise ProjectError(f"{shown}: cannot read payload: {exc.strerror}") from None
    tree = parse_xml(data, source=shown)
    namespace = etree.QName(tree.getroot()).namespace
    if (namespace != V.BPMN_NS) if str(fmt) == "bpmn" else (namespace not in V.DMN_MODEL_NAMESPACES):
        raise ProjectError(f"{shown}: not a {str(fmt).upper()} document (root namespace "
                           f"{etree.QName(tree.getroot()).namespace})")
    return PayloadFile(iri=iri, relpath=str(rel), path=path, format=str(fmt), data=data, tree=tree)
