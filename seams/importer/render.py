"""A new TriG file from a :class:`~seams.importer.plan.Plan`, laid out as a person would.

Used only for a file that does not exist yet (``seams init``); a change to an
existing file goes through seams_edit, which keeps the file's own layout.
Every choice is a function of the plan, so the same plan gives the same bytes:
prefixes in a fixed order, graphs seams, shapes, ontology, subjects in plan
order under a comment per section, one predicate per line, nested nodes on
one line each.
"""

from __future__ import annotations

import re
from decimal import Decimal

from rdflib import Literal, URIRef
from rdflib.namespace import OWL, RDF, RDFS, SH, XSD

from seams import vocab as V
from seams.importer.plan import ListOf, Nested, Object, Plan
from seams.model.literals import long_string

PREFIXES = (("seam", str(V.SEAM)), ("dec", str(V.DEC)), ("gist", str(V.GIST)), ("sh", str(SH)),
            ("owl", str(OWL)), ("rdf", str(RDF)), ("rdfs", str(RDFS)), ("xsd", str(XSD)))
ROLES = ("seams", "shapes", "ontology")
_HEADINGS = {
    "seams": "The seams graph: processes, tasks, variables and decisions, each tied to its\n"
             "# element in the native BPMN and DMN payloads (docs/model.md).",
    "shapes": "The shapes graph: the forms user tasks fill, as SHACL node shapes.",
    "ontology": "The ontology graph: your domain classes, anchored in gist (none yet).",
}
_PLAIN_LOCAL = re.compile(r"(?:[A-Za-z0-9_](?:[A-Za-z0-9_.\-]*[A-Za-z0-9_\-])?)?")
_ESCAPABLE = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_.\-/]*[A-Za-z0-9_\-/])?")
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
_NEEDS_ESCAPE = re.compile(r'[\\"\x00-\x1f\x7f]')


class _Terms:
    def __init__(self, base: str):
        prefixes = [*PREFIXES, ("ex", base)]
        self.prefixes = prefixes
        self._by_length = sorted(prefixes, key=lambda item: (-len(item[1]), item[0]))

    def iri(self, iri: URIRef) -> str:
        for prefix, namespace in self._by_length:
            if iri.startswith(namespace):
                local = iri[len(namespace):]
                if _PLAIN_LOCAL.fullmatch(local):
                    return f"{prefix}:{local}"
                if _ESCAPABLE.fullmatch(local):
                    return prefix + ":" + local.replace("/", "\\/")
        return "<" + str(iri) + ">"

    def literal(self, literal: Literal) -> str:
        lexical = str(literal)
        if literal.datatype == RDF.JSON:  # JSON as it is, no escaped quotes (seams.model.literals)
            long = long_string(lexical)
            if long is not None:
                return f"{long}^^{self.iri(literal.datatype)}"
        quoted = '"' + _NEEDS_ESCAPE.sub(lambda m: _ESCAPES.get(m.group(0), f"\\u{ord(m.group(0)):04X}"),
                                         lexical) + '"'
        if literal.datatype is None or literal.datatype == XSD.string:
            return quoted
        if literal.datatype == XSD.integer and re.fullmatch(r"-?(0|[1-9][0-9]*)", lexical):
            return lexical
        if literal.datatype == XSD.decimal:
            value = literal.toPython()
            if isinstance(value, Decimal) and re.fullmatch(r"-?[0-9]+\.[0-9]+", lexical):
                return lexical
        if literal.datatype == XSD.boolean and lexical in ("true", "false"):
            return lexical
        return f"{quoted}^^{self.iri(literal.datatype)}"

    def obj(self, obj: Object) -> str:
        if isinstance(obj, Nested):
            return "[ " + " ; ".join(f"{self.predicate(p)} {self.obj(o)}" for p, o in obj.facts) + " ]"
        if isinstance(obj, ListOf):
            return "( " + " ".join(self.literal(item) for item in obj.items) + " )"
        if isinstance(obj, Literal):
            return self.literal(obj)
        return self.iri(obj)

    def predicate(self, predicate: URIRef) -> str:
        return "a" if predicate == RDF.type else self.iri(predicate)


def render_trig(plan: Plan, base: str, graphs: dict[str, URIRef]) -> str:
    """The whole TriG file for ``plan``: prefixes, then the three named graphs."""
    terms = _Terms(base)
    width = max(len(prefix) for prefix, _ in terms.prefixes) + 1
    lines = [f"@prefix {prefix + ':':<{width}} <{namespace}> ." for prefix, namespace in terms.prefixes]
    for role in ROLES:
        lines += ["", f"# {_HEADINGS[role]}", f"{terms.iri(graphs[role])} {{"]
        section = None
        first = True
        for subject in (s for s in plan.subjects if s.role == role):
            if subject.section != section:
                if not first:
                    lines.append("")
                lines.append(f"    # {subject.section}")
                section = subject.section
            elif not first:
                lines.append("")
            first = False
            lines.extend(_statement(terms, subject.iri, subject.facts))
        lines.append("}")
    return "\n".join(lines) + "\n"


def _statement(terms: _Terms, iri: URIRef, facts) -> list[str]:
    grouped: dict[URIRef, list[Object]] = {}
    for predicate, obj in facts:
        grouped.setdefault(predicate, []).append(obj)
    parts = []
    for predicate, objects in grouped.items():
        written = [terms.obj(o) for o in objects]
        if any(isinstance(o, Nested) for o in objects):
            joined = " ,\n            ".join(written)
        else:
            joined = ", ".join(written)
        parts.append(f"{terms.predicate(predicate)} {joined}")
    head, *rest = parts
    lines = [f"    {terms.iri(iri)} {head}" + (" ;" if rest else " .")]
    for index, part in enumerate(rest):
        lines.append(f"        {part}" + (" ." if index == len(rest) - 1 else " ;"))
    return lines
