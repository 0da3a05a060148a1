"""A synthetic seams project of any size, built from the leave example.

Each copy is a whole process the way a modeler would add one: its own BPMN
and DMN files, its own variables, bindings, tasks, examples, forms, classes
and decision, every ``ex:`` name, label, handler and BPMN/DMN element id
suffixed with ``_<i>`` (labels with `` <i>``), and both handlers written, so
the project is clean: ``seams check`` reports nothing and ``pytest -q``
passes. Generated files and ``seams.lock`` are produced by ``seams generate``
itself, so the lock is what a real project would hold.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from replay_provider import HANDLER

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "leave"
PROVIDER = Path(__file__).with_name("replay_provider.py")
PROVIDER_COMMAND = "python3 provider/replay.py"
_EXAMPLE_PROVIDER = "python3 provider/recorded.py"

_BLOCK = re.compile(r"^(ex:graph\\/\w+ \{\n)(.*?)(^\}\n)", re.M | re.S)
_LOCAL = re.compile(r"\bex:([A-Za-z][\w-]*)")
_HANDLER = re.compile(r'seam:handler "(\w+)"')
_LABEL = re.compile(r'rdfs:label "([^"]*)"')
_ID = re.compile(r'\bid="([^"]+)"')


def build_project(target: Path, copies: int, *, generate: bool = True) -> Path:
    """Write a project of ``copies`` processes at ``target`` (which must not exist); returns it.
    ``generate=False`` leaves out the generated files and ``seams.lock``."""
    model_dir = target / "model"
    model_dir.mkdir(parents=True)
    bpmn = (EXAMPLE / "model" / "leave.bpmn").read_text(encoding="utf-8")
    dmn = (EXAMPLE / "model" / "leave.dmn").read_text(encoding="utf-8")
    element_ids = _element_ids(bpmn + dmn)
    trig = (EXAMPLE / "model" / "model.trig").read_text(encoding="utf-8")

    def repeat(match: re.Match) -> str:
        body = match.group(2)
        return match.group(1) + "".join(_copy_of(body, i, element_ids) for i in range(copies)) + match.group(3)

    (model_dir / "model.trig").write_text(_BLOCK.sub(repeat, trig), encoding="utf-8")
    for i in range(copies):
        (model_dir / f"leave_{i}.bpmn").write_text(_rename_ids(bpmn, i, element_ids), encoding="utf-8")
        (model_dir / f"leave_{i}.dmn").write_text(_rename_ids(dmn, i, element_ids), encoding="utf-8")

    config = (EXAMPLE / "seams.toml").read_text(encoding="utf-8")
    if _EXAMPLE_PROVIDER not in config:
        raise ValueError(f"{EXAMPLE / 'seams.toml'}: no {_EXAMPLE_PROVIDER!r} to replace")
    (target / "seams.toml").write_text(config.replace(_EXAMPLE_PROVIDER, PROVIDER_COMMAND), encoding="utf-8")
    (target / "provider").mkdir()
    shutil.copyfile(PROVIDER, target / "provider" / "replay.py")
    handlers = target / "handlers"
    handlers.mkdir()
    shutil.copyfile(EXAMPLE / "handlers" / "__init__.py", handlers / "__init__.py")
    check_balance = (EXAMPLE / "handlers" / "check_balance.py").read_text(encoding="utf-8")
    for i in range(copies):
        (handlers / f"check_balance_{i}.py").write_text(check_balance, encoding="utf-8")
        (handlers / f"record_leave_{i}.py").write_text(HANDLER, encoding="utf-8")
    if generate:
        done = subprocess.run([sys.executable, "-m", "seams_cli", "generate", "--project", str(target)],
                              capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"seams generate in {target} exited {done.returncode}: {done.stderr.strip()}")
    return target


def _copy_of(body: str, i: int, element_ids: re.Pattern) -> str:
    text = _LOCAL.sub(lambda m: f"ex:{m.group(1)}_{i}", body)
    text = text.replace('"leave.bpmn"', f'"leave_{i}.bpmn"').replace('"leave.dmn"', f'"leave_{i}.dmn"')
    text = _HANDLER.sub(lambda m: f'seam:handler "{m.group(1)}_{i}"', text)
    text = _LABEL.sub(lambda m: f'rdfs:label "{copy_label(m.group(1), i)}"', text)
    return _rename_ids(text, i, element_ids)


def copy_label(label: str, i: int) -> str:
    """The label copy ``i`` gives what the example labels ``label``."""
    return f"{label} {i}"


def _element_ids(xml_text: str) -> re.Pattern:
    """One pattern matching any BPMN/DMN element id as a whole token."""
    ids = sorted(set(_ID.findall(xml_text)), key=lambda s: (-len(s), s))
    return re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, ids)) + r")(?![\w-])")


def _rename_ids(text: str, i: int, element_ids: re.Pattern) -> str:
    return element_ids.sub(lambda m: f"{m.group(1)}_{i}", text)
