"""The review page of a pending suggestion (``seams suggest --show ID``; docs/suggest.md, "Review").

Reading the change before ``--accept`` is left to a person (docs/suggest.md); a modeler reads BPMN as a
picture, not as a diff of XML with DI coordinates. The page shows, from the stored record and its
diffs alone (so it serves every kind of suggestion):

* each changed BPMN file before and after, drawn from its DI (seams.render), the elements the
  change removes, adds or changes marked;
* each new or changed DMN decision as its table, new and changed rules marked;
* each rewritten sequence-flow condition, old -> new;
* for a ``condition-to-dmn`` suggestion, the routing samples the scratch check runs: every input
  with the flows taken before and after (seams.suggestions.routing, the same samples);
* the unified diffs as stored, the TriG model's first.

The "after" files are the stored diffs applied to the files as they are now; a suggestion whose
files changed since (stale) is refused, as ``--accept`` refuses it. Nothing here runs a script in
the page or fetches anything: one HTML file, readable offline.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from lxml import etree

from seams.errors import GeneratorError, SeamsError
from seams.model.loading import Model, load_model
from seams.model.payloads import parse_xml
from seams.project.layout import Project
from seams.render import render_bpmn, render_decision_table
from seams.render.page import Section, diagram, diff_block, html_page, legend, table
from seams.render.text import esc as _esc
from seams.suggestions.answer import KIND, parse_object
from seams.suggestions.candidates import candidate_for, find_candidates
from seams.suggestions.routing import Trace, check_routing
from seams.vocab import BPMN_NS
from seams_cli.llm.output import say
from seams_cli.workflows.suggest.store import Pending, diff_name, load_pending, suggestions_dir, write_atomic

REVIEW_DIR = "review"
"""Under ``.seams/``: the pages, one per suggestion id (kept after ``--accept`` removes the pending entry)."""
MAX_SAMPLE_ROWS = 200
"""Most routing samples listed on the page; the count says how many the check ran."""
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_IGNORED = frozenset({"incoming", "outgoing"})  # follow from the flows; a change there is the flow's


def review_path(project: Project, ident: str) -> Path:
    return project.cache_dir / REVIEW_DIR / f"{ident}.html"


def write_review(project: Project, page: str, ident: str) -> Path:
    """Write the page atomically; its path."""
    path = review_path(project, ident)
    write_atomic(path, page.encode("utf-8"), project)
    return path


def show(project: Project, ident: str) -> int:
    """``seams suggest --show ID``: write the page, print ``review <path>``."""
    page = review_page(project, load_model(project), load_pending(project, ident))
    say(f"review {project.relative(write_review(project, page, ident))}")
    return 0


def review_page(project: Project, model: Model, entry: Pending) -> str:
    """The page of ``entry`` against the model as it is now."""
    if entry.model_hash != model.hash:
        raise GeneratorError(f"suggestion {entry.id} is stale: the model changed since it was made; "
                             f"run seams suggest again")
    diffs = {relpath: _read_diff(project, entry, relpath) for relpath in entry.files}
    before = {relpath: _current(project, relpath) for relpath in entry.files}
    after = {relpath: apply_unified_diff(before[relpath], diffs[relpath], where=relpath) for relpath in entry.files}
    for relpath, data in after.items():
        wanted = entry.hashes.get(relpath, {}).get("after")
        if wanted and hashlib.sha256(data).hexdigest() != wanted:
            raise GeneratorError(f"suggestion {entry.id}: {relpath} does not match its stored diff; "
                                 f"run seams suggest again")
    sections: list[Section] = []
    used: set[str] = set()
    conditions: list[tuple[str, str, str, str]] = []
    for relpath in entry.files:
        old, new = _tree(before[relpath], relpath), _tree(after[relpath], relpath)
        if new is None or etree.QName(new).localname != "definitions":
            continue
        if etree.QName(new).namespace == BPMN_NS:
            removed, added, changed = _compare(old, new)
            used |= {"removed", "added", "changed"} if (removed or added or changed) else set()
            marks_before = {**{i: "removed" for i in removed}, **{i: "changed" for i in changed}}
            marks_after = {**{i: "added" for i in added}, **{i: "changed" for i in changed}}
            if old is not None:
                sections.append(Section(f"Before: {relpath}", diagram(render_bpmn(old, marks_before))))
            sections.append(Section(f"After: {relpath}", diagram(render_bpmn(new, marks_after))))
            conditions += _conditions(old, new)
        else:
            sections += _decisions(relpath, old, new)
    if conditions:
        sections.append(Section("Conditions, old \u2192 new", table(("flow", "name", "old", "new"), conditions)))
    samples = routing_samples(model, entry)
    if samples is not None:
        sections.append(samples)
    ordered = sorted(entry.files, key=lambda r: (not r.endswith(".trig"), r))
    sections.append(Section("Diff", "".join(
        f"<h3>{_esc(relpath)}</h3>{diff_block(diffs[relpath].decode('utf-8', errors='replace'))}"
        for relpath in ordered)))
    head = Section("What changes", legend(["removed", "added", "changed"] if used else [])
                   + f"<p>{_esc(entry.kind)} on {'gateway ' if entry.kind == KIND else ''}"
                   + f"<code>{_esc(entry.subject)}</code>; files: "
                   + ", ".join(f"<code>{_esc(r)}</code>" for r in entry.files) + "</p>")
    return html_page(f"Suggestion {entry.id[:12]}", f"review before: seams suggest --accept {entry.id[:12]}",
                     [head, *sections], meta={"seams-suggestion": entry.id})


def routing_samples(model: Model, entry: Pending) -> Section | None:
    """The routing check's samples for a ``condition-to-dmn`` suggestion (None for other kinds)."""
    if entry.kind != KIND:
        return None
    try:
        candidates = find_candidates(model)
        suggestion = parse_object(entry.suggestion, model, candidates)
        trace: Trace = []
        result = check_routing(model, candidate_for(candidates, model, suggestion.gateway), suggestion, trace=trace)
    except SeamsError as exc:
        return Section("Routing samples", f'<p class="note">not available: {_esc(str(exc))}</p>')
    names = sorted(trace[0][0]) if trace else []
    rows = [[*(_value(env.get(name)) for name in names), " ".join(before),
             " ".join(after) if after is not None else "(no single answer)",
             "same" if after == before else "DIFFERENT"] for env, before, after in trace[:MAX_SAMPLE_ROWS]]
    note = (f'<p class="note">{result.samples} sample inputs, built from the literals of the original conditions, '
            f"the rules' tests and the fields' shapes; each runs the original conditions and the new table with "
            f"its conditions{'' if len(trace) <= MAX_SAMPLE_ROWS else f'; the first {MAX_SAMPLE_ROWS} are listed'}."
            f" {len(result.findings)} differ.</p>")
    return Section("Routing samples", note + table([*names, "flows before", "flows after", ""], rows))


