"""``seams check``'s cache never changes a verdict: cached and uncached checks print the same
lines on random edits (and on edits undone, where the cache answers), and a deleted, corrupt,
foreign or stale cache, or two checks at once, only cost time."""

from __future__ import annotations

import json
import os
import random
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from helpers import run_seams

from seams.project import check_cache
from seams.project.layout import load_project
from seams_cli.commands import check as check_command
from seams_cli.main import main


def check(capsys, root: Path, *extra: str) -> tuple[int, str]:
    code = main(["check", "--project", str(root), *extra])
    out = capsys.readouterr()
    assert out.err == ""
    return code, out.out


@pytest.fixture
def fresh_calls(monkeypatch):
    calls: list[Path] = []
    real = check_command.fresh_verdict

    def counting(project, **kwargs):
        calls.append(project.root)
        return real(project, **kwargs)

    monkeypatch.setattr(check_command, "fresh_verdict", counting)
    return calls


def entries(root: Path) -> list[Path]:
    return sorted((root / check_cache.DIRECTORY).glob("*.json"))


# one-line edits a modeler or a tool makes: (file, old text, new texts)
_EDITS = [
    ("model/model.trig", "sh:maxLength 500", ["sh:maxLength 400", "sh:maxLength -5", 'sh:maxLength "x"']),
    ("model/model.trig", 'sh:pattern "^BK-[0-9]+$"', ['sh:pattern "^BK-[0-9+$"', 'sh:pattern "^BK-[0-9]*$"']),
    ("model/model.trig", 'rdfs:label "Review form"', ['rdfs:label "Review"', 'rdfs:label "Review form" ; sh:closed 3']),
    ("model/model.trig", "sh:minInclusive 1 ;", ["sh:minInclusive 61 ;", ""]),
    ("model/leave.bpmn", "days > 20 or", ["days > 21 or", "dayz > 20 or", "days > or"]),
    ("model/leave.dmn", "<text>&lt;= 5</text>", ["<text>&lt;= 6</text>", "<text>&lt;&lt;= 5</text>"]),
    ("handlers/check_balance.py", "def ", ["def  "]),
    ("generated/decisions.py", "def ", ["def  "]),
    ("seams.lock", '"generated"', ['"generated" ']),
]


def _edit(root: Path, rng: random.Random) -> None:
    path, old, news = rng.choice(_EDITS)
    target = root / path
    text = target.read_text(encoding="utf-8")
    if old not in text:
        return
    target.write_text(text.replace(old, rng.choice(news), 1), encoding="utf-8")


@pytest.fixture
def vouched(monkeypatch):
    """Files count as changed long before they are read, so every digest is kept and vouched for by
    stat from then on (by default a file read within RACY_NS of its change is read again)."""
    monkeypatch.setattr(check_cache, "_now_ns", lambda: time.time_ns() + 10 * check_cache.RACY_NS)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("by_stat", [False, True], ids=["digests-read", "digests-vouched-by-stat"])
def test_cached_and_uncached_checks_agree_on_random_edits_and_undos(example_project, capsys, fresh_calls, seed,
                                                                     by_stat, request):
    if by_stat:
        request.getfixturevalue("vouched")
    rng = random.Random(seed)
    root = example_project
    states: list[dict[str, str]] = []
    for step in range(6):
        undo = bool(states) and (step == 5 or rng.random() < 0.4)
        if undo:  # back to an earlier state: the cache answers with what it stored then
            for path, text in rng.choice(states).items():
                (root / path).write_text(text, encoding="utf-8")
        else:
            _edit(root, rng)
        states.append({path: (root / path).read_text(encoding="utf-8") for path, _, _ in _EDITS})
        before = len(fresh_calls)
        cached = check(capsys, root)
        assert not undo or len(fresh_calls) == before  # a hit
        uncached = check(capsys, root, "--no-cache")
        assert cached == uncached
        before = len(fresh_calls)
        assert check(capsys, root) == uncached
        assert len(fresh_calls) == before  # from the cache


def test_an_unchanged_project_is_answered_from_the_cache(example_project, capsys, fresh_calls):
    first = check(capsys, example_project)
    assert len(fresh_calls) == 1 and len(entries(example_project)) == 1
    assert check(capsys, example_project) == first
    assert len(fresh_calls) == 1
    (example_project / "model" / "leave.bpmn").write_text(
        (example_project / "model" / "leave.bpmn").read_text(encoding="utf-8").replace("days > 20 or", "days > 21 or"),
        encoding="utf-8")
    check(capsys, example_project)
    assert len(fresh_calls) == 2  # a payload changed: checked again


