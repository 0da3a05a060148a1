"""The provider helper: one subprocess, no shell, every misbehaviour a ProviderError."""

from __future__ import annotations

import hashlib
import json
import shlex
import sys
import time
from pathlib import Path

import pytest

from seams.errors import ProjectError, ProviderError
from seams.project.config import Config, ProposeConfig
from seams_cli.commands.propose import call_provider, draft_text, strip_fence
from seams_cli.llm.answer_text import strip_escapes
from seams_cli.llm.cache import AnswerCache, cache_key, cached_answer
from seams_cli.llm.options import chosen_llm_model, chosen_provider
from seams_cli.llm.process import provider_env

FAKE = Path(__file__).parent / "fixtures" / "providers" / "fake.py"


def fake(mode: str, *args: str) -> str:
    return shlex.join([sys.executable, str(FAKE), mode, *args])


def call(command: str, prompt: str = "the prompt\n", **kw) -> str:
    kw.setdefault("timeout", 20)
    kw.setdefault("llm_model", None)
    return call_provider(command, prompt, project_root=Path.cwd(), **kw)


def test_prompt_goes_to_stdin_and_answer_comes_back_without_trailing_newline():
    assert call(fake("echo"), "line one\nline two\n\n") == "line one\nline two\n"


def test_named_model_is_passed_and_an_inherited_one_removed(monkeypatch):
    monkeypatch.setenv("SEAMS_LLM_MODEL", "inherited")
    assert call(fake("model"), llm_model="gpt-x") == "answered by gpt-x"
    assert call(fake("model")) == "answered by <none>"
    assert "SEAMS_LLM_MODEL" not in provider_env(None)


def test_answer_is_kept_verbatim_with_its_fence_for_strip_fence():
    answer = call(fake("fenced"), llm_model="m1")
    assert answer.startswith("```python\n") and answer.endswith("```")
    assert "# answered by llm model: m1" in strip_fence(answer)


def test_terminal_escapes_are_stripped():
    answer = call(fake("escapes"))
    assert "\x1b" not in answer and answer.startswith('"""Record leave')
    assert strip_escapes("\x1b[1;32mok\x1b[0m \x1b]8;;http://x\x1b\\link\x1b]8;;\x07") == "ok link"


def test_missing_executable_is_named():
    with pytest.raises(ProviderError, match="provider executable not found: no-such-llm-cli"):
        call("no-such-llm-cli -m x")


def test_arguments_are_split_like_a_shell_but_never_run_by_one(tmp_path):
    script = tmp_path / "dir with space" / "p.py"
    script.parent.mkdir()
    script.write_text("import sys; print(repr(sys.argv[1:]))", encoding="utf-8")
    command = f"{shlex.quote(sys.executable)} '{script}' 'a b' '$HOME;' '|' '>x'"
    assert call(command) == "['a b', '$HOME;', '|', '>x']"
    assert not (Path.cwd() / "x").exists()


def test_non_zero_exit_names_status_and_last_stderr_line():
    with pytest.raises(ProviderError, match=r"exited with status 3: quota exceeded for this key$"):
        call(fake("fail"))


@pytest.mark.parametrize("mode, message", [
    ("silent", "printed nothing"),
    ("binary", r"not UTF-8 \(byte 32\)"),
    ("flood", "printed more than 1048576 bytes"),
])
def test_bad_output_is_a_provider_failure(mode, message):
    with pytest.raises(ProviderError, match=message):
        call(fake(mode))


def test_output_cap_is_configurable():
    with pytest.raises(ProviderError, match="more than 10 bytes"):
        call(fake("good"), max_output=10)


def test_bad_command_strings():
    with pytest.raises(ProviderError, match="cannot be split"):
        call("llm 'unclosed")
    with pytest.raises(ProviderError, match="empty"):
        call("   ")


