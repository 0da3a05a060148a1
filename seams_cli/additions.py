"""Adding facts a person gave at the terminal to the model: an example (``seams example``) or a
scenario (``seams run --save-scenario``), through the one write path.

The values become ``rdf:JSON`` literals written as long strings (no escaped
quotes; seams.model.literals), with keys sorted, decimals exact and dates as
``YYYY-MM-DD`` text, so the same answers give the same bytes. The TriG is
patched by seams_edit (layout kept) under the project lock, only if the model
file is still what was read, and ``seams undo`` takes the addition back.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from datetime import date
from decimal import Decimal
from typing import Any

from rdflib import Literal, URIRef
from rdflib.namespace import RDF

from seams.errors import ProjectError
from seams.model.loading import Model
from seams.project.layout import Project
from seams.project.project_lock import project_lock


def json_text(value: Any) -> str:
    """Deterministic JSON: keys sorted, a Decimal as its digits (12.5, not "12.5"), a date as
    its ISO text. ``seams run`` prints variables with it too."""
    if isinstance(value, Mapping):
        items = sorted((str(k), v) for k, v in value.items())
        return "{" + ", ".join(f"{json.dumps(k, ensure_ascii=False)}: {json_text(v)}" for k, v in items) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(json_text(v) for v in value) + "]"
    if isinstance(value, Decimal):
        return str(value) if value.is_finite() else json.dumps(str(value))
    if isinstance(value, date):
        return json.dumps(value.isoformat())
    return json.dumps(value, ensure_ascii=False, default=str)


def json_literal(value: Any) -> Literal:
    return Literal(json_text(value), datatype=RDF.JSON)


def graph_of(model: Model, subject: URIRef) -> URIRef:
    """The named graph that holds ``subject``'s statements (the first, by IRI)."""
    graphs = sorted({str(g) for _, _, _, g in model.dataset.quads((subject, None, None, None)) if g is not None})
    if not graphs:
        raise ProjectError(f"{model.qname(subject)}: no statement in the model to add beside")
    return URIRef(graphs[0])


def add_to_model(project: Project, model: Model, quads: Sequence[tuple], *, command: str,
                 check: Callable[[bytes], None] | None = None) -> str:
    """Add ``quads`` to the model file (undoable); ``check`` sees the new TriG bytes first and
    raises to refuse them. Returns the model file as the user sees it."""
    from seams_edit import Patch, apply, apply_patch, undo_dir

    source = project.relative(project.model_path)
    with project_lock(project.root, timeout=project.config.lock_timeout, command=command):
        current = project.model_path.read_bytes()
        if current != model.trig_bytes:
            raise ProjectError(f"{source} changed meanwhile; run {command} again")
        new = apply_patch(current.decode("utf-8"), Patch(add=tuple(quads)), source=source).encode("utf-8")
        if check is not None:
            check(new)
        apply(project.root, {project.model_path: new}, undo_dir=undo_dir(project.root))
    return source
