"""The output formats a generator package may render, and how each is parsed.

``seams new-generator`` refuses a reference that does not parse for its
suffix, and the golden ``parses`` item checks a rendered output the same way,
so one table decides both. XML is read with seams' safe parser (no DTD, no
entities, no network).
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable

from seams.project.limits import loads_json

SUPPORTED_SUFFIXES = (".py", ".json", ".toml", ".xml", ".bpmn", ".dmn", ".ttl", ".trig", ".md", ".txt", ".html")


def _python(text: str, source: str) -> None:
    compile(text, source, "exec", dont_inherit=True)


def _xml(text: str, source: str) -> None:
    from seams.model.payloads import parse_xml

    parse_xml(text.encode("utf-8"), source=source)


def _rdf(fmt: str) -> Callable[[str, str], None]:
    def parse(text: str, source: str) -> None:
        from rdflib import Dataset

        Dataset().parse(data=text, format=fmt)

    return parse


def _plain(text: str, source: str) -> None:
    """Markdown, plain text and HTML: being UTF-8 text is all they promise."""


_PARSERS: dict[str, Callable[[str, str], object]] = {
    ".py": _python,
    ".json": lambda text, source: loads_json(text),
    ".toml": lambda text, source: tomllib.loads(text),
    ".xml": _xml, ".bpmn": _xml, ".dmn": _xml,
    ".ttl": _rdf("turtle"), ".trig": _rdf("trig"),
    ".md": _plain, ".txt": _plain, ".html": _plain,
}


def suffix_of(name: str) -> str:
    """The suffix that picks the format (case-insensitive): ``"Report.MD"`` -> ``".md"``."""
    dot = name.rfind(".")
    return name[dot:].lower() if dot > 0 else ""


def parse_problem(text: str, name: str) -> str | None:
    """Why ``text`` does not parse as a file called ``name``, or None when it does."""
    parser = _PARSERS.get(suffix_of(name))
    if parser is None:
        return f"{suffix_of(name) or 'no suffix'} is not a supported format"
    try:
        parser(text, name)
    except Exception as exc:  # each format's parser raises its own error types
        lines = [line.strip() for line in str(exc).strip().splitlines()]
        if len(lines) > 1 and lines[0].endswith(":"):  # rdflib puts the reason on the next line
            lines = [f"{lines[0]} {lines[1]}"]
        reason = lines[0].removeprefix(f"{name}: ") if lines else type(exc).__name__
        return f"does not parse as {suffix_of(name)}: {reason}"
    return None
