"""Where drafted code runs: a separate process, inside an OS sandbox when one is there.

The judge (the pytest session that decides: items, reports, results) runs
trusted code only. Drafted code -- a handler's ``handle``, a generator's
``extract`` -- runs in an *executor* process that gets its inputs and sends
its outputs as JSON over a pipe (:mod:`seams_runtime.sandbox.channel`). This
package starts that process inside one of these backends, behind one small
interface (:class:`Sandbox`), so a macOS ``sandbox-exec`` profile can be
added as one more backend:

* ``bubblewrap`` (:mod:`.bubblewrap`): the Debian package ``bubblewrap``;
* ``namespaces`` (:mod:`.namespaces`): what the kernel gives without
  installing anything: ``unshare`` (user, PID, network, IPC, mount
  namespaces) and Landlock for the file system;
* ``none``: a plain separate process, only when asked for
  (``--no-sandbox``); it gives up everything docs/plugin.md lists.

The choice travels in the environment variable ``SEAMS_SANDBOX``: ``auto``
(the first backend that works, else refuse), ``auto-or-none`` (the first
that works, else none: what a plain ``pytest`` in a project uses), or a
backend's name. See docs/plugin.md, "Drafted code in a sandbox".
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

SANDBOX_ENV = "SEAMS_SANDBOX"
AUTO, AUTO_OR_NONE, NONE = "auto", "auto-or-none", "none"
SANDBOX_UID = 65534  # nobody: the sandboxed code never runs as the caller when the caller is root
CPU_SECONDS = 120  # per executor process (RLIMIT_CPU)
MEMORY_BYTES = 2 << 30  # per executor process (RLIMIT_AS)
HOW_TO_GET_ONE = ("install bubblewrap (apt-get install bubblewrap) or allow unprivileged user "
                  "namespaces; --no-sandbox runs drafted code without one")


class SandboxUnavailable(Exception):
    """No sandbox works here; the message is one line saying how to get one."""


@dataclass(frozen=True)
class Launch:
    """What the executor process needs: its code directory (read-only), the Python to
    run, and the limits. ``config`` is the JSON the executor reads from its argv."""

    code_dir: Path  # holds copies of the drafted code, one directory per original
    config: Mapping
    originals: tuple[tuple[Path, Path], ...] = ()  # (copy, original): a backend that can mounts
    # each copy read-only at its original's path, so paths in messages are the judge's paths


class Sandbox:
    """One backend. ``popen`` starts ``python -I -c <executor> <config>`` confined."""

    name = "none"

    def available(self) -> str | None:
        """None when this backend works here, else why not (one line)."""
        return None

    def popen(self, launch: Launch, **kwargs) -> subprocess.Popen:  # pragma: no cover - abstract
        raise NotImplementedError

    def record(self) -> str:
        """What the lock records about the sandbox that judged a draft."""
        return self.name

    def maps_originals(self) -> bool:
        """True when the executor sees each code copy at its original's path."""
        return False

    def code_owner(self) -> int | None:
        """The uid that must own the executor's code copy (None: the caller)."""
        return None


def python_command(code: str, config: str) -> list[str]:
    """The executor's command line: no user site, no bytecode, no current directory on
    sys.path, UTF-8. Its environment is empty but for :func:`python_env`."""
    return [sys.executable, "-s", "-B", "-P", "-X", "utf8", "-c", code, config]


def python_env(config: Mapping) -> dict[str, str]:
    """The executor's whole environment: a fixed hash seed (another one for the second
    rendering of the determinism item), nothing else."""
    return {"PYTHONHASHSEED": str(int(config.get("hash_seed", 0)))}


def executor_source() -> str:
    return Path(__file__).with_name("executor.py").read_text(encoding="utf-8")


# the libraries drafted code may import (a generator's extract reads the model with rdflib and
# renders with jinja2): where they are installed is part of "the Python installation"
_LIBRARIES = ("jinja2", "markupsafe", "rdflib", "pyparsing", "isodate", "lxml")


def python_dirs() -> list[Path]:
    """The directories this interpreter and its libraries live in (read-only in a sandbox):
    its prefixes, and the sys.path entries that hold the libraries drafted code may import,
    which a ``.pth`` file can put outside the prefixes."""
    dirs = {Path(p).resolve() for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)}
    dirs.add(Path(sys.executable).resolve().parent)
    for name in _LIBRARIES:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin:
            dirs.add(Path(spec.origin).resolve().parent.parent)  # the sys.path entry holding the package
    return sorted(d for d in dirs if d != Path("/"))


def backends() -> list[Sandbox]:
    from seams_runtime.sandbox.bubblewrap import Bubblewrap
    from seams_runtime.sandbox.namespaces import Namespaces

    return [Bubblewrap(), Namespaces()]


@cache
def choose(mode: str = AUTO) -> Sandbox:
    """The backend ``mode`` names (see the module doc), or SandboxUnavailable."""
    from seams_runtime.sandbox.unsandboxed import Unsandboxed

    if mode == NONE:
        return Unsandboxed()
    known = backends()
    if mode not in (AUTO, AUTO_OR_NONE):
        named = [b for b in known if b.name == mode]
        if not named:
            raise SandboxUnavailable(f"unknown sandbox {mode!r} (known: "
                                     f"{', '.join([b.name for b in known] + [NONE])})")
        why = named[0].available()
        if why:
            raise SandboxUnavailable(f"sandbox {mode}: {why}")
        return named[0]
    reasons = []
    for backend in known:
        why = backend.available()
        if why is None:
            return backend
        reasons.append(f"{backend.name}: {why}")
    if mode == AUTO_OR_NONE:
        return Unsandboxed()
    raise SandboxUnavailable(f"no sandbox for drafted code ({'; '.join(reasons)}): {HOW_TO_GET_ONE}")


def current(env: Mapping[str, str] | None = None) -> Sandbox:
    """The sandbox ``SEAMS_SANDBOX`` asks for (default ``auto-or-none``)."""
    env = os.environ if env is None else env
    return choose(env.get(SANDBOX_ENV) or AUTO_OR_NONE)


def code_copy(sources: Sequence[tuple[Path, str]], owner: int | None = None) -> Path:
    """A fresh private directory holding copies of ``(directory, name)`` trees (regular
    files only, no hidden entries, no ``__pycache__``), readable by the sandbox user:
    what the executor may import, and nothing else of the scratch copy."""
    root = Path(tempfile.mkdtemp(prefix="seams-code-"))
    for source, name in sources:
        _copy_tree(Path(source), root / name)
    if owner is not None:
        for path in [root, *root.rglob("*")]:
            os.chown(path, owner, owner, follow_symlinks=False)
    return root


def _copy_tree(source: Path, target: Path) -> None:
    target.mkdir(mode=0o755)
    if not source.is_dir():
        return
    for entry in sorted(os.scandir(source), key=lambda e: e.name):
        if entry.is_symlink() or entry.name.startswith(".") or entry.name == "__pycache__":
            continue
        if entry.is_dir():
            _copy_tree(Path(entry.path), target / entry.name)
        elif entry.is_file():
            shutil.copyfile(entry.path, target / entry.name)
            os.chmod(target / entry.name, 0o644)
