"""Files and text seams is handed from outside (issue 27's paths): each attack is a real
command on a real project, and each is refused or contained with one line.

* a FIFO or a device given to ``seams init --from`` (or a FIFO beside the BPMN);
* a FIFO at ``.seams/lock``; a full disk under the project lock;
* a planted undo journal that would "roll back" ``.git/config``;
* ``--seams-update-golden`` through a symlinked ``tests/golden``;
* model text with terminal escapes and newlines;
* a handler that delegates to a sibling module changed after it was accepted;
* a provider that deletes its working directory.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest
from helpers import EXAMPLE, REPO, copy_example, edit, run_seams

from seams.display import one_line, terminal_safe
from seams.fs import sha256_hex


def _one_error_line(result: subprocess.CompletedProcess, code: int, *needles: str) -> str:
    lines = result.stderr.splitlines()
    assert "Traceback" not in result.stderr, result.stderr[-3000:]
    assert result.returncode == code, (result.returncode, result.stdout[-1500:], result.stderr[-1500:])
    assert len(lines) == 1, lines[:5]
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


# --- what init --from reads ----------------------------------------------------------


def test_init_from_a_fifo_is_refused_at_once(tmp_path):
    fifo = tmp_path / "model.bpmn"
    os.mkfifo(fifo)
    result = run_seams("init", "--from", str(fifo), str(tmp_path / "project"), cwd=tmp_path, timeout=30)
    _one_error_line(result, 2, "model.bpmn", "not a regular file (a FIFO)")
    assert not (tmp_path / "project").exists()


def test_init_from_dev_zero_is_refused_without_reading_it(tmp_path):
    result = run_seams("init", "--from", "/dev/zero", str(tmp_path / "project"), cwd=tmp_path, timeout=30)
    _one_error_line(result, 2, "/dev/zero", "not a regular file (a character device)")


def test_a_form_fifo_beside_the_bpmn_is_skipped_with_a_note(tmp_path):
    models = tmp_path / "models"
    models.mkdir()
    shutil.copy(REPO / "examples" / "leave-c8" / "model" / "leave.bpmn", models / "leave.bpmn")
    os.mkfifo(models / "stuck.form")
    result = run_seams("init", "--from", str(models / "leave.bpmn"), str(tmp_path / "project"), cwd=tmp_path,
                       timeout=60)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "stuck.form: not a regular file (a FIFO)" in result.stdout + result.stderr


# --- the project lock -----------------------------------------------------------------


def test_a_fifo_at_the_project_lock_is_one_line(tmp_path):
    root = copy_example(tmp_path)
    (root / ".seams").mkdir()
    os.mkfifo(root / ".seams" / "lock")
    result = run_seams("generate", cwd=root, timeout=60)
    _one_error_line(result, 2, ".seams/lock", "must be a regular file; remove it")


_FULL_DISK = textwrap.dedent('''
    import os, shutil, subprocess, sys
    mount = sys.argv[1]
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", mount], check=True)
    shutil.copytree(sys.argv[2], mount + "/leave", ignore=shutil.ignore_patterns("generated", "seams.lock"))
    os.makedirs(mount + "/leave/.seams")
    open(mount + "/leave/.seams/lock", "w").close()  # a project that ran seams before
    try:
        with open(mount + "/fill", "wb") as out:
            while True:
                out.write(b"x" * 65536)
    except OSError:
        pass
    done = subprocess.run([sys.executable, "-m", "seams_cli", "generate"], cwd=mount + "/leave",
                          capture_output=True, text=True, timeout=120)
    print(done.returncode)
    print(done.stderr, end="")
    print("GENERATED" if os.path.exists(mount + "/leave/generated") and os.listdir(mount + "/leave/generated")
          else "NOTHING")
''')


def test_a_full_disk_is_one_line_and_nothing_half_written(tmp_path):
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("needs root and unshare(1) to mount a small tmpfs in a private mount namespace")
    mount = tmp_path / "disk"
    mount.mkdir()
    script = tmp_path / "full_disk.py"
    script.write_text(_FULL_DISK, encoding="utf-8")
    done = subprocess.run(["unshare", "--mount", "--propagation", "private", sys.executable, str(script),
                           str(mount), str(EXAMPLE)], capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        pytest.skip(f"no private tmpfs could be mounted here: {done.stderr.strip()[-200:]}")
    code, *rest = done.stdout.splitlines()
    stderr, verdict = rest[:-1], rest[-1]
    assert "Traceback" not in done.stdout, done.stdout[-3000:]
    assert code == "2" and len(stderr) == 1, done.stdout
    assert "No space left on device; free some space and run it again" in stderr[0]
    assert verdict == "NOTHING"  # all or none: no generated file was left half-written


# --- undo journals ------------------------------------------------------------------------


def test_a_planted_journal_cannot_roll_back_git_config(tmp_path):
    root = copy_example(tmp_path)
    git = root / ".git"
    git.mkdir()
    config = git / "config"
    config.write_text("[core]\n\tbare = false\n", encoding="utf-8")
    planted = '[core]\n\tfsmonitor = "touch /tmp/owned"\n'
    entry = root / ".seams" / "undo" / "000001-aaaaaaaaaaaa"
    entry.mkdir(parents=True)
    (entry / "saved-0").write_text(planted, encoding="utf-8")
    handler = "handlers/check_balance.py"
    manifest = {"state": "applying", "files": [
        {"path": ".git/config", "before": "saved-0", "after_sha256": sha256_hex(config.read_bytes())},
        {"path": handler, "before": None, "after_sha256": sha256_hex((root / handler).read_bytes())}]}
    (entry / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    result = run_seams("check", cwd=root)
    assert "Traceback" not in result.stderr
    assert config.read_text(encoding="utf-8") == "[core]\n\tbare = false\n"
    assert (root / handler).is_file() and entry.is_dir()  # left alone, nothing rolled back
    refused = [line for line in result.stderr.splitlines() if "refused" in line]
    assert len(refused) == 1 and "'.git/config'" in refused[0] and "left alone" in refused[0], result.stderr
    undo = run_seams("undo", cwd=root)
    assert undo.returncode != 0 and "'.git/config'" in undo.stderr
    assert config.read_text(encoding="utf-8") == "[core]\n\tbare = false\n"


# --- golden files through a link --------------------------------------------------------------


def test_update_golden_writes_through_no_symlinked_folder(tmp_path):
    from seams.generators.new_generator import scaffold, write

    reference = tmp_path / "report.md"
    reference.write_text("# Leave report\n\nApprovals: auto, manager.\n", encoding="utf-8")
    package = tmp_path / "seams-leave-report"
    write(scaffold("leave-report", reference), package, force=False)
    outside = tmp_path / "outside"
    shutil.move(package / "tests" / "golden", outside)
    (package / "tests" / "golden").symlink_to(outside, target_is_directory=True)
    golden = outside / "report.md"
    golden.write_text(golden.read_text(encoding="utf-8").replace("manager", "nobody"), encoding="utf-8")
    before = golden.read_bytes()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SEAMS_", "PYTEST_"))}
    env["SEAMS_MODEL"] = str(EXAMPLE / "model" / "model.trig")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests",
                           "--seams-update-golden"], cwd=package, env=env, capture_output=True, text=True,
                          timeout=300)
    assert golden.read_bytes() == before, done.stdout[-2000:]
    assert "symbolic link" in done.stdout, done.stdout[-3000:]
    assert not [p for p in outside.iterdir() if p.name.endswith(".tmp")]


# --- model text on a terminal --------------------------------------------------------------


def test_display_text_is_one_line_without_controls():
    assert one_line("Invalid expiry\ndate") == "Invalid expiry date"
    assert one_line("a\x1b]52;c;QUJD\x07b") == "a\\x1b]52;c;QUJD\\x07b"
    assert one_line("x\u202ey") == "x\\u202ey"
    assert terminal_safe("line one\nline\x1b[2J two\n") == "line one\nline\\x1b[2J two\n"


def test_a_label_with_escapes_and_a_newline_is_printed_as_one_harmless_line(tmp_path):
    root = copy_example(tmp_path)
    trig = root / "model" / "model.trig"
    text = trig.read_text(encoding="utf-8")
    assert 'rdfs:label "Leave request"' in text
    trig.write_text(text.replace('rdfs:label "Leave request"',
                                 'rdfs:label "Leave\\nrequest \\u001B]52;c;QUJD\\u0007"', 1), encoding="utf-8")
    answers = tmp_path / "answers.json"
    answers.write_text('{"Task_Submit": {"employee": "ana", "leave_type": "annual", "days": 3, '
                       '"start_date": "2024-05-02"}}', encoding="utf-8")
    result = run_seams("run", "Process_LeaveRequest", "--answers", str(answers), cwd=root, timeout=180)
    output = result.stdout + result.stderr
    assert "\x1b" not in output and "\x07" not in output, output[:2000]
    head = output.splitlines()[0]
    assert head.startswith('run Process_LeaveRequest "Leave request ') and "x1b]52;c;QUJD" in head, head
    collected = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
                               cwd=root, capture_output=True, text=True, timeout=300)
    assert "\x1b" not in collected.stdout


# --- what an accepted handler imports -------------------------------------------------------------


def test_a_change_to_a_module_the_accepted_handler_imports_is_a_hand_edit(tmp_path):
    root = copy_example(tmp_path)
    handlers = root / "handlers"
    body = (REPO / "examples" / "leave" / "handlers" / "check_balance.py").read_text(encoding="utf-8")
    (handlers / "_impl.py").write_text(body, encoding="utf-8")
    (handlers / "check_balance.py").write_text("from handlers._impl import handle  # noqa: F401\n",
                                               encoding="utf-8")
    accepted = run_seams("accept", "check_balance", cwd=root, timeout=300)
    assert accepted.returncode == 0, accepted.stdout[-2000:] + accepted.stderr[-2000:]
    record = next(r for r in json.loads((root / "seams.lock").read_text())["drafts"]
                  if r["module"] == "handlers/check_balance.py")
    assert set(record["imports"]) >= {"handlers/_impl.py"}
    assert run_seams("check", cwd=root).returncode == 0
    edit(handlers / "_impl.py", "def handle(", "def _unused():\n    pass\n\n\ndef handle(", 1)
    check = run_seams("check", cwd=root)
    assert check.returncode == 1
    assert "handlers/_impl.py, which the accepted draft imports: the file changed" in check.stdout, check.stdout


# --- the provider's working directory ---------------------------------------------------------------


def test_a_provider_that_deletes_its_working_directory_leaves_the_project(tmp_path):
    root = copy_example(tmp_path, generated=True)
    provider = tmp_path / "wipe.py"
    provider.write_text("import os, shutil, sys\nsys.stdin.read()\nshutil.rmtree(os.getcwd())\nprint('def handle(')\n",
                        encoding="utf-8")
    before = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if ".seams" not in p.parts)
    result = run_seams("propose", "record_leave", "--provider", f"{sys.executable} {provider}", cwd=root)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    after = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if ".seams" not in p.parts)
    assert after == before
