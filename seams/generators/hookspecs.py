"""The generator interface: one pluggy hook, called with keyword arguments.

Built-ins and installed generator packages implement the same hook, so
``seams generate`` treats them alike; a generator is any object (a module, a
class instance) with a ``seams_generate`` implementation marked with
:data:`hookimpl`. An implementation may accept any subset of the arguments
(pluggy passes only the ones it names), so a package that only needs the
TriG path never touches seams' Model API.
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
