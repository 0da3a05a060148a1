"""Running the configured generators, writing their files, and checking them.

One run per loaded model (memoized), shared by ``seams generate``,
``seams check`` and the plugin's gate items, so a check never pays for the
generators twice. ``seams generate`` writes only files whose bytes change,
records every generated file's sha256 in ``seams.lock`` and removes a file
it generated before that no generator produces any more, but only while
the file still holds the bytes the lock records: a hand-edited file is
never deleted (it is kept and dropped from the lock, with a line saying so).
"""

from __future__ import annotations

import os
import stat
import weakref
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from seams.errors import GeneratorError, ProjectError
from seams.findings import Finding
from seams.fs import sha256_hex
from seams.project.limits import path_text_problem
from seams.project.lock import Lock, lock_bytes, read_lock
from seams.project.writes import write_all

if TYPE_CHECKING:
    from seams.generators.registry import Outcome
    from seams.model.loading import Model
    from seams.project.layout import Project


@dataclass(frozen=True)
class Generation:
    """The files every successful generator produced (absolute path -> bytes),
    and ``(generator, problem)`` for each one that failed."""

    files: dict[Path, bytes]
    problems: list[tuple[str, str]]


@dataclass
class GenerateReport:
    """What ``seams generate`` did, in the order it prints it."""

    written: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    unchanged: int = 0
    lock_written: bool = False

    def lines(self) -> list[str]:
        return [
            *(f"wrote {path}" for path in self.written),
            *(f"removed {path}" for path in self.removed),
            *(f"kept {path}: edited by hand and no generator writes it any more; "
              f"dropped from seams.lock" for path in self.kept),
            *(["wrote seams.lock"] if self.lock_written else []),
            f"unchanged {self.unchanged}",
        ]


_RUNS: weakref.WeakKeyDictionary[Model, dict[tuple, Generation]] = weakref.WeakKeyDictionary()


def generation(project: Project, model: Model) -> Generation:
    """Run the configured generators once per model and project config (memoized)."""
    config = project.config
    key = (project.root, config.generated, config.handlers, config.generators)
    runs = _RUNS.setdefault(model, {})
    if key not in runs:
        runs[key] = _generate(project, model)
    return runs[key]


def _generate(project: Project, model: Model) -> Generation:
    from seams.generators import registry  # the built-ins import the FEEL machinery; only a run needs it

    outcomes = registry.run(registry.selected_names(project.config.generators), model, project.generated_dir,
                            source=project.relative(project.config_path))
    return placed_generation(project, outcomes, _protected_paths(project, model))


def placed_generation(project: Project, outcomes: Iterable[Outcome], protected: set[Path]) -> Generation:
    """The generators' outcomes placed under the generated directory, each path checked
    (``protected``: the files no generator may write: config, lock, TriG and payloads)."""
    out_dir = project.generated_dir
    places = _Places(project, out_dir, protected)
    files: dict[Path, bytes] = {}
    owner: dict[Path, str] = {}
    problems: list[tuple[str, str]] = []
    for outcome in outcomes:
        if outcome.problem is not None:
            problems.append((outcome.name, outcome.problem))
            continue
        try:
            placed = {_place(project, places, rel, owner): data for rel, data in outcome.files.items()}
        except GeneratorError as exc:
            problems.append((outcome.name, str(exc)))
            continue
        for path, data in placed.items():
            files[path] = data
            owner[path] = outcome.name
    return Generation(files=dict(sorted(files.items())), problems=problems)


def _protected_paths(project: Project, model: Model) -> set[Path]:
    return protected_paths(project, model.trig_path, [payload.path for payload in model.payloads.values()])


def protected_paths(project: Project, trig_path: Path, payload_paths: Iterable[Path]) -> set[Path]:
    """The files no generator may write: the config, the lock, the TriG and every payload."""
    paths = {project.config_path.resolve(), project.lock_path.resolve(), trig_path.resolve()}
    resolver = _ResolvedUnder(project.root.resolve())  # payloads share a few directories: each resolved once
    return paths | {resolver.resolve(path) for path in payload_paths}


class _Places:
    """The directories a generated file is judged against, each resolved once (not once per file)."""

    def __init__(self, project: Project, out_dir: Path, protected: set[Path]):
        self.out_dir, self.protected = out_dir, protected
        self.under_out = _ResolvedUnder(out_dir.resolve())
        self.handlers = project.handlers_dir
        self.below = tuple(os.path.join(directory, "") for directory in (self.handlers, project.cache_dir.resolve()))

    def inside(self, rel: str) -> Path | None:
        """The file ``rel`` under the output directory, resolved; None when it leads outside."""
        target = self.under_out.path(rel)
        return target if self.under_out.holds(target) else None

    def hand_owned_or_seams(self, path: Path) -> bool:
        text = str(path)  # under a directory: below it, compared as text (Path.parents builds each parent)
        return (path in self.protected or path == self.handlers
                or any(text.startswith(below) for below in self.below))


