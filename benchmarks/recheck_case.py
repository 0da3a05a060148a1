"""Checking again: ``seams check`` from its cache and after a one-line edit, against a full check;
the same at 4,000 processes; and oxrdflib's TriG parser against rdflib's.

* **unchanged**: ``seams check`` once fills ``.seams/check-cache``; then the
  same command (a cache hit: every input hashed, the stored lines printed)
  alternates with ``seams check --no-cache`` (a full check).
* **one-line edit**: before each sample one label of the seams graph gets a
  new text (never seen before, so the cache cannot know it), then
  ``seams check``; against ``seams check --no-cache`` of the same state. The
  same with a condition of one process's BPMN file (a payload edit).
* **statements kept**: the parse alone, in fresh children: after a one-line
  edit (a label never seen before) with ``.seams/parse-cache`` holding every
  other statement (seams.model.statement_cache), against rdflib's bare parse
  of the same text; a check in a fresh clone (both caches removed: the
  verdict is kept, the statements are not, since nothing was checked there
  before) and the first check after an edit that keeps the statements (every
  statement parsed and the pack written), each against ``--no-cache``.
* **scale**: the 4,000-process project against the 400-process one (check
  time, cached re-check, re-check after a one-line edit, peak memory).
* **parser**: a bare parse of the TriG into the Dataset seams reads, with
  rdflib's own TriG parser and with oxrdflib's (``format="ox-trig"``, parsed
  by pyoxigraph in Rust, the statements added to the same rdflib store), each
  in a fresh child; the child checks the two give the same statements.
"""

from __future__ import annotations

import itertools
import re
import shutil
import sys
from pathlib import Path

from command_cases import check
from measure import (
    BenchmarkError,
    Row,
    Sample,
    alternate,
    best_cpu_seconds,
    best_seconds,
    least_rss_mb,
    processes,
    run_child,
)

_LABEL = re.compile(r'(rdfs:label "Leave request form 0)([^"]*)(")')
_edits = itertools.count()

# parse with one parser; print the statement count (bnodes aside) for the comparison
_PARSE_WITH = """import sys
from rdflib import BNode, Dataset
d = Dataset(default_union=True)
d.parse(data=open(sys.argv[1], encoding='utf-8').read(), format=sys.argv[2])
print(len(d), sum(1 for q in d.quads() if not any(isinstance(t, BNode) for t in q[:3])))
"""


# parse the TriG with one label edited (argv[2]: a number never used before), keeping the statements
# in argv[1]'s pack, or (argv[3] == "bare") with rdflib's parser alone
_PARSE_KEEPING = """import sys
from pathlib import Path
data = Path('model/model.trig').read_bytes().replace(b'"Leave request form 0', b'"Leave request form 0 ('
                                                      + sys.argv[2].encode() + b')', 1)
if sys.argv[3] == 'bare':
    from seams.model.trig_parse import parse_trig
    dataset = parse_trig(data, source='model.trig', base='https://example.org/')
else:
    from seams.model.statement_cache import StatementPack, parse_trig_statements
    from seams.project.check_cache import tool_digest
    pack = StatementPack(Path(sys.argv[1]), tool_digest(), lambda d: d.mkdir(parents=True, exist_ok=True))
    dataset = parse_trig_statements(data, source='model.trig', base='https://example.org/', pack=pack)
print(len(dataset))
"""


_CONDITION = re.compile(r'(tFormalExpression">approved == True)[^<]*(<)')


def _payload_edit(project: Path) -> None:
    bpmn = project / "model" / "leave_0.bpmn"
    text = bpmn.read_text(encoding="utf-8")
    changed, count = _CONDITION.subn(lambda m: f"{m.group(1)} or days > {10**6 + next(_edits)}{m.group(2)}",
                                     text, count=1)
    if count != 1:
        raise BenchmarkError(f"{bpmn}: no 'approved == True' condition to edit")
    bpmn.write_text(changed, encoding="utf-8")


def _one_line_edit(project: Path) -> None:
    trig = project / "model" / "model.trig"
    text = trig.read_text(encoding="utf-8")
    changed, count = _LABEL.subn(lambda m: f"{m.group(1)} (edit {next(_edits)}){m.group(3)}", text, count=1)
    if count != 1:
        raise BenchmarkError(f"{trig}: no 'Leave request form 0' label to edit")
    trig.write_text(changed, encoding="utf-8")


