"""Parsing TriG with rdflib: one line naming the file and line for a syntax error, and
ill-typed literals left to seams.checks.literals instead of rdflib's logged tracebacks."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager

from rdflib import Dataset

from seams.errors import ProjectError
from seams.model.union_store import UnionMemory

_LINE = re.compile(r"line (\d+)", re.I)


def model_dataset() -> Dataset:
    """The dataset a model is parsed into: its union read from the store's own indexes
    (seams.model.union_store), for the statement-wise parse and the whole one alike."""
    return Dataset(store=UnionMemory(), default_union=True)


def parse_trig(data: bytes, *, source: str, base: str | None = None) -> Dataset:
    """Parse TriG; a syntax error becomes one line naming the file and line."""
    dataset = model_dataset()
    try:
        quiet_parse(dataset, data.decode("utf-8"), base)
    except UnicodeDecodeError:
        raise ProjectError(f"{source}: not UTF-8 text") from None
    except Exception as exc:  # rdflib raises BadSyntax and assorted errors
        line = getattr(exc, "lines", None)
        if line is None:
            found = _LINE.search(str(exc))
            line = int(found.group(1)) if found else None
        else:
            line = int(line) + 1
        # BadSyntax keeps its reason in ``_why``; its str() leads with "at line N of <>"
        reason = getattr(exc, "_why", None) or getattr(exc, "message", None) or str(exc).splitlines()[0]
        where = f"{source}:{line}" if line else source
        raise ProjectError(f"{where}: TriG syntax error: {reason}") from None
    return dataset


def quiet_parse(dataset: Dataset, text: str, base: str | None) -> None:
    """rdflib's TriG parse of ``text`` into ``dataset``, ill-typed literals unlogged (errors raised as rdflib's)."""
    with _ill_typed_literals_unlogged():
        dataset.parse(data=text, format="trig", publicID=base)


class _DropConversionWarnings(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("Failed to convert Literal lexical form")


@contextmanager
def _ill_typed_literals_unlogged() -> Iterator[None]:
    """rdflib logs a traceback for each ill-typed literal; seams.checks.literals reports them instead."""
    logger, quiet = logging.getLogger("rdflib.term"), _DropConversionWarnings()
    logger.addFilter(quiet)
    try:
        yield
    finally:
        logger.removeFilter(quiet)
