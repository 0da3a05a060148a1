"""``seams_edit`` applying a ten-subject patch to a large TriG, against an rdflib round trip.

The editor exists so a model change is a small diff; so besides its speed
this checks that the patched text differs from the original only in the
statements of the patched subjects (every other statement byte for byte,
everything between statements unchanged) and that it reads back, with
rdflib, as exactly the original quads minus the removed plus the added.
"""

from __future__ import annotations

import re
from collections import Counter

from measure import BenchmarkError, Row, processes, timed
from rdflib import BNode, Dataset, Literal, Namespace
from rdflib.namespace import RDF, RDFS
from synthetic import copy_label

from seams.model.trig_scan import scan
from seams_edit import Patch, apply_patch

EX = Namespace("https://example.org/leave/")
SEAM = Namespace("https://w3id.org/seams/seam#")
SEAMS, SHAPES, ONTOLOGY = EX["graph/seams"], EX["graph/shapes"], EX["graph/ontology"]
BALANCES_COMMENT = "Returns how many days of the given leave type the employee has left, as a decimal."


def ten_subject_patch(copies: int) -> tuple[Patch, set[str]]:
    """Ten subjects spread over the copies, in all three graphs: changed labels and a
    comment, added values, and one new subject; and the subjects' names as written."""
    a, b, c, d, e = (round(k * (copies - 1) / 4) for k in range(5))

    def relabel(name: str, old: str, new: str, i: int) -> tuple[tuple, tuple]:
        subject = EX[f"{name}_{i}"]
        return ((subject, RDFS.label, Literal(copy_label(old, i)), SEAMS),
                (subject, RDFS.label, Literal(copy_label(new, i)), SEAMS))

    changes = [
        relabel("CheckBalance", "Check leave balance", "Check the leave balance", a),
        relabel("DetermineApproval", "Determine approval level", "Decide the approval level", c),
        relabel("ApprovalGateway", "Approval level?", "Which approval level?", e),
        relabel("employee", "Employee", "Employee id", a),
        ((EX[f"Balances_{b}"], RDFS.comment, Literal(BALANCES_COMMENT), SEAMS),
         (EX[f"Balances_{b}"], RDFS.comment, Literal("Days left of a leave type, as a decimal."), SEAMS)),
    ]
    added = [
        (EX[f"RecordLeave_{b}"], SEAM.reads, EX[f"startDate_{b}"], SEAMS),
        (EX[f"HrReview_{d}"], RDFS.comment, Literal("Only long or unpaid leave comes here."), SEAMS),
        (EX[f"LeaveForm_{c}"], RDFS.comment, Literal("What an employee fills in."), SHAPES),
        (EX[f"LeaveRequest_{d}"], RDFS.comment, Literal("An employee's request for days off."), ONTOLOGY),
        (EX.NewTask, RDF.type, SEAM.UserTask, SEAMS),
        (EX.NewTask, RDFS.label, Literal("Confirm leave"), SEAMS),
    ]
    patch = Patch(remove=tuple(old for old, _ in changes), add=tuple(new for _, new in changes) + tuple(added))
    names = {f"ex:{quad[0][len(str(EX)):]}" for quad in (*patch.remove, *patch.add)}
    assert len(names) == 10, names
    return patch, names


def edit_row(trig_text: str, *, copies: int, repeats: int, rdflib_repeats: int) -> Row:
    patch, names = ten_subject_patch(copies)
    patched: list[str] = []
    edit_seconds = min(timed(lambda: patched.append(apply_patch(trig_text, patch, source="model.trig")))
                       for _ in range(repeats))
    parsed: list[Dataset] = []
    rdflib_seconds = min(timed(lambda: parsed.append(_round_trip(trig_text))) for _ in range(rdflib_repeats))
    check_touched_only(trig_text, patched[-1], names)
    check_reads_back(parsed[-1], patched[-1], patch)
    return Row(f"seams_edit 10-subject patch vs rdflib parse+serialize, {processes(copies)}",
               edit_seconds, rdflib_seconds, target=0.1, note="≥ 10x faster; diff checked")


def _round_trip(text: str) -> Dataset:
    dataset = Dataset()
    dataset.parse(data=text, format="trig")
    dataset.serialize(format="trig")
    return dataset


def check_touched_only(old: str, new: str, names: set[str]) -> None:
    """Every statement not about ``names`` is kept byte for byte, and so is the text between."""
    before, after = scan(old, source="old"), scan(new, source="new")
    kept_before, touched_before, skeleton_before = _split(old, before, names)
    kept_after, touched_after, skeleton_after = _split(new, after, names)
    if kept_before != kept_after:
        lost = list((kept_before - kept_after).elements())[:3]
        raise BenchmarkError(f"seams_edit changed statements it was not asked to touch: {lost}")
    if skeleton_before != skeleton_after:
        raise BenchmarkError("seams_edit changed text between statements (prefixes, comments, blocks)")
    if touched_after == touched_before:
        raise BenchmarkError("seams_edit left every patched statement as it was")


def _split(text: str, document, names: set[str]) -> tuple[Counter, Counter, str]:
    """(untouched statements, touched statements, the text around them with blank runs collapsed)."""
    kept, touched, pieces, position = Counter(), Counter(), [], 0
    for block in document.blocks:
        for statement in block.statements:
            body = text[statement.start:statement.end]
            (touched if statement.subject in names else kept)[body] += 1
            pieces.append(text[position:statement.start])
            position = statement.end
    pieces.append(text[position:])
    return kept, touched, re.sub(r"\s+", " ", " ".join(pieces))


def check_reads_back(original: Dataset, new_text: str, patch: Patch) -> None:
    """The patched text holds the original quads, minus the removed, plus the added."""
    patched = Dataset()
    patched.parse(data=new_text, format="trig")
    ground_before, blank_before = _quads(original)
    ground_after, blank_after = _quads(patched)
    expected = (ground_before - set(patch.remove)) | set(patch.add)
    if ground_after != expected or blank_after != blank_before:
        raise BenchmarkError(f"the patched model does not read back as the patch says: "
                             f"{len(ground_after ^ expected)} quads differ")


def _quads(dataset: Dataset) -> tuple[set, int]:
    ground, blank = set(), 0
    for quad in dataset.quads((None, None, None, None)):
        if any(isinstance(term, BNode) for term in quad[:3]):
            blank += 1
        else:
            ground.add(tuple(quad))
    return ground, blank
