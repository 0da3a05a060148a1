"""The DMN files a DMN payload imports, found among the project's DMN payloads.

A ``dmn:import`` names a model by its definitions ``namespace`` and says
where it is with ``locationURI`` (DMN 1.5, 6.3.3). seams takes only a DMN file
the project declares (a ``seam:Payload`` of ``seam:format "dmn"``): the one
at the import's ``locationURI`` relative to the importing file when that
file has the namespace, else the first by ``seam:path`` with that namespace.
Nothing outside the model directory is read. Imports of imports are
followed, so a decision the interpreter evaluates finds every model it
reaches (docs/model.md, "DMN decisions").
"""

from __future__ import annotations

import weakref
from pathlib import Path
from typing import TYPE_CHECKING

from lxml import etree

if TYPE_CHECKING:
    from seams.model.loading import Model
    from seams.model.payloads import PayloadFile

MAX_IMPORTS = 64
"""Models followed from one payload at most (a cap: imports are untrusted text)."""


_FOUND: weakref.WeakKeyDictionary[Model, dict[str, dict[str, PayloadFile]]] = weakref.WeakKeyDictionary()


def imported_payloads(model: Model, payload: PayloadFile) -> dict[str, PayloadFile]:
    """The project's DMN payloads ``payload`` imports (directly or through others), by namespace; found
    once per model and payload (the check and the generator ask for each decision of the file)."""
    found = _FOUND.setdefault(model, {})
    if payload.relpath not in found:
        found[payload.relpath] = _find(model, payload)
    return found[payload.relpath]


def _find(model: Model, payload: PayloadFile) -> dict[str, PayloadFile]:
    dmn = sorted((p for p in model.payloads.values() if p.format == "dmn"), key=lambda p: p.relpath)
    by_namespace: dict[str, list[PayloadFile]] = {}
    for each in dmn:
        by_namespace.setdefault(each.tree.getroot().get("namespace") or "", []).append(each)
    found: dict[str, PayloadFile] = {}
    todo = [payload]
    own = payload.tree.getroot().get("namespace") or ""
    while todo and len(found) < MAX_IMPORTS:
        current = todo.pop(0)
        for element in current.tree.getroot().iterfind("{*}import"):
            namespace = element.get("namespace") or ""
            if namespace in found or namespace == own or namespace not in by_namespace:
                continue
            chosen = _at_location(current.path, element.get("locationURI"), by_namespace[namespace])
            found[namespace] = chosen
            todo.append(chosen)
    return found


def imported_roots(model: Model, payload: PayloadFile) -> dict[str, etree._Element]:
    """``imported_payloads`` as the root elements seams.lang.dmn_expression reads."""
    return {namespace: p.tree.getroot() for namespace, p in imported_payloads(model, payload).items()}


def _at_location(importer: Path, location: str | None, candidates: list[PayloadFile]) -> PayloadFile:
    if location and "://" not in location:
        wanted = (importer.parent / location).resolve()
        for candidate in candidates:
            if candidate.path == wanted:
                return candidate
    return candidates[0]