def _value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return "null" if value is None else str(value)


def _read_diff(project: Project, entry: Pending, relpath: str) -> bytes:
    path = suggestions_dir(project) / entry.id / diff_name(relpath)
    try:
        return path.read_bytes()
    except OSError:
        raise GeneratorError(f"{project.relative(path)}: missing; run seams suggest again") from None


def _current(project: Project, relpath: str) -> bytes | None:
    path = (project.root / relpath).resolve()
    if not path.is_relative_to(project.root.resolve()):
        raise GeneratorError(f"suggestion file {relpath}: outside the project")
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def apply_unified_diff(old: bytes | None, diff: bytes, *, where: str) -> bytes:
    """``old`` with the unified diff applied (as store.unified_diff writes it); every context and
    removed line must match, else the diff is not of this file."""
    source = old.decode("utf-8").splitlines(keepends=True) if old is not None else []
    out: list[str] = []
    position = 0
    lines = diff.decode("utf-8").splitlines(keepends=True)
    index, last = 0, ""
    while index < len(lines):
        match = _HUNK.match(lines[index])
        index += 1
        if match is None:
            continue
        start = int(match.group(1)) - (0 if match.group(2) == "0" else 1)
        out += source[position:start]
        position = start
        while index < len(lines) and not lines[index].startswith("@@"):
            line = lines[index]
            index += 1
            if line.startswith("\\"):  # "\ No newline at end of file": the line before has none
                if last in (" ", "+") and out and out[-1].endswith("\n"):
                    out[-1] = out[-1][:-1]
                continue
            tag, text = line[:1], line[1:]
            last = tag
            if tag in (" ", "-"):
                if position >= len(source) or source[position].rstrip("\n") != text.rstrip("\n"):
                    raise GeneratorError(f"{where}: the stored diff does not apply to the file as it is now")
                position += 1
                if tag == " ":
                    out.append(source[position - 1])
            elif tag == "+":
                out.append(text)
    out += source[position:]
    return "".join(out).encode("utf-8")


