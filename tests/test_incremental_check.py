"""The re-check after an edit (seams.checks.incremental) gives the verdict a whole check gives.

Random edits of a synthetic project of four processes, each judged twice: by
the re-check of the components it touched (the record kept by the check
before) and by a whole check without any cache. The edits are of every kind
a modeler makes: labels, types, a condition or a decision table in a
payload, a statement removed or added, and the ones that reach across
components (two tasks given one handler, a condition reading a variable only
another process declares), plus hand edits of generated files.
"""

from __future__ import annotations

import json
import random
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import synthetic_project

from seams.checks import incremental
from seams.project.layout import Project, load_project
from seams_cli.commands.check import _prepare, fresh_verdict, statement_pack
from seams_cli.main import main

COPIES = 4


def _sub(path: Path, pattern: str, replacement: str) -> bool:
    text = path.read_text(encoding="utf-8")
    changed, count = re.subn(pattern, replacement, text, count=1)
    path.write_text(changed, encoding="utf-8")
    return count == 1


def _trig(root: Path) -> Path:
    return root / "model" / "model.trig"


def label(root: Path, rng: random.Random) -> bool:
    k = rng.randrange(COPIES)
    return _sub(_trig(root), rf'(rdfs:label "Leave request form {k})[^"]*"', rf'\1 ({rng.random():.6f})"')


def datatype(root: Path, rng: random.Random) -> bool:
    k = rng.randrange(COPIES)
    kind = rng.choice(["xsd:string", "xsd:integer", "xsd:decimal"])
    return _sub(_trig(root), rf"(ex:days_{k} a seam:Variable[^.]*?seam:datatype )xsd:\w+", rf"\g<1>{kind}")


def condition(root: Path, rng: random.Random) -> bool:
    k = rng.randrange(COPIES)
    name = rng.choice(["approved", "aproved", "days > 3 and approved"])
    return _sub(root / "model" / f"leave_{k}.bpmn", r'(tFormalExpression">)[^<]*(approved|aproved)[^<]*(<)',
                rf"\g<1>{name} == True\g<3>")


def table(root: Path, rng: random.Random) -> bool:
    k = rng.randrange(COPIES)
    value = rng.choice(['"manager"', '"boss"', '"auto"'])
    return _sub(root / "model" / f"leave_{k}.dmn", r'<text>"(manager|boss)"</text>', f"<text>{value}</text>")


def handler_clash(root: Path, rng: random.Random) -> bool:
    k, j = rng.sample(range(COPIES), 2)
    return _sub(_trig(root), rf'seam:handler "check_balance_{k}"', f'seam:handler "check_balance_{j}"')


def read_by_name(root: Path, rng: random.Random) -> bool:
    """A variable only one process's statement gives, read by name by another's condition."""
    k, j = rng.sample(range(COPIES), 2)
    added = _sub(_trig(root), rf"(ex:days_{k} a seam:Variable)",
                 f'ex:bonus_{k} a seam:Variable ; rdfs:label "Bonus {k}" ; seam:name "bonus{k}" ; '
                 r"seam:datatype xsd:integer .\n\n    \1")
    return added and _sub(root / "model" / f"leave_{j}.bpmn", r'(tFormalExpression">)[^<]*(approved|aproved)[^<]*(<)',
                          rf"\g<1>bonus{k} > 1\g<3>")


def remove_statement(root: Path, rng: random.Random) -> bool:
    k = rng.randrange(COPIES)
    return _sub(_trig(root), rf"\n    ex:startDate_{k} a seam:Variable[^.]*?\.\n", "\n")


def shape_damage(root: Path, rng: random.Random) -> bool:
    """A form field SHACL-SHACL refuses (a count that is no integer) or takes again."""
    k = rng.randrange(COPIES)
    count = rng.choice(['"x"', "1"])
    return _sub(_trig(root), rf"(sh:path ex:days_{k} ; sh:name \"Days\" ; sh:datatype xsd:integer)( ; sh:maxCount [^ ;]+)?",
                rf"\1 ; sh:maxCount {count}")


