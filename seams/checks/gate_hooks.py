"""The gate interface: one pluggy hook that adds gates to the registry.

The core's own gates are registered as a built-in plugin; a layer above
(``seams_runtime``'s scenarios, say) or an installed package adds its gates
by implementing :func:`seams_gates` in a module named under the entry point
group :data:`ENTRY_POINT_GROUP`, loaded only when the registry is first read.
So the core names no module above it, and the import graph shows every
dependency (docs/architecture.md).
"""

from __future__ import annotations

from typing import Any

import pluggy

PROJECT_NAME = "seams"
ENTRY_POINT_GROUP = "seams.gates"

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


@hookspec
def seams_gates() -> list[Any]:
    """Return the gates (``seams.checks.registry.Gate``) this plugin adds, each with a name no
    other gate has."""
    raise NotImplementedError  # a specification: pluggy calls the implementations, never this
