"""The bubblewrap backend (Debian package ``bubblewrap``).

The executor sees a fresh root: ``/usr`` and the interpreter's directories
and seams read-only, its code directory (a copy of what it may import) and
the model files it may read read-only at their own paths, a fresh ``/proc``
of its own PID namespace (no other process, so nothing it starts outlives
it), a minimal ``/dev``, ``/tmp`` a tmpfs (the only writable place), no
home, no network (a network namespace with only loopback), an empty
environment. As an ordinary user bubblewrap maps the user to uid 65534 in a
new user namespace; as root (CI, containers) it runs without one, keeps
only the capabilities to switch user, and the executor drops to uid 65534
with no capabilities and no new privileges before any drafted code loads.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from functools import cache
from pathlib import Path

from seams_runtime.sandbox import (
    CPU_SECONDS,
    MEMORY_BYTES,
    SANDBOX_UID,
    Launch,
    Sandbox,
    executor_source,
    python_command,
    python_dirs,
    python_env,
)

_SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
_ETC = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/localtime", "/etc/nsswitch.conf")


class Bubblewrap(Sandbox):
    name = "bubblewrap"

    def available(self) -> str | None:
        return _probe()

    def record(self) -> str:
        return f"bubblewrap {_version()}".strip()

    def code_owner(self) -> int | None:
        return SANDBOX_UID if os.geteuid() == 0 else None

    def arguments(self, launch: Launch) -> list[str]:
        root = os.geteuid() == 0
        args = ["--die-with-parent", "--new-session", "--unshare-pid", "--unshare-net", "--unshare-ipc",
                "--unshare-uts", "--unshare-cgroup-try", "--clearenv", "--cap-drop", "ALL"]
        if root:
            args += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP"]
        else:
            args += ["--unshare-user", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID)]
        for path in _SYSTEM:
            if os.path.islink(path):
                args += ["--symlink", os.readlink(path), path]
            elif os.path.isdir(path):
                args += ["--ro-bind", path, path]
        args += [arg for path in _ETC if os.path.exists(path) for arg in ("--ro-bind", path, path)]
        args += ["--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--tmpfs", "/tmp"]
        made: set[str] = {"/", "/tmp", "/proc", "/dev"}
        for readable in _readable(launch):
            for parent in reversed(readable.parents):
                if str(parent) not in made and not any(str(parent).startswith(s + "/") or str(parent) == s
                                                       for s in _SYSTEM):
                    made.add(str(parent))
                    args += ["--perms", "0755", "--dir", str(parent)]
            args += ["--ro-bind", str(readable), str(readable)]
            made.add(str(readable))
        for copy, original in launch.originals:
            for parent in reversed(Path(original).parents):
                if str(parent) not in made:
                    made.add(str(parent))
                    args += ["--perms", "0755", "--dir", str(parent)]
            args += ["--ro-bind", str(copy), str(original)]
        return args + ["--chdir", "/tmp"]

    def maps_originals(self) -> bool:
        return True

    def popen(self, launch: Launch, **kwargs) -> subprocess.Popen:
        config = {**launch.config, "uid": SANDBOX_UID if os.geteuid() == 0 else None, "cwd": "/tmp",
                  "path": [str(Path(original).parent) for _, original in launch.originals] or launch.config["path"],
                  "cpu": launch.config.get("cpu", CPU_SECONDS), "memory": launch.config.get("memory", MEMORY_BYTES)}
        seed = python_env(config)["PYTHONHASHSEED"]
        command = [_bwrap() or "bwrap", *self.arguments(launch), "--setenv", "PYTHONHASHSEED", seed, "--",
                   *python_command(executor_source(), json.dumps(config))]
        return subprocess.Popen(command, env={}, **kwargs)


def _readable(launch: Launch) -> list[Path]:
    """Directories the executor reads: the interpreter's, seams', the code copy and the
    model files, outermost first, none inside another (a bind inside a bind is redundant)."""
    package_root = Path(__file__).resolve().parents[2]
    wanted = {*python_dirs(), package_root / "seams",
              *(Path(p).resolve() for p in launch.config.get("read", ()))}
    wanted = {p for p in wanted if p.exists() and not any(str(p) == s or str(p).startswith(s + "/")
                                                             for s in _SYSTEM)}
    return sorted(p for p in wanted if not any(p != q and p.is_relative_to(q) for q in wanted))


@cache
def _bwrap() -> str | None:
    return shutil.which("bwrap")


@cache
def _version() -> str:
    try:
        done = subprocess.run([_bwrap() or "bwrap", "--version"], capture_output=True, text=True, timeout=10)
    except OSError:
        return ""
    return done.stdout.strip().removeprefix("bubblewrap").strip()


@cache
def _probe() -> str | None:
    """Why bubblewrap cannot confine a process here, or None: it must start ``true``
    with the namespaces the executor gets."""
    if _bwrap() is None:
        return "bwrap is not installed"
    probe = [_bwrap() or "bwrap", "--die-with-parent", "--unshare-pid", "--unshare-net", "--ro-bind", "/", "/",
             "--proc", "/proc", "--dev", "/dev"]
    if os.geteuid() != 0:
        probe += ["--unshare-user"]
    try:
        done = subprocess.run([*probe, "--", "true"], capture_output=True, text=True, timeout=20, env={})
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap did not start: {exc}"
    if done.returncode != 0:
        return f"bwrap cannot create namespaces: {(done.stderr.strip().splitlines() or ['no message'])[-1]}"
    return None
