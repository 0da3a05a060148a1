"""The caps on untrusted input (seams.project.limits), on their own."""

from __future__ import annotations

import json
import os

import pytest

from seams.project.limits import (
    LimitError,
    json_depth,
    loads_json,
    loads_toml,
    path_text_problem,
    read_regular_file,
)


@pytest.mark.parametrize("text, depth", [
    ("1", 0), ("[]", 1), ('{"a": [1, {"b": []}]}', 4), ('["[[[[", "]]"]', 1), ('["\\"[[["]', 1),
])
def test_json_depth_ignores_brackets_in_strings(text, depth):
    assert json_depth(text) == depth


def test_loads_json_refuses_too_deep_and_too_large_before_parsing():
    assert loads_json("[" * 64 + "]" * 64) == json.loads("[" * 64 + "]" * 64)
    with pytest.raises(LimitError, match="nested deeper than the limit of 64 levels"):
        loads_json("[" * 65 + "]" * 65)
    with pytest.raises(LimitError, match="larger than the limit of 10 bytes"):
        loads_json('"' + "x" * 20 + '"', max_bytes=10)
    with pytest.raises(ValueError):  # still a ValueError, as json's own errors are
        loads_json("[" * 100_000)


def test_loads_toml_caps_depth():
    import tomllib

    assert loads_toml("a = [[1]]", tomllib.loads) == {"a": [[1]]}
    with pytest.raises(LimitError, match="nested deeper"):
        loads_toml("a = " + "[" * 20 + "]" * 20, tomllib.loads)


@pytest.mark.parametrize("text, problem", [
    ("model/model.trig", None), ("a\0b", "contains a NUL byte"), ("x" * 256, "has a name longer than 255 bytes"),
    ("a/" * 2100, "is longer than 4096 bytes"), ("\ud800", "is not valid text"),
])
def test_path_text_problem(text, problem):
    assert path_text_problem(text) == problem


def test_read_regular_file_refuses_other_kinds_and_large_files(tmp_path):
    small = tmp_path / "small"
    small.write_bytes(b"12345")
    assert read_regular_file(small, max_bytes=5) == b"12345"
    with pytest.raises(LimitError, match="5 bytes, over the limit of 4 bytes"):
        read_regular_file(small, max_bytes=4)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(LimitError, match="not a regular file \\(a FIFO\\)"):
        read_regular_file(fifo, max_bytes=5)
    with pytest.raises(LimitError, match="a directory"):
        read_regular_file(tmp_path, max_bytes=5)
