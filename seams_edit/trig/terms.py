"""How a new term is written: prefixed names, literal shorthand, nested blank nodes.

Only terms the patch adds pass through here; terms already in the file keep
their own text. Every choice is a function of the term and the prefixes in
force, so the same patch writes the same bytes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from rdflib.namespace import RDF, XSD
from rdflib.term import BNode, Identifier, Literal, URIRef

from seams.errors import EditError
from seams.model.literals import long_string
from seams_edit.trig.mimic import Layout

# a conservative PN_LOCAL: what every Turtle reader (rdflib included) takes unescaped
_PLAIN_LOCAL = re.compile(r"(?:[A-Za-z0-9_](?:[A-Za-z0-9_.\-]*[A-Za-z0-9_\-])?)?")
_ESCAPABLE_LOCAL = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_.\-/]*[A-Za-z0-9_\-/])?")
_CANONICAL = {
    XSD.integer: re.compile(r"-?(?:0|[1-9][0-9]*)"),
    XSD.decimal: re.compile(r"-?(?:0|[1-9][0-9]*)\.(?:0|[0-9]*[1-9])"),
    XSD.boolean: re.compile(r"true|false"),
}
_STRING_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
_NEEDS_ESCAPE = re.compile(r'[\\"\x00-\x1f\x7f]')
_IRI_FORBIDDEN = re.compile(r'[\x00-\x20<>"{}|^`\\]')
_PLAIN = Layout()  # no neighbour to follow: the file's comma, multi-line nodes, names sorted

Description = Mapping[BNode, Sequence[tuple[URIRef, Identifier]]]
"""What the patch says about each new blank node: its (predicate, object) pairs."""


class TermWriter:
    """Writes terms with the prefixes in force where they will stand."""

    def __init__(self, prefixes: Mapping[str, str], continuation: str, comma: str):
        # longest namespace first, then prefix name: the most specific prefixed name wins
        self._prefixes = sorted(prefixes.items(), key=lambda item: (-len(item[1]), item[0]))
        self._continuation = continuation
        self._comma = comma

    def iri(self, iri: URIRef, *, escape_slash: bool = False) -> str:
        for prefix, namespace in self._prefixes:
            if iri.startswith(namespace):
                local = iri[len(namespace) :]
                if _PLAIN_LOCAL.fullmatch(local):
                    return f"{prefix}:{local}"
                if escape_slash and _ESCAPABLE_LOCAL.fullmatch(local):
                    return prefix + ":" + local.replace("/", "\\/")
        return iri_ref(iri)

    def predicate(self, predicate: URIRef) -> str:
        return "a" if predicate == RDF.type else self.iri(predicate)

    def literal(self, literal: Literal) -> str:
        lexical = str(literal)
        if literal.datatype == RDF.JSON:  # JSON as it is, no escaped quotes (seams.model.literals)
            long = long_string(lexical)
            if long is not None:
                return f"{long}^^{self.iri(literal.datatype)}"
        quoted = '"' + _NEEDS_ESCAPE.sub(_escape_char, lexical) + '"'
        if literal.language:
            return f"{quoted}@{literal.language}"
        if literal.datatype is None:
            return quoted
        canonical = _CANONICAL.get(literal.datatype)
        if canonical is not None and canonical.fullmatch(lexical):
            return lexical
        return f"{quoted}^^{self.iri(literal.datatype)}"

    def term(
        self, term: Identifier, description: Description, indent: str, layout: Layout = _PLAIN, inline: bool = False
    ) -> str:
        """A term as an object; a blank node is written nested from ``description``, its
        predicates ordered by ``layout``, on one line when ``inline`` and nothing inside spans lines."""
        if isinstance(term, Literal):
            return self.literal(term)
        if isinstance(term, URIRef):
            return self.iri(term)
        if isinstance(term, BNode):
            return self._bnode(term, description, indent, layout, inline)
        raise EditError(f"cannot write term {term!r}")

    def predicate_objects(
        self,
        predicate: URIRef,
        objects: Sequence[Identifier],
        description: Description,
        indent: str,
        layout: Layout = _PLAIN,
    ) -> str:
        """``predicate object, object``, separated and nested the way ``layout`` writes ``predicate``.

        A nested ``[ ... ]`` indents from the line its ``[`` lands on, which a
        separator with a line break moves.
        """
        separator = layout.separators.get(predicate, self._comma)
        nested, inline = layout.nested.get(predicate, _PLAIN), predicate in layout.inline
        later = separator.rsplit("\n", 1)[1] if "\n" in separator else indent
        written = separator.join(
            self.term(o, description, later if index else indent, nested, inline) for index, o in enumerate(objects)
        )
        return f"{self.predicate(predicate)} {written}"

    def ordered_predicates(self, predicates: Sequence[URIRef], layout: Layout = _PLAIN) -> list[URIRef]:
        """rdf:type first, then those ``layout`` writes in its order, then by the name as written."""
        return sorted(dict.fromkeys(predicates), key=lambda p: (p != RDF.type, *layout.rank(p), self.predicate(p)))

    def _bnode(self, node: BNode, description: Description, indent: str, layout: Layout, inline: bool) -> str:
        pairs = description.get(node, ())
        items = _list_items(node, description)
        if items is not None:
            inner = " ".join(self.term(item, description, indent) for item in items)
            return f"( {inner} )" if inner else "()"
        if not pairs:
            return "[]"
        by_predicate: dict[URIRef, list[Identifier]] = {}
        for predicate, obj in pairs:
            by_predicate.setdefault(predicate, []).append(obj)
        inner_indent = indent + self._continuation
        lines = [
            self.predicate_objects(p, by_predicate[p], description, inner_indent, layout)
            for p in self.ordered_predicates(list(by_predicate), layout)
        ]
        if len(lines) == 1:
            return f"[ {lines[0]} ]"
        if inline and not any("\n" in line for line in lines):
            return f"[ {layout.semicolon.join(lines)} ]"
        body = f" ;\n{inner_indent}".join(lines)
        return f"[\n{inner_indent}{body} ]"


def iri_ref(iri: str) -> str:
    """``<IRI>``, with the characters an IRIREF may not hold written as ``\\u`` escapes."""
    return "<" + _IRI_FORBIDDEN.sub(lambda m: f"\\u{ord(m.group()):04X}", iri) + ">"


def _list_items(node: BNode, description: Description) -> list[Identifier] | None:
    """The members if ``node`` heads a well-formed RDF list the patch describes, else None."""
    items: list[Identifier] = []
    current: Identifier = node
    while current != RDF.nil:
        pairs = description.get(current, ()) if isinstance(current, BNode) else ()
        if len(pairs) != 2 or {p for p, _ in pairs} != {RDF.first, RDF.rest}:
            return None
        items.append(next(o for p, o in pairs if p == RDF.first))
        current = next(o for p, o in pairs if p == RDF.rest)
    return items


def _escape_char(match: re.Match[str]) -> str:
    char = match.group()
    return _STRING_ESCAPES.get(char) or f"\\u{ord(char):04X}"
