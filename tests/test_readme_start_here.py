"""The README's "Start here" commands run as written (paths under /tmp moved into the
test's own directory, ``.venv/bin/seams`` the interpreter running the tests)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys

from tests.helpers import REPO


def _start_here_commands() -> list[str]:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Start here", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block, "no sh block in the Start here section"
    return [line for line in block.group(1).splitlines() if line.strip() and not line.startswith("#")]


def test_the_start_here_commands_run_as_documented(tmp_path):
    commands = _start_here_commands()
    assert len(commands) == 3 and all(".venv/bin/seams" in c for c in commands)
    seams = f"{shlex.quote(sys.executable)} -m seams_cli"
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEAMS_")}
    results = []
    for command in commands:
        expected = 1 if "# exits 1" in command else 0
        # /tmp first: the interpreter's own path may lie under /tmp (a CI clone) and must stay as it is
        line = command.split("   #", 1)[0].replace("/tmp/", f"{tmp_path}/").replace(".venv/bin/seams", seams)
        done = subprocess.run(["bash", "-c", line], cwd=REPO, env=env, capture_output=True, text=True,
                              timeout=120, check=False)
        assert done.returncode == expected, (command, done.stdout, done.stderr)
        results.append(done)
    assert results[0].stdout.splitlines()[-5] == "next:"
    assert results[0].stdout.splitlines()[-1] == "seams check: no problems"
    todo = results[2].stdout.splitlines()
    assert todo and all(t.startswith(("shape ", "decision ")) for t in todo), todo
    assert (tmp_path / "imported" / "model" / "leave.bpmn").read_bytes() == \
        (REPO / "examples" / "leave" / "model" / "leave.bpmn").read_bytes()
