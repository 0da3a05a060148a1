"""The one place that turns expected errors into a line and an exit code.

Expected failures are :class:`seams.errors.SeamsError`; each class carries
its exit code, and a subcommand module may override the mapping with an
``EXIT_CODES`` dict (``draft-generator`` exits 1 for every error, docs/draft-generator.md).
The machine refusing a write (a full disk, a quota, a read-only file system,
missing permission) is not a bug either: it is one line naming the file and
exit 2, and the all-or-none writers have already put back what they touched.
Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import argparse
import errno
import sys
from collections.abc import Callable
from types import ModuleType

from seams.errors import SeamsError

ENVIRONMENT_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.EIO,
                                errno.ENAMETOOLONG, errno.EMFILE, errno.ENFILE})
"""OSErrors that say the machine refused, not that seams is wrong (exit 2, one line)."""
ENVIRONMENT_EXIT = 2


def exit_code_for(exc: SeamsError, overrides: dict[type, int]) -> int:
    for cls in type(exc).__mro__:
        if cls in overrides:
            return overrides[cls]
    return exc.exit_code


def run_guarded(name: str, module: ModuleType, args: argparse.Namespace,
                before: Callable[[str, argparse.Namespace], None] | None = None) -> int:
    """``module.run(args)``, after ``before`` (the recovery of an interrupted apply)."""
    try:
        if before is not None:
            before(name, args)
        return int(module.run(args))
    except SeamsError as exc:
        print(f"seams {name}: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}",
              file=sys.stderr)
        for line in exc.details:
            print(line, file=sys.stderr)
        return exit_code_for(exc, getattr(module, "EXIT_CODES", {}))
    except OSError as exc:
        if exc.errno not in ENVIRONMENT_ERRNOS:
            raise
        where = f"{exc.filename}: " if exc.filename else ""
        hint = "; free some space and run it again" if exc.errno in (errno.ENOSPC, errno.EDQUOT) else ""
        print(f"seams {name}: {where}{exc.strerror or exc}{hint}", file=sys.stderr)
        return ENVIRONMENT_EXIT
    except KeyboardInterrupt:
        print(f"seams {name}: interrupted", file=sys.stderr)
        return 130
