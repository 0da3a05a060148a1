"""Pending suggestions and cached provider answers under ``.seams/suggestions/``.

Ids and cache keys use the answer cache's key encoding: the hex sha256 of
the fields as a compact JSON array of strings, UTF-8 (see
seams_cli.llm.cache.cache_key; documented in docs/suggest.md), so no two
different field lists share a key whatever the fields contain.

* cache key: model hash, template, provider command[, gist table version][, LLM model]
* suggestion id: model hash, template, provider command, response[, gist table version][, LLM model]

(the gist table's version only for ``gist-anchor``, whose prompt lists the table).

The LLM model is appended only when one is named, as D-keys (docs/architecture.md)
asks, so keys made without one keep their value.

Layout: ``cache/<key>.json`` holds a successful response (written and read
through the one answer cache, seams_cli.llm.cache); ``<id>/``
holds ``suggestion.json`` (the record: the suggestion, what it was made
from, and the gateway's ``original_conditions`` the routing item compares
the changed model with) and one ``<relpath with / as __>.diff`` per
changed file. ``suggestion.json`` is written last, so a directory without it
is an interrupted write and is neither listed nor accepted.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
import shutil
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from seams.errors import GeneratorError, ResolutionError
from seams.fs import atomic_write, ensure_local_dir
from seams.project.layout import Project
from seams.project.limits import loads_json, read_regular_file
from seams.project.writes import WriteError
from seams.suggestions.form_acceptance import FORMS_BEFORE
from seams.suggestions.routing import ORIGINAL_CONDITIONS
from seams_cli.llm.cache import AnswerCache
from seams_cli.llm.cache import cache_key as key_of
from seams_edit.files import read_or_none

SUGGESTIONS_DIR = "suggestions"
CACHE_DIR = "cache"
RECORD_NAME = "suggestion.json"
ID_PATTERN = re.compile(r"^[0-9a-f]{64}$")
PREFIX_PATTERN = re.compile(r"^[0-9a-f]{6,64}$")
MAX_DIFF_BYTES = 64 * 1024 * 1024
EXTRA_KEYS = (FORMS_BEFORE,)
"""Record keys a kind's gate reads besides ``original_conditions``."""


def cache_key(model_hash: str, template: str, provider: str, llm_model: str | None,
              extra: tuple[str, ...] = ()) -> str:
    """``extra``: what else the prompt is made from (the gist table's version for gist-anchor)."""
    return key_of([model_hash, template, provider, *extra], llm_model=llm_model)


def suggestion_id(model_hash: str, template: str, provider: str, response: str, llm_model: str | None,
                  extra: tuple[str, ...] = ()) -> str:
    return key_of([model_hash, template, provider, response, *extra], llm_model=llm_model)


def suggestions_dir(project: Project) -> Path:
    return project.cache_dir / SUGGESTIONS_DIR


def answer_cache(project: Project) -> AnswerCache:
    """The provider's responses, each in a record beside what its key was made of."""
    return AnswerCache(project.cache_dir, f"{SUGGESTIONS_DIR}/{CACHE_DIR}", ".json", record=True)


def resolve_id(project: Project, prefix: str) -> str:
    """The pending suggestion whose id starts with ``prefix`` (6 to 64 hex digits, already
    checked against PREFIX_PATTERN); refused when none or several match."""
    root = suggestions_dir(project)
    matches = sorted(entry.name for entry in (root.iterdir() if root.is_dir() else ())
                     if ID_PATTERN.match(entry.name) and entry.name.startswith(prefix)
                     and (entry / RECORD_NAME).is_file())
    if not matches:
        raise ResolutionError(f"no pending suggestion {prefix} (seams suggest --list shows them)")
    if len(matches) > 1:
        raise ResolutionError(f"{prefix} is the start of {len(matches)} pending suggestions "
                              f"({', '.join(m[:12] for m in matches)}); give more digits")
    return matches[0]


@dataclass(frozen=True)
class Pending:
    """One stored suggestion, as ``suggestion.json`` holds it."""

    id: str
    kind: str
    subject: str  # the gateway (condition-to-dmn), the shapes or the class the suggestion is about
    model_hash: str
    template: str
    provider: str
    llm_model: str | None
    files: tuple[str, ...]  # changed files, project-relative posix paths
    suggestion: dict[str, Any]
    original_conditions: dict[str, str] | None = None  # the gateway's conditions before the change
    # per changed file: sha256 of its bytes before and after, and of its stored .diff
    hashes: dict[str, dict[str, str | None]] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)  # what the kind's gate reads (forms_before)

    @property
    def gateway(self) -> str:
        """The subject under the name condition-to-dmn records give it (``gateway``)."""
        return self.subject

    def record(self) -> dict[str, Any]:
        record = {"id": self.id, "kind": self.kind, _subject_key(self.kind): self.subject,
                  "model_hash": self.model_hash, "template": self.template, "provider": self.provider,
                  "files": list(self.files), "suggestion": self.suggestion, **self.extra}
        if self.llm_model:
            record["llm_model"] = self.llm_model
        if self.original_conditions is not None:
            record[ORIGINAL_CONDITIONS] = dict(self.original_conditions)
        if self.hashes:
            record["hashes"] = self.hashes
        return record


