"""A person as the provider: the recipe of docs/providers.md, for real, under a pseudo-terminal.

seams runs in a terminal (a pty here); the provider is the docs' shell script
word for word, which opens ``$EDITOR`` on the terminal; the editor is a small
script that shows it has the terminal by asking a question on it and reading
the answer typed at it, then writes a correct handler. The provider keeps
seams' terminal (its own process group, in the foreground while it runs), so
the draft is the person's answer and is accepted.
"""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FAKE = Path(__file__).parent / "fixtures" / "providers" / "fake.py"

EDITOR = '''import os, sys
print("editor: type accept to answer", flush=True)
line = sys.stdin.readline().strip()
if line == "accept":
    with open(sys.argv[1], "w") as handle:
        handle.write(open(os.environ["ANSWER_FILE"]).read())
'''


def _recipe() -> str:
    text = (REPO / "docs" / "providers.md").read_text(encoding="utf-8")
    (script,) = re.findall(r"```sh\n(#!/bin/sh\n# provider/by-hand\.sh.*?)```", text, flags=re.S)
    return script


def _read_until(fd: int, marker: bytes, deadline: float) -> bytes:
    seen = b""
    while marker not in seen:
        if time.monotonic() > deadline:
            raise AssertionError(f"no {marker!r} on the terminal; it showed: {seen.decode(errors='replace')}")
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            seen += chunk
    return seen


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pseudo-terminals as Linux has them")
def test_the_by_hand_recipe_gets_the_terminal_and_its_answer_is_accepted(example_project, tmp_path):
    provider = example_project / "provider" / "by-hand.sh"
    provider.write_text(_recipe())
    editor = tmp_path / "editor.py"
    editor.write_text(EDITOR)
    answer = tmp_path / "answer.py"
    answer.write_text(subprocess.run([sys.executable, str(FAKE), "good"], capture_output=True, text=True,
                                     check=True).stdout)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEAMS_")}
    env.update(EDITOR=f"{sys.executable} {editor}", ANSWER_FILE=str(answer), PYTHONDONTWRITEBYTECODE="1")
    argv = [sys.executable, "-m", "seams_cli", "propose", "record_leave", "--provider", "sh provider/by-hand.sh"]

    pid, terminal = pty.fork()
    if pid == 0:  # the child: a new session whose controlling terminal is the pty
        os.chdir(example_project)
        os.execvpe(argv[0], argv, env)
    deadline = time.monotonic() + 120
    shown = _read_until(terminal, b"type accept", deadline)
    os.write(terminal, b"accept\n")
    shown += _read_until(terminal, b"wrote handlers/record_leave.py", deadline)
    _, status = os.waitpid(pid, 0)
    os.close(terminal)
    assert os.waitstatus_to_exitcode(status) == 0, shown.decode(errors="replace")
    assert (example_project / "handlers" / "record_leave.py").read_text() == answer.read_text().rstrip("\n") + "\n"