def test_the_statements_are_kept_from_the_second_check_here_on(example_project, capsys, fresh_calls):
    """A fresh clone's one check (CI) does not pay for keeping the statements; an edit
    checked after it does, and the check after that reads them (docs/performance.md)."""
    pack = example_project / check_command.STATEMENTS
    first = check(capsys, example_project)
    assert entries(example_project) and not pack.exists()
    trig = example_project / "model" / "model.trig"
    trig.write_text(trig.read_text(encoding="utf-8").replace("sh:maxLength 500", "sh:maxLength 400", 1),
                    encoding="utf-8")
    edited = check(capsys, example_project)
    assert any(pack.iterdir())
    assert edited == check(capsys, example_project, "--no-cache")
    trig.write_text(trig.read_text(encoding="utf-8").replace("sh:maxLength 400", "sh:maxLength 500", 1),
                    encoding="utf-8")
    shutil.rmtree(example_project / check_cache.DIRECTORY)  # so the undo is checked, from the statements
    assert check(capsys, example_project) == first
    assert check(capsys, example_project, "--no-cache") == first


def test_a_planted_fifo_in_place_of_an_entry_or_the_pack_is_ignored(example_project, capsys):
    """A cloned .seams may hold a FIFO where an entry or the statement pack is: read plainly it
    would block the check for ever; seams reads only regular files."""
    import os

    from seams.model.statement_cache import PACK_NAME

    first = check(capsys, example_project)
    trig = example_project / "model" / "model.trig"
    trig.write_text(trig.read_text(encoding="utf-8").replace("sh:maxLength 500", "sh:maxLength 400", 1),
                    encoding="utf-8")
    edited = check(capsys, example_project)  # starts the pack
    for entry in entries(example_project):
        entry.unlink()
        os.mkfifo(entry)
    pack = example_project / check_command.STATEMENTS / PACK_NAME
    pack.unlink()
    os.mkfifo(pack)
    assert check(capsys, example_project) == edited
    trig.write_text(trig.read_text(encoding="utf-8").replace("sh:maxLength 400", "sh:maxLength 500", 1),
                    encoding="utf-8")
    assert check(capsys, example_project) == first


def test_no_cache_neither_reads_nor_writes(example_project, capsys, fresh_calls):
    check(capsys, example_project, "--no-cache")
    assert not (example_project / ".seams" / "check-cache").exists()


@pytest.mark.parametrize("content", [b"", b"\xff\xfe not json", b"[1, 2]", b'{"format": 1}',
                                     b'{"format": 1, "key": "KEY", "findings": [{"kind": 3}], "notes": []}',
                                     b'{"format": 999, "key": "KEY", "findings": [], "notes": []}'])
def test_a_corrupt_or_foreign_entry_is_ignored_and_replaced(example_project, capsys, fresh_calls, content):
    tampered = example_project / "model" / "model.trig"
    tampered.write_text(tampered.read_text(encoding="utf-8").replace("sh:maxLength 500", "sh:maxLength -5"),
                        encoding="utf-8")
    expected = check(capsys, example_project, "--no-cache")
    assert expected[0] == 1
    key = check_command._key(load_project(str(example_project)))
    entry = example_project / check_cache.DIRECTORY / f"{key}.json"
    entry.parent.mkdir(parents=True)
    entry.write_bytes(content.replace(b"KEY", key.encode()))
    assert check(capsys, example_project) == expected
    assert len(fresh_calls) == 2
    assert json.loads(entry.read_text(encoding="utf-8"))["key"] == key  # replaced by a good one


def test_a_lying_entry_under_another_key_is_never_used(example_project, capsys, fresh_calls):
    clean = check(capsys, example_project)
    (entry,) = entries(example_project)
    data = json.loads(entry.read_text(encoding="utf-8"))
    data["findings"] = [{"kind": "shape", "subject": "ex:X", "predicate": None, "message": "made up"}]
    shutil.move(entry, entry.with_name("0" * 64 + ".json"))  # not this project's key
    entry.with_name("0" * 64 + ".json").write_text(json.dumps(data), encoding="utf-8")
    assert check(capsys, example_project) == clean


def test_a_new_seams_version_misses(example_project, capsys, fresh_calls, monkeypatch):
    check(capsys, example_project)
    monkeypatch.setattr(check_cache, "tool_digest", lambda *_: "another seams")
    check(capsys, example_project)
    assert len(fresh_calls) == 2 and len(entries(example_project)) == 2


def test_deleting_the_cache_only_costs_time(example_project, capsys, fresh_calls):
    first = check(capsys, example_project)
    shutil.rmtree(example_project / ".seams" / "check-cache")
    assert check(capsys, example_project) == first
    assert len(fresh_calls) == 2


