"""The one answer cache: a provider's answers under ``.seams``, keyed by :func:`cache_key`.

``seams propose`` (``drafts/<key>.py``), ``seams draft-generator`` and ``seams
suggest`` (``suggestions/cache/<key>.json``, the answer in a JSON record with
what its key was made of) keep answers here, each in its own folder and form
(:class:`AnswerCache`, the differences as data); beside an entry,
``<key>.rejected`` says that its answer was rejected, and why, so a re-run that
hits the cache says so (docs/architecture.md, D-keys; docs/suggest.md).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from seams.fs import atomic_write, ensure_local_dir
from seams.project.limits import loads_json
from seams.project.writes import WriteError
from seams_cli.llm.output import say

Answer = TypeVar("Answer")
REJECTED_SUFFIX = ".rejected"


def cache_key(parts: Sequence[str], *, llm_model: str | None = None) -> str:
    """sha256 of the parts as a compact JSON array of strings (UTF-8), so no two
    different part lists can share a key whatever characters they hold. A named
    ``llm_model`` is the last part; unnamed, it adds none, so such keys stay as they were."""
    parts = [*parts, *([llm_model] if llm_model else [])]
    encoded = json.dumps(parts, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return hashlib.sha256(encoded).hexdigest()


@dataclass(frozen=True)
class AnswerCache:
    """Where one command keeps its provider's answers, and in which form.

    ``folder`` is under ``cache_dir`` (the project's ``.seams``, which gets a
    ``*`` .gitignore); an entry is ``<key><suffix>``. With ``record`` the
    entry is a JSON object (keys sorted, two-space indent) holding the answer
    as ``response`` beside what its key was made of, for people; without, it is
    the answer's text. An entry that cannot be read (or, as a record, holds no
    non-empty ``response``) is a miss.
    """

    cache_dir: Path
    folder: str
    suffix: str
    record: bool = False

    def entry(self, key: str) -> Path:
        return self.cache_dir / self.folder / f"{key}{self.suffix}"

    def rejected(self, key: str) -> Path:
        """The file beside an entry that says its answer was rejected (and why)."""
        return self.cache_dir / self.folder / f"{key}{REJECTED_SUFFIX}"

    def read(self, key: str) -> str | None:
        """The cached answer for ``key``, or None."""
        try:
            text = self.entry(key).read_text(encoding="utf-8")
            if not self.record:
                return text
            data = loads_json(text)
        except (OSError, ValueError):  # UnicodeDecodeError and a damaged record are ValueErrors
            return None
        response = data.get("response") if isinstance(data, dict) else None
        return response if isinstance(response, str) and response else None

    def write(self, key: str, answer: str, about: Mapping[str, str] | None = None) -> None:
        """Store an answer atomically (``about``: what its key was made of, kept in a record)."""
        data = (json.dumps({**(about or {}), "response": answer}, indent=2, sort_keys=True, ensure_ascii=False)
                + "\n") if self.record else answer
        self._write(self.entry(key), data, "the cached answer")

    def mark_rejected(self, key: str, lines: Sequence[str]) -> None:
        """Remember that the cached answer for ``key`` was rejected, with the reasons given."""
        self._write(self.rejected(key), "".join(f"{line}\n" for line in lines), "the rejection note")

    def _write(self, path: Path, text: str, what: str) -> None:
        root = self.cache_dir.parent
        ensure_local_dir(root, path.parent)
        try:
            atomic_write(path, text.encode("utf-8"))
        except OSError as error:  # a full disk: one line, and the temporary file is gone
            where = path.relative_to(root) if path.is_relative_to(root) else path
            raise WriteError(f"{where}: cannot write {what}: {error.strerror or error}") from None


def cached_answer(read: Callable[[], Answer | None], ask: Callable[[], Answer],
                  keep: Callable[[Answer], None] | None = None, *, refresh: bool = False,
                  rejected: Path | None = None) -> tuple[Answer, bool]:
    """(answer, hit): what ``read`` finds in the cache (``cache hit``), else what ``ask`` gets
    from the provider (``cache miss``, said before the wait), stored with ``keep`` at once;
    ``keep=None`` leaves storing to a caller that keeps only an answer that passed.

    ``refresh`` skips the cache (``cache miss (--refresh)``) and the new answer replaces the
    old entry. A hit whose ``rejected`` marker exists says so, and how to ask again, so a
    replayed rejection never reads as a new verdict on a new answer."""
    answer = None if refresh else read()
    if answer is not None:
        if rejected is not None and rejected.exists():
            say("cache hit (rejected before; --refresh to ask again)")
        else:
            say("cache hit")
        return answer, True
    say("cache miss (--refresh)" if refresh else "cache miss")
    answer = ask()
    if keep is not None:
        keep(answer)
        if rejected is not None:  # the entry now holds a new answer, not yet judged
            rejected.unlink(missing_ok=True)
    return answer, False
