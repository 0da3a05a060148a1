"""The judge's end of the pipe: start an executor, ask it, decode what it says.

Every message is parsed with ``json.loads`` and checked against its op's
schema (:data:`SCHEMAS`: an op the protocol expects at that point, exactly
its fields, each of its type and size) before anything reads it, then
decoded here into plain values (``dict``, ``list``, ``str``, ``int``, ``float``, ``bool``, ``None``,
``Decimal``, ``date``), so the judge never compares, calls or even holds
an object of the drafted code's making. A value that cannot cross is an
:class:`Opaque` that equals nothing. Binding calls arrive as requests the
judge answers from the example, and each is recorded in :attr:`Executor.calls`:
only a binding the task declares is answered, by its name as data, so no
attribute of the judge's objects is reachable from the drafted code.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from datetime import date
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from seams_runtime.sandbox import Launch, Sandbox, code_copy, current, limits

LINE_LIMIT = 16 << 20  # bytes of one message
STDERR_LIMIT = 4000


TEXT_LIMIT = 4000  # characters of one description, problem or name list entry
PATH_LIMIT = 4096
LIST_LIMIT = 10000  # entries of a list of names or paths
NAME_LIMIT = 200  # characters of a binding's or keyword's name
ANY = object()  # a value decoded by :func:`decode` (its own depth cap; every Python type maps to a plain one)


def _text(limit: int):
    return lambda v: type(v) is str and len(v) <= limit


def _names(limit: int):
    return lambda v: type(v) is list and len(v) <= LIST_LIMIT and all(type(x) is str and len(x) <= limit for x in v)


def _pairs(v: Any) -> bool:
    return type(v) is list and len(v) <= LIST_LIMIT and all(
        type(x) is list and len(x) == 2 and all(type(y) is str and len(y) <= TEXT_LIMIT for y in x) for x in v)


SCHEMAS: dict[str, dict[str, Any]] = {
    "ready": {"uid": lambda v: type(v) is int},
    "refused": {"description": _text(TEXT_LIMIT)},
    "imported": {"problems": _pairs},
    "returned": {"value": ANY, "undeclared": _names(TEXT_LIMIT)},
    "raised": {"description": _text(TEXT_LIMIT), "undeclared": _names(TEXT_LIMIT),
               "error_code": lambda v: v is None or (type(v) is str and len(v) <= NAME_LIMIT)},
    "binding": {"name": _text(NAME_LIMIT)},
    "call": {"name": _text(NAME_LIMIT), "args": lambda v: type(v) is list,
             "kwargs": lambda v: type(v) is dict and all(len(k) <= NAME_LIMIT for k in v)},
    "extracted": {"view": ANY, "reads": _names(PATH_LIMIT), "sources": _names(PATH_LIMIT),
                  "library": _names(PATH_LIMIT), "output": ANY},
    "failed": {"description": _text(TEXT_LIMIT), "details": _text(16 * TEXT_LIMIT)},
}
"""Each message the executor may send: its fields, each with its check (ANY: decoded later)."""


def valid(message: Any, ops: tuple[str, ...]) -> bool:
    """Is ``message`` one of ``ops``, with exactly its schema's fields, each as the schema says?"""
    if type(message) is not dict or message.get("op") not in ops:
        return False
    schema = SCHEMAS[message["op"]]
    if set(message) != {"op", *schema}:
        return False
    return all(check is ANY or check(message[field]) for field, check in schema.items())


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

    def __init__(self, description: str, error_code: str | None = None):
        super().__init__(description)
        self.seams_description = description
        self.error_code = error_code  # the BPMN error code it carried, if any


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
                 sandbox: Sandbox | None = None, timeout: float = 120, hash_seed: int = 0,
                 limit: dict[str, int] | None = None):
        self.sandbox = sandbox or current()
        self.calls: list[dict] = []  # every binding request, in order, as the judge answered it
        uid = self.sandbox.run_uid()
        self.code_dir = code_copy(code, uid)
        self.timeout = timeout
        self.deadline = time.monotonic() + timeout
        self._stderr = tempfile.TemporaryFile()
        config = {"path": [str(self.code_dir)], "read": [str(p) for p in read], "hash_seed": hash_seed,
                  "limits": dict(limit or {})}
        self.total_memory = limits(config)["total_memory"]
        self._measured = 0.0
        originals = tuple((self.code_dir / name, Path(source).resolve()) for source, name in code)
        # where the executor finds the code: the originals' paths when the sandbox mounts them there
        self.code_root = (originals[0][1].parent if originals and self.sandbox.maps_originals()
                          else self.code_dir)
        self._buffer = b""
        lifeline, self._lifeline = os.pipe()  # the executor's supervisor ends when this closes: with us
        try:
            self.proc = self.sandbox.popen(Launch(self.code_dir, config, originals, uid, lifeline),
                                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr)
        except OSError as exc:
            self._stderr.close()
            os.close(self._lifeline)
            shutil.rmtree(self.code_dir, ignore_errors=True)
            raise ExecutorGone(f"the sandbox {self.sandbox.name} could not start: {exc}") from None
        finally:
            os.close(lifeline)
        try:
            ready = self.receive("ready", "refused")
            if ready["op"] != "ready":
                raise ExecutorGone(ready["description"])
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

    def receive(self, *ops: str) -> dict:
        """The next message, one of ``ops`` and valid by its schema, else ExecutorGone."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buffer:
            remaining = self.deadline - time.monotonic()
            if remaining <= 0:
                raise ExecutorGone("the drafted code did not answer in time and was stopped")
            self._watch_memory()
            ready, _, _ = select.select([fd], [], [], min(remaining, MEMORY_WATCH))
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
        except (UnicodeDecodeError, ValueError, RecursionError):
            raise ExecutorGone("the drafted code's process broke the protocol") from None
        if not valid(message, ops):
            raise ExecutorGone("the drafted code's process broke the protocol")
        return message

    def _watch_memory(self) -> None:
        """Stop the run when all its processes together hold more than ``total_memory``
        resident (checked every MEMORY_WATCH seconds while the judge waits for an answer)."""
        now = time.monotonic()
        if now - self._measured < MEMORY_WATCH:
            return
        self._measured = now
        used = resident(sandboxed(self.proc.pid))
        if used > self.total_memory:
            self.stop()
            raise ExecutorGone(f"the drafted code held {used >> 20} MiB of memory in all its processes "
                               f"(the limit is {self.total_memory >> 20} MiB) and was stopped")

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
        problems = [(p[0], p[1]) for p in self.receive("imported")["problems"]]
        return (None if problems else RemoteHandle(self)), problems

    def extract(self, package: str, trig: Path, *, render: bool) -> dict:
        """Run the copied package ``package``'s extract (and its own render when ``render``)
        and sources over ``trig``: the view as plain data, the files it read, the sources."""
        self.send({"op": "extract", "root": str(self.code_root), "package_dir": str(self.code_root / package),
                   "trig": str(trig), "render": render})
        answer = self.receive("extracted", "failed")
        if answer["op"] == "failed":
            raise RemoteError(answer["description"])
        return {"view": decode(answer["view"]), "reads": answer["reads"], "sources": answer["sources"],
                "library": answer["library"], "output": decode(answer["output"])}

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
        self.stop()
        self.proc.wait()
        self._stderr.close()
        os.close(self._lifeline)
        shutil.rmtree(self.code_dir, ignore_errors=True)

    def stop(self) -> None:
        """Kill the run: every process under the sandbox's own, outermost first (the first is
        its PID namespace's init, whose end ends every process in the namespace)."""
        for pid in sandboxed(self.proc.pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        if self.proc.poll() is None:
            self.proc.kill()

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


MEMORY_WATCH = 0.1  # seconds between two measures of a run's memory


def sandboxed(pid: int) -> list[int]:
    """The processes under ``pid`` (children before grandchildren), from ``/proc``."""
    found: list[int] = []
    todo = [pid]
    while todo:
        parent = todo.pop(0)
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{parent}/task/{task}/children", encoding="ascii") as children:
                    todo += [int(c) for c in children.read().split() if int(c) not in found]
            except (OSError, ValueError):
                continue
        if parent != pid:
            found.append(parent)
    return found


def resident(pids: Sequence[int]) -> int:
    """Bytes resident in ``pids`` together (``/proc/<pid>/statm``)."""
    page, total = os.sysconf("SC_PAGE_SIZE"), 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/statm", encoding="ascii") as statm:
                total += int(statm.read().split()[1]) * page
        except (OSError, ValueError, IndexError):
            continue
    return total


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
            message = executor.receive("returned", "raised", "binding", "call")
            op = message["op"]
            if op in ("returned", "raised"):
                inputs.undeclared.extend(message["undeclared"])
                if op == "raised":
                    code = message["error_code"]
                    raise RemoteError(message["description"][:2000], code or None)
                return decode(message["value"])
            executor.send(self._answer(message, bindings))

    def _answer(self, message: dict, bindings: Any) -> dict:
        """The judge's reply to one binding request: ``bindings.require`` lets only a declared
        binding's name through (the name is data, never looked up on an object), and a call is
        answered by ``bindings.answer`` from the example, the only method a request reaches."""
        name = message["name"]
        call = message["op"] == "call"
        record: dict[str, Any] = {"binding": name}
        try:
            bindings.require(name)
        except AttributeError as exc:
            if call:
                self.executor.calls.append({**record, "error": str(exc)})
            return {"error": str(exc), "type": "AttributeError"}
        if not call:
            return {"ok": True}
        args, kwargs = decode(message["args"]), decode(message["kwargs"])
        record.update(args=args, kwargs=kwargs)
        try:
            value = bindings.answer(name, args, kwargs)
        except LookupError as exc:
            self.executor.calls.append({**record, "error": str(exc)})
            return {"error": str(exc), "type": "LookupError"}
        record["reply"] = value
        self.executor.calls.append(record)
        return {"value": encode(value)}
