"""What ``seams check`` found, kept under ``.seams/check-cache/`` keyed by every input's content.

A check that runs again on the same inputs finds the same: so its findings
and notes are stored under a key that digests everything any gate reads
(docs/performance.md, "The check cache"), and a check whose key is stored
prints them without loading the model. The cache is only ever an
optimisation: an entry is used only when its whole key matches, and an entry
that cannot be read, is not this format, or names another key is ignored
(the check runs as if there were none) and then replaced. Entries are
written whole through a temporary file and a rename, so a reader never sees
half of one and two writers of one key write the same bytes.

The key takes in, by content (sha256):

* seams itself: the format version, every source file of the ``seams``
  packages (``seams``, ``seams_cli``, ``seams_edit``, ``pytest_seams`` and any
  other ``seams*`` package beside them), the versions of the libraries
  whose behaviour the checks inherit, and the Python version;
* the generators that can run: every entry point of the generator group, its
  distribution's version and the source files of its top-level package;
* the project: ``seams.toml``, the model path and every file under the
  model's directory (payloads must lie there, so whatever the TriG names is
  included without parsing it), ``seams.lock`` and every file it names,
  every file under the generated and handlers directories;
* every ``SEAMS_*`` environment variable.

A file that is no regular file is digested as its kind, so a FIFO put where a
payload was changes the key (and the check then refuses it as before).

Taking the key reads every input, which a check that re-checks one component
after an edit would pay twice (before, and after to see nothing changed while
it ran). So the digests are kept beside the entries (``digests``), each with
the file's stat when it was read: device, inode, size, modification and
change time. A file whose stat is the same is not read again, as git's index
trusts a file's stat. The change time cannot be set back by any tool but a
clock change, and a file changed within RACY_NS of being read is not kept at
all (its next change could leave its times as they were), so a digest
vouched for by stat is its content's.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from seams import cache_json
from seams.findings import Finding
from seams.fs import atomic_write
from seams.project.limits import LimitError, read_regular_file

if TYPE_CHECKING:
    from seams.project.layout import Project

FORMAT = 1
DIRECTORY = ".seams/check-cache"
MAX_ENTRY_BYTES = 64 << 20
KEEP = 16
"""Entries kept: the last checks' (switching branches back and forth still hits), not a history."""
DIGESTS = "digests"
RACY_NS = 2_000_000_000
"""A file read less than this after it changed is not vouched for by its stat (a coarse clock
may give its next change the same times)."""
_LIBRARIES = ("rdflib", "pyshacl", "lxml", "jinja2", "pluggy", "SpiffWorkflow", "hypothesis")
_SKIPPED_DIRS = {"__pycache__", ".git", ".seams", ".mypy_cache", ".pytest_cache", ".ruff_cache", "node_modules"}
_SOURCE_SUFFIXES = (".py", ".ttl", ".j2", ".json", ".toml", ".txt", ".md")


@dataclass(frozen=True)
class Verdict:
    """What a check printed: its findings and its advice notes."""

    findings: tuple[Finding, ...]
    notes: tuple[str, ...]


def cache_path(project: Project) -> Path:
    return project.root / DIRECTORY


def check_key(project: Project, generator_group: str, environ: dict[str, str] | None = None,
              files: dict[str, str] | None = None, known: FileDigests | None = None) -> str:
    """The digest of everything ``seams check`` reads (see the module's docstring);
    ``generator_group`` is the entry-point group generators register in; ``files``, when
    given, receives each file's own digest (``<size>:<sha256>``, or what is there instead:
    :func:`size_and_sha256` reads it) by its path as a string, as the key walked it;
    ``known``: digests kept from before, vouched for by stat."""
    digest = hashlib.sha256()
    file_digest = known.digest if known is not None else _file_digest

    def add(label: str, data: bytes) -> None:
        digest.update(f"{label}\0{len(data)}\0".encode())
        digest.update(data)

    for label, data in _settings(project, generator_group, environ, file_digest):
        add(label, data)
    add("lock", file_digest(project.lock_path).encode())
    for label, path in _tree_entries(project):
        found = file_digest(path)
        if files is not None:
            files[path] = found
        add(label, found.encode())
    return digest.hexdigest()


def settings_key(project: Project, generator_group: str, environ: dict[str, str] | None = None) -> str:
    """The digest of what ``seams check`` reads besides the model, the lock and the generated and
    handler files: seams itself, the generators, ``SEAMS_*``, the project's place and its config
    (seams.checks.incremental keeps a model's components under it)."""
    digest = hashlib.sha256()
    for label, data in _settings(project, generator_group, environ):
        digest.update(f"{label}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def _settings(project: Project, generator_group: str, environ: dict[str, str] | None,
              file_digest: Callable[[Path | str], str] | None = None) -> list[tuple[str, bytes]]:
    """The first entries of :func:`check_key`, and all of :func:`settings_key`'s."""
    environ = dict(os.environ if environ is None else environ)
    return [("tool", tool_digest(file_digest).encode()),
            ("generators", _generators_digest(generator_group).encode()),
            ("env", json.dumps(sorted((k, v) for k, v in environ.items() if k.startswith("SEAMS_"))).encode()),
            ("root", str(project.root).encode()),
            ("model", str(project.model_path).encode()),
            ("config", _file_digest(project.config_path).encode())]


