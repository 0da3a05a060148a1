"""DMN 1.1 to 1.5: a payload of each version loads, checks, generates and takes a `seams suggest --accept`
edit in its own version, and the edited file reads in dmn-moddle as dmn-js reads it (where node and
.ci/node's packages are installed; .ci/run installs them).

The payloads are the example's own ``leave.dmn`` rewritten into each version's namespaces, in the shapes
the tools write them: DMN 1.1 as Camunda Modeler 3 saved it (the 20151101 namespace, no DMNDI), 1.2
with the 20180521 MODEL/DMNDI namespaces as Camunda Modeler 4.0 did, 1.3 as today's Camunda Modeler,
1.4 (20211108 MODEL with 1.3's DMNDI) and 1.5 (20230324 MODEL and DMNDI) as the DMN TCK's files are.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import REPO, copy_example

from seams.checks.decisions import decision_findings
from seams.model.loading import load_model
from seams.project.layout import load_project
from seams.vocab import DMN_NS, DMN_VERSIONS, DMNDI_NS
from seams_cli.main import main
from seams_edit.dmn import BIODI_NS, new_dmn_payload

SUGGEST = REPO / "tests" / "fixtures" / "suggest"
PROVIDER = f"{sys.executable} {SUGGEST / 'provider.py'} {SUGGEST / 'escalate.json'}"
NODE_MODULES = REPO / ".ci" / "node" / "node_modules"
VALIDATOR = REPO / "tests" / "node" / "validate_dmn.mjs"


def as_version(text: str, version: str) -> str:
    """A DMN 1.3 text in another version's namespaces (no DMNDI for 1.1)."""
    spaces = DMN_VERSIONS[version]
    text = text.replace(DMN_NS, spaces.model)
    if spaces.dmndi is None:  # Camunda Modeler 1-3 kept a 1.1 decision's place in biodi:bounds
        bounds = re.search(r"<dc:Bounds ([^/]*)/>", text)
        assert bounds is not None
        text = re.sub(r"\s*<dmndi:DMNDI>.*?</dmndi:DMNDI>", "", text, flags=re.S)
        text = text.replace(' xmlns:dc="', f' xmlns:biodi="{BIODI_NS}" xmlns:dc="', 1)
        text = re.sub(r' xmlns:(dmndi|dc)="[^"]*"', "", text)
        return text.replace('<decision id="Decision_ApprovalLevel" name="Approval level">',
                            '<decision id="Decision_ApprovalLevel" name="Approval level">\n    <extensionElements>\n'
                            f"      <biodi:bounds {bounds.group(1)}/>\n    </extensionElements>", 1)
    return text.replace(DMNDI_NS, spaces.dmndi)


def versioned_example(tmp_path: Path, version: str) -> Path:
    root = copy_example(tmp_path)
    dmn = root / "model" / "leave.dmn"
    dmn.write_text(as_version(dmn.read_text(encoding="utf-8"), version), encoding="utf-8")
    return root


def moddle_problems(paths: list[Path]) -> list[str]:
    """dmn-moddle's reading of each file (after dmn-migrate, as dmn-js opens it); lines not starting 'ok'."""
    result = subprocess.run(["node", str(VALIDATOR), str(NODE_MODULES), *map(str, paths)],
                            capture_output=True, text=True, timeout=120, check=False)
    lines = result.stdout.splitlines()
    assert len(lines) == len(paths), result.stderr
    return [line for line in lines if not line.startswith("ok ")]


HAS_MODDLE = shutil.which("node") is not None and (NODE_MODULES / "dmn-moddle").is_dir() \
    and (NODE_MODULES / "@bpmn-io" / "dmn-migrate").is_dir()
needs_moddle = pytest.mark.skipif(
    not HAS_MODDLE,
    reason="node or .ci/node/node_modules (dmn-moddle, dmn-migrate) not installed; .ci/run installs them")


