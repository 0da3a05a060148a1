"""Bad input to the real ``seams check``: one line naming the file, key or element, exit 2, no traceback.

Hostile payloads (a DTD with an external entity, an entity bomb) are
refused before any expansion: the secret file's text must never appear.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import copy_example, edit, run_seams

TRIG = Path("model") / "model.trig"


def assert_project_error(result, *fragments: str) -> str:
    """Exit 2, nothing on stdout, exactly one ``seams check:`` line on stderr holding each fragment."""
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("seams check: "), lines
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


def test_malformed_config(tmp_path):
    root = copy_example(tmp_path)
    edit(root / "seams.toml", "[project]", "[project")
    assert_project_error(run_seams("check", cwd=root), "seams.toml: not valid TOML")


def test_unknown_config_key(tmp_path):
    root = copy_example(tmp_path)
    edit(root / "seams.toml", 'handlers = "handlers"', 'handlers = "handlers"\nhandler = "handlers"')
    assert_project_error(run_seams("check", cwd=root), "seams.toml: unknown key project.handler")


def test_no_project_found(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert_project_error(run_seams("check", cwd=empty), str(empty), "no seams.toml here or in any parent")
    assert_project_error(run_seams("check", "--project", str(empty), cwd=tmp_path),
                         str(empty), "no seams.toml in the project directory")


def test_missing_model(tmp_path):
    root = copy_example(tmp_path)
    edit(root / "seams.toml", 'model = "model/model.trig"', 'model = "model/gone.trig"')
    assert_project_error(run_seams("check", cwd=root), "model/gone.trig: model file not found")
    assert_project_error(run_seams("check", "--model", "nowhere.trig", cwd=root), "nowhere.trig: model file not found")


def test_trig_syntax_error_names_file_and_line(tmp_path):
    root = copy_example(tmp_path)
    lines = (root / TRIG).read_text(encoding="utf-8").splitlines(keepends=True)
    number = next(i for i, line in enumerate(lines, 1) if 'seam:name "days" ;' in line)
    lines[number - 1] = lines[number - 1].replace('seam:name "days" ;', 'seam:name "days" ;;; ]] oops')
    (root / TRIG).write_text("".join(lines), encoding="utf-8")
    assert_project_error(run_seams("check", cwd=root), f"model/model.trig:{number}: TriG syntax error")


def test_model_not_utf8(tmp_path):
    root = copy_example(tmp_path)
    (root / TRIG).write_bytes((root / TRIG).read_bytes() + b"\n# \xff\xfe\n")
    assert_project_error(run_seams("check", cwd=root), "model/model.trig: not UTF-8 text")


def test_missing_payload(tmp_path):
    root = copy_example(tmp_path)
    edit(root / TRIG, 'seam:path "leave.dmn"', 'seam:path "gone.dmn"')
    assert_project_error(run_seams("check", cwd=root), "model/gone.dmn: payload file not found", "leave-dmn")


def test_payload_outside_the_model_directory(tmp_path):
    root = copy_example(tmp_path)
    edit(root / TRIG, 'seam:path "leave.dmn"', 'seam:path "../seams.toml"')
    assert_project_error(run_seams("check", cwd=root), "seam:path ../seams.toml leads outside the model directory")


def test_payload_not_xml(tmp_path):
    root = copy_example(tmp_path)
    (root / "model" / "leave.dmn").write_text("decision table, roughly\n", encoding="utf-8")
    assert_project_error(run_seams("check", cwd=root), "model/leave.dmn: not well-formed XML")


def test_payload_of_the_wrong_format(tmp_path):
    root = copy_example(tmp_path)
    (root / "model" / "leave.dmn").write_bytes((root / "model" / "leave.bpmn").read_bytes())
    assert_project_error(run_seams("check", cwd=root), "model/leave.dmn: not a DMN document")


SECRET = "TOPSECRET-7f3a9c"


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16"])
def test_external_entity_is_refused_and_never_read(tmp_path, encoding):
    root = copy_example(tmp_path)
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET, encoding="utf-8")
    bpmn = root / "model" / "leave.bpmn"
    text = bpmn.read_text(encoding="utf-8")
    text = text.replace('<?xml version="1.0" encoding="UTF-8"?>',
                        f'<?xml version="1.0" encoding="{encoding.upper()}"?>\n'
                        f'<!DOCTYPE bpmn:definitions [<!ENTITY leak SYSTEM "{secret.as_uri()}">]>')
    text = text.replace('name="Submit leave request"', 'name="&leak;"', 1)
    bpmn.write_bytes(text.encode(encoding))
    result = run_seams("check", cwd=root)
    assert_project_error(result, "model/leave.bpmn: a DTD is not allowed in a payload")
    assert SECRET not in result.stdout + result.stderr


def test_entity_bomb_is_refused_without_expansion(tmp_path):
    root = copy_example(tmp_path)
    entities = ['<!ENTITY e0 "lol">'] + [f'<!ENTITY e{i} "{f"&e{i - 1};" * 10}">' for i in range(1, 10)]
    dmn = root / "model" / "leave.dmn"
    edit(dmn, '<?xml version="1.0" encoding="UTF-8"?>',
         '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE definitions [' + "".join(entities) + "]>")
    edit(dmn, "<description>Short annual leave needs no manager</description>", "<description>&e9;</description>")
    result = run_seams("check", cwd=root, timeout=60)
    assert_project_error(result, "model/leave.dmn: a DTD is not allowed in a payload")


def test_element_of_the_wrong_kind_is_a_finding_not_an_error(tmp_path):
    root = copy_example(tmp_path)
    edit(root / TRIG, 'seam:payloadElement "Task_CheckBalance"', 'seam:payloadElement "Task_Submit"')
    result = run_seams("check", cwd=root)
    assert result.returncode == 1 and result.stderr == ""
    assert ('decision ex:CheckBalance seam:payloadElement: "Task_Submit" in leave.bpmn is a bpmn:userTask; '
            "expected a bpmn:serviceTask") in result.stdout.splitlines()
