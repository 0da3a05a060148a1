"""The bubblewrap backend (Debian package ``bubblewrap``).

The executor sees a fresh root (:func:`seams_runtime.sandbox.view`): ``/usr``
and the interpreter's directories and seams read-only, its code copies and the
model files it may read read-only at their own paths, a fresh ``/proc`` of its
own PID namespace (no other process, and nothing it starts outlives it), a
minimal ``/dev``, ``/tmp`` a tmpfs of ``DISK_BYTES`` (the only writable
place: the root and ``/dev`` are remounted read-only), no home, no network (a
network namespace with only loopback), an empty environment. As an ordinary
user bubblewrap maps the user to uid 65534 in a new user namespace; as root
(CI, containers) it runs without one (a user namespace would map the sandbox
to host root), keeps only the capabilities to switch user, and the executor
switches to the run's own uid with no capabilities, no new privileges and its
seccomp filter before any drafted code loads.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from functools import cache

from seams_runtime.sandbox import (
    DEVICES,
    SANDBOX_UID,
    Launch,
    Sandbox,
    executor_config,
    executor_source,
    limits,
    own_uid,
    parents,
    python_command,
    python_env,
    view,
)


class Bubblewrap(Sandbox):
    name = "bubblewrap"

    def available(self) -> str | None:
        return _probe()

    def record(self) -> str:
        return f"bubblewrap {_version()}".strip()

    def run_uid(self) -> int | None:
        return own_uid() if os.geteuid() == 0 else None

    def arguments(self, launch: Launch) -> list[str]:
        root = os.geteuid() == 0
        args = ["--die-with-parent", "--new-session", "--unshare-pid", "--unshare-net", "--unshare-ipc",
                "--unshare-uts", "--unshare-cgroup-try", "--clearenv", "--cap-drop", "ALL"]
        if root:
            args += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP"]
        else:
            args += ["--unshare-user", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID)]
        size = limits(launch.config)["disk"]
        args += ["--perms", "1777", "--size", str(size), "--tmpfs", "/tmp"]  # first: binds may lie inside
        seen = view(launch)
        for target, path in seen.links:
            args += ["--symlink", target, path]
        made: set[str] = {"/", "/tmp", "/proc", "/dev"}
        bound: list[str] = []
        for source, path in seen.binds:
            for parent in reversed(parents(path)):
                if parent not in made and not any(parent == b or parent.startswith(b + "/") for b in bound):
                    made.add(parent)
                    args += ["--perms", "0755", "--dir", parent]
            made.add(path)
            bound.append(path)
            args += ["--ro-bind", source, path]
        args += ["--proc", "/proc", "--dir", "/dev"]
        args += [arg for device in DEVICES if os.path.exists(device) for arg in ("--dev-bind", device, device)]
        args += ["--remount-ro", "/"]
        return args + ["--chdir", "/tmp"]

    def maps_originals(self) -> bool:
        return True

    def popen(self, launch: Launch, **kwargs) -> subprocess.Popen:
        config = executor_config(launch, uid=launch.uid, cwd="/tmp", seccomp=True,
                                 path=[os.path.dirname(original) for _, original in launch.originals]
                                 or launch.config["path"])
        seed = python_env(config)["PYTHONHASHSEED"]
        command = [_bwrap() or "bwrap", *self.arguments(launch), "--setenv", "PYTHONHASHSEED", seed, "--",
                   *python_command(executor_source(), json.dumps(config))]
        return self.start(launch, command, {}, **kwargs)


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
             "--proc", "/proc", "--dev", "/dev", "--size", "1048576", "--tmpfs", "/tmp"]
    if os.geteuid() != 0:
        probe += ["--unshare-user"]
    try:
        done = subprocess.run([*probe, "--", "true"], capture_output=True, text=True, timeout=20, env={})
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap did not start: {exc}"
    if done.returncode != 0:
        return f"bwrap cannot create namespaces: {(done.stderr.strip().splitlines() or ['no message'])[-1]}"
    return None
