"""Reading BPMN and DMN payloads safely.

Payloads come from outside (a modeler's files, an LLM's suggestion), so the
parser resolves no entity, loads no DTD, touches no network and refuses any
document that declares a DTD at all: refusing is simpler to reason about
than trusting that every expansion is off.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree
from rdflib import URIRef

from seams import vocab as V
from seams.errors import ProjectError


@dataclass(frozen=True)
class PayloadFile:
    """One native payload: where the model says it is, and its parsed tree."""

    iri: URIRef
    relpath: str  # as written in seam:path (relative to the TriG file's directory)
    path: Path
    format: str
    data: bytes
    tree: etree._ElementTree = field(compare=False, repr=False)

    @property
    def dmn(self) -> V.DmnNamespaces:
        """The namespaces of this DMN payload's version (1.3's for a payload that is not DMN)."""
        return dmn_namespaces(self.tree)


def dmn_namespaces(tree: etree._ElementTree | etree._Element) -> V.DmnNamespaces:
    """The DMN version and namespaces a document is written in, read from its root's namespace;
    DMN 1.3's when the root is no DMN ``definitions`` of a known version."""
    root = tree.getroot() if isinstance(tree, etree._ElementTree) else tree.getroottree().getroot()
    namespace = etree.QName(root).namespace
    return V.DMN_MODEL_NAMESPACES.get(namespace or "", V.DMN_VERSIONS[V.DMN_DEFAULT_VERSION])


def _parser() -> etree.XMLParser:
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
        strip_cdata=False,
        remove_blank_text=False,
    )


# a DTD marker in every encoding an XML parser detects on its own (UTF-16/32 included)
_DTD_MARKERS = tuple(marker.encode(encoding) for marker in ("<!DOCTYPE", "<!ENTITY")
                     for encoding in ("utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"))


def parse_xml(data: bytes, *, source: str) -> etree._ElementTree:
    """Parse payload bytes; ``source`` names the file in every error."""
    if any(marker in data for marker in _DTD_MARKERS):
        raise ProjectError(f"{source}: a DTD is not allowed in a payload")
    try:
        tree = etree.ElementTree(etree.fromstring(data, _parser()))
    except etree.XMLSyntaxError as exc:
        raise ProjectError(f"{source}: not well-formed XML: {exc.msg} (line {exc.lineno})") from None
    if tree.docinfo.doctype or tree.docinfo.internalDTD is not None:
        raise ProjectError(f"{source}: a DTD is not allowed in a payload")
    return tree

