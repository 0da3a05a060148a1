"""Calling a provider command, and caching what it answered.

A provider is any command: the prompt goes to its stdin, the answer comes
from its stdout. It is untrusted and may misbehave in every way a program
can, so it runs without a shell, in its own session (a timeout or an
oversized answer ends its whole process group, children included), with a
capped stdout and a capped stderr that is shown but never parsed. The
cache lets a re-run with the same prompt inputs cost nothing; ``propose``,
``suggest`` and ``draft-generator`` all go through this module, and print
their provider and cache lines with it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shlex
import subprocess
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, TypeVar

from seams.errors import ProjectError, ProviderError
from seams.processes import kill_group, wait_unreaped
from seams.project.config import CONFIG_NAME, Config
from seams.project.lock import atomic_write
from seams.project.writes import WriteError
from seams_edit.files import ensure_local_dir

LLM_MODEL_ENV = "SEAMS_LLM_MODEL"
MAX_OUTPUT = 1 << 20  # bytes of stdout; more is a provider failure
MAX_STDERR = 64 << 10  # bytes of stderr kept for the message
_READ_CHUNK = 64 << 10
_DRAIN_GRACE = 5.0  # seconds to wait for the output pipes once the group is gone

# CSI (ESC [ ... final), OSC (ESC ] ... BEL or ESC \), and two-byte escapes
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
_FENCE_OPEN = re.compile(r"^(`{3,}|~{3,})[^`\n]*$")
Answer = TypeVar("Answer")


def strip_escapes(text: str) -> str:
    """Remove terminal escape codes some local runners print even into a pipe."""
    return _ESCAPES.sub("", text)


def strip_fence(text: str) -> str:
    """The inside of one fenced block wrapping the whole answer; other text unchanged.

    Only a fence on the first and last non-blank lines counts: a fence
    further in may be part of the answer (a docstring showing markdown).
    """
    lines = text.strip().split("\n")
    if len(lines) < 2:
        return text
    opening = _FENCE_OPEN.match(lines[0].rstrip())
    if not opening:
        return text
    fence = opening.group(1)
    closing = lines[-1].strip()
    if not closing or closing.strip(fence[0]) or len(closing) < len(fence):
        return text
    return "\n".join(lines[1:-1])


def add_provider_arguments(parser: argparse.ArgumentParser) -> None:
    """``--provider`` and ``--llm-model``, spelled the same by every command that asks."""
    parser.add_argument("--provider", metavar="CMD", help="provider command (default: [propose] provider)")
    parser.add_argument("--llm-model", metavar="NAME",
                        help="LLM model name, passed as SEAMS_LLM_MODEL (default: [propose] model)")


def chosen_provider(flag: str | None, config: Config) -> str:
    """``--provider`` wins over ``[propose] provider``; having neither is a project error."""
    command = flag if flag is not None else config.propose.provider
    if command is None or not command.strip():
        raise ProjectError(f"{CONFIG_NAME}: no provider: set propose.provider or pass --provider")
    return command


def chosen_llm_model(flag: str | None, config: Config) -> str | None:
    """``--llm-model`` wins over ``[propose] model``; either must be a non-empty name."""
    if flag is None:
        return config.propose.model
    if not flag.strip():
        raise ProjectError("propose.model (--llm-model) must be a non-empty string")
    return flag


def provider_env(llm_model: str | None, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The provider's environment: ours, with ``SEAMS_LLM_MODEL`` set to the named model
    or removed, so an inherited value cannot change an answer without changing its key."""
    env = dict(os.environ if base is None else base)
    env.pop(LLM_MODEL_ENV, None)
    if llm_model:
        env[LLM_MODEL_ENV] = llm_model
    return env


class _Reader(threading.Thread):
    """Reads one pipe to its end, keeping at most ``keep`` bytes."""

    def __init__(self, pipe: IO[bytes], keep: int, on_overflow=None):
        super().__init__(daemon=True)
        self.pipe, self.keep, self.on_overflow = pipe, keep, on_overflow
        self.data = bytearray()
        self.overflow = False

    def run(self) -> None:
        with self.pipe:
            while chunk := self.pipe.read1(_READ_CHUNK):
                room = self.keep - len(self.data)
                self.data += chunk[:max(room, 0)]
                if len(chunk) > room and not self.overflow:
                    self.overflow = True
                    if self.on_overflow:
                        self.on_overflow()


def _feed(pipe: IO[bytes], data: bytes) -> None:
    """Write the prompt and close stdin; a provider that stops reading is not our failure."""
    try:
        with pipe:
            pipe.write(data)
    except OSError:  # BrokenPipeError, or the pipe closed by the kill
        pass


