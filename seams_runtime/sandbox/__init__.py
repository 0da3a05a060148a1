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
SANDBOX_UID = 65534  # the uid drafted code has inside its user namespace (nobody)
RUN_UIDS = range(2_100_000_000, 2_100_000_000 + (1 << 16))  # as root: each run its own uid, mapped to nothing
# The limits of one sandboxed run, the whole draft (docs/plugin.md, "Limits"):
CPU_SECONDS = 120  # per process (RLIMIT_CPU)
PROCESSES = 32  # processes and threads of the run together (RLIMIT_NPROC of its own uid or user namespace)
MEMORY_BYTES = 1 << 30  # address space of each process (RLIMIT_AS)
TOTAL_MEMORY = 1 << 30  # resident memory of all its processes together (the judge watches, kills above)
DISK_BYTES = 64 << 20  # its one writable directory, /tmp: a tmpfs of this size (and of each file: RLIMIT_FSIZE)
DISK_INODES = 2048  # files and directories in that tmpfs
OPEN_FILES = 256  # per process (RLIMIT_NOFILE)
HOW_TO_GET_ONE = ("install bubblewrap (apt-get install bubblewrap) or allow unprivileged user "
                  "namespaces; --no-sandbox runs drafted code without one")


def limits(config: Mapping) -> dict[str, int]:
    """The run's limits: the defaults above, any of them lowered by ``config["limits"]``."""
    asked = dict(config.get("limits") or {})
    defaults = {"cpu": CPU_SECONDS, "processes": PROCESSES, "memory": MEMORY_BYTES, "total_memory": TOTAL_MEMORY,
                "disk": DISK_BYTES, "inodes": DISK_INODES, "files": OPEN_FILES}
    return {name: min(int(asked.get(name, value)), value) for name, value in defaults.items()}


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
    uid: int | None = None  # as root: the run's own uid (:meth:`Sandbox.run_uid`), owner of the code copy
    lifeline: int | None = None  # the read end of a pipe the judge holds open: at its end the run ends


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

    def run_uid(self) -> int | None:
        """As root, the uid one run of drafted code gets (its own: its process count and
        signals are its own), which owns its code copy; None: the caller's, or a user namespace's."""
        return None

    def start(self, launch: Launch, command: list[str], env: dict[str, str], **kwargs) -> subprocess.Popen:
        """Start ``command`` with only the lifeline passed on, in the judge's process group
        (so a stop of the session's group reaches it; the drafted code gets its own session)."""
        fds = () if launch.lifeline is None else (launch.lifeline,)
        return subprocess.Popen(command, env=env, pass_fds=fds, **kwargs)


def own_uid() -> int:
    """A uid from RUN_UIDS for one run as root, none other running has (best effort: random)."""
    return RUN_UIDS[int.from_bytes(os.urandom(4), "big") % len(RUN_UIDS)]


def python_command(code: str, config: str) -> list[str]:
    """The executor's command line: no user site, no bytecode, no current directory on
    sys.path, UTF-8. Its environment is empty but for :func:`python_env`."""
    return [sys.executable, "-s", "-B", "-P", "-X", "utf8", "-c", code, config]


def executor_config(launch: Launch, **backend: object) -> dict:
    """The executor's config: the judge's, the limits, the lifeline, and the backend's own."""
    return {**launch.config, "limits": limits(launch.config), "lifeline": launch.lifeline, **backend}


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


SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
SYSTEM_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/localtime", "/etc/nsswitch.conf")
DEVICES = ("/dev/null", "/dev/zero", "/dev/urandom", "/dev/random")


@dataclass(frozen=True)
class View:
    """What the executor sees of the file system, all read-only but ``/tmp``: the system's
    links (``(target, path)``), directories and files bound at their own paths, and each
    code copy bound at its original's path."""

    links: tuple[tuple[str, str], ...]
    binds: tuple[tuple[str, str], ...]  # (source, path in the sandbox)


def view(launch: Launch) -> View:
    """One view for every backend that builds its own root (bubblewrap, namespaces)."""
    links = tuple((os.readlink(p), p) for p in SYSTEM if os.path.islink(p))
    system = [p for p in SYSTEM if not os.path.islink(p) and os.path.isdir(p)]
    files = [p for p in SYSTEM_FILES if os.path.exists(p)]
    return View(links, tuple((p, p) for p in [*system, *files, *map(str, readable(launch))])
                + tuple((str(copy), str(original)) for copy, original in launch.originals))


def parents(path: str) -> list[str]:
    """``/a/b/c`` -> ``["/a/b", "/a"]``: the directories a sandbox's root must hold for a bind at ``path``."""
    parts = path.split("/")[1:-1]
    return ["/" + "/".join(parts[:n]) for n in range(len(parts), 0, -1)]


def readable(launch: Launch) -> list[Path]:
    """Directories the executor reads besides the system's: the interpreter's, seams', and
    the model files, outermost first, none inside another (a bind inside a bind is redundant)."""
    package_root = Path(__file__).resolve().parents[2]
    wanted = {*python_dirs(), package_root / "seams", *(Path(p).resolve() for p in launch.config.get("read", ()))}
    wanted = {p for p in wanted if p.exists() and not any(str(p) == s or str(p).startswith(s + "/") for s in SYSTEM)}
    return sorted(p for p in wanted if not any(p != q and p.is_relative_to(q) for q in wanted))


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