@pytest.mark.parametrize("version", sorted(DMN_VERSIONS))
def test_each_version_loads_checks_generates_and_takes_an_accepted_suggestion(tmp_path, capsys, version):
    root = versioned_example(tmp_path, version)
    model = load_model(load_project(root))
    assert model.payloads[next(iter(p for p in model.payloads if str(p).endswith("leave-dmn")))].dmn.version == version
    assert decision_findings(model) == []
    assert main(["check", "--project", str(root)]) == 0

    assert main(["suggest", "--project", str(root), "--kind", "condition-to-dmn", "--provider", PROVIDER]) == 0
    ident = capsys.readouterr().out.splitlines()[-2].removeprefix("suggestion ")
    assert main(["suggest", "--project", str(root), "--accept", ident]) == 0
    text = (root / "model" / "leave.dmn").read_text(encoding="utf-8")
    spaces = DMN_VERSIONS[version]
    assert f'<definitions xmlns="{spaces.model}"' in text and '<decision id="Decision_Escalation"' in text
    others = {ns for s in DMN_VERSIONS.values() for ns in (s.model, s.dmndi)
              if ns and ns not in (spaces.model, spaces.dmndi)}
    assert [ns for ns in others if ns in text] == []  # the edit kept the file's version
    assert ("DMNShape_Decision_Escalation" in text) == (spaces.dmndi is not None)
    if spaces.dmndi is None:  # DMN 1.1: the new decision's place in biodi:bounds, as the file keeps them
        assert '<biodi:bounds x="390" y="100" width="180" height="80" />' in text.split("Decision_Escalation")[1]
    if HAS_MODDLE:
        # dmn-js reads DMN 1.1 to 1.3 (1.1 and 1.2 through dmn-migrate); a 1.4 or 1.5 file, whose
        # decision tables are written as 1.3's, is read with its namespaces put back to 1.3's
        copy = tmp_path / "moddle.dmn"
        if version in ("1.4", "1.5"):
            text13 = text.replace(spaces.model, DMN_NS).replace(spaces.dmndi or DMNDI_NS, DMNDI_NS)
            copy.write_text(text13, encoding="utf-8")
        else:
            shutil.copyfile(root / "model" / "leave.dmn", copy)
        assert moddle_problems([copy]) == []

    assert main(["generate", "--project", str(root)]) == 0
    assert "def escalation(" in (root / "generated" / "decisions.py").read_text(encoding="utf-8")
    capsys.readouterr()
    assert main(["check", "--project", str(root)]) == 0
    assert capsys.readouterr().out.strip() == "seams check: no problems"


@needs_moddle
def test_dmn_moddle_reports_a_file_it_cannot_read(tmp_path):
    broken = tmp_path / "broken.dmn"
    text = (REPO / "examples" / "leave" / "model" / "leave.dmn").read_text(encoding="utf-8")
    broken.write_text(text.replace("<decisionTable ", "<decisionTabel ").replace("</decisionTable>",
                                                                                    "</decisionTabel>"),
                      encoding="utf-8")
    (problem,) = moddle_problems([broken])
    assert problem.startswith(f"problem {broken}")


@pytest.mark.parametrize("version", sorted(DMN_VERSIONS))
def test_a_new_payload_is_written_in_the_version_asked_for(version):
    data = new_dmn_payload(definitions_id="Definitions_1", name="New", namespace="urn:new", version=version)
    spaces = DMN_VERSIONS[version]
    assert f'xmlns="{spaces.model}"'.encode() in data
    assert (b"<dmndi:DMNDI>" in data) == (spaces.dmndi is not None)
    assert new_dmn_payload(definitions_id="D", name="n", namespace="u") == \
        new_dmn_payload(definitions_id="D", name="n", namespace="u", version="1.3")


def test_a_root_of_no_known_dmn_version_is_refused(tmp_path):
    root = copy_example(tmp_path)
    dmn = root / "model" / "leave.dmn"
    dmn.write_text(dmn.read_text(encoding="utf-8").replace(DMN_NS, "http://example.org/not-dmn"), encoding="utf-8")
    assert main(["check", "--project", str(root)]) == 2
