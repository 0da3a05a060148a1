"""A drafted generator (docs/draft-generator.md): the answer, the model's names, the cache and the golden session.

The provider's answer is three texts, and everything else of the package is
the scaffold's (``seams.generators.new_generator.scaffold``), so the answer
cannot change the tests that judge it. Its golden test runs in a scratch
directory, over a scratch copy of the model, in one pytest session of the
seams plugin; the verdict comes from the four item reports, never from an
exit status. ``seams_cli.draft_generator`` puts these parts together.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rdflib import URIRef

from seams import vocab
from seams.checks.registry import DRAFT_RULE_NAMES, GOLDEN_GATE_NAMES
from seams.errors import DraftGeneratorError
from seams.generators.new_generator import scaffold
from seams.generators.package_rules import label_names
from seams.project.limits import LimitError, loads_json
from seams_cli.verdicts import first_refusal, golden_lines
from seams_cli.workflows.scratch import scratch_project

if TYPE_CHECKING:
    from seams.model.loading import Model

ANSWER_KEYS = ("extract", "template", "golden")
GOLDEN_GATES = GOLDEN_GATE_NAMES  # pytest_seams.golden's items
DRAFT_RULE_GATES = DRAFT_RULE_NAMES  # pytest_seams.golden_rules' items
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
        data = loads_json(text, object_pairs_hook=_refuse_duplicates)
    except json.JSONDecodeError as exc:
        raise DraftGeneratorError(f"answer: not JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    except LimitError as exc:
        raise DraftGeneratorError(f"answer: {exc}") from None
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
    return label_names(model.union)


def model_subjects(model: Model) -> list[tuple[str, str, str]]:
    """(subject, types, label) of every labelled IRI subject: the subject and its rdf:types
    as prefixed names where a prefix fits, sorted; the label escaped as in names_text."""
    union = model.union
    rows = set()
    for subject, label in union.subject_objects(vocab.RDFS.label):
        if not isinstance(subject, URIRef):
            continue
        types = sorted(model.qname(t) for t in union.objects(subject, vocab.RDF.type) if isinstance(t, URIRef))
        rows.add((model.qname(subject), ", ".join(types), str(label)))
    return sorted(rows)


def subjects_text(subjects: list[tuple[str, str, str]]) -> str:
    """``subject<TAB>types<TAB>label`` lines (a tab, newline, CR or backslash in a label escaped)."""
    return "".join(f"{subject}\t{types}\t{label.translate(_ESCAPES)}\n" for subject, types, label in subjects)


def vocabulary_text() -> str:
    """``<name><TAB><prefixed term>`` for every seam: and dec: term seams.vocab names, by name."""
    prefixes = {str(vocab.SEAM): "seam:", str(vocab.DEC): "dec:"}
    lines = []
    for name, value in sorted(vars(vocab).items()):
        if name.startswith("_") or not isinstance(value, URIRef):
            continue
        for base, prefix in prefixes.items():
            if str(value).startswith(base):
                lines.append(f"{name}\t{prefix}{str(value)[len(base):]}\n")
    return "".join(lines)


def names_text(names: list[tuple[str, str]]) -> str:
    """``IRI<TAB>label`` lines; a tab, newline, CR or backslash in a label is escaped."""
    return "".join(f"{iri}\t{label.translate(_ESCAPES)}\n" for iri, label in names)


def assemble(name: str, reference: Path, answer: DraftAnswer) -> dict[str, bytes]:
    """The scaffold with the answer's extract step, template and golden in place of its own
    (a drafted package: its pyproject.toml names the reference, see ``scaffold``)."""
    return scaffold(name, reference, extract_source=answer.extract, template=answer.template,
                    golden=answer.golden)


def expected_items(reference_name: str) -> list[str]:
    """Node ids of the scaffold's four golden items, in a session over the package's tests."""
    return [f"tests/golden/{reference_name}::{gate}" for gate in GOLDEN_GATES]


def rule_items(reference_name: str) -> list[str]:
    """Node ids of a drafted package's rule items, in the order their refusals are reported."""
    return [f"tests/golden/{reference_name}::{gate}" for gate in DRAFT_RULE_GATES]


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


@dataclass(frozen=True)
class GoldenVerdict:
    """The golden session's verdict: a rule item's refusal (one line, reported alone, as the
    checks before the session used to), else the failed golden items' lines; both empty: passed."""

    refusal: str | None
    failures: list[str]


def golden_verdict(model: Model, package_dir_name: str, files: dict[str, bytes], reference_name: str,
                   *, timeout: float, extra_env: dict[str, str] | None = None) -> GoldenVerdict:
    """Run the package's golden session in a scratch directory; scratch paths in the lines
    are replaced by the package's name (and the scratch project by ``.``)."""
    from pytest_seams.runner import run_session

    rules = rule_items(reference_name)
    expected = [*rules, *expected_items(reference_name)]
    with scratch_package(model, package_dir_name, files) as (package_dir, env, scratch_root):
        result = run_session(package_dir, select="tests", timeout=timeout, env={**env, **(extra_env or {})})
        refusal = first_refusal(result, rules)
        if refusal is not None:
            return GoldenVerdict(refusal, [])
        return GoldenVerdict(None, golden_lines(result, expected, timeout=timeout, replacements={
            str(package_dir): package_dir_name, f"{scratch_root}/": "", str(scratch_root): "."}))
