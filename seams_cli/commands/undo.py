"""``seams undo``: restore the files the last applied change replaced.

Everything that decides (the record, the sha256 check, the all-or-none
restore) is in ``seams_edit.undo``; this module only finds the project and
prints one ``restored <path>`` line per file. A refusal or an empty history
is an EditError, which the CLI's error handler turns into a line and exit 1.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from seams.project.config import CONFIG_NAME, parse_config
from seams.project.layout import find_project_root
from seams.project.project_lock import project_lock
from seams_cli.options import add_project_argument
from seams_edit.undo import undo_last


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_project_argument(parser)


def run(args: argparse.Namespace) -> int:
    root = find_project_root(None, Path(args.project) if args.project else None)
    timeout = parse_config(root / CONFIG_NAME).lock_timeout
    with project_lock(root, timeout=timeout, command="seams undo"):
        restored = undo_last(root)
    for path in restored:
        print(f"restored {path.relative_to(root).as_posix()}")
    return 0
