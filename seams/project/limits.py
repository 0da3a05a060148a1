"""Caps on untrusted input: nesting depth and size of JSON and TOML, payload files, path text.

Model text, provider answers, files under ``.seams/`` and ``seams.toml`` are
all written by someone other than seams. Python's parsers recurse once per
nesting level, so a 100,000-deep ``[[[...`` is a ``RecursionError``
traceback instead of a message, and reading a file whole before looking at
its size lets a 3 GB payload (or a FIFO, which never ends) stall a command.
So every such input is measured before it is parsed or read, and a cap that
is exceeded is a ``LimitError`` whose message names the limit; the caller
adds the file. The caps are documented in docs/model.md.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Callable
from itertools import accumulate
from pathlib import Path
from typing import Any

MAX_JSON_DEPTH = 64
"""Nesting levels of arrays and objects in any JSON seams reads."""
MAX_JSON_BYTES = 16 * 1024 * 1024
MAX_TOML_DEPTH = 16
MAX_TOML_BYTES = 1024 * 1024
DEFAULT_PAYLOAD_BYTES = 64 * 1024 * 1024
"""The default of ``[limits] payload_bytes``: the largest BPMN or DMN file a model may name."""
MAX_PATH_BYTES = 4096
MAX_NAME_BYTES = 255
"""Linux's PATH_MAX and NAME_MAX: longer names fail with "File name too long"."""


class LimitError(ValueError):
    """An input over one of the caps above (a ValueError, so parsers' callers catch it too)."""


# a JSON string, escapes included (the unrolled form: no backtracking on long strings)
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def json_depth(text: str) -> int:
    """The deepest nesting of ``[`` and ``{`` outside strings (text that is not JSON may over-count)."""
    brackets = _NOT_BRACKET.sub("", _JSON_STRING.sub("", text))
    if not brackets:
        return 0
    return max(accumulate(1 if char in "[{" else -1 for char in brackets))


def loads_json(text: str | bytes, *, max_depth: int = MAX_JSON_DEPTH, max_bytes: int = MAX_JSON_BYTES,
               **options: Any) -> Any:
    """``json.loads`` after the caps: too large or too deep is a LimitError, checked before parsing."""
    if len(text) > max_bytes:
        raise LimitError(f"larger than the limit of {max_bytes} bytes")
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    if json_depth(text) > max_depth:
        raise LimitError(f"nested deeper than the limit of {max_depth} levels")
    try:
        return json.loads(text, **options)
    except RecursionError:  # a hook that recursed; the depth check keeps json's own parser shallow
        raise LimitError(f"nested deeper than the limit of {max_depth} levels") from None


def data_depth(value: Any) -> int:
    """Nesting depth of parsed data (dicts and lists), without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in children)
    return deepest


def loads_toml(text: str, parse: Callable[[str], dict[str, Any]], *, max_depth: int = MAX_TOML_DEPTH,
               max_bytes: int = MAX_TOML_BYTES) -> dict[str, Any]:
    """``parse(text)`` (tomllib.loads) within the caps; a RecursionError there is a LimitError."""
    if len(text.encode("utf-8", "surrogatepass")) > max_bytes:
        raise LimitError(f"larger than the limit of {max_bytes} bytes")
    try:
        data = parse(text)
    except RecursionError:
        raise LimitError(f"nested deeper than the limit of {max_depth} levels") from None
    if data_depth(data) > max_depth:
        raise LimitError(f"nested deeper than the limit of {max_depth} levels")
    return data


def path_text_problem(text: str) -> str | None:
    """Why ``text`` cannot name a file (a NUL byte, too long), or None."""
    if "\0" in text:
        return "contains a NUL byte"
    try:
        encoded = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return "is not valid text"
    if len(encoded) > MAX_PATH_BYTES:
        return f"is longer than {MAX_PATH_BYTES} bytes"
    for part in encoded.split(b"/"):
        if len(part) > MAX_NAME_BYTES:
            return f"has a name longer than {MAX_NAME_BYTES} bytes"
    return None


def read_regular_file(path: Path, *, max_bytes: int) -> bytes:
    """The bytes of ``path``, only if it is a regular file no larger than ``max_bytes``.

    The file is opened without blocking (a FIFO would wait for a writer
    forever) and measured through its descriptor before a byte is read, so a
    file swapped after the check is the file measured. OSError as ``open``
    raises it; LimitError for another kind of file or one over the cap.
    """
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise LimitError(f"not a regular file ({_kind(info.st_mode)})")
        if info.st_size > max_bytes:
            raise LimitError(f"{info.st_size} bytes, over the limit of {max_bytes} bytes")
        chunks, total = [], 0
        while True:
            chunk = os.read(descriptor, min(1 << 20, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > max_bytes:  # grew while we read
                raise LimitError(f"over the limit of {max_bytes} bytes")
        return b"".join(chunks)
    finally:
        os.close(descriptor)


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device")):
        if test(mode):
            return name
    return "not a plain file"
