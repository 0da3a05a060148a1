"""seams.lock: canonical bytes, strict reading, atomic writes that skip unchanged bytes."""

from __future__ import annotations

import json
import os
import stat

import pytest
from helpers import copy_example

from seams.errors import ProjectError
from seams.project.layout import load_project
from seams.project.lock import Lock, atomic_write, lock_bytes, read_lock, write_if_changed, write_lock

DIGEST = "a" * 64


@pytest.fixture()
def project(tmp_path):
    return load_project(copy_example(tmp_path, generated=False))


def test_a_missing_lock_reads_as_empty(project):
    assert not project.lock_path.exists()
    assert read_lock(project) == Lock()


def test_lock_bytes_are_canonical():
    lock = Lock(
        drafts=[{"task": "https://example.org/leave/RecordLeave", "sha256": DIGEST, "module": "handlers/r.py"},
                {"task": "https://example.org/leave/CheckBalance", "module": "handlers/c.py", "sha256": DIGEST}],
        generated={"generated/z.py": DIGEST, "generated/a.py": DIGEST},
    )
    data = lock_bytes(lock)
    text = data.decode("utf-8")
    assert text.endswith("}\n") and not text.endswith("\n\n")
    parsed = json.loads(text)
    assert [d["task"] for d in parsed["drafts"]] == sorted(d["task"] for d in lock.drafts)
    assert text == json.dumps(parsed, sort_keys=True, indent=2) + "\n"
    assert list(parsed["generated"]) == ["generated/a.py", "generated/z.py"]


def test_an_empty_lock_still_has_both_keys():
    assert lock_bytes(Lock()) == b'{\n  "drafts": [],\n  "generated": {}\n}\n'


def test_write_then_read_round_trips(project):
    lock = Lock(drafts=[{"task": "t", "module": "handlers/x.py", "sha256": DIGEST}],
                generated={"generated/decisions.py": DIGEST})
    assert write_lock(project, lock) is True
    assert read_lock(project) == lock
    assert project.lock_path.read_bytes() == lock_bytes(lock)


def test_an_unchanged_lock_is_not_rewritten(project):
    lock = Lock(generated={"generated/decisions.py": DIGEST})
    write_lock(project, lock)
    os.utime(project.lock_path, ns=(1_000_000_000, 1_000_000_000))
    assert write_lock(project, Lock(generated=dict(lock.generated))) is False
    assert project.lock_path.stat().st_mtime_ns == 1_000_000_000


@pytest.mark.parametrize(("text", "fault"), [
    ("{", "not valid JSON"),
    ("[]", "JSON object"),
    ('{"drafts": [], "generated": {}, "extra": 1}', "unknown key extra"),
    ('{"drafts": {}, "generated": {}}', "drafts"),
    ('{"drafts": [], "generated": {"generated/a.py": "nothex"}}', "generated.generated/a.py"),
])
def test_a_malformed_lock_is_a_project_error_naming_it(project, text, fault):
    project.lock_path.write_text(text, encoding="utf-8")
    with pytest.raises(ProjectError) as caught:
        read_lock(project)
    assert str(caught.value).startswith("seams.lock:")
    assert fault in str(caught.value)


def test_atomic_write_leaves_no_temporary_file_and_a_readable_mode(tmp_path):
    target = tmp_path / "deep" / "file.txt"
    atomic_write(target, b"one")
    assert target.read_bytes() == b"one"
    assert sorted(p.name for p in target.parent.iterdir()) == ["file.txt"]
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~mask


def test_atomic_write_keeps_an_existing_files_mode(tmp_path):
    target = tmp_path / "run.sh"
    target.write_bytes(b"old")
    target.chmod(0o750)
    assert write_if_changed(target, b"new") is True
    assert stat.S_IMODE(target.stat().st_mode) == 0o750
    assert write_if_changed(target, b"new") is False
