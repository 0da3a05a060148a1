"""``seams check`` end to end: the real command in a subprocess on copies of the example."""

from __future__ import annotations

import re
from pathlib import Path

from helpers import copy_example, edit, run_seams

from seams.generators.generate import write_generated
from seams.model.loading import load_model
from seams.project.layout import load_project

LINE = re.compile(r"^(shape|decision|generate|generated-stale|generated-hand-edited|draft-stale|"
                  r"draft-hand-edited) \S+( \S+)?: \S.*$")
TRIG = Path("model") / "model.trig"
BAD_HANDLER = ('seam:handler "check_balance" ;', 'seam:handler "import" ;')
HANDLER_LINE = ('shape ex:CheckBalance seam:handler: "import" is a Python keyword and cannot be '
                "a handler module name")


def generated_example(tmp_path: Path) -> Path:
    """A copy of the example with its generated files and lock up to date."""
    root = copy_example(tmp_path)
    project = load_project(root)
    write_generated(project, load_model(project))
    return root


def test_a_sound_project_exits_0_and_says_so(tmp_path):
    root = generated_example(tmp_path)
    result = run_seams("check", cwd=root)
    assert (result.returncode, result.stdout, result.stderr) == (0, "seams check: no problems\n", "")


def test_each_problem_is_one_line_and_the_exit_is_1(tmp_path):
    root = generated_example(tmp_path)
    edit(root / TRIG, *BAD_HANDLER)
    edit(root / "model" / "leave.dmn", "<text>&gt; 5</text>", "<text>&gt;= 5</text>")
    result = run_seams("check", cwd=root)
    assert result.returncode == 1 and result.stderr == ""
    lines = result.stdout.splitlines()
    assert all(LINE.match(line) for line in lines), lines
    assert lines[0] == HANDLER_LINE
    assert lines[1].startswith("decision Decision_ApprovalLevel dmn:rule: rules Rule_Long and Rule_ShortOther overlap")
    assert lines[2].startswith("decision Decision_ApprovalLevel dmn:rule: rules Rule_ShortAnnual and Rule_Long overlap")
    # the changed DMN changes the generated decision code: the lock notices
    assert any(line.startswith("generated-stale ") for line in lines[3:]), lines
    assert run_seams("check", cwd=root).stdout == result.stdout  # same input, same bytes


def test_project_and_model_options_and_environment(tmp_path):
    root = generated_example(tmp_path)
    broken = root / "model" / "broken.trig"
    broken.write_text((root / TRIG).read_text(encoding="utf-8").replace(*BAD_HANDLER), encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    by_option = run_seams("check", "--project", str(root), cwd=elsewhere)
    assert (by_option.returncode, by_option.stdout) == (0, "seams check: no problems\n")

    with_model = run_seams("check", "--project", str(root), "--model", str(broken), cwd=elsewhere)
    assert with_model.returncode == 1 and HANDLER_LINE in with_model.stdout.splitlines()

    from_env = run_seams("check", cwd=root / "handlers", env={"SEAMS_MODEL": str(broken)})
    assert from_env.returncode == 1 and HANDLER_LINE in from_env.stdout.splitlines()

    model_wins = run_seams("check", "--model", str(root / TRIG), cwd=root, env={"SEAMS_MODEL": str(broken)})
    assert (model_wins.returncode, model_wins.stdout) == (0, "seams check: no problems\n")


def test_seams_without_a_command_prints_usage_and_exits_2(capsys):
    from seams_cli.main import main

    assert main([]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("usage: seams") and "propose" in err
