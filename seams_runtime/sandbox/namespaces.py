"""The fallback backend: what the kernel gives without installing anything.

``unshare`` (util-linux) puts the executor in new user, PID, network, IPC,
UTS and mount namespaces with a fresh ``/proc`` (``--mount-proc``): it sees
no other process, nothing it starts outlives it (``--kill-child``), and it
has only a loopback network. The file system is confined by Landlock, which
the executor enters before drafted code loads: it may read only the
interpreter's directories, seams, ``/usr`` and the few system files Python
needs, its code copy and the model files it is given, and write only its
own temporary directory. Without Landlock this backend is unavailable (the
namespaces alone would leave every file readable), so seams refuses rather
than pretend.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import subprocess
import tempfile
from functools import cache
from pathlib import Path

from seams_runtime.sandbox import (
    CPU_SECONDS,
    MEMORY_BYTES,
    Launch,
    Sandbox,
    executor_source,
    python_command,
    python_dirs,
    python_env,
)

_READ = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc/ld.so.cache", "/etc/localtime",
         "/proc/self", "/dev/null", "/dev/urandom")
_UNSHARE = ("--user", "--map-root-user", "--pid", "--fork", "--kill-child", "--net", "--ipc", "--uts",
            "--mount", "--mount-proc")


class Namespaces(Sandbox):
    name = "namespaces"

    def available(self) -> str | None:
        return _probe()

    def record(self) -> str:
        return f"namespaces+landlock-abi{_landlock_abi()}"

    def popen(self, launch: Launch, **kwargs) -> subprocess.Popen:
        cwd = tempfile.mkdtemp(prefix="seams-executor-", dir=launch.code_dir)
        package_root = Path(__file__).resolve().parents[2]
        read = [*_READ, *map(str, python_dirs()), str(package_root / "seams"), str(launch.code_dir),
                *map(str, launch.config.get("read", ()))]
        config = {**launch.config, "uid": None, "cwd": cwd, "cpu": launch.config.get("cpu", CPU_SECONDS),
                  "memory": launch.config.get("memory", MEMORY_BYTES),
                  "landlock": {"read": read, "write": [cwd, "/dev/null"]}}
        command = [shutil.which("unshare") or "unshare", *_UNSHARE, "--",
                   *python_command(executor_source(), json.dumps(config))]
        return subprocess.Popen(command, env=python_env(config), **kwargs)


@cache
def _landlock_abi() -> int:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        return max(int(libc.syscall(444, None, 0, 1)), 0)
    except (OSError, AttributeError):
        return 0


@cache
def _probe() -> str | None:
    if os.uname().sysname != "Linux":
        return "Linux only"
    if _landlock_abi() < 1:
        return "the kernel has no Landlock"
    if shutil.which("unshare") is None:
        return "unshare (util-linux) is not installed"
    try:
        done = subprocess.run([shutil.which("unshare") or "unshare", *_UNSHARE, "--", "true"],
                              capture_output=True, text=True, timeout=20, env={})
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"unshare did not start: {exc}"
    if done.returncode != 0:
        return f"unshare cannot create namespaces: {(done.stderr.strip().splitlines() or ['no message'])[-1]}"
    return None
