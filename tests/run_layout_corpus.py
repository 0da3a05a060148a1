"""Run every seams_edit edit on every BPMN and DMN file under a folder and check the results.

For a local checkout of a public suite (Camunda examples, bpmn-js test
fixtures), which is never copied into this repository:

    .venv/bin/python tests/run_layout_corpus.py PATH [--moddle]

Every flow node with an incoming sequence flow is the target of
``insert_task_before``, every conditional flow gets a new condition and a new
name, every DMN file a new decision; each result is checked with
``seams_edit.layout_check.new_problems`` and, with ``--moddle``, read by
bpmn-moddle / dmn-moddle (.ci/node), which must report no new warning. Files
seams_edit refuses to load (not byte-faithful, not BPMN/DMN) are counted, not
edited. Prints one line per finding and a summary; exits 1 when any edit
added a problem or a warning.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from lxml import etree

from seams.errors import SeamsError
from seams.vocab import BPMN_NS
from seams_edit.bpmn import insert_task_before, set_condition
from seams_edit.dmn import add_decision
from seams_edit.layout_check import new_problems
from seams_edit.xml import load_payload, save_payload

REPO = Path(__file__).resolve().parents[1]
B = f"{{{BPMN_NS}}}"
DECISION = {"decision_id": "Decision_SeamsRoute", "name": "Route", "hit_policy": "UNIQUE",
            "inputs": [("Amount", "amount", "number")], "output": ("route", "string"),
            "rules": [(["> 100"], '"review"'), (["<= 100"], '"auto"')]}


def edits(path: Path, data: bytes) -> list[tuple[str, bytes]]:
    """(what, edited bytes) for every edit this file allows."""
    payload = load_payload(data, source=path.name)
    root = payload.root
    out = []
    if root.tag == f"{B}definitions":
        targets = sorted({f.get("targetRef") for f in root.iter(f"{B}sequenceFlow") if f.get("targetRef")})
        for target in targets:
            edited = load_payload(data, source=path.name)
            try:
                insert_task_before(edited, target, tag="businessRuleTask", task_id="Activity_SeamsNew", name="Route")
            except SeamsError as exc:
                out.append((f"insert before {target}: refused: {exc}", b""))
                continue
            out.append((f"insert before {target}", save_payload(edited)))
        for flow in root.iter(f"{B}sequenceFlow"):
            if flow.find(f"{B}conditionExpression") is not None:
                edited = load_payload(data, source=path.name)
                set_condition(edited, flow.get("id"), 'route == "review"', name="review")
                out.append((f"condition on {flow.get('id')}", save_payload(edited)))
    elif etree.QName(root).localname == "definitions":
        edited = load_payload(data, source=path.name)
        try:
            add_decision(edited, **DECISION)
        except SeamsError as exc:
            return [(f"add decision: refused: {exc}", b"")]
        out.append(("add decision", save_payload(edited)))
    return out


def moddle(paths: list[Path]) -> dict[str, list[str]]:
    script = REPO / ".ci" / "node" / "moddle_check.mjs"
    found = {}
    for start in range(0, len(paths), 200):
        done = subprocess.run(["node", str(script), *map(str, paths[start:start + 200])], capture_output=True,
                              text=True, timeout=600, check=True)
        for line in done.stdout.splitlines():
            result = json.loads(line)
            found[result["file"]] = [re.sub(r"\s*line: \d+\s*column: \d+", "", w) for w in result["warnings"]]
            if result.get("error"):
                found[result["file"]].append(f"error: {result['error']}")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--moddle", action="store_true", help="also read every result with bpmn-/dmn-moddle")
    args = parser.parse_args(argv)
    files = sorted(p for p in args.folder.rglob("*") if p.suffix in (".bpmn", ".dmn") and p.is_file())
    counts = {"files": len(files), "loaded": 0, "edits": 0, "refused": 0, "with new problems": 0}
    bad = 0
    with tempfile.TemporaryDirectory(prefix="seams-corpus-") as folder:
        written: list[tuple[Path, Path, str]] = []
        for number, path in enumerate(files):
            data = path.read_bytes()
            try:
                before = load_payload(data, source=path.name).root
                results = edits(path, data)
            except SeamsError:
                continue
            counts["loaded"] += 1
            original = Path(folder) / f"{number}-original{path.suffix}"
            original.write_bytes(data)
            for index, (what, out) in enumerate(results):
                if not out:
                    counts["refused"] += 1
                    continue
                counts["edits"] += 1
                after = etree.fromstring(out, etree.XMLParser(resolve_entities=False, no_network=True))
                problems = new_problems(before, after)
                if problems:
                    counts["with new problems"] += 1
                    bad += 1
                    print(f"{path.relative_to(args.folder)}: {what}: {'; '.join(problems)}")
                edited = Path(folder) / f"{number}-{index}{path.suffix}"
                edited.write_bytes(out)
                written.append((edited, original, f"{path.relative_to(args.folder)}: {what}"))
        if args.moddle and written:
            warnings = moddle(sorted({p for pair in written for p in pair[:2]}))
            new_warnings = 0
            for edited, original, what in written:
                new = [w for w in warnings.get(str(edited), []) if w not in warnings.get(str(original), [])]
                if new:
                    new_warnings += 1
                    bad += 1
                    print(f"{what}: moddle: {'; '.join(new)}")
            counts["with new moddle warnings"] = new_warnings
    print(", ".join(f"{key} {value}" for key, value in counts.items()))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
