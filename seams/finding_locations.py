"""Where a finding points in the files: the file and line a code host annotates.

A finding names its subject as a prefixed name or ``<IRI>`` of the TriG model, a BPMN or DMN
element id, or a project-relative path (docs/architecture.md, D-finding-line). This module turns
that name back into a place, without changing the finding:

* an element id of a payload: the element's line (lxml's ``sourceline``); when the message names
  an element inside it (``rules Rule_Long and Rule_ShortOther overlap``), the first one named,
  else the child the predicate names (``bpmn:conditionExpression``);
* a TriG subject: the line of the statement that has it as subject, and of the predicate within
  that statement when the finding names one (a small tokenizer that skips comments, strings and
  IRIs, so a name inside a literal is never taken for a statement);
* a path inside the project: that file, without a line;
* else a message that starts with ``<subject> [<predicate>]: `` (a generator's finding quotes the
  model's) is located as that subject.

Anything else (a blank node, a name no file holds) has no location; the finding is still reported.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from lxml import etree

from seams.findings import Finding
from seams.model.loading import Model


@dataclass(frozen=True)
class Location:
    path: Path  # absolute
    line: int | None


def locate_findings(model: Model, findings: Iterable[Finding]) -> list[Location | None]:
    """One location (or None) per finding, in order."""
    locator = _Locator(model)
    return [locator.locate(finding) for finding in findings]


class _Locator:
    def __init__(self, model: Model) -> None:
        self.model = model
        self._elements: dict[str, tuple[Path, etree._Element]] | None = None
        self._trig: TrigStatements | None = None

    @property
    def elements(self) -> dict[str, tuple[Path, etree._Element]]:
        if self._elements is None:
            self._elements = {}
            for payload in sorted(self.model.payloads.values(), key=lambda p: p.relpath):
                for element in payload.tree.getroot().iter():
                    ident = element.get("id") if isinstance(element.tag, str) else None
                    if ident:
                        self._elements.setdefault(ident, (payload.path, element))
        return self._elements

    @property
    def trig(self) -> TrigStatements:
        if self._trig is None:
            self._trig = TrigStatements(self.model.trig_bytes.decode("utf-8", errors="replace"))
        return self._trig

    def locate(self, finding: Finding) -> Location | None:
        subject = finding.subject
        if subject in self.elements:
            path, element = self.elements[subject]
            inner = self._named_inside(element, finding.message)
            if inner is None and finding.predicate and finding.predicate.partition(":")[0] in ("bpmn", "dmn"):
                local = finding.predicate.partition(":")[2]  # bpmn:conditionExpression: that child's line
                inner = next((child for child in element if isinstance(child.tag, str)
                              and etree.QName(child).localname == local), None)
            return Location(path, (inner if inner is not None else element).sourceline)
        line = self.trig.line_of(self._expand(subject), self._expand(finding.predicate) if finding.predicate else None)
        if line is not None:
            return Location(self.model.trig_path, line)
        root = self.model.project.root.resolve()
        candidate = (root / subject).resolve() if subject and not subject.startswith("<") else None
        if candidate is not None and candidate.is_relative_to(root) and candidate.is_file():
            return Location(candidate, None)
        quoted = _QUOTED.match(finding.message)  # "generate stubs: ex:Task seam:handler: ..." names its place
        if quoted is not None and quoted.group(1) != subject:
            return self.locate(Finding(finding.kind, quoted.group(1), quoted.group(2), finding.message[quoted.end():]))
        return None

    def _named_inside(self, element: etree._Element, message: str) -> etree._Element | None:
        """The first element inside ``element`` that the message names by id (by position in the message)."""
        best: tuple[int, etree._Element] | None = None
        for word in set(re.findall(r"[A-Za-z_][\w.-]*", message)):
            found = self.elements.get(word)
            if found is None or found[1] is element or not _inside(found[1], element):
                continue
            position = re.search(rf"(?<![\w.-]){re.escape(word)}(?![\w-])", message)
            if position is not None and (best is None or position.start() < best[0]):
                best = (position.start(), found[1])
        return best[1] if best else None

    def _expand(self, name: str) -> str:
        """A prefixed name or ``<IRI>`` as a full IRI with the model's prefixes (else as given)."""
        if name.startswith("<") and name.endswith(">"):
            return name[1:-1]
        prefix, colon, local = name.partition(":")
        if colon:
            namespace = self.trig.prefixes.get(prefix)
            if namespace is None:
                for bound, iri in self.model.union.namespace_manager.namespaces():
                    if bound == prefix:
                        namespace = str(iri)
            if namespace is not None:
                return namespace + local.replace("\\", "")
        return name