def _last_line(stderr: bytes) -> str:
    lines = [ln.strip() for ln in strip_escapes(stderr.decode("utf-8", "replace")).splitlines()]
    lines = [ln for ln in lines if ln]
    return f": {lines[-1][:200]}" if lines else ""


def call_provider(command: str, prompt: str, *, timeout: float, llm_model: str | None,
                  cwd: Path, max_output: int = MAX_OUTPUT) -> str:
    """Run ``command`` with ``prompt`` on stdin; its stdout, as text, is the answer.

    Escape codes and one trailing newline are removed; a fenced block is
    left for :func:`strip_fence`. Every failure is a ProviderError.
    """
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise ProviderError(f"provider command {command!r} cannot be split: {exc}") from None
    if not argv:
        raise ProviderError("provider command is empty")
    name = argv[0]
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, cwd=cwd, env=provider_env(llm_model),
                                start_new_session=True)
    except FileNotFoundError:
        raise ProviderError(f"provider executable not found: {name}") from None
    except PermissionError:
        raise ProviderError(f"provider executable is not executable: {name}") from None
    except OSError as exc:
        raise ProviderError(f"provider {name} cannot start: {exc.strerror}") from None

    out = _Reader(proc.stdout, max_output, on_overflow=lambda: kill_group(proc))
    err = _Reader(proc.stderr, MAX_STDERR)
    feeder = threading.Thread(target=_feed, args=(proc.stdin, prompt.encode("utf-8")), daemon=True)
    for thread in (out, err, feeder):
        thread.start()
    finished = False
    try:
        finished = wait_unreaped(proc, timeout)
    finally:
        kill_group(proc)  # whatever it started dies with it, on every path, before the reaping
        proc.wait()
    timed_out = not finished
    for thread in (out, err, feeder):
        thread.join(_DRAIN_GRACE)

    if timed_out:
        raise ProviderError(f"provider {name} timed out after {timeout:g} s")
    if out.overflow:
        raise ProviderError(f"provider {name} printed more than {max_output} bytes")
    if out.is_alive():
        raise ProviderError(f"provider {name} exited but a process it started kept its output open")
    if proc.returncode != 0:
        status = (f"was killed by signal {-proc.returncode}" if proc.returncode < 0
                  else f"exited with status {proc.returncode}")
        raise ProviderError(f"provider {name} {status}{_last_line(bytes(err.data))}")
    try:
        text = bytes(out.data).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProviderError(f"provider {name} printed output that is not UTF-8 "
                            f"(byte {exc.start})") from None
    text = strip_escapes(text)
    if not text.strip():
        raise ProviderError(f"provider {name} printed nothing")
    return text[:-1] if text.endswith("\n") else text


def cache_key(parts: Sequence[str], *, llm_model: str | None = None) -> str:
    """sha256 of the parts as a compact JSON array of strings (UTF-8), so no two
    different part lists can share a key whatever characters they hold. A named
    ``llm_model`` is the last part; unnamed, it adds none, so such keys stay as they were."""
    parts = [*parts, *([llm_model] if llm_model else [])]
    encoded = json.dumps(parts, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return hashlib.sha256(encoded).hexdigest()


def read_cached(path: Path) -> str | None:
    """A cached answer, or None when there is none (or it cannot be read as text)."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def write_cached(cache_dir: Path, path: Path, text: str) -> None:
    """Store an answer atomically; ``cache_dir`` (``.seams``) gets a ``*`` .gitignore."""
    ensure_local_dir(cache_dir.parent, path.parent)
    try:
        atomic_write(path, text.encode("utf-8"))
    except OSError as error:  # a full disk: one line, and the temporary file is gone
        raise WriteError(f"{path}: cannot write the cached answer: {error.strerror or error}") from None


def say(line: str) -> None:
    """Print one output line now: a provider may take minutes, so each line shows as it is known."""
    print(line, flush=True)


def say_provider(provider: str, llm_model: str | None) -> None:
    """``provider <command>`` and, when one is named, ``llm-model <name>``: who answers."""
    say(f"provider {provider}")
    if llm_model:
        say(f"llm-model {llm_model}")


def cached_answer(read: Callable[[], Answer | None], ask: Callable[[], Answer],
                  keep: Callable[[Answer], None] | None = None) -> tuple[Answer, bool]:
    """(answer, hit): what ``read`` finds in the cache (``cache hit``), else what ``ask`` gets
    from the provider (``cache miss``, said before the wait), stored with ``keep`` at once;
    ``keep=None`` leaves storing to a caller that keeps only an answer that passed."""
    answer = read()
    if answer is not None:
        say("cache hit")
        return answer, True
    say("cache miss")
    answer = ask()
    if keep is not None:
        keep(answer)
    return answer, False
