"""How much of a corpus of real Camunda 7/8 models the embedded engine runs (docs/scenarios.md).

Usage: ``python scripts/measure_camunda.py CHECKOUT [CHECKOUT ...]`` with paths to local checkouts
of public example repositories. Nothing of them is copied into the repository: each BPMN file is
imported into a scratch project with ``seams init --from`` (with the DMN files and the other BPMN
files of its folder, so called processes and decisions are there), then every executable process
of it runs on the engine with no handler written and no answer given. A process counts as running
when it starts and runs until a user task without answers, a missing handler, a catch event waiting
for a timer or message no one fires, or an end event. Everything else is listed by what stopped
it: the element kind the engine refuses, an import the importer refuses, or another error (one
line each, ``--verbose``).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path

RUNS = ("end event", "user task without answers", "missing handler", "waits for an event",
        "a condition needs data no one gave")
"""The outcomes that count as running: the process started and went on as far as a run without
handlers and answers can."""


class _NeedsAnswers(Exception):
    pass


def _answers(info):
    if any(field.required for field in info.fields):
        raise _NeedsAnswers(info.element_id)
    return {}


def _executable(path: Path) -> bool:
    """A BPMN file with an executable process (``seams init`` refuses a file with none)."""
    return re.search(rb'isExecutable="true"', path.read_bytes()) is not None


def _category(error: str) -> str:
    if "handler module" in error or "no seam:handler" in error or "handler" in error and "not found" in error:
        return "missing handler"
    if "waiting at" in error:
        return "waits for an event"
    if "is not set" in error or "no condition of its outgoing flows holds" in error \
            or "Missing data input" in error or "(it is None); give it in the run's variables" in error:
        return "a condition needs data no one gave"
    if "the data submitted is refused" in error:
        return "user task without answers"
    return "other: " + re.sub(r"[\w-]+\.bpmn", "X.bpmn", error)[:90]


def measure(paths: list[Path], verbose: bool) -> tuple[Counter, int]:
    from seams.errors import SeamsError
    from seams.model.loading import load_model
    from seams.project.layout import load_project
    from seams_cli.main import main as seams
    from seams_runtime.engine import EngineRefused, run_instance

    outcomes: Counter = Counter()
    total = 0
    files = sorted(p for root in paths for p in root.rglob("*.bpmn") if "node_modules" not in p.parts)
    defines: dict[str, list[Path]] = {}  # process id -> the files that define it, for called processes
    for each in files:
        for found in re.findall(rb'<(?:bpmn2?:)?process\b[^>]*\bid="([^"]+)"', each.read_bytes()):
            defines.setdefault(found.decode("utf-8", "replace"), []).append(each)
    for bpmn in files:
        scratch = Path(tempfile.mkdtemp(prefix="seams-measure-"))
        try:
            siblings = sorted(p for p in bpmn.parent.iterdir() if p.suffix == ".dmn"
                              or (p.suffix == ".bpmn" and p != bpmn and _executable(p)))
            called = re.findall(rb'(?:calledElement="|processId=")([^"$=][^"]*)"', bpmn.read_bytes())
            for name in called:
                for other in defines.get(name.decode("utf-8", "replace"), [])[:1]:
                    if other != bpmn and other not in siblings and other.name not in {s.name for s in siblings} \
                            and _executable(other):
                        siblings.append(other)
            args = ["init", "--from", str(bpmn)] + [a for s in siblings for a in ("--from", str(s))]
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
                code = seams([*args, str(scratch / "p")])
            if code != 0:
                message = err.getvalue().strip().splitlines()[-1:] or ["?"]
                if ("no executable bpmn:process" in message[0] or "no bpmn:process" in message[0]) \
                        and bpmn.name in message[0]:
                    continue  # not an executable process: not counted
                total += 1
                outcomes["import refused: " + re.sub(r"\S+\.(bpmn|dmn)\S*", "FILE", message[0])[:90]] += 1
                if verbose:
                    print(f"{bpmn}: import: {message[0]}")
                continue
            project = load_project(scratch / "p")
            model = load_model(project)
            wanted = {p.element_id for p in model.view.processes.values()
                      if model.payloads.get(p.payload) is not None
                      and model.payloads[p.payload].relpath == bpmn.name}
            for process in sorted(wanted - {None}):
                total += 1
                try:
                    result = run_instance(project, model, process, user_task_data=_answers, max_steps=2000)
                except _NeedsAnswers:
                    outcome = "user task without answers"
                except EngineRefused as exc:
                    text = str(exc)
                    kind = re.search(r": (\w+) \S+( \"[^\"]*\")?: the embedded engine does not run (.*)$", text)
                    outcome = f"refused: {kind.group(1)} ({kind.group(3)})" if kind else f"refused: {text[:90]}"
                except SeamsError as exc:
                    outcome = f"other: {str(exc)[:90]}"
                else:
                    outcome = "end event" if result.ok else _category(result.error or "")
                outcomes[outcome] += 1
                if verbose:
                    print(f"{bpmn} {process}: {outcome}")
        except Exception as exc:  # a crash of seams itself: counted, and shown
            total += 1
            outcomes[f"crash: {type(exc).__name__}: {str(exc)[:80]}"] += 1
            if verbose:
                print(f"{bpmn}: crash: {exc}")
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    return outcomes, total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkouts", nargs="+", type=Path)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    outcomes, total = measure(args.checkouts, args.verbose)
    running = sum(count for outcome, count in outcomes.items() if outcome in RUNS)
    print(f"executable processes: {total}")
    print(f"run (start, then reach an end event, a user task without answers, a missing handler, a waiting "
          f"event or a condition without data): {running} ({100 * running / max(total, 1):.1f} %)")
    for outcome, count in sorted(outcomes.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"  {count:4d}  {outcome}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
