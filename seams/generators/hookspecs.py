"""The generator interface: pluggy hooks, called with keyword arguments.

Built-ins and installed generator packages implement the same hooks, so
``seams generate`` treats them alike; a generator is any object (a module, a
class instance) with a ``seams_generate`` implementation marked with
:data:`hookimpl`. An implementation may accept any subset of the arguments
(pluggy passes only the ones it names), so a package that only needs the
TriG path never touches seams' Model API.

Two more hooks are optional and go together: ``seams_generate_parts`` and
``seams_assemble`` make a generator *composable*, so an incremental check
can know its output for the whole model from the parts each independent
component of the model gives (docs/generators.md, "Composable generators").
A generator that implements neither is run on the whole model, as always.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from seams.model.loading import Model

PROJECT_NAME = "seams"
ENTRY_POINT_GROUP = "seams.generators"

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


@hookspec
def seams_generate(model: Model, trig: Path, out_dir: Path) -> Mapping[str, bytes]:
    """Return the files this generator produces, read from the model.

    :param model: the loaded model (``seams.model.Model``: dataset, payloads, typed view).
    :param trig: the model's TriG file; payload paths in it are relative to its directory.
    :param out_dir: the project's generated directory, where the files will be written.
    :returns: file bytes by path relative to ``out_dir`` (forward slashes). Raise
        ``seams.errors.GeneratorError`` naming the subject at fault when the model
        does not let the generator produce its output.
    """
    raise NotImplementedError  # a specification: pluggy calls the implementations, never this


@hookspec
def seams_generate_parts(model: Model, trig: Path, out_dir: Path) -> Mapping[str, Mapping[str, bytes]]:
    """Return this generator's files as parts: path -> {part key -> part bytes}.

    Optional; a generator that implements it implements :func:`seams_assemble` too, and then:

    (a) **One output.** ``seams_generate(M)`` has exactly the paths of
        ``seams_generate_parts(M)`` and each of its files equals
        ``seams_assemble(path, parts[path])``. The built-ins implement
        ``seams_generate`` by assembling their own parts, so this holds by construction.
    (b) **Parts compose.** Each part depends only on the model facts of the component it
        comes from. The model's components are its statements joined by the model's own
        IRIs, with the payload files they name (payloads joined by the ids they declare or
        reference). For a model made of independent components (no shared IRI, no shared
        payload id) the parts of the whole are, for every path, the disjoint union of the
        parts each component's sub-model gives. A path the generator writes with no parts
        is still listed, with ``{}``. Facts of the project rather than of the model (the
        TriG path, the handlers package, ``seams.toml``) may appear in every part.
    (c) **Keys are unique.** A part key names one part of one path across the whole
        model. A caller that merges the parts of several components treats a key two
        components produce as "not composable" and runs ``seams_generate`` on the whole
        model instead, so a generator that must see two components together (a name the
        whole module may hold once, a clash it refuses) gives that name a key: the clash
        then sends the caller to the full run, which reports it.

    :param model: as for :func:`seams_generate`.
    :param trig: as for :func:`seams_generate`.
    :param out_dir: as for :func:`seams_generate`.
    :returns: part bytes by part key (any str) by file path (relative to ``out_dir``,
        forward slashes). Raise ``seams.errors.GeneratorError`` as ``seams_generate`` would.
    """
    raise NotImplementedError  # a specification


@hookspec
def seams_assemble(path: str, parts: Mapping[str, bytes]) -> bytes:
    """Return one file's bytes from its parts: those of every component for ``path``, merged.

    A pure function of ``(path, parts)``: the order of the parts in the file is decided
    here (by key, or by something the parts encode), never by the order of ``parts``, and
    whatever the file holds that depends on the whole set (an ``__all__``, the helpers
    or imports some part needs, a table of every task) is derived here from the parts.

    :param path: a path ``seams_generate_parts`` listed.
    :param parts: part bytes by part key; may be empty (a path listed with ``{}``).
    :returns: the file's bytes. Raise ``seams.errors.GeneratorError`` for parts this
        generator did not produce (a part it cannot read).
    """
    raise NotImplementedError  # a specification
