"""Before any command: finish or roll back an apply or undo that a crash cut short.

seams_edit's undo entries are a journal (seams_edit.journal); this runs its
recovery under the project lock for the project the command names (or the
one found from the current directory), printing one line per repaired entry
on stderr, so the command then works on a model that is all old or all new.
With no project, or no undo folder, it does nothing (and takes no lock).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from seams.errors import ProjectError
from seams.project.config import CONFIG_NAME, parse_config
from seams.project.layout import find_project_root
from seams.project.project_lock import project_lock
from seams_edit.undo import recover, undo_dir


def recover_interrupted(name: str, args: argparse.Namespace) -> None:
    explicit = getattr(args, "project", None)
    try:
        root = find_project_root(None, Path(explicit) if explicit is not None else None)
    except (ProjectError, OSError, ValueError):
        return  # the command itself reports a missing project
    if not undo_dir(root).is_dir():
        return
    timeout = parse_config(root / CONFIG_NAME).lock_timeout
    with project_lock(root, timeout=timeout, command=f"seams {name}"):
        for line in recover(root):
            print(f"seams {name}: {line}", file=sys.stderr)
