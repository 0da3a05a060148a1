"""The statement cache builds the dataset a full parse builds: on seeded random edits of the
example's TriG (a literal, a statement moved to another graph, a statement twice, a prefix
changed or redefined half-way, a base, a default-graph statement, a block's last statement
without its '.', a labelled blank node, a syntax error), with the pack kept from edit to edit;
and a corrupt, foreign or stale pack, or two parses at once, only cost time."""

from __future__ import annotations

import json
import random
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from rdflib import Dataset, Graph
from rdflib.compare import isomorphic

from seams.errors import ProjectError
from seams.model import statement_cache
from seams.model.loading import parse_trig
from seams.model.statement_cache import PACK_NAME, StatementPack, parse_trig_statements

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "leave" / "model" / "model.trig"
BASE = "https://example.org/leave/"

_SCENARIO = "    ex:LeaveRequestProcess seam:scenario\n"
_REVIEW = '    ex:ReviewForm'


def _statement(text: str, start_marker: str) -> str:
    """The statement that starts with ``start_marker`` (to its terminating ' .\\n')."""
    start = text.index(start_marker)
    return text[start:text.index(" .\n", start) + 3]


def _move_to_ontology(text: str) -> str:
    statement = _statement(text, "    ex:LeaveRequestProcess a seam:Process")
    text = text.replace(statement, "", 1)
    return text.replace("ex:graph\\/ontology {\n", "ex:graph\\/ontology {\n" + statement, 1)


def _duplicate_scenarios(text: str) -> str:
    start = text.index(_SCENARIO)
    end = text.index("\n\n", start)
    block = text[start:end]
    return text.replace(block, block + "\n\n" + block, 1)


def _unterminated_last(text: str) -> str:
    closing = text.index("\n}\n")
    before = text.rindex(" .", 0, closing)
    return text[:before] + text[before + 2:]


_EDITS = [
    lambda t: t.replace('rdfs:label "Review form"', 'rdfs:label "Review form, edited"', 1),
    lambda t: t.replace("sh:maxLength 500", 'sh:maxLength "x"^^xsd:integer', 1),
    _move_to_ontology,
    _duplicate_scenarios,
    lambda t: t.replace("@prefix ex:   <https://example.org/leave/> .",
                        "@prefix ex:   <https://example.org/other/> .", 1),
    lambda t: t.replace("ex:graph\\/shapes {", "@prefix ex: <https://example.org/redefined/> .\n"
                        "ex:Late rdfs:label \"after the redefinition\" .\nex:graph\\/shapes {", 1),
    lambda t: t.replace("ex:graph\\/ontology {", "@base <https://base.example/dir/> .\n"
                        "<relative> rdfs:label \"relative\" .\nex:graph\\/ontology {", 1),
    lambda t: t.replace("ex:graph\\/seams {", 'ex:Loose rdfs:label "in the default graph" ; '
                        "rdfs:seeAlso [ rdfs:label \"a blank node\" ] .\nex:graph\\/seams {", 1),
    _unterminated_last,
    lambda t: t.replace("ex:graph\\/seams {", "ex:graph\\/seams {\n    _:x rdfs:label \"labelled\" .\n", 1),
    lambda t: t.replace('rdfs:label "Review form"', 'rdfs:label "Review form', 1),  # a syntax error
    lambda t: t.replace("# The seams graph", "# The seams graph, a comment edited", 1),
    lambda t: t.replace("ex:graph\\/seams {", "GRAPH ex:graph\\/seams {", 1),
    lambda t: t.replace("ex:graph\\/shapes {", "ex:graph\\/shapes {\n    @prefix ex: <https://in.block/> .\n", 1),
    lambda t: t.replace("ex:graph\\/seams {", "ex:graph\\/seams {\n    <urn:x-seams-statement-end:0> "
                        "<urn:x-seams-statement-end:> <urn:x-seams-statement-end:> .\n", 1),
    lambda t: t.replace("@prefix ex:", "@prefix base: <https://base.prefix/> .\n@prefix ex:", 1).replace(
        "ex:graph\\/seams {", "ex:graph\\/seams {\n    base:x base:y base:z .\n", 1),
]