def size_and_sha256(file_digest: str | None) -> tuple[int, str] | None:
    """A regular file's size and sha256 from its digest in :func:`check_key`'s ``files``;
    None for anything else (missing, unreadable, not a regular file, not given)."""
    size, _, sha256 = (file_digest or "").partition(":")
    return (int(size), sha256) if size.isdigit() and len(sha256) == 64 else None


def _tree_entries(project: Project) -> Iterator[tuple[str, str]]:
    """Each file the key digests, with its label (paths as strings: a key is taken of thousands)."""
    project_root = os.fspath(project.root)
    named = {os.path.join(project_root, relative) for relative in _lock_paths(project)}
    seen: set[str] = set()
    for root in (project.model_path.parent, project.generated_dir, project.handlers_dir):
        for path in _files_under(os.fspath(root)):
            if path not in seen:
                seen.add(path)
                yield f"file:{path}", path
    for path in sorted(named - seen):
        yield f"named:{path}", path


def _lock_paths(project: Project) -> list[str]:
    """Every path ``seams.lock`` names (generated files and drafts); none when it is unreadable,
    which the check itself reports, and whose bytes are in the key."""
    try:
        data = json.loads(project.lock_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    found: list[str] = []
    if isinstance(data, dict):
        generated = data.get("generated")
        if isinstance(generated, dict):
            found += [key for key in generated if isinstance(key, str)]
        drafts = data.get("drafts")
        for record in drafts if isinstance(drafts, list) else ():
            if isinstance(record, dict):
                found += [value for value in record.values() if isinstance(value, str) and "/" in value]
    return [path for path in found if "\0" not in path]


def _files_under(root: str) -> list[str]:
    if not os.path.isdir(root):
        return [root]
    found: list[str] = []
    for directory, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIPPED_DIRS)
        found += [os.path.join(directory, name) for name in sorted(filenames) if not name.endswith(".pyc")]
    return found


def _file_digest(path: Path | str) -> str:
    """sha256 of a regular file's bytes; else what is there (missing, a directory, a FIFO...)."""
    info = _stat_or_kind(path)
    return info if isinstance(info, str) else _content_digest(path, info)


