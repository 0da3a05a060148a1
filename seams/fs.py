"""Small file-system helpers every layer shares: paths kept inside a root, content hashes,
atomic writes, and the names of the files and variables a project is found by.

Defined once here so the core, the editor (seams_edit), the plugin and the CLI agree:
one write path that a reader never sees half-done (a temporary file beside the target,
flushed to disk, then ``os.replace``), one hex sha256, one containment rule.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import stat
from collections.abc import Iterable
from pathlib import Path

from seams.errors import EditError

CONFIG_NAME = "seams.toml"
"""The project's config file; its directory is the project root (and pytest collects it)."""
MODEL_ENV = "SEAMS_MODEL"
"""The variable naming the TriG file to use instead of the config's ``project.model``."""


def sha256_hex(data: bytes) -> str:
    """The hex sha256 of ``data``: what seams.lock, the undo manifest and ids record."""
    return hashlib.sha256(data).hexdigest()


def resolve_inside(root: Path, path: str | Path) -> Path | None:
    """``path`` (relative to ``root``, or absolute) resolved, or None when it leaves ``root``
    (symlinks followed). Callers raise their own error, naming what the path was for."""
    resolved_root = Path(root).resolve()
    target = (resolved_root / path).resolve()
    return target if target.is_relative_to(resolved_root) else None


def temporary_beside(target: Path, data: bytes) -> Path:
    """``data`` in a new temporary file in the target's directory (same file system, so a
    later ``os.replace`` is atomic), flushed to disk, with the target's mode when it exists
    (else what ``open`` would give a new file under the umask). The name keeps at most 200
    characters of the target's, so a long target name still leaves room for the suffix."""
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.parent / f".{target.name[:200]}.{secrets.token_hex(6)}.tmp"
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if target.exists():
            os.chmod(temporary, stat.S_IMODE(target.stat().st_mode))
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return temporary


def discard(paths: Iterable[Path]) -> None:
    """Remove temporary files a failed write leaves behind (already gone is fine)."""
    for path in list(paths):
        path.unlink(missing_ok=True)


def atomic_write(path: Path, data: bytes) -> None:
    """Write through a temporary file beside ``path``, then ``os.replace``: a reader never
    sees half a file, and a failed write leaves the old one."""
    path = Path(path)
    temporary = temporary_beside(path, data)
    try:
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


_GITIGNORE = "*\n"


def ensure_local_dir(root: Path, directory: Path) -> None:
    """Create ``directory``; a ``.seams`` folder on the way gets its ``.gitignore`` (``*``).

    Refused when it resolves outside ``root``: a ``.seams`` that is a symlink (a
    cloned repository may hold one) must not carry the project's writes elsewhere.
    """
    if not directory.resolve().is_relative_to(root.resolve()):
        raise EditError(f"{directory}: leads outside the project root {root.resolve()}")
    directory.mkdir(parents=True, exist_ok=True)
    for folder in (directory, *directory.parents):
        if folder == root or not folder.is_relative_to(root):
            break
        if folder.name == ".seams":
            _create_once(folder / ".gitignore", _GITIGNORE.encode())


def _create_once(path: Path, content: bytes) -> None:
    """Create ``path`` unless something (a symlink included, never followed) is there."""
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except FileExistsError:
        return
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(content)
