"""The judge's end of the pipe: start an executor, ask it, decode what it says.

Every answer is parsed with ``json.loads`` and decoded here into plain
values (``dict``, ``list``, ``str``, ``int``, ``float``, ``bool``, ``None``,
``Decimal``, ``date``), so the judge never compares, calls or even holds
an object of the drafted code's making. A value that cannot cross is an
:class:`Opaque` that equals nothing. Binding calls arrive as requests the
judge answers from the example, and each is recorded in :attr:`Executor.calls`.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from datetime import date
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from seams_runtime.sandbox import Launch, Sandbox, code_copy, current

LINE_LIMIT = 16 << 20  # bytes of one message
STDERR_LIMIT = 4000


class ExecutorGone(Exception):
    """The executor died, refused to start, broke the protocol or ran out of time."""


class Opaque:
    """A value the drafted code returned that is not plain data: it equals nothing."""

    def __init__(self, text: str):
        self.text = text

    def __eq__(self, other: object) -> bool:
        return False

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<{self.text}>"


class RemoteError(Exception):
    """What ``handle`` raised in the executor, already described there."""

    def __init__(self, description: str):
        super().__init__(description)
        self.seams_description = description


def decode(value: Any, depth: int = 0) -> Any:
    if depth > 100:
        return Opaque("a value nested too deep")
    if value is None or type(value) in (bool, int, float, str):
        return value
    if type(value) is list:
        return [decode(v, depth + 1) for v in value]
    if type(value) is dict:
        if len(value) == 1:
            (key, inner), = value.items()
            if key.startswith("$seams:") and isinstance(inner, str):
                return _tagged(key, inner)
            if key == "$seams:mapping" and isinstance(inner, list):
                pairs = [p for p in inner if isinstance(p, list) and len(p) == 2]
                keys = [decode(p[0], depth + 1) for p in pairs]
                if all(isinstance(k, str) for k in keys):
                    return {k: decode(p[1], depth + 1) for k, p in zip(keys, pairs)}
                return Opaque("a mapping with keys that are not strings")
        return {str(k): decode(v, depth + 1) for k, v in value.items()}
    return Opaque(type(value).__name__)


def _tagged(key: str, text: str) -> Any:
    try:
        if key == "$seams:decimal":
            return Decimal(text)
        if key == "$seams:date":
            return date.fromisoformat(text)
        if key == "$seams:float":
            return float(text)
    except (ValueError, InvalidOperation):
        pass
    return Opaque(text[:200] if key == "$seams:opaque" else f"{key[7:]} {text[:100]}")


def encode(value: Any) -> Any:
    """The judge's plain values (from the model) as the executor decodes them."""
    if isinstance(value, Decimal):
        return {"$seams:decimal": str(value)}
    if type(value) is date:
        return {"$seams:date": value.isoformat()}
    if isinstance(value, Mapping):
        return {str(k): encode(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    return value


class Executor:
    """One executor process in ``sandbox``, able to import what ``code`` holds
    (``(directory, name)`` pairs copied into its code directory) and read ``read``."""

    def __init__(self, code: Sequence[tuple[Path, str]], *, read: Sequence[Path] = (),
                 sandbox: Sandbox | None = None, timeout: float = 120, hash_seed: int = 0):
        self.sandbox = sandbox or current()
        self.calls: list[dict] = []  # every binding request, in order, as the judge answered it
        self.code_dir = code_copy(code, self.sandbox.code_owner())
        self.timeout = timeout
        self.deadline = time.monotonic() + timeout
        self._stderr = tempfile.TemporaryFile()
        config = {"path": [str(self.code_dir)], "read": [str(p) for p in read], "hash_seed": hash_seed}
        originals = tuple((self.code_dir / name, Path(source).resolve()) for source, name in code)
        # where the executor finds the code: the originals' paths when the sandbox mounts them there
        self.code_root = (originals[0][1].parent if originals and self.sandbox.maps_originals()
                          else self.code_dir)
        self._buffer = b""
        try:
            self.proc = self.sandbox.popen(Launch(self.code_dir, config, originals), stdin=subprocess.PIPE,
                                           stdout=subprocess.PIPE, stderr=self._stderr)
        except OSError as exc:
            self._stderr.close()
            shutil.rmtree(self.code_dir, ignore_errors=True)
            raise ExecutorGone(f"the sandbox {self.sandbox.name} could not start: {exc}") from None
        try:
            ready = self.receive()
            if ready.get("op") != "ready":
                raise ExecutorGone(str(ready.get("description") or "the sandbox did not start"))
        except BaseException:
            self.close()
            raise

    # -- the protocol

    def send(self, message: dict) -> None:
        self.deadline = time.monotonic() + self.timeout  # each request gets the whole time
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write((json.dumps(message) + "\n").encode("utf-8"))
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise ExecutorGone(self._why_gone()) from None

    def receive(self) -> dict:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buffer:
            remaining = self.deadline - time.monotonic()
            if remaining <= 0:
                raise ExecutorGone("the drafted code did not answer in time and was stopped")
            ready, _, _ = select.select([fd], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                raise ExecutorGone(self._why_gone())
            self._buffer += chunk
            if len(self._buffer) > LINE_LIMIT:
                raise ExecutorGone("the drafted code sent a message over the size limit")
        line, _, self._buffer = self._buffer.partition(b"\n")
        try:
            message = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise ExecutorGone("the drafted code's process broke the protocol") from None
        if not isinstance(message, dict):
            raise ExecutorGone("the drafted code's process broke the protocol")
        return message

    def _why_gone(self) -> str:
        try:
            status = self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            status = None
        self._stderr.seek(0)
        tail = self._stderr.read(STDERR_LIMIT * 4).decode("utf-8", "replace").strip().splitlines()
        last = f": {tail[-1][:STDERR_LIMIT]}" if tail else ""
        return f"the drafted code's process ended (exit status {status}){last}"

    # -- what the judge asks

    def import_handler(self, module: str, where: str) -> tuple[RemoteHandle | None, list[tuple[str, str]]]:
        self.send({"op": "import", "module": module, "where": where})
        answer = self.receive()
        problems = answer.get("problems")
        if answer.get("op") != "imported" or not isinstance(problems, list):
            raise ExecutorGone("the drafted code's process broke the protocol")
        problems = [(str(p[0]), str(p[1])) for p in problems if isinstance(p, list) and len(p) == 2]
        return (None if problems else RemoteHandle(self)), problems

    def extract(self, package: str, trig: Path, *, render: bool) -> dict:
        """Run the copied package ``package``'s extract (and its own render when ``render``)
        and sources over ``trig``: the view as plain data, the files it read, the sources."""
        self.send({"op": "extract", "root": str(self.code_root), "package_dir": str(self.code_root / package),
                   "trig": str(trig), "render": render})
        answer = self.receive()
        if answer.get("op") == "failed":
            raise RemoteError(str(answer.get("description")))
        if answer.get("op") != "extracted":
            raise ExecutorGone("the drafted code's process broke the protocol")
        return {"view": decode(answer.get("view")),
                "reads": [str(p) for p in answer.get("reads") or () if isinstance(p, str)],
                "sources": [str(p) for p in answer.get("sources") or () if isinstance(p, str)],
                "library": [str(p) for p in answer.get("library") or () if isinstance(p, str)],
                "output": decode(answer.get("output"))}

    def alive(self) -> bool:
        return self.proc.poll() is None

    def close(self) -> None:
        """End the executor and everything it started (its PID namespace goes with it)."""
        if self._stderr.closed:
            return
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self._stderr.close()
        shutil.rmtree(self.code_dir, ignore_errors=True)

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class RemoteHandle:
    """``handle(inputs, bindings)`` as the judge calls it: the declared inputs go over
    the pipe, binding requests are answered by the judge's ``bindings``, and the result
    comes back as plain data."""

    def __init__(self, executor: Executor):
        self.executor = executor

    def __call__(self, inputs: Any, bindings: Any) -> Any:
        executor = self.executor
        values = {k: inputs._values[k] for k in inputs._declared if k in inputs._values}
        executor.send({"op": "handle", "given": encode(values), "declared": list(inputs._declared)})
        while True:
            message = executor.receive()
            op = message.get("op")
            if op in ("returned", "raised"):
                undeclared = message.get("undeclared")
                if isinstance(undeclared, list):
                    inputs.undeclared.extend(str(name) for name in undeclared)
                if op == "raised":
                    raise RemoteError(str(message.get("description"))[:2000])
                return decode(message.get("value"))
            if op in ("binding", "call"):
                executor.send(self._answer(op, message, bindings))
            else:
                raise ExecutorGone("the drafted code's process broke the protocol")

    def _answer(self, op: str, message: dict, bindings: Any) -> dict:
        name = str(message.get("name"))
        record: dict[str, Any] = {"binding": name}
        args: list = []
        kwargs: dict = {}
        if op == "call":
            decoded_args, decoded_kwargs = decode(message.get("args")), decode(message.get("kwargs"))
            args = decoded_args if isinstance(decoded_args, list) else []
            kwargs = decoded_kwargs if isinstance(decoded_kwargs, dict) else {}
            record.update(args=args, kwargs=kwargs)
        try:
            function = getattr(bindings, name)
            if op == "binding":
                return {"ok": True}
            value = function(*args, **kwargs)
        except AttributeError as exc:
            record["error"] = str(exc)
            self.executor.calls.append(record) if op == "call" else None
            return {"error": str(exc), "type": "AttributeError"}
        except LookupError as exc:
            record["error"] = str(exc)
            self.executor.calls.append(record)
            return {"error": str(exc), "type": "LookupError"}
        record["reply"] = value
        self.executor.calls.append(record)
        return {"value": encode(value)}
