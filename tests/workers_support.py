"""A copy of an engine variant of the example, its workers module imported in this process.

The worker tests drive the generated modules, unmodified, against the fake
engines of tests/fake_engines.py on 127.0.0.1. The copy gets a
``workers_bindings.py`` and the second handler, and job settings when a test
gives them (seam predicates on a task, a ``[workers]`` table); each test
writes the handler bodies it needs, and the imported project modules
(``handlers``, ``workers_bindings``, ``generated``) are dropped from
``sys.modules`` before and after, so no test sees another's handler.
"""

from __future__ import annotations

import importlib
import shutil
import sys
from pathlib import Path
from types import ModuleType

from seams_cli.main import main

REPO = Path(__file__).resolve().parents[1]

BINDINGS = '''\
"""The bindings the workers hand to the handlers: fakes that record each call."""

CALLS = []


class Bindings:
    def balances(self, employee, leave_type):
        CALLS.append(("balances", employee, leave_type))
        return 12.5

    def calendar(self, employee, days, leave_type):
        CALLS.append(("calendar", employee, days, leave_type))
        return "BK-1042"


def bindings():
    CALLS.append(("bindings()",))
    return Bindings()
'''

RECORD_LEAVE = '''\
def handle(inputs, bindings):
    return {"booking_ref": bindings.calendar(inputs["employee"], inputs["days"], inputs["leave_type"])}
'''

PROJECT_MODULES = ("handlers", "workers_bindings", "generated")
# the environment a worker under test runs with: a fixed name, a short long poll, a grace period
WORKER_ENV = {"SEAMS_WORKER_NAME": "test-worker", "SEAMS_WORKERS_POLL_SECONDS": "0.1",
              "SEAMS_WORKERS_GRACE_SECONDS": "5"}
ANA = {"employee": '"ana"', "leave_type": '"annual"', "days": "3"}  # a job's variables, as JSON texts
# a handler that says the type and value of each input it is given, and what it is given for:
# xsd:date, xsd:decimal (a whole JSON number), xsd:integer (written 3.0) and xsd:string
TYPED = (
    "def handle(inputs, bindings):\n"
    "    return {'booking_ref': ' '.join(f'{type(inputs[n]).__name__} {inputs[n]}' for n in (\n"
    "        'start_date', 'balance_left', 'days', 'leave_type'))}\n")
TYPED_READS = "seam:reads ex:startDate, ex:balanceLeft"  # added to record_leave's reads
TYPED_VARIABLES = {"start_date": '"2026-03-02"', "balance_left": "12", "days": "3.0"}
TYPED_OUT = "date 2026-03-02 Decimal 12 int 3 str annual"  # exactly what acceptance gives the handler

# a handler that reads the optional review_note (a form field sets it, none requires it)
OPTIONAL_NOTE = ("def handle(inputs, bindings):\n"
                 "    return {'booking_ref': inputs['review_note'] if 'review_note' in inputs else 'no note'}\n")


def forget_project_modules() -> None:
    for name in list(sys.modules):
        if name.split(".")[0] in PROJECT_MODULES:
            del sys.modules[name]


def engine_project(tmp_path: Path, variant: str, settings: dict[str, str] | None = None,
                   workers_toml: str = "") -> Path:
    """A copy of examples/<variant> with its workers' bindings and both handlers, generated afresh;
    ``settings`` adds seam predicates to tasks by handler (``{"check_balance": 'seam:maxJobs 3'}``),
    ``workers_toml`` the lines of a ``[workers]`` table to seams.toml."""
    root = tmp_path / variant
    shutil.copytree(REPO / "examples" / variant, root, ignore=shutil.ignore_patterns(".seams", "__pycache__"))
    (root / "workers_bindings.py").write_text(BINDINGS, encoding="utf-8")
    (root / "handlers" / "record_leave.py").write_text(RECORD_LEAVE, encoding="utf-8")
    trig = root / "model" / "model.trig"
    text = trig.read_text(encoding="utf-8")
    for handler, predicates in (settings or {}).items():
        anchor = f'seam:handler "{handler}" ;'
        assert anchor in text
        text = text.replace(anchor, f"{anchor}\n        {predicates} ;")
    trig.write_text(text, encoding="utf-8")
    if workers_toml:
        config = root / "seams.toml"
        config.write_text(config.read_text(encoding="utf-8") + "\n[workers]\n" + workers_toml, encoding="utf-8")
    assert main(["generate", "--project", str(root)]) == 0
    return root


def import_workers(root: Path, module: str) -> ModuleType:
    """``generated.<module>`` of the project at ``root``, with the root on sys.path."""
    forget_project_modules()
    sys.path.insert(0, str(root))
    importlib.invalidate_caches()
    return importlib.import_module(f"generated.{module}")


def roots_on_path():
    """For a fixture to yield from: the project roots a test puts on sys.path, a list taken off
    sys.path again, with the project's modules, once the test is over."""
    roots: list[Path] = []
    yield roots
    forget_project_modules()
    for root in roots:
        while str(root) in sys.path:
            sys.path.remove(str(root))


def project_copy(tmp_path: Path, variant: str, cleanup: list[Path], settings: dict[str, str] | None = None,
                 workers_toml: str = "", handlers: dict[str, str] | None = None) -> Path:
    """:func:`engine_project` with the handler bodies ``handlers`` gives, by handler name."""
    root = engine_project(tmp_path, variant, settings, workers_toml)
    for name, body in (handlers or {}).items():
        (root / "handlers" / f"{name}.py").write_text(body, encoding="utf-8")
    cleanup.append(root)
    return root


def sent(fake, kind: str) -> list[dict]:
    """The requests of one kind the fake engine received, in order."""
    return [request for name, request in fake.store.requests if name == kind]
