"""Atomic multi-file writes: every changed file is written, or none is.

A model change spans the TriG file and its payloads; a half-written change
would leave a model whose facts and payloads disagree. So each new content
first goes to a temporary file beside its target, and only when all of them
exist are they moved into place with ``os.replace``; if one move fails, the
files already replaced get their old bytes back.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from seams.errors import EditError
from seams.fs import ensure_local_dir, resolve_inside, sha256_hex
from seams.project.writes import WriteError, write_all
from seams_edit.journal import APPLIED, APPLYING, rename_point, sync_directory

MANIFEST = "manifest.json"


@dataclass(frozen=True)
class ApplyRecord:
    """What an apply changed (absolute paths) and the undo entry that can take it back."""

    root: Path
    changed: tuple[Path, ...]
    undo_entry: Path | None


def inside(root: Path, path: Path) -> Path:
    """``path`` (relative to ``root`` or absolute) resolved, refused if it leaves ``root``."""
    target = resolve_inside(root, path)
    if target is None:
        raise EditError(f"{path}: outside the project root {root.resolve()}")
    return target


def read_or_none(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise EditError(f"{path}: cannot read: {error.strerror or error}") from error


def apply(root: Path, changes: Mapping[Path, bytes], *, undo_dir: Path | None) -> ApplyRecord:
    """Write ``changes`` (path -> new bytes) all or none; record an undo entry under ``undo_dir``.

    Files whose bytes would not change are left alone; when nothing changes,
    nothing is written and no undo entry is made.
    """
    root = root.resolve()
    planned: dict[Path, tuple[bytes, bytes | None]] = {}
    for path, content in changes.items():
        if not isinstance(content, bytes):
            raise EditError(f"{path}: new content must be bytes, not {type(content).__name__}")
        target = inside(root, Path(path))
        if target.is_dir():
            raise EditError(f"{path}: is a directory")
        before = read_or_none(target)
        if before != content:
            planned[target] = (content, before)
    if not planned:
        return ApplyRecord(root, (), None)
    ordered = sorted(planned)
    entry = None
    if undo_dir is not None:  # the journal: on disk before the first rename (seams_edit.journal)
        entry = _record_undo(root, undo_dir, [(t, *planned[t]) for t in ordered])
    try:
        commit([(target, planned[target][0]) for target in ordered], journaled=entry is not None, root=root)
    except EditError:
        if entry is not None:
            shutil.rmtree(entry, ignore_errors=True)
        raise
    if entry is not None:
        set_state(entry, APPLIED)
    return ApplyRecord(root, tuple(ordered), entry)


def commit(writes: list[tuple[Path, bytes | None]], *, journaled: bool = True, root: Path | None = None) -> None:
    """Give each path its new bytes (None: delete it), all or none, through the one
    all-or-none writer (seams.project.writes). ``journaled`` is False for a write no undo
    entry records (a scratch copy): the crash tests' hook counts only the others. A message
    names a file relative to ``root`` when it is given."""

    def shown(path: Path) -> str:
        if root is not None and path.is_relative_to(root):
            return path.relative_to(root).as_posix()
        return str(path)

    try:
        write_all(dict(writes), shown=shown, before_rename=rename_point if journaled else None)
    except WriteError as error:
        raise EditError(str(error)) from error


def _record_undo(root: Path, undo_dir: Path, planned: list[tuple[Path, bytes, bytes | None]]) -> Path:
    """Store the bytes an apply replaces, as ``<undo_dir>/<seq>-<sha>/``, written atomically."""
    undo_dir = undo_dir if undo_dir.is_absolute() else root / undo_dir
    ensure_local_dir(root, undo_dir)
    staging = undo_dir / f".staging-{secrets.token_hex(6)}"
    staging.mkdir()
    try:
        files = []
        for index, (target, after, before) in enumerate(planned):
            saved = None
            if before is not None:
                saved = f"{index}.before"
                _write_synced(staging / saved, before)
            relative = target.relative_to(root).as_posix()
            files.append({"path": relative, "before": saved, "after_sha256": sha256_hex(after)})
        manifest = _manifest_bytes(files, APPLYING)
        _write_synced(staging / MANIFEST, manifest)
        sync_directory(staging)
        entry = undo_dir / f"{next_sequence(undo_dir):06d}-{sha256_hex(manifest)[:12]}"
        rename_point()
        os.rename(staging, entry)
        sync_directory(undo_dir)
    except OSError as error:
        shutil.rmtree(staging, ignore_errors=True)
        raise EditError(f"{undo_dir}: cannot record the undo entry: {error.strerror or error}") from error
    return entry


def _manifest_bytes(files: list[dict], state: str) -> bytes:
    return json.dumps({"version": 1, "state": state, "files": files}, indent=2, sort_keys=True).encode() + b"\n"


def _write_synced(path: Path, data: bytes) -> None:
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def set_state(entry: Path, state: str) -> None:
    """Rewrite the entry's manifest with ``state`` (atomically, synced): the journal's marks."""
    path = entry / MANIFEST
    data = json.loads(path.read_text(encoding="utf-8"))
    temporary = entry / f".{MANIFEST}.{secrets.token_hex(6)}.tmp"
    try:
        _write_synced(temporary, _manifest_bytes(data["files"], state))
        rename_point()
        os.replace(temporary, path)
        sync_directory(entry)
    except OSError as error:
        temporary.unlink(missing_ok=True)
        raise EditError(f"{path}: cannot record the undo state: {error.strerror or error}") from error


def undo_entries(undo_dir: Path) -> list[Path]:
    """The recorded applies, oldest first (a symlink is listed too: undo refuses it by name)."""
    if not undo_dir.is_dir():
        return []
    entries = [p for p in undo_dir.iterdir()
               if (p.is_dir() or p.is_symlink()) and p.name.split("-", 1)[0].isdigit()]
    return sorted(entries, key=lambda p: (int(p.name.split("-", 1)[0]), p.name))


def next_sequence(undo_dir: Path) -> int:
    entries = undo_entries(undo_dir)
    return int(entries[-1].name.split("-", 1)[0]) + 1 if entries else 1
