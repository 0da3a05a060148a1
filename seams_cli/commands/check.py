"""``seams check``: is the model sound, and do the generated files and drafts match the lock?

One line per problem on stdout, ``<kind> <subject> [<predicate>]: <message>``,
so the output diffs and greps well; exit 1 when there is one. A clean run
still says so in one line, because silence reads as "did it run at all?".
``--format json|sarif|github`` prints the same findings with the file and line
at fault for code hosts and CI (seams_cli.check_formats); the exit code is the same.
A project error (bad config, unreadable model or payload) is exit 2 through
seams_cli.errors.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from seams.checks import registry as checks
from seams.checks.advice import advice
from seams.finding_locations import locate_findings
from seams.project.layout import load_project
from seams_cli.check_formats import FORMATS, render
from seams_cli.lifetime import command_model

CLEAN = "seams check: no problems"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--project", metavar="DIR",
                        help="the project directory (default: the nearest seams.toml upwards)")
    parser.add_argument("--model", metavar="TRIG",
                        help="the TriG model to check (default: SEAMS_MODEL, else project.model)")
    parser.add_argument("--format", choices=FORMATS, default="text",
                        help="text (default): one line per finding; json: findings with file and line; "
                             "sarif: SARIF 2.1.0 for code scanning; github: GitHub Actions ::error annotations")


def run(args: argparse.Namespace) -> int:
    project = load_project(args.project, model=args.model)
    with command_model(project) as model:
        findings = checks.all_findings(project, model)
        notes = advice(model)  # advice, not problems: the exit code is the findings' alone
        locations = locate_findings(model, findings) if args.format != "text" else [None] * len(findings)
    print(render(args.format, findings, locations, notes, cwd=Path.cwd(), root=project.root, clean=CLEAN), end="")
    return 1 if findings else 0
