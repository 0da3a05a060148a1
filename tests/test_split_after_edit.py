"""Splitting a TriG text after an edit from the split before it (seams.model.statement_cache.
split_after_edit) gives exactly the statements a split of the whole text gives, or says it
cannot (None): random edits of real models, at random places, of every size."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from helpers import EXAMPLE

from seams.model.statement_cache import layout_of, split_after_edit, split_statements

BASE = "https://example.org/leave/"
SNIPPETS = ["", " ", ".", ";", "\n", "}", "{", '"', "'''", "#", "<", ">", "ex:x", " ex:y ", "1.5", ".5", "_:b",
            'rdfs:label "a" ', 'ex:n a seam:Variable ; seam:name "n" .\n', "@prefix z: <urn:z#> .\n", "[ ]",
            "GRAPH ex:g {", "\\", "x"]


def _layout(text: str):
    split = split_statements(text.encode(), source="m.trig", base=BASE)
    return None if split is None else layout_of(*split)


def _edited(text: str, rng: random.Random) -> str:
    at = rng.randrange(len(text) + 1)
    cut = rng.choice([0, 0, 1, 2, 5, 30, 200])
    return text[:at] + rng.choice(SNIPPETS) + text[at + cut:]


@pytest.mark.parametrize("model", ["leave", "leave-c7", "leave-c8"])
def test_a_split_after_random_edits_is_the_whole_split(model: str) -> None:
    text = (EXAMPLE.parent / model / "model" / "model.trig").read_text(encoding="utf-8")
    before = _layout(text)
    assert before is not None
    rng = random.Random(model)
    answered = 0
    for _ in range(400):
        edited = _edited(text, rng)
        fast = split_after_edit(edited.encode(), before, source="m.trig", base=BASE)
        if fast is None:
            continue
        answered += 1
        whole = _layout(edited)
        assert whole is not None, "the split after an edit answered where the whole split refuses"
        assert [(p.key, p.start, p.end, p.terminated) for p in fast.pieces] == \
            [(p.key, p.start, p.end, p.terminated) for p in whole.pieces]
        assert fast.directives == whole.directives
    assert answered > 100  # most edits are answered without the whole split


def test_an_edit_of_a_label_keeps_every_other_statement(tmp_path: Path) -> None:
    text = (EXAMPLE / "model" / "model.trig").read_text(encoding="utf-8")
    before = _layout(text)
    edited = text.replace('rdfs:label "Days"', 'rdfs:label "Days off"', 1)
    after = split_after_edit(edited.encode(), before, source="m.trig", base=BASE)
    assert after is not None
    changed = {p.key for p in after.pieces} - {p.key for p in before.pieces}
    assert len(changed) == 1 and len(after.pieces) == len(before.pieces)