def parse_both(text: str, pack: StatementPack) -> tuple[object, object]:
    """(full parse, statement-wise parse): each a Dataset or the ProjectError message."""
    results = []
    for parse in (lambda d: parse_trig(d, source="model.trig", base=BASE),
                  lambda d: parse_trig_statements(d, source="model.trig", base=BASE, pack=pack)):
        try:
            results.append(parse(text.encode("utf-8")))
        except ProjectError as error:
            results.append(str(error))
    return results[0], results[1]


def assert_same(full: object, statements: object) -> None:
    if not isinstance(full, Dataset) or not isinstance(statements, Dataset):
        assert full == statements
        return
    assert list(full.namespaces()) == list(statements.namespaces())
    names = sorted(str(g.identifier) for g in full.graphs() if len(g))
    assert names == sorted(str(g.identifier) for g in statements.graphs() if len(g))
    for name in names:
        ours = Graph()
        for triple in statements.graph(name_of(statements, name)):
            ours.add(triple)
        theirs = Graph()
        for triple in full.graph(name_of(full, name)):
            theirs.add(triple)
        assert len(ours) == len(theirs) and isomorphic(ours, theirs), name
    assert len(full) == len(statements)


def name_of(dataset: Dataset, name: str):
    return next(g.identifier for g in dataset.graphs() if str(g.identifier) == name)


@pytest.fixture
def pack(tmp_path: Path) -> StatementPack:
    return StatementPack(tmp_path / "parse-cache", "this seams", lambda d: d.mkdir(parents=True, exist_ok=True))


@pytest.fixture
def parsed(monkeypatch) -> list[int]:
    """How many statements each statement-wise parse had to parse."""
    counts: list[int] = []
    real = statement_cache._parse_pieces

    def counting(dataset, document, missing, base):
        counts.append(len(missing))
        return real(dataset, document, missing, base)

    monkeypatch.setattr(statement_cache, "_parse_pieces", counting)
    return counts


@pytest.mark.parametrize("seed", range(4))
def test_statement_wise_and_full_parses_agree_on_random_edits_and_undos(pack, seed):
    rng = random.Random(seed)
    text = EXAMPLE.read_text(encoding="utf-8")
    states = [text]
    for _ in range(8):
        if rng.random() < 0.25:
            text = rng.choice(states)
        else:
            text = rng.choice(_EDITS)(text)
        states.append(text)
        assert_same(*parse_both(text, pack))


@pytest.mark.parametrize("edit", range(len(_EDITS)))
def test_each_edit_agrees_from_a_warm_pack(pack, edit):
    text = EXAMPLE.read_text(encoding="utf-8")
    assert_same(*parse_both(text, pack))
    assert_same(*parse_both(_EDITS[edit](text), pack))


def test_a_one_line_edit_parses_that_statement_alone(pack, parsed):
    text = EXAMPLE.read_text(encoding="utf-8")
    assert_same(*parse_both(text, pack))
    assert_same(*parse_both(text, pack))
    assert_same(*parse_both(_EDITS[0](text), pack))
    statements = parsed[0]
    assert statements > 30 and parsed[1:] == [1]  # the first parses all; then no statement; then one


def test_a_syntax_error_names_the_documents_own_line(pack):
    text = EXAMPLE.read_text(encoding="utf-8")
    parse_both(text, pack)
    full, statements = parse_both(text.replace('rdfs:label "Review form"', 'rdfs:label "Review form', 1), pack)
    assert isinstance(full, str) and full == statements and "model.trig:" in full


def _real_pack(pack: StatementPack) -> dict:
    parse_both(EXAMPLE.read_text(encoding="utf-8"), pack)
    assert pack.directory is not None
    return json.loads((pack.directory / PACK_NAME).read_text(encoding="utf-8"))


def _out_of_range(data: dict) -> dict:
    data["entries"] = {key: " ".join(["1000000000"] * len(entry.split())) for key, entry in data["entries"].items()}
    return data


def _negative(data: dict) -> dict:
    data["entries"] = {key: " ".join(["-1"] * len(entry.split())) for key, entry in data["entries"].items()}
    return data


def _not_integers(data: dict) -> dict:
    data["entries"] = {key: " ".join(["0.5"] * len(entry.split())) for key, entry in data["entries"].items()}
    return data


def _bad_term(data: dict) -> dict:
    data["terms"][0] = "x-not-a-term"
    return data


def _odd_entry(data: dict) -> dict:
    key = next(iter(data["entries"]))
    data["entries"][key] = data["entries"][key].rsplit(" ", 1)[0]
    return data