class _ResolvedUnder:
    """Paths under a resolved directory, resolved as ``(base / rel).resolve()`` resolves them, each
    directory once (not once per file): a file that is no symlink is then that directory's.
    Worked on as strings: a check places thousands of files, and pathlib's objects cost more
    than the system calls (docs/performance.md)."""

    def __init__(self, base: Path):
        self.base = base
        text = os.fspath(base)
        self._below = text if text.endswith(os.sep) else text + os.sep
        self._base_text = text
        self._parents: dict[str, str] = {}

    def path(self, rel: str) -> Path:
        return self.resolve(self.base / rel)

    def resolve(self, path: Path) -> Path:
        """``path.resolve()``, its directory resolved once for all the files in it."""
        head, name = os.path.split(os.fspath(path))
        parent = self._parents.get(head)
        if parent is None:
            parent = self._parents[head] = os.fspath(Path(head).resolve())
        candidate = os.path.join(parent, name)
        try:
            plain = not stat.S_ISLNK(os.lstat(candidate).st_mode)
        except OSError:
            plain = True  # nothing there: it resolves as named
        return Path(candidate) if plain and name not in ("", ".", "..") else path.resolve()

    def holds(self, path: Path) -> bool:
        """``path.is_relative_to(self.base)`` for a resolved ``path``, compared as text."""
        text = os.fspath(path)
        return text == self._base_text or text.startswith(self._below)


def _place(project: Project, places: _Places, rel: str, owner: dict[Path, str]) -> Path:
    """The absolute path of a generated file, refusing any a generator must not write."""
    if not rel or rel.startswith("/") or "\\" in rel or any(part in ("", ".", "..") for part in rel.split("/")):
        raise GeneratorError(f"returned the path {rel!r}; paths are relative, with forward slashes")
    problem = path_text_problem(rel)
    if problem:
        raise GeneratorError(f"returned the path {rel[:60]!r}..., which {problem}")
    found = places.inside(rel)
    if found is None:
        raise GeneratorError(f"returned the path {rel!r}, which leads outside {project.relative(places.out_dir)}")
    path = found
    if places.hand_owned_or_seams(path):
        raise GeneratorError(f"would write {project.relative(path)}, which is hand-owned or belongs to seams")
    if path in owner:
        raise GeneratorError(f"would write {project.relative(path)}, which generator {owner[path]} writes too")
    return path


def _hand_owned_or_seams(project: Project, path: Path, protected: set[Path]) -> bool:
    return _Places(project, project.generated_dir, protected).hand_owned_or_seams(path)


def _removable(project: Project, model: Model, path: Path) -> bool:
    """A file a generator could have written: the lock is a file anyone can edit, and
    naming a model, config or handler file in it must not get that file deleted."""
    return (project.generated_dir in path.parents and path.is_file()
            and not _hand_owned_or_seams(project, path, _protected_paths(project, model)))


def run_generators(project: Project, model: Model) -> dict[Path, bytes]:
    """Every output file (absolute path -> bytes); a GeneratorError when any generator fails."""
    result = generation(project, model)
    if result.problems:
        raise _error(result.problems)
    return dict(result.files)


def _error(problems: list[tuple[str, str]]) -> GeneratorError:
    (name, problem), *rest = problems
    return GeneratorError(f"generator {name}: {problem}",
                          details=[f"generator {other}: {text}" for other, text in rest])


def generate_findings(project: Project, model: Model) -> list[Finding]:
    """Kind ``generate``: one finding per generator that failed, naming it."""
    return [Finding("generate", name, None, problem) for name, problem in generation(project, model).problems]


def generated_findings(project: Project, model: Model) -> list[Finding]:
    """Kinds ``generated-stale`` (regenerating would change, add or remove a file, or
    record one in the lock) and ``generated-hand-edited`` (a locked file is missing or
    its sha256 differs from the lock). A hand-edited file is reported once, as
    hand-edited: that is the problem to look at first."""
    return findings_of_generation(project, generation(project, model))


