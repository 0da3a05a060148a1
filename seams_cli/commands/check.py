"""``seams check``: is the model sound, and do the generated files and drafts match the lock?

One line per problem on stdout, ``<kind> <subject> [<predicate>]: <message>``,
so the output diffs and greps well; exit 1 when there is one. A clean run
still says so in one line, because silence reads as "did it run at all?".
A project error (bad config, unreadable model or payload) is exit 2 through
seams_cli.errors.
"""

from __future__ import annotations

import argparse

from seams.checks import registry as checks
from seams.checks.advice import advice
from seams.project.layout import load_project
from seams_cli.lifetime import command_model

CLEAN = "seams check: no problems"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--project", metavar="DIR",
                        help="the project directory (default: the nearest seams.toml upwards)")
    parser.add_argument("--model", metavar="TRIG",
                        help="the TriG model to check (default: SEAMS_MODEL, else project.model)")


def run(args: argparse.Namespace) -> int:
    project = load_project(args.project, model=args.model)
    with command_model(project) as model:
        findings = checks.all_findings(project, model)
        notes = advice(model)
    for finding in findings:
        print(finding.line())
    if not findings:
        print(CLEAN)
    for note in notes:  # advice, not problems: the exit code is the findings' alone
        print(note)
    return 1 if findings else 0
