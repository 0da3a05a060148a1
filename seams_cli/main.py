"""The ``seams`` command: parse, dispatch, nothing else.

Each subcommand lives in its own module with ``add_arguments(parser)`` and
``run(args) -> int``. Only the chosen subcommand's module is imported, so
``seams check`` never pays for the provider or edit machinery.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import sys
from collections.abc import Sequence

from seams.display import terminal_safe
from seams_cli import errors
from seams_cli.lifetime import paused_collection

# command -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "init": ("seams_cli.commands.init", "start a project, or import an existing BPMN/DMN model"),
    "check": ("seams_cli.commands.check", "check the model: shapes, decisions, generation, lock"),
    "generate": ("seams_cli.commands.generate", "run the configured generators and update seams.lock"),
    "propose": ("seams_cli.commands.propose", "draft a handler with the provider; keep it if its tests pass"),
    "accept": ("seams_cli.commands.accept", "record a hand-edited handler in seams.lock once its tests pass"),
    "suggest": ("seams_cli.commands.suggest", "ask the provider for a model change; list or accept one"),
    "run": ("seams_cli.commands.run", "run one process instance on the embedded engine, asking each form"),
    "example": ("seams_cli.commands.example", "add an example to a service task, asked or from JSON files"),
    "undo": ("seams_cli.commands.undo", "restore the files the last applied change replaced"),
    "new-generator": ("seams_cli.commands.new_generator", "scaffold a generator package from a reference output"),
    "draft-generator": ("seams_cli.commands.draft_generator", "draft a generator package with the provider"),
}


def _top_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="seams",
        description="Keep an application as a model that is data; let an LLM help, never unchecked.",
        epilog="commands:\n" + "\n".join(f"  {name:<16} {text}" for name, (_, text) in COMMANDS.items()),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("command", choices=list(COMMANDS), metavar="COMMAND")
    parser.add_argument("--version", action="version", version=_version())
    return parser


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"seams {version('seams')}"
    except PackageNotFoundError:  # running from a checkout without install
        return "seams (not installed)"


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:
        _top_parser().print_help(sys.stderr)
        return 2  # a command is required: usage, as for any other usage error
    if argv[0] not in COMMANDS:
        _top_parser().parse_args(argv[:1])
        return 2  # parse_args exits (help, version or a usage error); only unusual argv get here
    name, rest = argv[0], argv[1:]
    try:
        # a command's modules live until the process ends: collecting while they are made only
        # finds them alive, and frozen no collection walks them again (docs/performance.md)
        with paused_collection():
            module = importlib.import_module(COMMANDS[name][0])
        parser = argparse.ArgumentParser(prog=f"seams {name}", description=COMMANDS[name][1])
        module.add_arguments(parser)
        args = parser.parse_args(rest)
        from seams_cli.recovery import recover_interrupted

        return errors.run_guarded(name, module, args, before=recover_interrupted)
    finally:
        gc.unfreeze()


class _TerminalSafe:
    """A text stream that escapes control characters before they reach the terminal
    (seams.display.terminal_safe): model text in any line seams prints is only text."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(terminal_safe(text))
        return len(text)

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def entry() -> None:
    """Console-script entry point.

    When the command is done the process ends, and the interpreter's final
    garbage collection would walk every object the command made (the model,
    its view, pyshacl's structures) only to free memory the operating system
    frees anyway: about 2.5 s of CPU after a 400-process ``seams check``
    (docs/performance.md). Freezing what is left skips that walk; exit
    handlers (``atexit``, ``weakref.finalize``) still run, and Python never
    promised ``__del__`` for objects alive at exit. Only the console script
    does this: ``main()`` called in-process leaves the collector alone."""
    sys.stdout, sys.stderr = _TerminalSafe(sys.stdout), _TerminalSafe(sys.stderr)
    code = main()
    gc.freeze()
    sys.exit(code)
