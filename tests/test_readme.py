"""Every command of the README runs as written.

* The walkthrough block runs line by line with bash, in order, in a private
  environment: a fresh virtual environment whose ``seams``, ``pytest`` and
  ``pip`` are this checkout's, so ``pip install ./seams-variables`` lands there
  and nowhere else. The one step the README gives in words (add the drafted
  generator to ``[generate] generators``) is made as it says, and ``<id>`` is
  the id ``seams suggest`` printed. The walk ends with ``pytest -q`` green in
  the walked project.
* The first of the two fresh-machine commands runs for real in a copy of the
  repository (a new virtual environment, ``pip install .``, the bundled
  example proposed offline). The second is the command ``.ci/run`` calls:
  CI runs it on every submission, so this test checks they are the same.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text(encoding="utf-8")
WALK = "/tmp/leave-walk"  # where the README walks; the test walks in a private copy of that path


def _blocks(after: str) -> list[str]:
    """The ```sh blocks after the heading ``after``, up to the next heading."""
    section = README.split(after, 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.*?)```", section, flags=re.S)


def _commands(block: str) -> list[str]:
    """Each command line of a block, its trailing comment removed; comment-only lines dropped."""
    out = []
    for line in block.splitlines():
        command = re.sub(r"\s+#.*$", "", line).strip()
        if command and not command.startswith("#"):
            out.append(command)
    return out


def _environment(tmp_path: Path) -> dict[str, str]:
    """A fresh venv that sees this checkout and its installed dependencies, with the
    console scripts the README calls."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    Path(purelib, "_seams_checkout.pth").write_text(f"{REPO}\n{sysconfig.get_paths()['purelib']}\n")
    scripts = {"seams": "from seams_cli.main import entry\nentry()\n",
               "pytest": "import sys, pytest\nsys.exit(pytest.console_main())\n",
               "pip": "import sys\nfrom pip._internal.cli.main import main\nsys.exit(main())\n"}
    for name, body in scripts.items():
        script = venv / "bin" / name
        script.write_text(f"#!{python}\n{body}")
        script.chmod(0o755)
    inherited = {k: v for k, v in os.environ.items() if not k.startswith(("SEAMS_", "PYTEST_", "VIRTUAL_ENV"))}
    return {**inherited, "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}", "VIRTUAL_ENV": str(venv),
            "PYTHONDONTWRITEBYTECODE": "1",
            # the drafted package builds with this environment's setuptools, no download ("0": pip reads
            # its --no-* options from the environment inverted)
            "PIP_NO_BUILD_ISOLATION": "0", "PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}


def test_the_walkthrough_runs_as_written_and_ends_green(tmp_path):
    env = _environment(tmp_path)
    where = tmp_path / "pwd"  # each command says where a ``cd`` left the shell, for the next one
    walk = tmp_path / "leave-walk"  # not /tmp itself: two test runs at once must not share it
    cwd, printed, transcript, command = REPO, "", "", ""
    for command in (c.replace(WALK, str(walk)) for c in _commands(_blocks("## Walkthrough on the example")[0])):
        if "<id>" in command:
            ident = re.findall(r"^suggestion ([0-9a-f]{64})$", transcript, flags=re.M)[-1]
            command = command.replace("<id>", ident)
        result = subprocess.run(["bash", "-c", f'set -e; {command}; pwd > "{where}"'], cwd=cwd, env=env,
                                capture_output=True, text=True, timeout=300, check=False)
        assert result.returncode == 0, f"$ {command}\n{result.stdout}\n{result.stderr}"
        cwd, printed = Path(where.read_text().strip()), result.stdout
        transcript += printed
        if command.startswith("pip install ./seams-"):  # the step the README gives in words
            config = walk / "seams.toml"
            config.write_text(config.read_text().replace('generators = ["stubs", "decisions"]',
                                                         'generators = ["stubs", "decisions", "variables"]'))
    assert command.endswith("pytest -q") and " passed" in printed and "failed" not in printed, printed


def test_ci_runs_the_readme_test_command():
    install, tests = _commands(_blocks("On a fresh machine")[0])
    command = tests.split("&& ")[-1]
    assert command == ".venv/bin/python -m pytest -n 2 -q"
    assert command in (REPO / ".ci" / "run").read_text()


@pytest.mark.skipif(not shutil.which("git"), reason="copies the checkout's tracked files with git")
def test_the_first_command_installs_seams_and_proposes_offline(tmp_path):
    """The README's first command, as written, in a copy of the repository's tracked files."""
    copy = tmp_path / "seams"
    files = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    for name in filter(None, files.decode().split("\0")):
        source, target = REPO / name, copy / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            target.symlink_to(os.readlink(source))
        elif source.is_file():
            shutil.copy2(source, target)
    first = _commands(_blocks("On a fresh machine")[0])[0]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SEAMS_", "PYTEST_", "VIRTUAL_ENV"))}
    result = subprocess.run(["bash", "-c", f"set -e; {first}"], cwd=copy, env=env, capture_output=True,
                            text=True, timeout=600, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[-2:] == ["tests passed", "wrote handlers/record_leave.py"]


def test_the_project_and_model_options_are_where_the_readme_says():
    import argparse
    import importlib

    from seams_cli.main import COMMANDS

    paragraph = README.split("The commands that read a model (", 1)[1].split(")", 1)[0]
    reading = set(re.findall(r"`([a-z-]+)`", paragraph))
    for name, (module, _) in COMMANDS.items():
        parser = argparse.ArgumentParser()
        importlib.import_module(module).add_arguments(parser)
        options = {option for action in parser._actions for option in action.option_strings}
        assert ("--model" in options) == (name in reading), name
        assert ("--project" in options) == (name not in ("new-generator", "init")), name
