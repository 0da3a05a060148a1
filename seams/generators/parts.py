"""Composable generators: what the built-ins and the registry share about parts.

A composable generator gives its files as parts (``seams_generate_parts``:
path -> {part key -> bytes}) and builds each file from the merged parts of
every component of the model (``seams_assemble``); see
seams.generators.hookspecs for the contract and docs/generators.md,
"Composable generators". The built-ins implement ``seams_generate`` with
:func:`assembled`, so the whole-model output and the assembled parts are one
code path; parts that carry more than text are JSON objects
(:func:`json_part`, :func:`read_json_part`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from seams.errors import GeneratorError

Parts = Mapping[str, Mapping[str, bytes]]
"""path -> {part key -> part bytes}: what ``seams_generate_parts`` returns."""


def assembled(parts: Parts, assemble: Callable[..., bytes]) -> dict[str, bytes]:
    """Every file of ``parts`` built by ``assemble(path=..., parts=...)``: a generator's
    ``seams_generate`` from its own ``seams_generate_parts`` (contract (a))."""
    return {path: assemble(path=path, parts=file_parts) for path, file_parts in parts.items()}


def merge_parts(components: Iterable[Parts]) -> tuple[dict[str, dict[str, bytes]], list[tuple[str, str]]]:
    """The parts of several components as one model's: for every path, the union of their parts.

    Returns the merged parts and the ``(path, key)`` pairs two components both produced,
    sorted. Any such pair means the generator is not composable on this model (contract
    (c)): the caller runs it on the whole model instead. A path listed with no parts
    stays listed.
    """
    merged: dict[str, dict[str, bytes]] = {}
    clashes: set[tuple[str, str]] = set()
    for parts in components:
        for path, file_parts in parts.items():
            into = merged.setdefault(path, {})
            for key, data in file_parts.items():
                if key in into:
                    clashes.add((path, key))
                into[key] = data
    return merged, sorted(clashes)


def json_part(value: Mapping[str, Any]) -> bytes:
    """A part holding a JSON object: keys sorted, so one value gives one byte string."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def read_json_part(generator: str, path: str, key: str, data: bytes, fields: Mapping[str, type]) -> dict[str, Any]:
    """The JSON object of a part, with each of ``fields`` of its type, else a GeneratorError
    naming the generator, the path and the part key (a part some other generator wrote)."""
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise GeneratorError(f"{generator}: {path} part {key!r} is no JSON object ({exc})") from None
    if not isinstance(value, dict):
        raise GeneratorError(f"{generator}: {path} part {key!r} is no JSON object")
    for field, kind in fields.items():
        if not isinstance(value.get(field), kind):
            raise GeneratorError(f"{generator}: {path} part {key!r} has no {field} of type {kind.__name__}")
    return value
