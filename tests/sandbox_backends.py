"""The sandbox backends the sandbox tests run on: every backend, each skipped with its
reason where it does not work on this machine (CI installs bubblewrap, and runs these
tests again as an unprivileged user: .ci/run)."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from seams_runtime.sandbox import SandboxUnavailable, choose

CONFINING = ("bubblewrap", "namespaces")


def backend(name: str):
    """The backend ``name``, or a skip saying why it does not work here."""
    try:
        return choose(name)
    except SandboxUnavailable as exc:
        pytest.skip(f"{exc} (running as uid {os.geteuid()})")


def handlers(tmp_path: Path, **modules: str) -> Path:
    """A handlers package under ``tmp_path`` holding ``modules`` (name -> source)."""
    package = tmp_path / "project" / "handlers"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    for name, text in modules.items():
        (package / f"{name}.py").write_text(text)
    return package


def unix_listener(path: Path) -> socket.socket:
    """A listening Unix socket file at ``path`` anyone may connect to (mode 0777), not blocking:
    ``accept()`` raises BlockingIOError while nothing has reached it."""
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(path))
    os.chmod(path, 0o777)
    listener.listen(8)
    listener.setblocking(False)
    return listener
