"""Names of classes and shapes in an answer: a full IRI or a prefixed name of the model.

The prompts of ``merge-shapes`` and ``gist-anchor`` show IRIs as prefixed
names where the model's TriG binds a prefix (``ex:ReviewForm``,
``gist:Event``), so an answer may use them, or the full IRI. Anything else
(a relative name, an unbound prefix, an IRI with spaces or angle brackets)
is refused naming the answer's key.
"""

from __future__ import annotations

import re
from typing import Any

from rdflib import URIRef

from seams.errors import GeneratorError
from seams.model.loading import Model
from seams.suggestions.answer import one_line

_FULL = re.compile(r"^(https?|urn):[^\s<>\"{}|\\^`]+$")
_PREFIXED = re.compile(r"^([A-Za-z][\w.-]*)?:([A-Za-z_][\w.-]*)$")


def answer_iri(model: Model, value: Any, key: str) -> URIRef:
    """``value`` as an IRI of the model's vocabulary; a GeneratorError names ``key``."""
    text = one_line(value, key)
    if _FULL.match(text):
        return URIRef(text)
    match = _PREFIXED.match(text)
    if match:
        namespaces = dict(model.union.namespace_manager.namespaces())
        namespace = namespaces.get(match.group(1) or "")
        if namespace is not None:
            return URIRef(str(namespace) + match.group(2))
    raise GeneratorError(f"answer {key}: {text!r} is neither a full IRI nor a prefixed name the model binds")
