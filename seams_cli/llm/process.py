"""Running a provider command: no shell, its own process group, capped output, the terminal lent.

A provider is any command: the prompt goes to its stdin, the answer comes
from its stdout. It is untrusted and may misbehave in every way a program
can, so it runs without a shell, in its own session (a timeout or an
oversized answer ends its whole process group, children included), with a
capped stdout and a capped stderr that is shown but never parsed. A person
at a terminal can be the provider: then the command's group gets the
terminal's foreground while it runs (docs/providers.md).
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import tempfile
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import IO

from seams.errors import ProviderError
from seams.fs import resolve_inside
from seams.process_groups import kill_group, wait_unreaped
from seams_cli.llm.answer_text import strip_escapes

LLM_MODEL_ENV = "SEAMS_LLM_MODEL"
MAX_OUTPUT = 1 << 20  # bytes of stdout; more is a provider failure
MAX_STDERR = 64 << 10  # bytes of stderr kept for the message
_READ_CHUNK = 64 << 10
_DRAIN_GRACE = 5.0  # seconds to wait for the output pipes once the group is gone


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

    def __init__(self, pipe: IO[bytes] | None, keep: int, on_overflow=None):
        if pipe is None:
            raise ValueError("the provider's pipe was not opened")
        super().__init__(daemon=True)
        self.pipe, self.keep, self.on_overflow = pipe, keep, on_overflow
        self.data = bytearray()
        self.overflow = False

    def run(self) -> None:
        with self.pipe:
            while chunk := self.pipe.read1(_READ_CHUNK):  # type: ignore[attr-defined]  # a BufferedReader
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


def provider_argv(command: str, project_root: Path) -> list[str]:
    """The provider command as an argument list (split as a shell would, run without one).
    A word that names a file of the project by a relative path (``provider/recorded.py``,
    ``answer.sh``: a word with a slash or a dot) becomes its absolute path, since the provider
    runs in an empty folder of its own (:func:`call_provider`)."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise ProviderError(f"provider command {command!r} cannot be split: {exc}") from None
    if not argv:
        raise ProviderError("provider command is empty")
    root = project_root.resolve()
    resolved = []
    for word in argv:
        looks_like_a_file = not word.startswith("-") and not Path(word).is_absolute() \
            and ("/" in word or "." in Path(word).name)
        candidate = resolve_inside(root, word) if looks_like_a_file else None
        resolved.append(str(candidate) if candidate is not None and candidate.is_file() else word)
    return resolved


def call_provider(command: str, prompt: str, *, timeout: float, llm_model: str | None,
                  project_root: Path, max_output: int = MAX_OUTPUT) -> str:
    """Run ``command`` with ``prompt`` on stdin; its stdout, as text, is the answer.

    The provider's working directory is a new empty temporary folder, removed
    after the call: a provider that cleans "its" folder cannot touch the
    project. Escape codes and one trailing newline are removed; a fenced block
    is left for :func:`strip_fence`. Every failure is a ProviderError.
    """
    argv = provider_argv(command, project_root)
    with tempfile.TemporaryDirectory(prefix="seams-provider-") as folder:
        return _call(argv, prompt, timeout=timeout, llm_model=llm_model, cwd=Path(folder), max_output=max_output)


def _call(argv: list[str], prompt: str, *, timeout: float, llm_model: str | None, cwd: Path,
          max_output: int) -> str:
    name = argv[0]
    terminal = _foreground_terminal()
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, cwd=cwd, env=provider_env(llm_model),
                                **_group_options(terminal))
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
        if terminal is not None:
            _hand_terminal(terminal, proc.pid)
        finished = wait_unreaped(proc, timeout)
    finally:
        kill_group(proc)  # whatever it started dies with it, on every path, before the reaping
        proc.wait()
        if terminal is not None:
            _take_terminal_back(terminal)
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


def _foreground_terminal() -> int | None:
    """Our controlling terminal, opened, when we are its foreground job; else None.

    A person can be the provider (docs/providers.md): their editor needs the
    terminal seams runs in. Such a provider gets a process group of its own in
    our session (so one ``killpg`` still ends it and all it started) and the
    terminal's foreground while it runs. Without a terminal, or when seams runs
    in the background, the provider gets a session of its own as before.
    """
    try:
        fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if os.tcgetpgrp(fd) == os.getpgrp():
            return fd
    except OSError:
        pass
    os.close(fd)
    return None


def _group_options(terminal: int | None) -> dict:
    if terminal is None:
        return {"start_new_session": True}
    return {"process_group": 0}


def _hand_terminal(terminal: int, group: int) -> None:
    """Make the provider's group the terminal's foreground, and wake it in case it
    already tried to read the terminal (and was stopped for reading in the background)."""
    try:
        os.tcsetpgrp(terminal, group)
        os.killpg(group, signal.SIGCONT)
    except OSError:
        pass


def _take_terminal_back(terminal: int) -> None:
    """Give the terminal's foreground back to seams' own group. From the background
    ``tcsetpgrp`` raises SIGTTOU, so it is ignored for that one call."""
    previous = signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    try:
        os.tcsetpgrp(terminal, os.getpgrp())
    except OSError:
        pass
    finally:
        signal.signal(signal.SIGTTOU, previous)
        os.close(terminal)
