"""The error classes every part of seams raises for an expected failure.

Each class maps to one exit code in the CLI's single error handler
(``seams_cli.errors``), so a message must already name the file, key,
subject or predicate at fault: the handler prints it as one line and never a
traceback.
"""

from __future__ import annotations


class SeamsError(Exception):
    """Base of every expected seams failure.

    ``details`` are extra lines printed after the message (one per failed
    test, say), so the message itself stays one line.
    """

    exit_code = 1

    def __init__(self, message: str, *, details: tuple[str, ...] | list[str] = ()):
        super().__init__(message)
        self.details = tuple(details)


class ProjectError(SeamsError):
    """Bad config, missing model, unreadable TriG or payload (exit 2)."""

    exit_code = 2


class ResolutionError(SeamsError):
    """A name the model does not have, or one that is ambiguous."""

    exit_code = 2

    def __init__(self, message: str, candidates: list[str] | tuple[str, ...] = ()):
        self.candidates = tuple(candidates)
        if self.candidates:
            message = f"{message} (candidates: {', '.join(self.candidates)})"
        super().__init__(message)


class GeneratorError(SeamsError):
    """A generator or change builder cannot produce its output (exit 1)."""


class ProviderError(SeamsError):
    """The provider command failed: non-zero exit, empty output, timeout (exit 1)."""


class DraftGeneratorError(SeamsError):
    """A drafted generator was refused (exit 1)."""


class EditError(SeamsError):
    """seams_edit could not apply or undo a change (exit 1)."""


class ExpressionError(SeamsError):
    """A condition or FEEL entry that is not in the supported language."""