def _entries_as_lists(data: dict) -> dict:  # the first format's entries
    data["entries"] = {key: [int(n) for n in entry.split()] for key, entry in data["entries"].items()}
    return data


def _other_format(data: dict) -> dict:
    data["format"] = 999
    return data


def _other_seams(data: dict) -> dict:
    data["tool"] = "another seams"
    return data


@pytest.mark.parametrize("damage", [_out_of_range, _negative, _not_integers, _bad_term, _odd_entry,
                                    _entries_as_lists, _other_format, _other_seams])
def test_a_damaged_or_foreign_pack_is_ignored(pack, damage):
    data = damage(_real_pack(pack))
    assert pack.directory is not None
    (pack.directory / PACK_NAME).write_text(json.dumps(data), encoding="utf-8")
    text = EXAMPLE.read_text(encoding="utf-8")
    assert_same(*parse_both(_EDITS[0](text), pack))
    assert_same(*parse_both(text, pack))


@pytest.mark.parametrize("content", [b"", b"\xff\xfe not json", b"[1, 2]", b'{"format": 1}', b"null"])
def test_a_corrupt_pack_is_ignored_and_replaced(pack, parsed, content):
    assert pack.directory is not None
    pack.directory.mkdir(parents=True)
    (pack.directory / PACK_NAME).write_bytes(content)
    text = EXAMPLE.read_text(encoding="utf-8")
    assert_same(*parse_both(text, pack))
    assert_same(*parse_both(text, pack))
    assert parsed[0] > 30 and parsed[1:] == []  # all parsed once; then the replaced pack answers


def test_a_pack_far_larger_than_the_model_is_not_read(pack, parsed):
    text = EXAMPLE.read_text(encoding="utf-8")
    data = _real_pack(pack)
    data["padding"] = "x" * (statement_cache.PACK_BYTES_PER_TRIG_BYTE * len(text.encode()) + (1 << 20))
    assert pack.directory is not None
    (pack.directory / PACK_NAME).write_text(json.dumps(data), encoding="utf-8")
    assert_same(*parse_both(text, pack))
    assert parsed[-1] > 30  # all parsed again: the pack was not read


def test_a_pack_of_another_seams_version_is_not_used(pack, parsed):
    text = EXAMPLE.read_text(encoding="utf-8")
    parse_both(text, pack)
    newer = StatementPack(pack.directory, "a newer seams", pack.prepare)
    assert_same(*parse_both(text, newer))
    assert parsed[0] == parsed[1] > 30


def test_deleting_the_pack_only_costs_time(pack):
    text = EXAMPLE.read_text(encoding="utf-8")
    parse_both(text, pack)
    assert pack.directory is not None
    (pack.directory / PACK_NAME).unlink()
    assert_same(*parse_both(_EDITS[0](text), pack))


def test_no_directory_parses_without_a_pack(tmp_path):
    nowhere = StatementPack(None, "this seams", lambda d: pytest.fail("nothing may be made"))
    assert_same(*parse_both(EXAMPLE.read_text(encoding="utf-8"), nowhere))
    assert list(tmp_path.iterdir()) == []


def test_two_parses_at_once_agree_and_leave_a_good_pack(pack, parsed):
    text = EXAMPLE.read_text(encoding="utf-8")
    texts = [text, _EDITS[0](text), _EDITS[2](text), _EDITS[3](text)]

    def both(t: str) -> None:
        assert_same(*parse_both(t, pack))

    with ThreadPoolExecutor(2) as pool:
        list(pool.map(both, texts * 2))
    assert pack.directory is not None
    assert not list(pack.directory.glob(".*.tmp"))
    before = len(parsed)
    for t in texts:
        both(t)
    assert sum(parsed[before:]) <= 3 * 40  # whichever pack was written last answers most


def test_a_prefix_called_base_or_graph_still_uses_the_pack(pack, parsed):
    text = _EDITS[-1](EXAMPLE.read_text(encoding="utf-8")).replace(
        "@prefix ex:", "@prefix graph: <https://graph.prefix/> .\n@prefix ex:", 1).replace(
        "ex:graph\\/seams {", "ex:graph\\/seams {\n    graph:x graph:y graph:z .\n", 1)
    assert_same(*parse_both(text, pack))
    assert_same(*parse_both(text, pack))
    assert parsed[0] > 30 and parsed[1:] == []