def store_pending(project: Project, pending: Pending, diffs: dict[str, bytes]) -> Path:
    """Write the diffs, then suggestion.json; returns the entry's directory."""
    entry = suggestions_dir(project) / pending.id
    try:
        for relpath, diff in sorted(diffs.items()):
            write_atomic(entry / diff_name(relpath), diff, project)
        write_atomic(entry / RECORD_NAME, json_bytes(pending.record()), project)
    except WriteError:
        shutil.rmtree(entry, ignore_errors=True)  # no half-stored suggestion is left behind
        raise
    return entry


def load_pending(project: Project, suggestion: str) -> Pending:
    """The stored suggestion ``suggestion`` (an id already checked against ID_PATTERN)."""
    path = suggestions_dir(project) / suggestion / RECORD_NAME
    try:
        data = loads_json(path.read_text(encoding="utf-8"), parse_float=Decimal)
        return Pending(id=data["id"], kind=data["kind"], subject=data[_subject_key(data["kind"])],
                       model_hash=data["model_hash"], template=data["template"], provider=data["provider"],
                       llm_model=data.get("llm_model"), files=tuple(data["files"]),
                       suggestion=data["suggestion"], original_conditions=data.get(ORIGINAL_CONDITIONS),
                       hashes=dict(data.get("hashes", {})),
                       extra={key: data[key] for key in EXTRA_KEYS if key in data})
    except FileNotFoundError:
        raise ResolutionError(f"no pending suggestion {suggestion} (seams suggest --list shows them)") from None
    except (OSError, ValueError, KeyError, TypeError):
        raise ResolutionError(f"{project.relative(path)}: not a readable suggestion record") from None


def _subject_key(kind: object) -> str:
    """The record key of the subject: ``gateway`` for condition-to-dmn (as records always had it)."""
    return "gateway" if kind == "condition-to-dmn" else "subject"


def file_hashes(old: bytes | None, new: bytes, diff: bytes) -> dict[str, str | None]:
    """What ``hashes`` records for one changed file."""
    return {"before": _sha(old) if old is not None else None, "after": _sha(new), "diff": _sha(diff)}


def verify_stored(project: Project, pending: Pending, files: dict[Path, bytes]) -> None:
    """Refuse unless ``files`` (rebuilt from the record) are exactly what the stored diffs show.

    The ``.diff`` files are what a person reviewed; ``suggestion.json`` is a
    file anyone can edit. So the change rebuilt from it must give, against
    the current files, byte for byte the stored diffs, and every file must
    match the hashes recorded when the suggestion was checked.
    """
    where = suggestions_dir(project) / pending.id
    rebuilt = {project.relative(path): (path, data) for path, data in files.items()}
    if sorted(rebuilt) != sorted(pending.files):
        raise GeneratorError(f"suggestion {pending.id}: its record changes {', '.join(sorted(rebuilt))}, "
                             f"but its diffs are of {', '.join(pending.files)}; refused, run seams suggest again")
    for relpath, (path, data) in sorted(rebuilt.items()):
        try:
            stored = read_regular_file(where / diff_name(relpath), max_bytes=MAX_DIFF_BYTES)
        except (OSError, ValueError) as error:
            raise GeneratorError(f"{project.relative(where / diff_name(relpath))}: cannot read the stored "
                                 f"diff: {getattr(error, 'strerror', None) or error}") from None
        old = read_or_none(path)
        if unified_diff(relpath, old, data) != stored:
            raise GeneratorError(f"suggestion {pending.id}: the change to {relpath} differs from its "
                                 f"reviewed diff {diff_name(relpath)}; refused, run seams suggest again")
        recorded = pending.hashes.get(relpath)
        if pending.hashes and recorded != file_hashes(old, data, stored):
            raise GeneratorError(f"suggestion {pending.id}: {relpath} does not match its recorded hashes; "
                                 "refused, run seams suggest again")


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def list_pending(project: Project) -> list[Pending]:
    """Every complete pending suggestion, by id; unreadable entries are skipped."""
    found = []
    root = suggestions_dir(project)
    for entry in sorted(root.iterdir()) if root.is_dir() else ():
        if ID_PATTERN.match(entry.name) and (entry / RECORD_NAME).is_file():
            try:
                found.append(load_pending(project, entry.name))
            except ResolutionError:
                continue
    return found


def remove_pending(project: Project, suggestion: str) -> None:
    shutil.rmtree(suggestions_dir(project) / suggestion, ignore_errors=True)


def diff_name(relpath: str) -> str:
    return relpath.replace("/", "__") + ".diff"


def unified_diff(relpath: str, old: bytes | None, new: bytes) -> bytes:
    """A ``git apply``-style unified diff of one file (``/dev/null`` for a new one)."""
    before = old.decode("utf-8").splitlines(keepends=True) if old is not None else []
    after = new.decode("utf-8").splitlines(keepends=True)
    lines = difflib.unified_diff(before, after, fromfile=f"a/{relpath}" if old is not None else "/dev/null",
                                 tofile=f"b/{relpath}")
    out = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out).encode("utf-8")


def json_bytes(data: Any) -> bytes:
    """Keys sorted, two-space indent, one trailing newline; exact decimals written as numbers."""
    return (json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False, default=float) + "\n").encode("utf-8")


def write_atomic(path: Path, data: bytes, project: Project) -> None:
    """An atomic write that also keeps ``.seams`` ignored by git."""
    ensure_local_dir(project.root, path.parent)
    try:
        atomic_write(path, data)
    except OSError as error:
        raise WriteError(f"{project.relative(path)}: cannot write: {error.strerror or error}") from None
