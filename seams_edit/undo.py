"""Undo: put back what the last ``files.apply`` replaced, byte for byte.

An entry is only trusted while the files still hold exactly what the apply
wrote: a file edited since (its sha256 differs) would lose that edit, so the
undo is refused and names it. A successful undo deletes its entry, so the
next undo takes back the apply before.

An entry is a file under ``.seams/``, so it is validated before use: it must
be a real folder inside ``.seams/undo`` (not a symlink), its manifest and
saved files regular files there, every path inside the project. The entry
is a journal too (seams_edit.journal): it is marked ``undoing`` before the
first file is restored, so a crash mid-undo is finished by the next command.
"""

from __future__ import annotations

import re
import shutil
import stat
from pathlib import Path

from seams.errors import EditError, SeamsError
from seams.fs import resolve_inside, sha256_hex
from seams.project.limits import loads_json, path_text_problem
from seams_edit.files import MANIFEST, commit, inside, read_or_none, set_state, undo_entries
from seams_edit.journal import APPLIED, APPLYING, UNDOING, check_state

# (target, previous bytes or None for a file the apply created, sha256 of what the apply wrote)
Write = tuple[Path, "bytes | None", str]
_TEMPORARY = re.compile(r"^\..+\.[0-9a-f]{12}\.tmp$")


def undo_dir(root: Path) -> Path:
    """Where applies made for the project at ``root`` record their undo entries."""
    return root.resolve() / ".seams" / "undo"


def undo_last(root: Path) -> list[Path]:
    """Restore the files of the last apply; return them (absolute paths) in manifest order."""
    root = root.resolve()
    recover(root)  # an apply or undo a crash cut short comes first (normally done by seams_cli already)
    entries = undo_entries(undo_dir(root))
    if not entries:
        raise EditError(f"nothing to undo: no apply recorded in {undo_dir(root)}")
    entry = entries[-1]
    state, writes = read_entry(root, entry)
    if state != APPLIED:  # pragma: no cover - recover() above repaired it
        raise EditError(f"{entry}: an interrupted {state} entry; run seams undo again")
    for target, _, after_sha in writes:
        current = read_or_none(target)
        if current is None or sha256_hex(current) != after_sha:
            shown = target.relative_to(root).as_posix()
            raise EditError(f"{shown}: changed since the apply (sha256 differs); undo refused")
    set_state(entry, UNDOING)
    try:
        commit([(target, before) for target, before, _ in writes])
    except EditError:
        set_state(entry, APPLIED)  # commit put back what it had restored: the apply stands
        raise
    shutil.rmtree(entry)
    return [target for target, _, _ in writes]


def managed(root: Path) -> tuple[list[Path], set[Path]]:
    """(folders, files) an undo entry may name: the model's folder, the handlers and generated
    folders, and ``seams.lock`` (what seams' applies write), as ``seams.toml`` sets them;
    only the lock where the config cannot be read."""
    from seams.project.config import CONFIG_NAME, parse_config
    from seams.project.layout import LOCK_NAME

    files = {root / LOCK_NAME}
    try:
        config = parse_config(root / CONFIG_NAME)
    except (SeamsError, OSError, ValueError):
        return [], files
    folders = []
    for relative in (str(Path(config.model).parent), config.handlers, config.generated):
        folder = resolve_inside(root, relative)
        if folder is not None:
            folders.append(folder)
    return folders, files


def managed_problem(root: Path, target: Path, allowed: tuple[list[Path], set[Path]]) -> str | None:
    """Why an undo entry may not write ``target`` (resolved, inside ``root``), or None: it must
    be a file seams manages, and no part of its path may be hidden (``.git``, ``.seams``)."""
    relative = target.relative_to(root)
    if any(part.startswith(".") for part in relative.parts):
        return "is hidden (a dot-folder or dot-file), which seams never writes"
    folders, files = allowed
    if target in files or any(target.is_relative_to(folder) and target != folder for folder in folders):
        return None
    return "is not a model, handler or generated file, nor seams.lock"


