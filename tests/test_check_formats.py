"""``seams check --format text|json|sarif|github``: the same findings in each, at the right lines.

The real command in a subprocess on a copy of the example broken in the TriG model (a handler
name), the DMN file (overlapping rules) and the BPMN file (a condition naming no variable). The
SARIF log is validated against a JSON schema written here from the SARIF 2.1.0 specification's
required properties (the OASIS schema file is not shipped with the tests).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import copy_example, edit, run_seams

from seams.finding_locations import TrigStatements
from seams.findings import Finding

jsonschema = pytest.importorskip("jsonschema", reason="jsonschema (the test extra) validates the SARIF log")

TRIG = Path("model") / "model.trig"
SARIF_SUBSET = {
    "type": "object",
    "required": ["version", "runs"],
    "properties": {
        "version": {"const": "2.1.0"},
        "$schema": {"type": "string", "format": "uri"},
        "runs": {"type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["tool"],
            "properties": {
                "tool": {"type": "object", "required": ["driver"], "properties": {"driver": {
                    "type": "object", "required": ["name"],
                    "properties": {"name": {"type": "string"}, "rules": {"type": "array", "items": {
                        "type": "object", "required": ["id"],
                        "properties": {"id": {"type": "string"},
                                       "shortDescription": {"type": "object", "required": ["text"]}}}}}}}},
                "columnKind": {"enum": ["utf16CodeUnits", "unicodeCodePoints"]},
                "results": {"type": "array", "items": {
                    "type": "object", "required": ["message"],
                    "properties": {
                        "ruleId": {"type": "string"},
                        "ruleIndex": {"type": "integer", "minimum": -1},
                        "level": {"enum": ["none", "note", "warning", "error"]},
                        "message": {"type": "object", "anyOf": [{"required": ["text"]}, {"required": ["id"]}],
                                    "properties": {"text": {"type": "string"}}},
                        "partialFingerprints": {"type": "object", "additionalProperties": {"type": "string"}},
                        "locations": {"type": "array", "items": {"type": "object", "properties": {
                            "physicalLocation": {
                                "type": "object", "anyOf": [{"required": ["address"]}, {"required": ["artifactLocation"]}],
                                "properties": {
                                    "artifactLocation": {"type": "object", "properties": {
                                        "uri": {"type": "string", "format": "uri-reference"},
                                        "uriBaseId": {"type": "string"}}},
                                    "region": {"type": "object", "properties": {
                                        "startLine": {"type": "integer", "minimum": 1}}}}}}}}},
                    "additionalProperties": True}}},
        }},
    },
}


@pytest.fixture(scope="module")
def broken(tmp_path_factory) -> Path:
    root = copy_example(tmp_path_factory.mktemp("formats"))
    edit(root / TRIG, 'seam:handler "check_balance" ;', 'seam:handler "import" ;')
    edit(root / "model" / "leave.dmn", "<text>&gt; 5</text>", "<text>&gt;= 5</text>")
    edit(root / "model" / "leave.bpmn", 'approval == "auto"', 'approvel == "auto"')
    return root


def outputs(root: Path) -> dict[str, str]:
    results = {fmt: run_seams("check", "--format", fmt, cwd=root) for fmt in ("text", "json", "sarif", "github")}
    assert {fmt: (r.returncode, r.stderr) for fmt, r in results.items()} == {fmt: (1, "") for fmt in results}
    return {fmt: r.stdout for fmt, r in results.items()}


def test_every_format_carries_the_text_findings_in_order(broken: Path) -> None:
    out = outputs(broken)
    text = out["text"].splitlines()
    assert len(text) >= 5
    from_json = [Finding.from_dict(record).line() for record in json.loads(out["json"])["findings"]]
    from_sarif = [result["message"]["text"] for result in json.loads(out["sarif"])["runs"][0]["results"]]
    from_github = [line.split("::", 2)[2].replace("%0A", "\n").replace("%0D", "\r").replace("%25", "%")
                   for line in out["github"].splitlines()]
    assert from_json == text and from_sarif == text and from_github == text
    assert all(line.startswith("::error ") for line in out["github"].splitlines())
    assert outputs(broken) == out  # same input, same bytes


def test_findings_point_at_the_statement_or_element_at_fault(broken: Path) -> None:
    records = json.loads(run_seams("check", "--format", "json", cwd=broken).stdout)["findings"]

    def line_of(record: dict) -> str:
        assert record["file"] is not None and record["line"] is not None, record
        return (broken / record["file"]).read_text(encoding="utf-8").splitlines()[record["line"] - 1]

    handler = next(r for r in records if r["subject"] == "ex:CheckBalance" and "keyword" in r["message"])
    assert handler["file"] == "model/model.trig" and 'seam:handler "import"' in line_of(handler)
    overlaps = [r for r in records if r["subject"] == "Decision_ApprovalLevel" and "overlap" in r["message"]]
    assert overlaps and all(r["file"] == "model/leave.dmn" for r in overlaps)
    for record in overlaps:  # the first rule the message names
        first_rule = record["message"].split()[1]
        assert f'<rule id="{first_rule}">' in line_of(record)
    condition = next(r for r in records if "approvel" in r["message"])
    assert condition["file"] == "model/leave.bpmn"
    assert "conditionExpression" in line_of(condition) and 'approvel == "auto"' in line_of(condition)
    stale = next(r for r in records if r["kind"] == "generated-stale")
    assert (stale["file"], stale["line"]) == (stale["subject"], None)
    quoted = next(r for r in records if r["kind"] == "generate")  # "generate stubs: ex:CheckBalance seam:handler: ..."
    assert 'seam:handler "import"' in line_of(quoted)


def test_sarif_is_a_valid_2_1_0_log_with_lines(broken: Path) -> None:
    log = json.loads(run_seams("check", "--format", "sarif", cwd=broken).stdout)
    jsonschema.validate(log, SARIF_SUBSET, format_checker=jsonschema.FormatChecker())
    run = log["runs"][0]
    rules = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    for result in run["results"]:
        assert rules[result["ruleIndex"]] == result["ruleId"]
    located = [r["locations"][0]["physicalLocation"] for r in run["results"] if "locations" in r]
    assert {p["artifactLocation"]["uri"] for p in located} >= {"model/model.trig", "model/leave.dmn", "model/leave.bpmn"}
    with pytest.raises(jsonschema.ValidationError):  # the schema can fail: a line 0 is no SARIF line
        located[0]["region"]["startLine"] = 0
        jsonschema.validate(log, SARIF_SUBSET)


def test_paths_are_relative_to_the_working_directory_when_inside_it(broken: Path) -> None:
    result = run_seams("check", "--project", broken.name, "--format", "github", cwd=broken.parent)
    assert f"::error file={broken.name}/model/model.trig,line=" in result.stdout


def test_a_clean_project_in_each_format(tmp_path: Path) -> None:
    root = copy_example(tmp_path)
    clean = {fmt: run_seams("check", "--format", fmt, cwd=root) for fmt in ("json", "sarif", "github")}
    assert {fmt: r.returncode for fmt, r in clean.items()} == {"json": 0, "sarif": 0, "github": 0}
    assert json.loads(clean["json"].stdout)["findings"] == []
    assert json.loads(clean["sarif"].stdout)["runs"][0]["results"] == []
    assert "::error" not in clean["github"].stdout


def test_the_trig_reader_finds_subjects_only_in_subject_position() -> None:
    text = ('@prefix ex: <https://e.org/> .\n'
            'PREFIX s: <https://s.org/>\n'
            '# ex:Ghost a s:Thing .\n'
            'ex:g {\n'
            '  ex:A a s:Task ;\n'
            '     s:note "ex:B s:handler x . ex:C" ;\n'
            '     s:handler "a" .\n'
            '  <https://e.org/B> s:child [ s:handler "x" ] ,\n'
            '     ex:A .\n'
            '  ex:C s:text """line\n'
            'ex:Ghost2 s:handler "y" .\n'
            '""" ; s:handler "z" .\n'
            '}\n')
    statements = TrigStatements(text)
    assert statements.prefixes == {"ex": "https://e.org/", "s": "https://s.org/"}
    assert statements.line_of("https://e.org/A", None) == 5
    assert statements.line_of("https://e.org/A", "https://s.org/handler") == 7
    assert statements.line_of("https://e.org/A", "http://www.w3.org/1999/02/22-rdf-syntax-ns#type") == 5
    assert statements.line_of("https://e.org/B", "https://s.org/handler") == 8
    assert statements.line_of("https://e.org/C", "https://s.org/handler") == 12
    assert statements.line_of("https://e.org/Ghost", None) is None
    assert statements.line_of("https://e.org/Ghost2", None) is None


def test_the_pre_commit_hook_runs_seams_check_on_model_files() -> None:
    import re as regex

    text = (Path(__file__).resolve().parents[1] / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    fields = dict(regex.findall(r"^\s*-?\s*(id|entry|language|pass_filenames|files): (.+)$", text, flags=regex.M))
    assert (fields["id"], fields["entry"], fields["language"], fields["pass_filenames"]) == \
        ("seams-check", "seams check", "python", "false")
    files = regex.compile(fields["files"])
    for path in ("model/model.trig", "model/leave.bpmn", "model/leave.dmn", "seams.toml", "sub/seams.lock",
                 "handlers/record_leave.py", "model/submit-leave.form"):
        assert files.search(path), path
    for path in ("README.md", "docs/images/run-page.png", "notseams.toml"):
        assert not files.search(path), path