def hand_edit_generated(root: Path, rng: random.Random) -> bool:
    files = sorted((root / "generated").rglob("*.py"))
    target = rng.choice(files)
    target.write_text(target.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    return True


def regenerate(root: Path, rng: random.Random) -> bool:
    main(["generate", "--project", str(root)])
    return True


EDITS: list[Callable[[Path, random.Random], bool]] = [
    label, datatype, condition, table, handler_clash, read_by_name, remove_statement, hand_edit_generated,
    regenerate, label, label, condition, shape_damage, shape_damage,
]


def _judged(project: Project) -> tuple[object, bool]:
    """What ``seams check`` says (re-checked where it can), and whether it re-checked."""
    pack = statement_pack(project)
    verdict = incremental.recheck(project, pack, _prepare(project))
    if verdict is not None:
        return verdict, True
    return fresh_verdict(project, statements=pack, keep_components=True), False


@pytest.fixture(scope="module")
def clean_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = synthetic_project(tmp_path_factory.mktemp("incremental"), COPIES)
    assert main(["generate", "--project", str(root)]) == 0
    return root


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_re_check_after_random_edits_gives_the_whole_check_s_verdict(clean_project: Path, tmp_path: Path,
                                                                         seed: int) -> None:
    root = tmp_path / "project"
    shutil.copytree(clean_project, root)
    project = load_project(root)
    _judged(project)  # the first check here keeps the record
    rng = random.Random(seed)
    rechecked = 0
    for step in range(10):
        edit = rng.choice(EDITS)
        edit(root, rng)
        verdict, took = _judged(load_project(root))
        whole = fresh_verdict(load_project(root))
        assert verdict == whole, f"seed {seed}, step {step}: {edit.__name__}"
        rechecked += took
    assert rechecked >= 3  # most edits are re-checked, not checked whole


def test_an_edit_of_one_process_re_checks_it_alone_and_finds_what_a_whole_check_finds(
        clean_project: Path, tmp_path: Path) -> None:
    root = tmp_path / "project"
    shutil.copytree(clean_project, root)
    project = load_project(root)
    assert _judged(project)[0] == fresh_verdict(project)
    datatype_k = _sub(_trig(root), r"(ex:days_2 a seam:Variable[^.]*?seam:datatype )xsd:\w+", r"\1xsd:string")
    assert datatype_k
    verdict, took = _judged(project)
    assert took and verdict.findings and verdict == fresh_verdict(project)
    record = json.loads((root / incremental.DIRECTORY / incremental.RECORD).read_text(encoding="utf-8"))
    assert len(record["units"]) == COPIES  # one component per process: nothing named across


def test_a_record_that_is_not_one_is_ignored(clean_project: Path, tmp_path: Path) -> None:
    root = tmp_path / "project"
    shutil.copytree(clean_project, root)
    project = load_project(root)
    _judged(project)
    path = root / incremental.DIRECTORY / incremental.RECORD
    for garbage in (b"{", b"[]", b'{"format": 1}', json.dumps({"format": 1, "tool": "x"}).encode()):
        path.write_bytes(garbage)
        assert label(root, random.Random(0))
        assert incremental.recheck(project, statement_pack(project), _prepare(project)) is None


def test_a_finding_on_an_id_two_payloads_use_alike_is_said_by_the_component_that_says_it(
        clean_project: Path, tmp_path: Path) -> None:
    """Flow ids repeat across BPMN files; a finding naming one is given to the component that
    gives it (checked apart), so the record is kept and re-checks stay exact."""
    root = tmp_path / "project"
    shutil.copytree(clean_project, root)
    for k in (0, 1):
        for path in (root / "model" / f"leave_{k}.bpmn", _trig(root)):
            text = path.read_text(encoding="utf-8")
            path.write_text(text.replace(f"Flow_Approved_{k}", "Flow_Shared"), encoding="utf-8")
    assert _sub(root / "model" / "leave_0.bpmn", r'(tFormalExpression">)approved == True(<)', r"\1aproved == True\2")
    project = load_project(root)
    verdict, _ = _judged(project)
    assert any(f.subject == "Flow_Shared" for f in verdict.findings)
    assert (root / incremental.DIRECTORY / incremental.RECORD).is_file()
    assert label(root, random.Random(7))
    verdict, took = _judged(project)
    assert took and verdict == fresh_verdict(project)
