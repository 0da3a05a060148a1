"""``seams generate``: run the configured generators and update ``seams.lock``.

Prints ``wrote <path>`` for every file whose bytes changed (the lock
included), ``removed <path>`` for a file it generated before that no
generator produces any more, ``kept <path>: ...`` for such a file edited by
hand (never deleted), and last ``unchanged N``: the generated files already
up to date. A second run prints only ``unchanged N`` and changes no byte.
Exit 0; a failing generator is a GeneratorError (exit 1) and nothing is
written; a project error exits 2.
"""

from __future__ import annotations

import argparse

from seams.generators.generate import write_generated
from seams.project.layout import load_project
from seams.project.project_lock import project_lock
from seams_cli.lifetime import command_model


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--project", metavar="DIR", help="the project directory (default: found from here)")
    parser.add_argument("--model", metavar="TRIG", help="the model's TriG file (default: SEAMS_MODEL or seams.toml)")


def run(args: argparse.Namespace) -> int:
    project = load_project(args.project, model=args.model)
    # the lock is re-read and written under the project lock: a propose beside it keeps its record
    with project_lock(project.root, timeout=project.config.lock_timeout, command="seams generate"), \
            command_model(project) as model:
        report = write_generated(project, model)
    for line in report.lines():
        print(line)
    return 0
