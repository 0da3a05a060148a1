"""seams_edit: the one write path of seams (docs/architecture.md, D-one-write-path).

Model changes arrive as a ``Patch``; ``apply_patch`` turns it into new TriG
text without disturbing the file's layout; ``files.apply`` writes every
changed file or none and records an undo entry; ``undo_last`` restores the
last apply byte for byte. Payloads go through ``load_payload`` /
``save_payload``, which give back the modeler's bytes wherever nothing
changed; ``insert_task_before``, ``set_condition``, ``add_decision`` and
``new_dmn_payload`` are the payload edits suggestions need.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from seams_edit.bpmn import InsertResult, insert_task_before, set_condition
    from seams_edit.dmn import add_decision, new_dmn_payload
    from seams_edit.files import ApplyRecord, apply
    from seams_edit.patch import Patch, Quad
    from seams_edit.trig.patching import apply_patch
    from seams_edit.undo import undo_dir, undo_last
    from seams_edit.xml import Payload, ensure_namespace, insert_child, load_payload, remove_child, save_payload

# Each name's module, imported when the name is first used: a command that only recovers an
# interrupted apply (seams_cli.recovery, before every command) loads seams_edit.undo alone.
_HOMES = {
    "InsertResult": "bpmn", "insert_task_before": "bpmn", "set_condition": "bpmn",
    "add_decision": "dmn", "new_dmn_payload": "dmn",
    "ApplyRecord": "files", "apply": "files",
    "Patch": "patch", "Quad": "patch",
    "apply_patch": "trig.patching",
    "undo_dir": "undo", "undo_last": "undo",
    "Payload": "xml", "load_payload": "xml", "save_payload": "xml", "ensure_namespace": "xml",
    "insert_child": "xml", "remove_child": "xml",
}

__all__ = [
    "ApplyRecord", "Patch", "Quad", "apply", "apply_patch", "undo_dir", "undo_last",
    "Payload", "load_payload", "save_payload", "ensure_namespace", "insert_child", "remove_child",
    "InsertResult", "insert_task_before", "set_condition", "add_decision", "new_dmn_payload",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'seams_edit' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"seams_edit.{home}"), name)
    globals()[name] = value
    return value
