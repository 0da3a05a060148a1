"""``seams.lock``: what seams wrote on the project's behalf, so edits by hand show.

Two records live in one JSON file (docs/generators.md, docs/propose.md): the sha256 of every file
``seams generate`` wrote, keyed by its path relative to the project root, and
the accepted drafts of ``seams propose`` (docs/propose.md), sorted by task. The
bytes are canonical (keys sorted, two-space indent, one trailing newline), so
the same lock is always the same file and a diff of it reads well in review.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from seams.errors import ProjectError
from seams.fs import atomic_write
from seams.project.limits import LimitError, loads_json

if TYPE_CHECKING:
    from seams.project.layout import Project

_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_KEYS = ("drafts", "generated")


@dataclass
class Lock:
    drafts: list[dict[str, Any]] = field(default_factory=list)
    generated: dict[str, str] = field(default_factory=dict)


def read_lock(project: Project) -> Lock:
    """The project's lock; an absent file is an empty lock, a malformed one a ProjectError."""
    path = project.lock_path
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Lock()
    except (OSError, UnicodeDecodeError) as exc:
        raise ProjectError(f"{path.name}: cannot read: {exc}") from None
    try:
        data = loads_json(text)
    except json.JSONDecodeError as exc:
        raise ProjectError(f"{path.name}: not valid JSON: {exc.msg} (line {exc.lineno})") from None
    except LimitError as exc:
        raise ProjectError(f"{path.name}: {exc}") from None
    return _lock_from(data, path.name)


def _lock_from(data: Any, source: str) -> Lock:
    if not isinstance(data, dict):
        raise ProjectError(f"{source}: must hold a JSON object")
    for key in data:
        if key not in _KEYS:
            raise ProjectError(f"{source}: unknown key {key}")
    drafts = data.get("drafts", [])
    if not isinstance(drafts, list) or not all(isinstance(d, dict) for d in drafts):
        raise ProjectError(f"{source}: drafts must be a list of objects")
    generated = data.get("generated", {})
    if not isinstance(generated, dict):
        raise ProjectError(f"{source}: generated must be an object")
    for path, digest in generated.items():
        if not isinstance(digest, str) or not _SHA256.match(digest):
            raise ProjectError(f"{source}: generated.{path} must be a sha256 hex digest")
    return Lock(drafts=list(drafts), generated=dict(generated))


def lock_bytes(lock: Lock) -> bytes:
    """The canonical bytes: both keys always present, drafts sorted by task."""
    data = {
        "drafts": sorted(lock.drafts, key=lambda record: str(record.get("task", ""))),
        "generated": dict(lock.generated),
    }
    return (json.dumps(data, sort_keys=True, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def write_lock(project: Project, lock: Lock) -> bool:
    """Write the lock when its bytes change; True when the file was written."""
    return write_if_changed(project.lock_path, lock_bytes(lock))


def write_if_changed(path: Path, data: bytes) -> bool:
    """Atomically replace ``path`` by ``data`` unless it already holds exactly those bytes.

    Leaving an unchanged file alone keeps its mtime, so build tools and
    editors watching it see nothing happen when nothing happened.
    """
    try:
        if path.read_bytes() == data:
            return False
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        pass
    atomic_write(path, data)
    return True
