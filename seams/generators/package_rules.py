"""The cheap checks of a drafted generator (docs/draft-generator.md: no logic, no restated label, the extract step).

A template copied from the reference passes the golden test on the model it
was drawn from, so the golden test alone cannot tell a generator from a
copy. These checks can: the template may restate no model label that the
reference holds (such a value has to come from extract), and it may hold
no logic (templates hold text, not logic), so every value it shows is one
extract chose. The extract step may not redefine what the scaffold's
package module defines (``sources`` above all), because those parts are
what the golden test judges it with. Each check raises a DraftGeneratorError
naming the line at fault. They are the items ``extract``, ``no-logic`` and
``restated-label`` of a drafted package's golden file (pytest_seams.golden_rules),
so the package's own pytest enforces them, and ``seams draft-generator``
reports them from the scratch session like the golden items.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Sequence

import jinja2

from seams.errors import DraftGeneratorError

ALLOWED = "only [[ name ]], [[ name.attr ]], [% for x in xs %] and [% endfor %] are allowed"
_LITERAL_NAMES = {"true", "false", "none", "True", "False", "None"}
_WORD_OPERATORS = {"not", "and", "or", "is", "in"}
_TOKEN_WORDS = {"|": "a filter (|)", "(": "a call", "[": "a subscript"}
_TAG = re.compile(r"\[\[.*?\]\]|\[%.*?%\]|\[#.*?#\]", re.S)
_TOP_LEVEL = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef, ast.Assign, ast.AnnAssign)


def _lexer() -> jinja2.Environment:
    """The delimiters of the scaffold's render environment (seams.generators.package)."""
    return jinja2.Environment(
        variable_start_string="[[", variable_end_string="]]",
        block_start_string="[%", block_end_string="%]",
        comment_start_string="[#", comment_end_string="#]",
        keep_trailing_newline=True,
    )


def check_no_logic(template: str) -> None:
    """Refuse every tag but a value, a name.attr value, a simple for loop and its endfor."""
    env = _lexer()
    try:
        tokens = [(line, kind, value) for line, kind, value in env.lex(template) if kind != "whitespace"]
        env.parse(template)
    except jinja2.TemplateSyntaxError as exc:
        raise DraftGeneratorError(f"template line {exc.lineno}: not a valid template: {exc.message}") from None
    tag: list[tuple[int, str, str]] = []
    for line, kind, value in tokens:
        if kind == "comment_begin":
            raise DraftGeneratorError(f"template line {line}: a [# comment #]; {ALLOWED}")
        if kind == "raw_begin":
            raise DraftGeneratorError(f"template line {line}: a [% raw %] block; {ALLOWED}")
        if kind in ("variable_begin", "block_begin"):
            tag = [(line, kind, value)]
        elif kind in ("variable_end", "block_end"):
            _check_tag(tag[0][1], tag[1:], tag[0][0])
            tag = []
        elif tag:
            tag.append((line, kind, value))


def _check_tag(opening: str, inside: list[tuple[int, str, str]], line: int) -> None:
    words = [(kind, value) for _, kind, value in inside]
    if opening == "variable_begin" and _is_reference(words):
        return
    if opening == "block_begin" and (words == [("name", "endfor")] or _is_for(words)):
        return
    fault_line, what = _fault(opening, inside)
    raise DraftGeneratorError(f"template line {fault_line or line}: {what}; {ALLOWED}")


def _is_plain_name(word: tuple[str, str]) -> bool:
    return word[0] == "name" and word[1] not in _LITERAL_NAMES | _WORD_OPERATORS


def _is_reference(words: Sequence[tuple[str, str]]) -> bool:
    """``name`` or ``name.attr``: nothing computed, nothing called."""
    if len(words) == 1:
        return _is_plain_name(words[0])
    return (len(words) == 3 and _is_plain_name(words[0]) and words[1] == ("operator", ".")
            and _is_plain_name(words[2]))


def _is_for(words: Sequence[tuple[str, str]]) -> bool:
    """``for x in xs`` or ``for x in xs.attr``, nothing after it (no ``if``, no ``recursive``)."""
    return (len(words) >= 4 and words[0] == ("name", "for") and _is_plain_name(words[1])
            and words[2] == ("name", "in") and _is_reference(words[3:]))