def _gone(pid: int) -> bool:
    """True when ``pid`` no longer runs (absent, or a zombie nobody reaped yet)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return "\nState:\tZ" in status


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to look at processes")
def test_timeout_kills_the_provider_and_everything_it_started(tmp_path):
    pid_file = tmp_path / "child.pid"
    started = time.monotonic()
    with pytest.raises(ProviderError, match=r"timed out after 1\.5 s"):
        call(fake("sleep", str(pid_file)), timeout=1.5)
    assert time.monotonic() - started < 10
    child = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while not _gone(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(child)


@pytest.mark.parametrize("text, inner", [
    ("```python\nx = 1\n```", "x = 1"),
    ("```\nx = 1\n```\n", "x = 1"),
    ("\n~~~py\nx = 1\n~~~\n", "x = 1"),
    ("````python\nx = '```'\n````", "x = '```'"),
    ("```python\nx = 1\n`````", "x = 1"),
])
def test_strip_fence_removes_one_wrapping_block(text, inner):
    assert strip_fence(text) == inner


@pytest.mark.parametrize("text", [
    "x = 1",
    "Here it is:\n```python\nx = 1\n```",
    '"""Doc.\n\n```\nexample\n```\n"""\nx = 1',
    "```python\nx = 1",
    "```python\nx = 1\n~~~",
    "````python\nx = 1\n```",
])
def test_strip_fence_leaves_anything_else_alone(text):
    assert strip_fence(text) == text


def test_draft_text_ends_in_exactly_one_newline():
    assert draft_text("```python\n\nx = 1\n\n\n```") == "x = 1\n"


def test_cache_key_encoding_and_model_part():
    parts = ["abc", "draft-v1.txt", "llm -m x"]
    assert cache_key(parts) == hashlib.sha256(
        json.dumps(parts, separators=(",", ":")).encode()).hexdigest()
    assert cache_key(parts) != cache_key([*parts, "gpt"])
    assert cache_key(parts, llm_model="gpt") == cache_key([*parts, "gpt"])
    assert cache_key(parts, llm_model=None) == cache_key(parts) == cache_key(parts, llm_model="")
    assert cache_key(["a\nb", "c"]) != cache_key(["a", "b\nc"])


def test_cache_files_are_atomic_and_gitignored(tmp_path):
    cache = tmp_path / ".seams"
    answers = AnswerCache(cache, "drafts", ".py")
    path = cache / "drafts" / "k.py"
    assert answers.entry("k") == path and answers.read("k") is None
    answers.write("k", "x = 1\n")
    assert answers.read("k") == "x = 1\n"
    assert (cache / ".gitignore").read_text() == "*\n"
    assert sorted(p.name for p in (cache / "drafts").iterdir()) == ["k.py"]
    answers.mark_rejected("k", ["failed a", "failed b"])
    assert (cache / "drafts" / "k.rejected").read_text() == "failed a\nfailed b\n"
    path.write_bytes(b"\xff")
    assert answers.read("k") is None


def test_provider_and_model_choice():
    config = Config(base="x", propose=ProposeConfig(provider="p", model="m"))
    assert chosen_provider(None, config) == "p" and chosen_provider("q", config) == "q"
    assert chosen_llm_model(None, config) == "m" and chosen_llm_model("n", config) == "n"
    with pytest.raises(ProjectError, match="propose.model"):
        chosen_llm_model(" ", config)
    with pytest.raises(ProjectError, match="no provider"):
        chosen_provider(None, Config(base="x"))


def test_stderr_is_never_parsed_for_the_answer(tmp_path):
    script = tmp_path / "p.py"
    script.write_text("import sys\nsys.stderr.write('x = 2\\n')\nprint('x = 1')\n", encoding="utf-8")
    assert call(shlex.join([sys.executable, str(script)])) == "x = 1"


def test_recorded_provider_refuses_prompts_it_has_no_answer_for():
    recorded = Path(__file__).parents[1] / "examples" / "leave" / "provider" / "recorded.py"
    command = shlex.join([sys.executable, str(recorded)])
    with pytest.raises(ProviderError, match=r"status 3: recorded.py: no recorded answer for this prompt "
                                            r"\('seams prompt draft-v9.txt'\)"):
        call(command, "seams prompt draft-v9.txt\n\nwhatever")
    facts = '```DATA-00000000 facts\n{"task": "https://example.org/leave/Other"}\n```DATA-00000000\n'
    with pytest.raises(ProviderError, match="no recorded answer"):
        call(command, f"seams prompt draft-v1.txt\n\n{facts}")


def test_cached_answer_asks_only_on_a_miss_and_says_which(capsys):
    kept = []
    assert cached_answer(lambda: "cached", lambda: pytest.fail("asked on a hit"), kept.append) == ("cached", True)
    assert kept == []
    assert cached_answer(lambda: None, lambda: "fresh", kept.append) == ("fresh", False)
    assert kept == ["fresh"]
    assert cached_answer(lambda: None, lambda: "unkept") == ("unkept", False)
    assert kept == ["fresh"]
    assert capsys.readouterr().out == "cache hit\ncache miss\ncache miss\n"
