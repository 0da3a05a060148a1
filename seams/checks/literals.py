"""Literals whose text is not a value of their datatype (``"abc"^^xsd:integer``).

rdflib keeps such a literal (``ill_typed``) and logged a traceback for it
while parsing, then every check went on with a value of None. Each one is a
``shape`` finding naming the subject and predicate instead (docs/model.md);
the parser's log lines are silenced while the model loads
(seams.model.loading).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rdflib import Literal, URIRef

from seams.findings import Finding

if TYPE_CHECKING:
    from seams.model.loading import Model

KIND = "shape"


def ill_typed_findings(model: Model) -> list[Finding]:
    found = set()
    for subject, predicate, value in model.union:
        if isinstance(value, Literal) and value.ill_typed and isinstance(predicate, URIRef):
            where = model.qname(subject) if isinstance(subject, URIRef) else "[]"
            datatype = model.qname(value.datatype) if value.datatype is not None else "datatype"
            found.add(Finding(KIND, where, model.qname(predicate),
                              f'"{str(value)[:60]}" is not a valid {datatype}'))
    return sorted(found)
