"""A drafted generator's ``extract`` attacking its judge, each refused (docs/plugin.md,
"Drafted code in a sandbox"): the same attacks as a drafted handler's, through
``seams draft-generator`` on a copy of the example project. Skipped, saying why, where no
sandbox works on the machine.
"""

from __future__ import annotations

import sys
import time
import uuid
from pathlib import Path

import pytest
import test_draft_generator
from test_draft_generator import fake, good_answer, snapshot, write_answer

import seams
from seams_runtime.sandbox import AUTO, SandboxUnavailable, choose

GATES = ("golden", "determinism", "parses", "sources")
draft = test_draft_generator.draft  # its fixture: seams draft-generator in-process on a copy of the example


@pytest.fixture(autouse=True)
def sandbox():
    try:
        return choose(AUTO)
    except SandboxUnavailable as exc:
        pytest.skip(f"no sandbox on this machine: {exc}")


def with_attack(attack: str) -> str:
    """The good extract step with ``attack`` (indented body lines) run first."""
    extract = good_answer()["extract"]
    return extract.replace("    dataset = load(trig)\n", attack + "    dataset = load(trig)\n")


WRONG_GOLDEN = good_answer()["golden"] + "[fixed] a line the template never renders\n"

FORGE = '''    import json, os
    for pid in os.listdir("/proc"):
        try:
            argv = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\\0")
        except OSError:
            continue
        if b"pytest_seams.worker" in argv:
            spec = json.loads(argv[argv.index(b"pytest_seams.worker") + 1])
            with open(spec["results"], "a") as results:
                for gate in ("golden", "determinism", "parses", "sources"):
                    nodeid = "tests/golden/bindings.md::" + gate
                    results.write(json.dumps({"event": "start", "nodeid": nodeid}) + "\\n")
                    results.write(json.dumps({"event": "report", "nodeid": nodeid, "when": "call",
                                              "outcome": "passed", "text": "", "seams": None}) + "\\n")
                results.write(json.dumps({"event": "finish", "exit_status": 0}) + "\\n")
            os._exit(0)
'''

PATCH = '''    try:
        import _pytest.reports
        original = _pytest.reports.TestReport.from_item_and_call
        def always_passed(item, call):
            report = original(item, call)
            report.outcome, report.longrepr = "passed", None
            return report
        _pytest.reports.TestReport.from_item_and_call = staticmethod(always_passed)
        import pytest_seams.golden
        pytest_seams.golden.GoldenItem.judge = lambda self, run: ([], "")
    except Exception:
        pass
'''


@pytest.mark.parametrize("attack", [FORGE, PATCH], ids=["forged-results-file", "patched-pytest-and-seams"])
def test_a_wrong_drafted_generator_cannot_forge_its_verdict(draft, tmp_path, attack):
    before = snapshot(draft.root)
    answer = write_answer(tmp_path, extract=with_attack(attack), golden=WRONG_GOLDEN)
    code, lines, err = draft("--provider", fake("answer", str(answer)))
    assert code == 1 and "tests passed" not in lines, (lines, err)
    assert "failed tests/golden/bindings.md::golden: the rendered output differs from the golden text" in err
    assert snapshot(draft.root) == before and not (tmp_path / "seams-bindings").exists()


def test_a_drafted_extract_cannot_read_secrets_or_write_the_project(draft, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_API_KEY", "sk-fake-456")
    (draft.root / ".env").write_text("DATABASE_PASSWORD=hunter2\n")
    before = snapshot(draft.root)
    attack = f'''    import os
    found = []
    for pid in os.listdir("/proc"):
        try:
            found.append(open(f"/proc/{{pid}}/environ", "rb").read().decode("latin-1"))
        except OSError:
            pass
    try:
        found.append(open({str(draft.root / ".env")!r}).read())
    except OSError:
        pass
    for path in ("model/model.trig", "seams.lock"):
        try:
            with open(os.path.join({str(draft.root)!r}, path), "a") as out:
                out.write("# owned")
        except OSError:
            pass
    text = " ".join(found)
    raise RuntimeError("loot: " + (" ".join(s for s in ("sk-fake-456", "hunter2") if s in text) or "nothing"))
'''
    answer = write_answer(tmp_path, extract=with_attack(attack))
    code, lines, err = draft("--provider", fake("answer", str(answer)))
    assert code == 1
    text = "\n".join(lines + err)
    assert "loot: nothing" in text and "sk-fake-456" not in text and "hunter2" not in text
    assert snapshot(draft.root) == before


def test_a_daemon_or_dropped_module_of_a_drafted_extract_does_not_last(draft, tmp_path):
    name = f"seams_probe_{uuid.uuid4().hex}.py"
    targets = [Path(seams.__file__).resolve().parent.parent / name, Path(sys.prefix) / name]
    victim = tmp_path / "seams-bindings" / "seams_bindings" / "templates" / "bindings.md"
    attack = f'''    import os, time
    for path in {[str(t) for t in targets]!r}:
        try:
            open(path, "w").write("import os\\n")
        except OSError:
            pass
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            time.sleep(2)
            try:
                open({str(victim)!r}, "w").write("[[ owned ]]\\n")
            except OSError:
                pass
            os._exit(0)
        os._exit(0)
'''
    try:
        answer = write_answer(tmp_path, extract=with_attack(attack))
        code, lines, err = draft("--provider", fake("answer", str(answer)))
        assert code == 0, err
        written = victim.read_bytes()
        time.sleep(3.5)
        assert victim.read_bytes() == written
        assert [t for t in targets if t.exists()] == []
    finally:
        for target in targets:
            target.unlink(missing_ok=True)