def findings_of_generation(project: Project, result: Generation,
                           digests: dict[str, str] | None = None) -> list[Finding]:
    """:func:`generated_findings` of a generation however it was made (whole, or composed
    from the model's components by seams.checks.incremental); ``digests``: files'
    ``<size>:<sha256>`` as just read (seams.project.check_cache.check_key), not read again."""
    lock = read_lock(project)
    on_disk = _OnDisk(digests or {})
    under_root = _ResolvedUnder(project.root.resolve())
    edited: list[Finding] = []
    for rel, digest in sorted(lock.generated.items()):
        path = _locked_path(project, rel, under_root)
        if not on_disk.is_file(path):
            edited.append(Finding("generated-hand-edited", rel, None,
                                  "missing; seams.lock records it; run seams generate"))
        elif on_disk.sha256(path) != digest:
            edited.append(Finding("generated-hand-edited", rel, None,
                                  "its sha256 differs from seams.lock; change the model or the generator "
                                  "instead, then run seams generate"))
    edited_paths = {finding.subject for finding in edited}
    stale: list[Finding] = []
    produced = set()
    below_root = os.fspath(project.root).rstrip(os.sep) + os.sep  # compared as text: thousands of paths
    for path, data in result.files.items():
        text = os.fspath(path)
        rel = text[len(below_root):].replace(os.sep, "/") if text.startswith(below_root) \
            else project.relative(path)  # the placed paths are resolved already
        produced.add(rel)
        if rel in edited_paths:
            continue
        problem = _staleness(path, data, lock, rel, on_disk)
        if problem:
            stale.append(Finding("generated-stale", rel, None, f"{problem}; run seams generate"))
    if not result.problems:  # a failed generator may still produce what looks orphaned
        for rel in sorted(set(lock.generated) - produced - edited_paths):
            stale.append(Finding("generated-stale", rel, None,
                                 "no generator produces it any more; run seams generate to remove it"))
    return [*sorted(stale), *edited]


class _OnDisk:
    """Files' sha256 as the check cache's key read them, else read now."""

    def __init__(self, digests: dict[str, str]):
        from seams.project.check_cache import size_and_sha256  # only a check reads digests

        self.digests, self.size_and_sha256 = digests, size_and_sha256

    def is_file(self, path: Path) -> bool:
        """Whether a regular file is there (as the key found it: a digest of its content)."""
        return self.size_and_sha256(self.digests.get(os.fspath(path))) is not None or path.is_file()

    def sha256(self, path: Path) -> str:
        known = self.size_and_sha256(self.digests.get(os.fspath(path)))
        return known[1] if known is not None else sha256_hex(path.read_bytes())

    def same(self, path: Path, data: bytes) -> bool:
        known = self.size_and_sha256(self.digests.get(os.fspath(path)))
        if known is not None:
            return known == (len(data), sha256_hex(data))
        return path.read_bytes() == data


def _staleness(path: Path, data: bytes, lock: Lock, rel: str, on_disk: _OnDisk) -> str | None:
    if not on_disk.is_file(path):
        return "regenerating would add it"
    if not on_disk.same(path, data):
        return "regenerating would change it"
    if rel not in lock.generated:
        return "seams.lock does not record it yet"
    return None


def _locked_path(project: Project, rel: str, under_root: _ResolvedUnder | None = None) -> Path:
    """Where the lock's ``generated.<rel>`` lies (``under_root``: the project root's paths, for a
    caller asking for many)."""
    if under_root is None:
        under_root = _ResolvedUnder(project.root.resolve())
    target = under_root.path(rel)
    if not under_root.holds(target):
        raise ProjectError(f"{project.relative(project.lock_path)}: generated.{rel} leads outside the project")
    return target


def write_generated(project: Project, model: Model) -> GenerateReport:
    """``seams generate``: nothing is written unless every generator succeeded."""
    files = run_generators(project, model)
    lock = read_lock(project)
    report = GenerateReport()
    produced = {project.relative(path): data for path, data in files.items()}
    removable = []
    for rel in sorted(set(lock.generated) - set(produced)):
        path = _locked_path(project, rel)
        if _removable(project, model, path) and sha256_hex(path.read_bytes()) == lock.generated[rel]:
            removable.append((rel, path))
        elif path.exists():
            report.kept.append(rel)
    changes: dict[Path, bytes | None] = {}
    for rel, data in produced.items():
        if _current(project.root / rel) != data:
            changes[project.root / rel] = data
            report.written.append(rel)
        else:
            report.unchanged += 1
    for rel, path in removable:
        changes[path] = None
        report.removed.append(rel)
    new_lock = lock_bytes(Lock(drafts=lock.drafts,
                               generated={rel: sha256_hex(data) for rel, data in produced.items()}))
    if _current(project.lock_path) != new_lock:
        changes[project.lock_path] = new_lock
        report.lock_written = True
    write_all(changes, shown=project.relative)  # every file or none (a full disk changes nothing)
    for _, path in removable:
        _prune_empty_dirs(path.parent, project.generated_dir)
    return report


def _current(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


def _prune_empty_dirs(directory: Path, stop: Path) -> None:
    """Remove directories a removed file left empty, up to (not including) ``stop``."""
    while directory != stop and stop in directory.parents and not any(directory.iterdir()):
        directory.rmdir()
        directory = directory.parent
