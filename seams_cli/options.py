"""``--project`` and ``--model``, defined once for the commands that spell them alike."""

from __future__ import annotations

import argparse


def add_project_argument(parser: argparse.ArgumentParser) -> None:
    """The project, for a command that reads no model (``seams undo``)."""
    parser.add_argument("--project", metavar="DIR", help="project directory (default: found from here)")


def add_project_arguments(parser: argparse.ArgumentParser) -> None:
    """The project and its model, chosen as for every command (``--model``, else
    ``SEAMS_MODEL``, else ``project.model``)."""
    add_project_argument(parser)
    parser.add_argument("--model", metavar="TRIG", help="TriG model (default: SEAMS_MODEL, then project.model)")
