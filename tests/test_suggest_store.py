"""Pending suggestions, their ids and the provider cache, as docs/suggest.md defines them."""

from __future__ import annotations

import hashlib
import json
from decimal import Decimal

from helpers import copy_example

from seams.project.layout import load_project
from seams_cli.workflows.suggest.store import (
    Pending,
    answer_cache,
    cache_key,
    json_bytes,
    list_pending,
    load_pending,
    store_pending,
    suggestion_id,
    unified_diff,
)


def _documented_key(*fields: str) -> str:
    """The encoding docs/suggest.md states: sha256 of a compact JSON array of strings, UTF-8."""
    return hashlib.sha256(json.dumps(list(fields), separators=(",", ":"), ensure_ascii=False)
                          .encode("utf-8")).hexdigest()


def test_keys_follow_the_documented_encoding_and_add_the_llm_model_only_when_named():
    assert cache_key("h", "suggest-v1.txt", "llm", None) == _documented_key("h", "suggest-v1.txt", "llm")
    assert cache_key("h", "suggest-v1.txt", "llm", "m") == _documented_key("h", "suggest-v1.txt", "llm", "m")
    assert suggestion_id("h", "t", "p", "{}", None) == _documented_key("h", "t", "p", "{}")
    assert suggestion_id("h", "t", "p", "{}", "m") == _documented_key("h", "t", "p", "{}", "m")
    assert suggestion_id("h", "t", "p", "{ }", None) != suggestion_id("h", "t", "p", "{}", None)


def test_cache_round_trip_and_a_damaged_entry_is_a_miss(tmp_path):
    project = load_project(copy_example(tmp_path))
    cache = answer_cache(project)
    assert cache.read("k") is None
    cache.write("k", "answer ✓", {"template": "suggest-v1.txt"})
    assert cache.read("k") == "answer ✓"
    entry = project.cache_dir / "suggestions" / "cache" / "k.json"
    assert entry.read_text(encoding="utf-8") == '{\n  "response": "answer ✓",\n  "template": "suggest-v1.txt"\n}\n'
    entry.write_text("{not json")
    assert cache.read("k") is None


def test_pending_entries_round_trip_and_incomplete_ones_are_not_listed(tmp_path):
    project = load_project(copy_example(tmp_path))
    ident = "a" * 64
    pending = Pending(id=ident, kind="condition-to-dmn", subject="Gateway_Escalate", model_hash="h",
                      template="suggest-v1.txt", provider="p", llm_model=None, files=("model/model.trig",),
                      suggestion={"rules": [{"then": Decimal("2.5"), "when": {}}]})
    entry = store_pending(project, pending, {"model/model.trig": b"diff\n"})
    assert (entry / "model__model.trig.diff").read_bytes() == b"diff\n"
    assert load_pending(project, ident) == pending
    (project.cache_dir / "suggestions" / ("b" * 64)).mkdir()  # interrupted: no suggestion.json
    (project.cache_dir / "suggestions" / "notes").mkdir()
    assert [p.id for p in list_pending(project)] == [ident]


def test_json_bytes_are_sorted_indented_and_keep_decimals_as_numbers():
    assert json_bytes({"b": Decimal("2.5"), "a": "é"}) == '{\n  "a": "é",\n  "b": 2.5\n}\n'.encode()


def test_unified_diffs_name_both_sides_and_a_new_file_comes_from_dev_null():
    diff = unified_diff("model/x.trig", b"a\nb\n", b"a\nc").decode()
    assert diff.splitlines() == ["--- a/model/x.trig", "+++ b/model/x.trig", "@@ -1,2 +1,2 @@", " a", "-b", "+c",
                                 "\\ No newline at end of file"]
    assert unified_diff("model/new.dmn", None, b"x\n").decode().splitlines()[:2] == [
        "--- /dev/null", "+++ b/model/new.dmn"]