def _tree(data: bytes | None, relpath: str) -> etree._Element | None:
    if data is None or not relpath.endswith((".bpmn", ".dmn", ".xml")):
        return None
    return parse_xml(data, source=relpath).getroot()


def _semantic(root: etree._Element | None) -> dict[str, bytes]:
    """Every element with an id outside the DI, as canonical bytes without its incoming/outgoing."""
    if root is None:
        return {}
    found = {}
    for element in root.iter():
        if not isinstance(element.tag, str) or not element.get("id") or "DI" in (etree.QName(element).namespace or ""):
            continue
        copy = etree.fromstring(etree.tostring(element, with_tail=False))
        for child in list(copy):
            if isinstance(child.tag, str) and (etree.QName(child).localname in _IGNORED or child.get("id")):
                copy.remove(child)  # a child with an id is compared on its own
        for node in copy.iter():  # layout whitespace is no change
            node.tail = node.tail.strip() or None if node.tail else None
            node.text = node.text.strip() or None if node.text else None
        found[element.get("id") or ""] = etree.tostring(copy, method="c14n")
    return found


def _compare(old: etree._Element | None, new: etree._Element) -> tuple[set[str], set[str], set[str]]:
    before, after = _semantic(old), _semantic(new)
    changed = {i for i in before.keys() & after.keys() if before[i] != after[i]}
    return set(before) - set(after), set(after) - set(before), changed


def _conditions(old: etree._Element | None, new: etree._Element) -> list[tuple[str, str, str, str]]:
    def read(root: etree._Element | None) -> dict[str, tuple[str, str]]:
        if root is None:
            return {}
        flows = root.iter(f"{{{BPMN_NS}}}sequenceFlow")
        out = {}
        for flow in flows:
            expression = flow.find(f"{{{BPMN_NS}}}conditionExpression")
            out[flow.get("id") or ""] = (flow.get("name") or "",
                                         (expression.text or "").strip() if expression is not None else "")
        return out
    before, after = read(old), read(new)
    rows = []
    for flow in sorted(before.keys() | after.keys()):
        was, now = before.get(flow, ("", ""))[1], after.get(flow, ("", ""))[1]
        if was != now:
            rows.append((flow, after.get(flow, before.get(flow, ("", "")))[0], was or "(none)", now or "(none)"))
    return rows


def _decisions(relpath: str, old: etree._Element | None, new: etree._Element) -> list[Section]:
    """A section per new or changed decision of a DMN file, its new and changed rules marked."""
    def decisions(root: etree._Element | None) -> dict[str, etree._Element]:
        if root is None:
            return {}
        return {d.get("id") or "": d for d in root.iter() if isinstance(d.tag, str)
                and etree.QName(d).localname == "decision"}
    before, after = decisions(old), decisions(new)
    sections = []
    for ident, decision in after.items():
        previous = before.get(ident)
        if previous is not None and etree.tostring(previous, method="c14n") == etree.tostring(decision, method="c14n"):
            continue
        old_rules = {r.get("id"): etree.tostring(r, method="c14n") for r in
                     (previous.iter() if previous is not None else []) if isinstance(r.tag, str)
                     and etree.QName(r).localname == "rule"}
        marks = {}
        for rule in decision.iter():
            if isinstance(rule.tag, str) and etree.QName(rule).localname == "rule":
                rid = rule.get("id") or ""
                if rid not in old_rules:
                    marks[rid] = "added"
                elif old_rules[rid] != etree.tostring(rule, method="c14n"):
                    marks[rid] = "changed"
        what = "New decision" if previous is None else "Changed decision"
        sections.append(Section(f"{what} in {relpath}", render_decision_table(decision, marks)))
    return sections