@pytest.mark.parametrize("by_stat", [False, True], ids=["digests-read", "digests-vouched-by-stat"])
def test_a_file_changed_during_the_check_stores_nothing(example_project, capsys, monkeypatch, by_stat, request):
    if by_stat:
        request.getfixturevalue("vouched")
        check(capsys, example_project, "--no-cache")
        edited = example_project / "model" / "model.trig"
        edited.write_text(edited.read_text(encoding="utf-8").replace("sh:maxLength 500", "sh:maxLength 400"),
                          encoding="utf-8")
        check(capsys, example_project)  # keeps every digest, the lock's among them
        for entry in entries(example_project):
            entry.unlink()
    real = check_command.fresh_verdict

    def saving_meanwhile(project, **kwargs):
        verdict = real(project, **kwargs)
        lock = project.lock_path
        lock.write_text(lock.read_text(encoding="utf-8") + " ", encoding="utf-8")
        return verdict

    monkeypatch.setattr(check_command, "fresh_verdict", saving_meanwhile)
    check(capsys, example_project)
    assert entries(example_project) == []


def test_the_cache_keeps_the_newest_entries_only(example_project, monkeypatch):
    project = load_project(str(example_project))
    verdict = check_cache.Verdict((), ())
    for i in range(check_cache.KEEP + 3):
        check_cache.write_verdict(project, f"{i:064x}", verdict)
    assert len(entries(example_project)) == check_cache.KEEP
    assert check_cache.read_verdict(project, f"{check_cache.KEEP + 2:064x}") == verdict


def test_two_checks_at_once_agree_and_leave_one_good_entry(example_project):
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda _: run_seams("check", cwd=example_project), range(2)))
    assert [r.returncode for r in results] == [0, 0] and results[0].stdout == results[1].stdout
    assert all(r.stderr == "" for r in results)
    (entry,) = entries(example_project)
    key = check_command._key(load_project(str(example_project)))
    assert check_cache.read_verdict(load_project(str(example_project)), key) is not None
    assert entry.stem == key
    assert not list(entry.parent.glob(".*.tmp"))


def test_a_seams_folder_leading_outside_the_project_is_neither_read_nor_written(example_project, tmp_path,
                                                                              capsys):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (example_project / ".seams").symlink_to(elsewhere)
    expected = check(capsys, example_project, "--no-cache")
    assert check(capsys, example_project) == expected
    assert list(elsewhere.iterdir()) == []


def test_the_cache_folder_is_kept_out_of_git(example_project, capsys):
    check(capsys, example_project)
    assert (example_project / ".seams" / ".gitignore").read_text(encoding="utf-8") == "*\n"


def test_an_edit_that_keeps_the_size_and_puts_the_times_back_is_still_seen(example_project, capsys, vouched):
    """A digest is vouched for by the file's whole stat: its change time moves whatever a tool does
    to its modification time (a checkout, a copy keeping times)."""
    clean = check(capsys, example_project)
    assert check_cache.FileDigests.read(load_project(str(example_project))).kept  # every digest kept
    bpmn = example_project / "model" / "leave.bpmn"
    before = bpmn.stat()
    bpmn.write_text(bpmn.read_text(encoding="utf-8").replace("days > 20 or", "dayz > 20 or"), encoding="utf-8")
    os.utime(bpmn, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = bpmn.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    edited = check(capsys, example_project)
    assert edited != clean and edited == check(capsys, example_project, "--no-cache")


def test_a_file_read_just_after_it_changed_is_read_again_next_time(example_project, capsys):
    """A coarse clock may give a file's next change the same times: a digest taken within RACY_NS of
    the file's change is not kept (the files of a fresh copy are all that new)."""
    check(capsys, example_project)
    project = load_project(str(example_project))
    kept = check_cache.FileDigests.read(project).kept
    assert str(project.model_path) not in kept and str(project.lock_path) not in kept


@pytest.mark.parametrize("content", [b"", b"\xff\xfe not json", b"[1, 2]", b'{"format": 1}',
                                     b'{"format": 1, "files": {"PATH": [1, 2, 3, 4, 5]}}',
                                     b'{"format": 1, "files": {"PATH": ["a", 2, 3, 4, 5, "x"]}}',
                                     b'{"format": 999, "files": {}}', b"fifo"])
def test_corrupt_or_foreign_digests_are_ignored_and_replaced(example_project, capsys, fresh_calls, vouched, content):
    check(capsys, example_project)
    bpmn = example_project / "model" / "leave.bpmn"
    bpmn.write_text(bpmn.read_text(encoding="utf-8").replace("days > 20 or", "days > 21 or"), encoding="utf-8")
    expected = check(capsys, example_project, "--no-cache")
    digests = example_project / check_cache.DIRECTORY / check_cache.DIGESTS
    digests.unlink()
    if content == b"fifo":
        os.mkfifo(digests)
    else:
        digests.write_bytes(content.replace(b"PATH", str(bpmn).encode()))
    assert check(capsys, example_project) == expected
    if content == b"fifo":
        digests.unlink()
        assert check(capsys, example_project) == expected  # a hit: writes them again
    assert str(bpmn) in check_cache.FileDigests.read(load_project(str(example_project))).kept