def read_entry(root: Path, entry: Path) -> tuple[str, list[Write]]:
    """The state and files of a validated entry; an EditError names what is wrong (a path
    outside what seams manages included: a planted journal must not write ``.git/config``)."""
    folder = undo_dir(root)
    if entry.is_symlink() or not entry.is_dir():
        raise EditError(f"{entry}: an undo entry must be a folder inside {folder}, not a symlink; remove it")
    if not folder.resolve().is_relative_to(root / ".seams") or entry.resolve().parent != folder.resolve():
        raise EditError(f"{entry}: leads outside {folder}; remove it")
    manifest = entry / MANIFEST
    data = _manifest(manifest)
    state = check_state(data.get("state", APPLIED), manifest)
    writes = []
    allowed = managed(root)
    for item in data["files"]:
        target = inside(root, Path(item["path"]))
        problem = managed_problem(root, target, allowed)
        if problem:
            raise EditError(f"{entry.relative_to(root).as_posix()}: names {item['path'][:120]!r}, which {problem}; "
                            "left alone: remove the entry if seams did not write it")
        before = None if item["before"] is None else _saved(entry, item["before"], manifest)
        writes.append((target, before, item["after_sha256"]))
    return state, writes


def restore_previous(root: Path, entry: Path, writes: list[Write]) -> list[Path]:
    """Bring every file back to its previous bytes, where it is not already; the files changed.

    A file holding neither its previous bytes nor the apply's is refused by
    name, before anything is written.
    """
    pending = []
    for target, before, after_sha in writes:
        current = read_or_none(target)
        if current == before:
            continue
        if current is None or sha256_hex(current) != after_sha:
            raise EditError(f"{target.relative_to(root).as_posix()}: changed by someone else while "
                            f"{entry.name} was interrupted; restore it by hand, then remove {entry}")
        pending.append((target, before))
    commit(pending)
    return [target for target, _ in pending]


def _saved(entry: Path, name: str, manifest: Path) -> bytes:
    path = entry / name
    try:
        info = path.lstat()
    except FileNotFoundError:
        raise EditError(f"{manifest}: the saved file {name} is missing; this entry cannot be undone") from None
    if not stat.S_ISREG(info.st_mode):
        raise EditError(f"{path}: a saved file must be a regular file, not a symlink or folder")
    return path.read_bytes()


def _manifest(path: Path) -> dict:
    try:
        if path.is_symlink():
            raise ValueError("a symlink")
        data = loads_json(path.read_text(encoding="utf-8"))
        files = data["files"]
        if not isinstance(files, list):
            raise TypeError("files must be a list")
        for item in files:
            if not isinstance(item["path"], str) or not isinstance(item["after_sha256"], str):
                raise TypeError("path and after_sha256 must be strings")
            problem = path_text_problem(item["path"])
            if problem:
                raise ValueError(f"the path {item['path'][:60]!r} {problem}")
            if item["before"] is not None and (not isinstance(item["before"], str) or "/" in item["before"]
                                               or item["before"].startswith(".")):
                raise ValueError(f"bad saved file name {item['before']!r}")
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise EditError(f"{path}: unreadable undo manifest: {error}") from error
    return data


def recover(root: Path) -> list[str]:
    """Repair every unfinished entry under ``<root>/.seams/undo``; one line per repair."""
    root = root.resolve()
    folder = undo_dir(root)
    if not folder.is_dir():
        return []
    for staging in folder.glob(".staging-*"):  # an entry that was never complete: no file was touched
        if not staging.is_symlink():
            shutil.rmtree(staging, ignore_errors=True)
    lines = []
    for entry in reversed(undo_entries(folder)):
        try:
            state, writes = read_entry(root, entry)
        except EditError as refused:
            if _unfinished(entry):  # an entry that would act: say why it is left alone
                lines.append(f"refused {refused}")
            continue  # not an entry seams can trust; seams undo names it, no other command stops for it
        if state == APPLIED:
            continue
        changed = restore_previous(root, entry, writes)
        _discard_temporaries(path for path, _, _ in writes)
        shutil.rmtree(entry)
        what = "rolled back an interrupted apply" if state == APPLYING else "finished an interrupted undo"
        lines.append(f"{what} ({entry.relative_to(root).as_posix()}): "
                     f"{len(changed)} of {len(writes)} file(s) restored")
    return lines


def _unfinished(entry: Path) -> bool:
    """Whether an entry's manifest (unvalidated) claims an apply or undo under way."""
    try:
        return loads_json((entry / MANIFEST).read_text(encoding="utf-8")).get("state") in (APPLYING, UNDOING)
    except (OSError, ValueError, AttributeError, UnicodeDecodeError):
        return False


def _discard_temporaries(targets) -> None:
    """Temporary files a crash left beside the targets (``.<name>.<12 hex>.tmp``)."""
    for target in targets:
        try:
            for candidate in target.parent.iterdir():
                if candidate.name.startswith(f".{target.name}.") and _TEMPORARY.match(candidate.name) \
                        and candidate.is_file() and not candidate.is_symlink():
                    candidate.unlink(missing_ok=True)
        except OSError:
            continue
