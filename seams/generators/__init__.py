"""Generators: read the model, return files (docs/generators.md).

``hookspecs`` is the interface (the pluggy hook ``seams_generate``, and the optional
``seams_generate_parts`` and ``seams_assemble`` of a composable generator, whose
shared pieces are in ``parts``);
``registry`` the plugin manager that holds the built-ins (``stubs``: the handler stubs,
``decisions``: DMN tables as functions) and the installed packages of the
entry point group ``seams.generators``; ``new_generator`` scaffolds such a
package from a reference output (``seams new-generator``). Importing this
package loads nothing else: the registry is built when a run needs it.
"""

from __future__ import annotations

from seams.generators.hookspecs import ENTRY_POINT_GROUP, hookimpl, hookspec

__all__ = ["ENTRY_POINT_GROUP", "hookimpl", "hookspec"]
