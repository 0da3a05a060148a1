"""``seams new-generator``: a generator package from a hand-written reference output.

The package's golden test passes as written (the template is the reference
verbatim, every golden line ``[fixed]``, extract returns only the model
hash), so the author starts from green and changes one literal at a time.
Every refusal is decided before anything is written; ``write`` then puts
each file in place atomically. ``seams draft-generator`` (docs/draft-generator.md) reuses
``scaffold`` with a drafted extract step, template and golden, and the same
refusals of the reference.
"""

from __future__ import annotations

import re
from pathlib import Path

from seams.errors import GeneratorError
from seams.fs import atomic_write
from seams.generators.formats import SUPPORTED_SUFFIXES, parse_problem, suffix_of
from seams.generators.golden_text import fixed_golden
from seams.generators.package import (
    DEFAULT_EXTRACT,
    OPENING_DELIMITERS,
    draft_table,
    package_module,
    package_name,
    pyproject,
)

NAME_RULE = re.compile(r"[a-z][a-z0-9-]*")
# a golden file pytest would import (or treat as a package marker) instead of handing it to seams
_PYTEST_MODULE = re.compile(r"(test_.*|.*_test|conftest|__init__)\.py", re.IGNORECASE)


def check_name(name: str) -> None:
    if not NAME_RULE.fullmatch(name):
        raise GeneratorError(f"name {name!r}: use lowercase letters, digits and hyphens, starting with a letter")


def default_out(name: str) -> Path:
    return Path(f"seams-{name}")


def read_reference(path: Path) -> str:
    """The reference's text, or a GeneratorError saying why no passing golden test can come of it."""
    shown = f"reference {path.name}"
    if suffix_of(path.name) not in SUPPORTED_SUFFIXES:
        raise GeneratorError(f"{shown}: unsupported suffix {suffix_of(path.name) or '(none)'} "
                             f"(supported: {' '.join(SUPPORTED_SUFFIXES)})")
    if _PYTEST_MODULE.fullmatch(path.name):
        raise GeneratorError(f"{shown}: pytest would collect tests/golden/{path.name} as Python; rename it")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise GeneratorError(f"{shown}: cannot read it: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise GeneratorError(f"{shown}: not UTF-8 text") from None
    if not text.strip():
        raise GeneratorError(f"{shown}: empty")
    if "\r" in text:
        raise GeneratorError(f"{shown}: has CR line endings, which templates render as LF; use LF")
    for number, line in enumerate(text.split("\n"), start=1):
        for delimiter in OPENING_DELIMITERS:
            if delimiter in line:
                raise GeneratorError(f"{shown}: line {number} holds the template delimiter {delimiter}")
    problem = parse_problem(text, path.name)
    if problem is not None:
        raise GeneratorError(f"{shown}: {problem}")
    return text


def scaffold(name: str, reference_path: Path, *, extract_source: str = DEFAULT_EXTRACT,
             template: str | None = None, golden: str | None = None) -> dict[str, bytes]:
    """The package's files by path relative to its directory (forward slashes).

    ``template`` and ``golden`` default to the reference verbatim and its
    all-``[fixed]`` golden; ``extract_source`` to the model-hash extract. A
    package given its own template is a drafted one: its ``pyproject.toml``
    keeps the reference (``[tool.seams.draft]``), so the package's golden file
    also collects the drafted-package rules (pytest_seams.golden_rules).
    """
    check_name(name)
    reference = read_reference(Path(reference_path))
    ref_name = Path(reference_path).name
    package = package_name(name)
    files = {
        "pyproject.toml": pyproject(name) + ("" if template is None else draft_table(reference)),
        f"{package}/__init__.py": package_module(name, ref_name, extract_source),
        f"{package}/templates/{ref_name}": reference if template is None else template,
        f"tests/golden/{ref_name}": fixed_golden(reference) if golden is None else golden,
    }
    return {path: text.encode("utf-8") for path, text in files.items()}


def write(files: dict[str, bytes], out_dir: Path, *, force: bool) -> list[Path]:
    """Write the package into ``out_dir``; returns the written paths in order.

    ``out_dir`` must be absent or empty unless ``force``, which lets the
    package's files replace files of the same path and leaves the others.
    """
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise GeneratorError(f"out {out_dir}: exists and is not a directory")
    if out_dir.is_dir() and any(out_dir.iterdir()) and not force:
        raise GeneratorError(f"out {out_dir}: not empty (--force replaces the package's files in it)")
    targets = [(out_dir / rel, data) for rel, data in files.items()]
    for target, _ in targets:
        if not target.resolve().is_relative_to(out_dir.resolve()):  # a symlink in DIR leading out
            raise GeneratorError(f"out {out_dir}: {target} leads outside it")
        blocked = next((parent for parent in target.parents if parent.is_file()), None)
        if target.is_dir() or blocked is not None:
            raise GeneratorError(f"out {out_dir}: {blocked or target} is in the way of {target}")
    for target, data in targets:
        atomic_write(target, data)
    return [target for target, _ in targets]