def _fault(opening: str, inside: list[tuple[int, str, str]]) -> tuple[int | None, str]:
    """The line and a name for the first thing in a refused tag that makes it logic."""
    if opening == "block_begin" and inside and inside[0][1] == "name" and inside[0][2] not in ("for", "endfor"):
        return inside[0][0], f"[% {inside[0][2]} %] is logic"
    for line, kind, value in inside:
        if kind == "name" and value == "if":
            return line, "a condition (if) is logic"
        if kind == "operator" and value in _TOKEN_WORDS:
            return line, f"{_TOKEN_WORDS[value]} is logic"
        if kind in ("string", "integer", "float") or (kind == "name" and value in _LITERAL_NAMES):
            return line, f"a literal ({value}) in a tag is logic"
        if (kind == "operator" and value != ".") or (kind == "name" and value in _WORD_OPERATORS
                                                     and opening == "variable_begin"):
            return line, f"an operator ({value}) is logic"
    return (inside[0][0], "this tag is neither a value nor a loop") if inside else (None, "an empty tag")


def check_no_restated_label(template: str, reference: str, names: Iterable[tuple[str, str]]) -> None:
    """Refuse the first (by line) model label that occurs in the reference and in the template's text.

    Only the text outside tags counts, so a view-model field that happens
    to be spelled like a label is not a restatement. Run after
    :func:`check_no_logic`: tags are then plain and cannot hide a ``]]``.
    """
    masked = _TAG.sub(lambda found: re.sub(r"[^\n]", "\0", found.group()), template)
    first: tuple[int, int, str, str] | None = None
    for iri, label in names:
        if not label.strip() or label not in reference:
            continue
        at = masked.find(label)
        if at >= 0:
            line = masked.count("\n", 0, at) + 1
            if first is None or (line, at) < first[:2]:
                first = (line, at, label, iri)
    if first is not None:
        line, _, label, iri = first
        raise DraftGeneratorError(f"template line {line}: restates the model label {label!r} (<{iri}>); "
                                  "extract has to read it from the model")


def label_names(graph) -> list[tuple[str, str]]:
    """(IRI, label) of every rdfs:label of an IRI subject of ``graph`` (a model's union),
    sorted by IRI, then label: the names a template may not restate."""
    from rdflib import RDFS, URIRef

    return sorted({(str(s), str(o)) for s, o in graph.subject_objects(RDFS.label) if isinstance(s, URIRef)})


def check_extract(source: str, package_module: str) -> None:
    """The extract step: valid Python defining ``extract``, with only imports, definitions
    and constants at the top level, and no name the package module already defines."""
    try:
        tree = ast.parse(source, filename="extract")
    except SyntaxError as exc:
        raise DraftGeneratorError(f"answer extract: not valid Python: {exc.msg} (line {exc.lineno})") from None
    owned = _defined_names(ast.parse(package_module)) - {"extract"}
    for statement in tree.body:
        docstring = isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)
        if not isinstance(statement, _TOP_LEVEL) and not docstring:
            raise DraftGeneratorError(f"answer extract line {statement.lineno}: only imports, definitions "
                                      "and constants may be at the top level")
        for name in sorted(_bound_names(statement) & owned):
            raise DraftGeneratorError(f"answer extract line {statement.lineno}: redefines {name}, "
                                      "which the package module defines")
    if not any(isinstance(s, ast.FunctionDef) and s.name == "extract" for s in tree.body):
        raise DraftGeneratorError("answer extract: defines no function extract(trig, out)")


def _defined_names(module: ast.Module) -> set[str]:
    """What the package module itself defines (functions, classes, constants), not what it imports."""
    return {name for statement in module.body if not isinstance(statement, (ast.Import, ast.ImportFrom))
            for name in _bound_names(statement)}


def _bound_names(statement: ast.stmt) -> set[str]:
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {statement.name}
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return {(alias.asname or alias.name).split(".")[0] for alias in statement.names}
    targets = statement.targets if isinstance(statement, ast.Assign) else (
        [statement.target] if isinstance(statement, ast.AnnAssign) else [])
    return {node.id for target in targets for node in ast.walk(target) if isinstance(node, ast.Name)}
