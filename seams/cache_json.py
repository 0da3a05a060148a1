"""JSON for what seams keeps under ``.seams``: the check cache, the statement pack, the component record.

A re-check after a one-line edit reads and rewrites megabytes of these
(docs/performance.md, "The component re-check"), and the standard library's
encoder spends more on that than the re-check spends on the edit. orjson
(a well-kept, widely used Rust encoder) writes them about ten times faster.
What it refuses (a lone surrogate a TriG escape can give, an integer past
64 bits) is written and read by the standard library instead: the same JSON
either way, so either reads what the other wrote.
"""

from __future__ import annotations

import json
from typing import Any

import orjson


def dumps(value: Any, *, sort_keys: bool = False) -> bytes:
    """Compact JSON as UTF-8 bytes, keys sorted when asked (the same bytes for the same value)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS if sort_keys else 0)
    except TypeError:  # orjson.JSONEncodeError: outside what orjson writes
        return json.dumps(value, separators=(",", ":"), sort_keys=sort_keys).encode("ascii")


def loads(data: bytes | str) -> Any:
    """The value of JSON text; ValueError when it is not JSON."""
    try:
        return orjson.loads(data)
    except ValueError:  # orjson.JSONDecodeError: maybe JSON orjson refuses (a lone surrogate's escape)
        return json.loads(data)
