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

import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from seams.errors import GeneratorError, ProjectError
from seams.findings import Finding
from seams.fs import sha256_hex
from seams.project.layout import inside
from seams.project.limits import path_text_problem
from seams.project.lock import Lock, lock_bytes, read_lock
from seams.project.writes import write_all

if TYPE_CHECKING:
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

    out_dir = project.generated_dir
    outcomes = registry.run(registry.selected_names(project.config.generators), model, out_dir,
                            source=project.relative(project.config_path))
    protected = _protected_paths(project, model)
    files: dict[Path, bytes] = {}
    owner: dict[Path, str] = {}
    problems: list[tuple[str, str]] = []
    for outcome in outcomes:
        if outcome.problem is not None:
            problems.append((outcome.name, outcome.problem))
            continue
        try:
            placed = {_place(project, out_dir, rel, protected, owner): data for rel, data in outcome.files.items()}
        except GeneratorError as exc:
            problems.append((outcome.name, str(exc)))
            continue
        for path, data in placed.items():
            files[path] = data
            owner[path] = outcome.name
    return Generation(files=dict(sorted(files.items())), problems=problems)


def _protected_paths(project: Project, model: Model) -> set[Path]:
    paths = {project.config_path.resolve(), project.lock_path.resolve(), model.trig_path.resolve()}
    return paths | {payload.path.resolve() for payload in model.payloads.values()}


def _place(project: Project, out_dir: Path, rel: str, protected: set[Path], owner: dict[Path, str]) -> Path:
    """The absolute path of a generated file, refusing any a generator must not write."""
    if not rel or rel.startswith("/") or "\\" in rel or any(part in ("", ".", "..") for part in rel.split("/")):
        raise GeneratorError(f"returned the path {rel!r}; paths are relative, with forward slashes")
    problem = path_text_problem(rel)
    if problem:
        raise GeneratorError(f"returned the path {rel[:60]!r}..., which {problem}")
    try:
        path = inside(out_dir, rel, what="generated file")
    except ProjectError:
        raise GeneratorError(f"returned the path {rel!r}, which leads outside {project.relative(out_dir)}") from None
    shown = project.relative(path)
    if _hand_owned_or_seams(project, path, protected):
        raise GeneratorError(f"would write {shown}, which is hand-owned or belongs to seams")
    if path in owner:
        raise GeneratorError(f"would write {shown}, which generator {owner[path]} writes too")
    return path


def _hand_owned_or_seams(project: Project, path: Path, protected: set[Path]) -> bool:
    handlers = project.handlers_dir
    return (path in protected or path == handlers or handlers in path.parents
            or project.cache_dir.resolve() in path.parents)


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
    result = generation(project, model)
    lock = read_lock(project)
    edited: list[Finding] = []
    for rel, digest in sorted(lock.generated.items()):
        path = _locked_path(project, rel)
        if not path.is_file():
            edited.append(Finding("generated-hand-edited", rel, None,
                                  "missing; seams.lock records it; run seams generate"))
        elif sha256_hex(path.read_bytes()) != digest:
            edited.append(Finding("generated-hand-edited", rel, None,
                                  "its sha256 differs from seams.lock; change the model or the generator "
                                  "instead, then run seams generate"))
    edited_paths = {finding.subject for finding in edited}
    stale: list[Finding] = []
    produced = set()
    for path, data in result.files.items():
        rel = project.relative(path)
        produced.add(rel)
        if rel in edited_paths:
            continue
        problem = _staleness(path, data, lock, rel)
        if problem:
            stale.append(Finding("generated-stale", rel, None, f"{problem}; run seams generate"))
    if not result.problems:  # a failed generator may still produce what looks orphaned
        for rel in sorted(set(lock.generated) - produced - edited_paths):
            stale.append(Finding("generated-stale", rel, None,
                                 "no generator produces it any more; run seams generate to remove it"))
    return [*sorted(stale), *edited]


def _staleness(path: Path, data: bytes, lock: Lock, rel: str) -> str | None:
    if not path.is_file():
        return "regenerating would add it"
    if path.read_bytes() != data:
        return "regenerating would change it"
    if rel not in lock.generated:
        return "seams.lock does not record it yet"
    return None


def _locked_path(project: Project, rel: str) -> Path:
    lock = project.relative(project.lock_path)
    try:
        return inside(project.root, rel, what=lock)
    except ProjectError:
        raise ProjectError(f"{lock}: generated.{rel} leads outside the project") from None


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