_QUOTED = re.compile(r"(\S+?)(?: (\S+?))?: ")


def _inside(element: etree._Element, ancestor: etree._Element) -> bool:
    return any(parent is ancestor for parent in element.iterancestors())


_TOKEN = re.compile(r'''
    (?P<comment>\#[^\n]*)
  | (?P<long>"""(?:[^"\\]|\\.|"(?!""))*"""|\'\'\'(?:[^'\\]|\\.|'(?!''))*\'\'\')
  | (?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
  | (?P<iri><[^>\s]*>)
  | (?P<punct>[.;,{}\[\]()])
  | (?P<word>[^\s.;,{}\[\]()"'<#]+(?:\.[^\s.;,{}\[\]()"'<#]+)*)
  | (?P<space>\s+)
  | (?P<other>.)
''', re.X | re.S)


class TrigStatements:
    """The statements of a TriG text by subject: (subject, [(token, line)]) in file order, where the
    tokens are the statement's IRIs and names, expanded with the file's prefixes."""

    def __init__(self, text: str) -> None:
        self.prefixes: dict[str, str] = {}
        self.statements: list[tuple[str, int, list[tuple[str, int]]]] = []
        self._read(text)

    def line_of(self, subject: str, predicate: str | None) -> int | None:
        """The line of ``predicate`` in a statement about ``subject`` (the first statement that has it),
        else the line of the first statement about ``subject``; None when no statement has that subject."""
        found = [(line, tokens) for name, line, tokens in self.statements if name == subject]
        if not found:
            return None
        if predicate is not None:
            for _, tokens in found:
                for token, line in tokens:
                    if token == predicate:
                        return line
        return found[0][0]

    def _read(self, text: str) -> None:
        line, depth, expecting_subject = 1, 0, True
        current: tuple[str, int, list[tuple[str, int]]] | None = None
        directive: list[str] | None = None
        for match in _TOKEN.finditer(text):
            kind, value = match.lastgroup, match.group()
            start_line = line
            line += value.count("\n")
            if kind in ("space", "comment", "other"):
                continue
            if directive is not None:  # @prefix p: <iri> .  /  PREFIX p: <iri>  /  @base <iri> .
                if kind == "iri":
                    if directive:
                        self.prefixes[directive[0].rstrip(":")] = value[1:-1]
                    directive = None
                else:
                    directive.append(value)
                continue
            if kind == "word" and value.lower() in ("@prefix", "prefix", "@base", "base"):
                directive = []
                continue
            if kind == "punct":
                if value in "[(":
                    depth += 1
                elif value in "])":
                    depth -= 1
                elif depth == 0 and value in ".{}":
                    expecting_subject, current = True, None
                continue
            if kind == "string":
                continue
            term = self._term(value, kind)
            if expecting_subject and depth == 0:
                current = (term, start_line, [])
                self.statements.append(current)
                expecting_subject = False
            elif current is not None:
                current[2].append((term, start_line))

    def _term(self, value: str, kind: str | None) -> str:
        if kind == "iri":
            return value[1:-1]
        if value == "a":
            return "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
        prefix, colon, local = value.partition(":")
        if colon and prefix in self.prefixes:
            return self.prefixes[prefix] + local.replace("\\", "")
        return value
