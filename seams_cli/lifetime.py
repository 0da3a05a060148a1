"""Loading the model a command keeps until it ends, without the garbage collector's rescans.

A large model is hundreds of thousands of objects the collector tracks, and
they live as long as the command. While they are built, collections only
find them all alive; after that, every full collection walks them again
while the checks allocate. Pausing collection during the load and freezing
what exists afterwards (moving it out of the collector's generations) saves
about a quarter of ``seams check`` on a 400-process model. The freeze ends
with the command, so a caller that runs commands in-process (the tests do)
gets its garbage collected as before.

While the command then works on the model (the checks, the generators,
pyshacl) it allocates many small objects that die young and almost never
form cycles, so the youngest generation is collected every
``YOUNG_THRESHOLD`` allocations instead of Python's 700: the collector
then runs hundreds of times less often, for the same peak memory on a
400-process ``seams check`` (docs/performance.md). The thresholds are
restored when the command ends.

A re-check of the components an edit touched (seams.checks.incremental) holds
no model but reads and rewrites what the last check kept (the record, the
layout, the statement pack: tens of thousands of small lists and strings
that all stay alive until it ends), so it runs with collection paused
(``paused_collection``); it allocates a bounded amount, freed when it ends,
and what outlives it (the modules it imported) is frozen, as the modules a
command imports are (seams_cli.main).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from seams.model.loading import Model
    from seams.model.statement_cache import StatementPack
    from seams.project.layout import Project


YOUNG_THRESHOLD = 50_000
"""Allocations between two collections of the youngest generation while a command holds its model."""


@contextmanager
def command_model(project: Project, *, statements: StatementPack | None = None) -> Iterator[Model]:
    """``load_model(project, statements=statements)`` for the length of the ``with`` block."""
    from seams.model.loading import load_model  # here: seams_cli.main imports this module first

    with paused_collection():
        model = load_model(project, statements=statements)
    thresholds = gc.get_threshold()
    gc.set_threshold(max(thresholds[0], YOUNG_THRESHOLD), *thresholds[1:])
    try:
        yield model
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()


@contextmanager
def paused_collection() -> Iterator[None]:
    """No garbage collection for the length of the ``with`` block, and what it left alive
    frozen after it (``gc.freeze``): the modules it imported and what it returns live until
    the command ends, and the first collection after the block would otherwise walk them
    all (45 ms of a 650 ms re-check, docs/performance.md). ``seams_cli.main.main``
    unfreezes when the command returns, so an in-process caller's garbage is collected
    as before."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()
