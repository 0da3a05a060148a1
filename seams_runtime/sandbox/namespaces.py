"""The fallback backend: what the kernel gives without installing anything.

``unshare`` (util-linux) puts the executor in new PID, network, IPC, UTS and
mount namespaces with a fresh ``/proc`` (and, as an ordinary user, a new user
namespace: root there is the caller, nobody else). Before any drafted code
loads, the executor builds its root as bubblewrap would
(:func:`seams_runtime.sandbox.view`): a tmpfs holding the system's and the
interpreter's directories, seams, its code copies and the model files bound
read-only at their own paths, ``/proc``, a few devices and ``/tmp`` a tmpfs of
``DISK_BYTES``; it pivots into it and makes all of it read-only but ``/tmp``.
Then it leaves every privilege: as root it switches to the run's own uid, as
an ordinary user it enters a second user namespace as uid 65534; no
capabilities, no new privileges, Landlock (it may read only what it was
given and write only ``/tmp``) and a seccomp filter (no socket, no namespace,
no mount). Without Landlock this backend is unavailable, so seams refuses
rather than pretend.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import subprocess
import tempfile
from functools import cache

from seams_runtime.sandbox import (
    DEVICES,
    Launch,
    Sandbox,
    executor_config,
    executor_source,
    own_uid,
    parents,
    python_command,
    python_env,
    view,
)

_UNSHARE = ("--pid", "--fork", "--kill-child", "--net", "--ipc", "--uts", "--mount", "--mount-proc")
_AS_USER = ("--user", "--map-root-user")  # an ordinary user: root of a user namespace of its own


def unshare_command() -> list[str]:
    return [shutil.which("unshare") or "unshare", *(() if os.geteuid() == 0 else _AS_USER), *_UNSHARE]


class Namespaces(Sandbox):
    name = "namespaces"

    def available(self) -> str | None:
        return _probe()

    def record(self) -> str:
        return f"namespaces+landlock-abi{_landlock_abi()}"

    def run_uid(self) -> int | None:
        return own_uid() if os.geteuid() == 0 else None

    def maps_originals(self) -> bool:
        return True

    def popen(self, launch: Launch, **kwargs) -> subprocess.Popen:
        new_root = tempfile.mkdtemp(prefix="root-", dir=launch.code_dir)
        seen = view(launch)
        binds = [*seen.binds, *((d, d) for d in DEVICES if os.path.exists(d))]
        read = [path for _, path in seen.binds] + ["/proc", *DEVICES]  # /proc: its own PID namespace's
        # the directories leading to a bind may be listed, not read: in this root they hold only the
        # binds, and Python's import system lists a sys.path entry (a checkout a .pth file names, of
        # which only the seams package is bound) before it finds a package in it
        listed = sorted({parent for path in read for parent in parents(path)} - {"/", *read})
        config = executor_config(launch, uid=launch.uid, userns=os.geteuid() != 0, cwd="/tmp", seccomp=True,
                                 path=[os.path.dirname(original) for _, original in launch.originals]
                                 or launch.config["path"],
                                 root={"new": new_root, "links": seen.links, "binds": binds,
                                       "owner": 0 if launch.uid is None else launch.uid},
                                 landlock={"read": read, "list": listed, "write": ["/tmp", "/dev/null"]})
        command = [*unshare_command(), "--", *python_command(executor_source(), json.dumps(config))]
        return self.start(launch, command, python_env(config), **kwargs)


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
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        return "unshare and mount (util-linux) are not installed"
    # the executor mounts its own root: a namespace where mounting fails (an LSM refusing
    # capabilities in user namespaces, say) is no sandbox
    probe = [shutil.which("mount") or "mount", "-t", "tmpfs", "-o", "size=1m", "seams-probe", "/tmp"]
    try:
        done = subprocess.run([*unshare_command(), "--", *probe], capture_output=True, text=True, timeout=20, env={})
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"unshare did not start: {exc}"
    if done.returncode != 0:
        return f"unshare cannot create namespaces: {(done.stderr.strip().splitlines() or ['no message'])[-1]}"
    return None
