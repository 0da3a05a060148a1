"""Undo: put back what the last ``files.apply`` replaced, byte for byte.

An entry is only trusted while the files still hold exactly what the apply
wrote: a file edited since (its sha256 differs) would lose that edit, so the
undo is refused and names it. A successful undo deletes its entry, so the
next undo takes back the apply before.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from seams.errors import EditError
from seams.project.limits import loads_json
from seams_edit.files import MANIFEST, commit, inside, read_or_none, sha256, undo_entries


def undo_dir(root: Path) -> Path:
    """Where applies made for the project at ``root`` record their undo entries."""
    return root.resolve() / ".seams" / "undo"


def undo_last(root: Path) -> list[Path]:
    """Restore the files of the last apply; return them (absolute paths) in manifest order."""
    root = root.resolve()
    entries = undo_entries(undo_dir(root))
    if not entries:
        raise EditError(f"nothing to undo: no apply recorded in {undo_dir(root)}")
    entry = entries[-1]
    writes = []
    for item in _manifest(entry):
        target = inside(root, Path(item["path"]))
        current = read_or_none(target)
        if current is None or sha256(current) != item["after_sha256"]:
            raise EditError(f"{item['path']}: changed since the apply (sha256 differs); undo refused")
        before = None if item["before"] is None else (entry / item["before"]).read_bytes()
        writes.append((target, before))
    commit(writes)
    shutil.rmtree(entry)
    return [target for target, _ in writes]


def _manifest(entry: Path) -> list[dict]:
    path = entry / MANIFEST
    try:
        files = loads_json(path.read_text(encoding="utf-8"))["files"]
        for item in files:
            if not isinstance(item["path"], str) or not isinstance(item["after_sha256"], str):
                raise TypeError("path and after_sha256 must be strings")
            if item["before"] is not None and ("/" in item["before"] or item["before"].startswith(".")):
                raise ValueError(f"bad saved file name {item['before']!r}")
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise EditError(f"{path}: unreadable undo manifest: {error}") from error
    return files