def recheck_rows(project: Path, *, copies: int, repeats: int) -> list[Row]:
    check(project, cached=True)  # fills the cache for the state as it is
    hits, fulls = alternate(repeats, lambda: check(project, cached=True), lambda: check(project))

    def edited() -> Sample:
        _one_line_edit(project)
        return check(project, cached=True)

    edits, edited_fulls = alternate(repeats, edited, lambda: check(project))

    def payload_edited() -> Sample:
        _payload_edit(project)
        return check(project, cached=True)

    payload_edits, payload_fulls = alternate(repeats, payload_edited, lambda: check(project))

    def fresh_clone() -> Sample:
        _forget(project)
        return check(project, cached=True)

    clones, clone_fulls = alternate(repeats, fresh_clone, lambda: check(project))

    def starting_pack() -> Sample:
        shutil.rmtree(project / ".seams" / "parse-cache", ignore_errors=True)
        _one_line_edit(project)
        return check(project, cached=True)

    firsts, first_fulls = alternate(repeats, starting_pack, lambda: check(project))
    pack = project / ".seams" / "statement-benchmark"

    def parse(how: str) -> Sample:
        return run_child([sys.executable, "-c", _PARSE_KEEPING, str(pack), str(next(_edits)), how], cwd=project)

    parse("keep")  # fills the pack
    kept, bare = alternate(repeats, lambda: parse("keep"), lambda: parse("bare"))
    if kept[0].stdout != bare[0].stdout:
        raise BenchmarkError(f"statement-wise and bare parses differ: {kept[0].stdout} against {bare[0].stdout}")
    return [
        Row(f"TriG parse after a one-line edit, statements kept in .seams/parse-cache vs a bare parse, "
            f"{processes(copies)}: CPU time", best_cpu_seconds(kept), best_cpu_seconds(bare), target=0.6,
            enforced=False),
        Row(f"seams check in a fresh clone (no .seams) vs a full check, {processes(copies)}: CPU time",
            best_cpu_seconds(clones), best_cpu_seconds(clone_fulls), target=1.1, enforced=False,
            note="the verdict is kept, the statements are not: nothing checked here before"),
        Row(f"seams check keeping the statements for the first time (checked here before, an edit since) "
            f"vs a full check, {processes(copies)}: CPU time",
            best_cpu_seconds(firsts), best_cpu_seconds(first_fulls), target=1.25, enforced=False,
            note="every statement parsed and kept, the components recorded"),
        Row(f"seams check after a one-line TriG edit vs a full check, {processes(copies)}: CPU time",
            best_cpu_seconds(edits), best_cpu_seconds(edited_fulls), target=0.1),
        Row(f"seams check again, nothing changed (from .seams/check-cache) vs a full check, {processes(copies)}",
            best_seconds(hits), best_seconds(fulls), target=0.1),
        Row(f"seams check after a one-line TriG edit vs a full check, {processes(copies)}",
            best_seconds(edits), best_seconds(edited_fulls), target=0.1, enforced=False,
            note="only the component the edit touched is re-checked (seams.checks.incremental)"),
        Row(f"seams check after a one-line edit of a BPMN file vs a full check, {processes(copies)}: CPU time",
            best_cpu_seconds(payload_edits), best_cpu_seconds(payload_fulls), target=0.1),
    ]


def _forget(project: Path) -> None:
    """Remove all that ``seams check`` keeps (verdicts, statements, components): the next check
    is a whole one, as in a fresh clone."""
    for kept in ("check-cache", "parse-cache", "component-cache"):
        shutil.rmtree(project / ".seams" / kept, ignore_errors=True)


def scale_rows(small: Path, large: Path, *, small_n: int, large_n: int, repeats: int) -> list[Row]:
    """Growth from ``small_n`` to ``large_n`` processes: full check, cached re-check, peak memory.
    The first full check of each is the one that fills its cache: everything a check keeps is
    removed first, since a project checked before (the ``recheck`` group's) would otherwise be
    answered by a re-check of its components, not checked whole."""
    for project in (small, large):
        _forget(project)
    small_full, large_full = alternate(1, lambda: check(small, cached=True), lambda: check(large, cached=True))
    more = alternate(repeats - 1, lambda: check(small), lambda: check(large))
    small_full, large_full = small_full + more[0], large_full + more[1]
    small_hit, large_hit = alternate(repeats, lambda: check(small, cached=True), lambda: check(large, cached=True))

    def edited(project: Path) -> Sample:
        _one_line_edit(project)
        return check(project, cached=True)

    for project in (small, large):  # checked here before: this check keeps the components
        edited(project)
    small_edit, large_edit = alternate(repeats, lambda: edited(small), lambda: edited(large))
    growth = large_n / small_n
    return [
        Row(f"seams check, {large_n} vs {processes(small_n)}", best_seconds(large_full), best_seconds(small_full),
            target=1.2 * growth, note=f"{growth:g}x the model: linear + 20%"),
        Row(f"seams check, {large_n} vs {processes(small_n)}: CPU time", best_cpu_seconds(large_full),
            best_cpu_seconds(small_full), target=1.2 * growth),
        Row(f"seams check from its cache, {large_n} vs {processes(small_n)}", best_seconds(large_hit),
            best_seconds(small_hit), target=1.2 * growth, note=f"{growth:g}x the model: linear + 20%"),
        Row(f"seams check after a one-line TriG edit, {large_n} vs {processes(small_n)}: CPU time",
            best_cpu_seconds(large_edit), best_cpu_seconds(small_edit), target=1.2 * growth,
            note="only the component the edit touched is re-checked"),
        Row(f"seams check peak memory, {large_n} vs {processes(small_n)}", least_rss_mb(large_full),
            least_rss_mb(small_full), target=1.2 * growth, unit="MB", note=f"{growth:g}x the model: linear + 20%"),
    ]


def parser_rows(projects: dict[int, Path], *, repeats: int) -> list[Row]:
    rows = []
    for copies, project in sorted(projects.items()):
        def parse(fmt: str, project: Path = project) -> Sample:
            return run_child([sys.executable, "-c", _PARSE_WITH, "model/model.trig", fmt], cwd=project)

        ox, plain = alternate(repeats, lambda: parse("ox-trig"), lambda: parse("trig"))
        if ox[0].stdout != plain[0].stdout:
            raise BenchmarkError(f"oxrdflib and rdflib read different statements at {processes(copies)}: "
                                 f"{ox[0].stdout.strip()} against {plain[0].stdout.strip()}")
        rows.append(Row(f"TriG parse, oxrdflib (pyoxigraph) vs rdflib, {processes(copies)}: CPU time",
                        best_cpu_seconds(ox), best_cpu_seconds(plain), target=1, enforced=False,
                        note="adopted only if faster and every test passes"))
        rows.append(Row(f"TriG parse, oxrdflib (pyoxigraph) vs rdflib, {processes(copies)}: peak memory",
                        least_rss_mb(ox), least_rss_mb(plain), target=1, unit="MB", enforced=False))
    return rows


__all__ = ["parser_rows", "recheck_rows", "scale_rows"]