def _stat_or_kind(path: Path | str) -> os.stat_result | str:
    """A regular file's stat; else the digest of what is there instead."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return "missing"
    except OSError as error:
        return f"unreadable:{error.errno}"
    if not stat.S_ISREG(info.st_mode):
        return f"not-regular:{stat.S_IFMT(info.st_mode)}"
    return info


def _content_digest(path: Path | str, info: os.stat_result) -> str:
    try:
        with open(path, "rb") as handle:
            digest = hashlib.sha256()
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError as error:
        return f"unreadable:{error.errno}"
    return f"{info.st_size}:{digest.hexdigest()}"


_now_ns = time.time_ns  # the clock a digest is judged racy by (a test moves it)


class FileDigests:
    """Files' digests kept between checks, each vouched for by the file's stat (see the module's
    docstring): a file whose stat is as it was is not read again."""

    def __init__(self, kept: dict[str, list[Any]] | None = None):
        self.kept = kept or {}
        self.seen: dict[str, list[Any]] = {}

    def digest(self, path: Path | str) -> str:
        """What :func:`_file_digest` gives, from the kept digest where the stat vouches for it."""
        info = _stat_or_kind(path)
        if isinstance(info, str):
            return info
        name = os.fspath(path)
        signature = [info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns]
        entry = self.seen.get(name) or self.kept.get(name)
        if entry is not None and entry[:5] == signature:
            self.seen[name] = entry
            return entry[5]
        found = _content_digest(path, info)
        if found.startswith(f"{info.st_size}:") and \
                max(info.st_mtime_ns, info.st_ctime_ns) < _now_ns() - RACY_NS:
            self.seen[name] = [*signature, found]
        return found

    @classmethod
    def read(cls, project: Project) -> FileDigests:
        """The digests the last stored check kept; none when they cannot be trusted."""
        path = cache_path(project) / DIGESTS
        try:
            if not path.parent.resolve().is_relative_to(project.root.resolve()):
                return cls()
            data = cache_json.loads(read_regular_file(path, max_bytes=MAX_ENTRY_BYTES))
        except (OSError, LimitError, ValueError):
            return cls()
        if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("files"), dict):
            return cls()
        kept = {name: entry for name, entry in data["files"].items()
                if isinstance(entry, list) and len(entry) == 6 and all(type(n) is int for n in entry[:5])
                and isinstance(entry[5], str)}
        return cls(kept)

    def write(self, project: Project) -> None:
        """Keep the digests seen in this check (only a cache: a failure to write is no error)."""
        if self.seen == self.kept:
            return
        try:
            atomic_write(cache_path(project) / DIGESTS,
                         cache_json.dumps({"format": FORMAT, "files": self.seen}, sort_keys=True))
        except OSError:
            return


_tool: list[str] = []  # tool_digest's value, once worked out in this process


def tool_digest(file_digest: Callable[[Path | str], str] | None = None) -> str:
    """seams' own sources and the versions of what the checks inherit, once per process;
    ``file_digest``: how a source file's digest is taken the first time (``check_key`` passes
    the digests kept from before, vouched for by stat, so an unchanged seams is not read)."""
    if not _tool:
        digest = hashlib.sha256(f"format {FORMAT}\0python {sys.version}\0".encode())
        for library in _LIBRARIES:
            digest.update(f"{library} {_version(library)}\0".encode())
        beside = Path(__file__).resolve().parents[2]  # where the seams package lies, and its siblings
        for package in sorted(beside.iterdir()):
            if package.is_dir() and (package.name.startswith("seams") or package.name == "pytest_seams") \
                    and (package / "__init__.py").is_file():
                _add_sources(digest, package, file_digest or _file_digest)
        _tool.append(digest.hexdigest())
    return _tool[0]


def _generators_digest(group: str) -> str:
    """The generator entry points and their packages' sources (a generator's code decides its output)."""
    digest = hashlib.sha256()
    for entry in sorted(metadata.entry_points(group=group), key=lambda e: (e.name, e.value)):
        dist = getattr(entry, "dist", None)
        digest.update(f"{entry.name}={entry.value}@{getattr(dist, 'name', '')} "
                      f"{getattr(dist, 'version', '')}\0".encode())
        top = entry.value.split(":")[0].split(".")[0]
        if top in ("seams", "seams_cli"):
            continue  # in the tool's digest already
        for location in _package_locations(top):
            _add_sources(digest, location)
    return digest.hexdigest()


def _package_locations(top: str) -> list[Path]:
    from importlib.util import find_spec

    try:
        spec = find_spec(top)
    except (ImportError, ValueError):
        return []
    if spec is None:
        return []
    if spec.submodule_search_locations:
        return [Path(p) for p in spec.submodule_search_locations]
    return [Path(spec.origin)] if spec.origin else []


def _add_sources(digest, location: Path, file_digest: Callable[[Path | str], str] = _file_digest) -> None:
    if location.is_file():
        digest.update(f"{location.name}\0{file_digest(location)}\0".encode())
        return
    parent = os.path.join(os.fspath(location.parent), "")
    for path in _files_under(os.fspath(location)):
        if path.endswith(_SOURCE_SUFFIXES) and path.startswith(parent):
            digest.update(f"{path[len(parent):]}\0{file_digest(path)}\0".encode())


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "absent"


def read_verdict(project: Project, key: str) -> Verdict | None:
    """The stored verdict for ``key``; None when there is none or it cannot be trusted."""
    path = cache_path(project) / f"{key}.json"
    try:
        if not path.parent.resolve().is_relative_to(project.root.resolve()):
            return None  # a .seams leading out of the project: never read from there
        raw = read_regular_file(path, max_bytes=MAX_ENTRY_BYTES)
    except (OSError, LimitError):
        return None  # none, over the limit, or no regular file (a planted FIFO would block a plain read)
    try:
        data = json.loads(raw.decode("utf-8"))
        if data.get("format") != FORMAT or data.get("key") != key:
            return None
        findings = tuple(_finding(item) for item in data["findings"])
        notes = tuple(data["notes"])
        if not all(isinstance(note, str) for note in notes):
            return None
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    return Verdict(findings, notes)


def _finding(item: object) -> Finding:
    if not isinstance(item, dict):
        raise TypeError("a finding is an object")
    finding = Finding.from_dict(item)
    if not all(isinstance(v, str) for v in (finding.kind, finding.subject, finding.message)) or not (
            finding.predicate is None or isinstance(finding.predicate, str)):
        raise TypeError("a finding's fields are strings")
    return finding


def write_verdict(project: Project, key: str, verdict: Verdict) -> None:
    """Store the verdict for ``key``; a cache that cannot be written is no error (it is only a cache)."""
    data = {"format": FORMAT, "key": key, "findings": [f.as_dict() for f in verdict.findings],
            "notes": list(verdict.notes)}
    directory = cache_path(project)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        atomic_write(directory / f"{key}.json", json.dumps(data, sort_keys=True, indent=1).encode("utf-8"))
        _prune(directory)
    except OSError:
        return


def _prune(directory: Path) -> None:
    """Keep the KEEP newest entries; another writer removing one first is fine."""
    entries: list[tuple[int, str, Path]] = []
    for path in directory.glob("*.json"):
        try:
            entries.append((path.stat().st_mtime_ns, path.name, path))
        except OSError:
            continue
    for _, _, path in sorted(entries, reverse=True)[KEEP:]:
        path.unlink(missing_ok=True)
