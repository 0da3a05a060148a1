"""A drafted generator (ADR-0029): the answer, the model's names, the cache and the golden session.

The provider's answer is three texts, and everything else of the package is
the scaffold's (``seams.generators.new_generator.scaffold``), so the answer
cannot change the tests that judge it. Its golden test runs in a scratch
directory, over a scratch copy of the model, in one pytest session of the
seams plugin; the verdict comes from the four item reports, never from an
exit status. ``seams_cli.draft_generator`` puts these parts together.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rdflib import URIRef

from seams import vocab
from seams.errors import DraftGeneratorError
from seams.generators.new_generator import scaffold
from seams_cli.workflows.scratch import scratch_project

if TYPE_CHECKING:
    from pytest_seams.runner import ItemResult, SessionResult
    from seams.model.loading import Model

ANSWER_KEYS = ("extract", "template", "golden")
GOLDEN_GATES = ("golden", "determinism", "parses", "sources")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")
_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


@dataclass(frozen=True)
class DraftAnswer:
    extract: str
    template: str
    golden: str

    def cache_text(self) -> str:
        """What the cache stores: the three texts as JSON, keys sorted, one trailing newline."""
        return json.dumps({key: getattr(self, key) for key in ANSWER_KEYS},
                          ensure_ascii=False, sort_keys=True, indent=2) + "\n"


def parse_answer(text: str) -> DraftAnswer:
    """The answer (fence already stripped) as a DraftAnswer, or a DraftGeneratorError naming the key."""
    try:
        data = json.loads(text, object_pairs_hook=_refuse_duplicates)
    except json.JSONDecodeError as exc:
        raise DraftGeneratorError(f"answer: not JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    if not isinstance(data, dict):
        raise DraftGeneratorError(f"answer: not a JSON object but {_json_kind(data)}")
    for key in ANSWER_KEYS:
        if key not in data:
            raise DraftGeneratorError(f"answer: missing key {key}")
    for key in sorted(data):
        if key not in ANSWER_KEYS:
            raise DraftGeneratorError(f"answer: unexpected key {key} (expected exactly {', '.join(ANSWER_KEYS)})")
    for key in ANSWER_KEYS:
        if not isinstance(data[key], str):
            raise DraftGeneratorError(f"answer: key {key} must be a string, not {_json_kind(data[key])}")
    return DraftAnswer(**{key: data[key] for key in ANSWER_KEYS})


def _refuse_duplicates(pairs: list[tuple[str, object]]) -> dict[str, object]:
    seen: dict[str, object] = {}
    for key, value in pairs:
        if key in seen:
            raise DraftGeneratorError(f"answer: key {key} given twice")
        seen[key] = value
    return seen


def _json_kind(value: object) -> str:
    kinds = {dict: "an object", list: "an array", str: "a string", bool: "a boolean",
             int: "a number", float: "a number", type(None): "null"}
    return kinds.get(type(value), type(value).__name__)


def model_names(model: Model) -> list[tuple[str, str]]:
    """(IRI, label) of every rdfs:label of an IRI subject, sorted by IRI, then label."""
    pairs = {(str(s), str(o)) for s, o in model.union.subject_objects(vocab.RDFS.label) if isinstance(s, URIRef)}
    return sorted(pairs)


def names_text(names: list[tuple[str, str]]) -> str:
    """``IRI<TAB>label`` lines; a tab, newline, CR or backslash in a label is escaped."""
    return "".join(f"{iri}\t{label.translate(_ESCAPES)}\n" for iri, label in names)


def assemble(name: str, reference: Path, answer: DraftAnswer) -> dict[str, bytes]:
    """The scaffold with the answer's extract step, template and golden in place of its own."""
    return scaffold(name, reference, extract_source=answer.extract, template=answer.template,
                    golden=answer.golden)


def expected_items(reference_name: str) -> list[str]:
    """Node ids of the scaffold's four golden items, in a session over the package's tests."""
    return [f"tests/golden/{reference_name}::{gate}" for gate in GOLDEN_GATES]


@contextmanager
def scratch_package(model: Model, package_dir_name: str,
                    files: dict[str, bytes]) -> Iterator[tuple[Path, dict[str, str], Path]]:
    """The package written to a scratch directory, beside a scratch copy of the project:
    (package dir, session environment with SEAMS_MODEL at the copied model, copy's root)."""
    with scratch_project(model.project, model) as scratch, \
            tempfile.TemporaryDirectory(prefix="seams-draft-generator-") as tmp:
        package_dir = Path(tmp).resolve() / package_dir_name
        for rel, data in files.items():
            target = package_dir / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        yield package_dir, scratch.env(), scratch.root


def golden_failures(model: Model, package_dir_name: str, files: dict[str, bytes], reference_name: str,
                    *, timeout: float, extra_env: dict[str, str] | None = None) -> list[str]:
    """``<test>: <why>`` for each expected golden item that did not pass, scratch paths
    replaced by the package's name (and the scratch project by ``.``); [] when all passed."""
    from pytest_seams.runner import run_session

    expected = expected_items(reference_name)
    with scratch_package(model, package_dir_name, files) as (package_dir, env, scratch_root):
        result = run_session(package_dir, select="tests", timeout=timeout, env={**env, **(extra_env or {})})
        if result.passed_all(expected):
            return []
        scrub = {str(package_dir): package_dir_name, f"{scratch_root}/": "", str(scratch_root): "."}
        return [_scrubbed(line, scrub) for line in _failure_lines(result, expected, timeout)]


def _failure_lines(result: SessionResult, expected: list[str], timeout: float) -> list[str]:
    """An expected item that failed or never reported, then anything else that failed."""
    reported = {item.name: item for item in result.items}
    lines = []
    for name in expected:
        item = reported.get(name)
        if item is None:
            lines.append(f"{name}: did not run")
        elif item.outcome != "passed":
            lines.append(f"{name}: {_reason(item)}")
    lines += [f"{item.name}: {_reason(item)}" for item in result.failures() if item.name not in expected]
    if result.timed_out:
        lines.append(f"tests: the golden session timed out after {timeout:g} s")
    elif result.error or not lines:
        lines.append(f"tests: {result.error or 'the golden session did not pass'}")
    return lines


def _reason(item: ItemResult) -> str:
    """One line about why an item failed: its first finding, else the first line of its text."""
    if item.findings:
        return item.findings[0].message
    text = next((line.strip() for line in (item.text or "").splitlines() if line.strip()), "")
    return text or item.outcome


def _scrubbed(line: str, replacements: dict[str, str]) -> str:
    for old, new in replacements.items():
        line = line.replace(old, new)
    return " ".join(_CONTROL.sub(" ", line).split())[:300]
