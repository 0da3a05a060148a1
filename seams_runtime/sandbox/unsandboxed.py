"""``--no-sandbox``: drafted code still runs in a separate process and speaks JSON,
so the judge decides from data, but nothing confines that process: it runs as
the caller, sees every file the caller can, and may open network connections
(docs/plugin.md lists what this gives up)."""

from __future__ import annotations

import json
import subprocess
import tempfile

from seams_runtime.sandbox import (
    CPU_SECONDS,
    MEMORY_BYTES,
    Launch,
    Sandbox,
    executor_source,
    python_command,
    python_env,
)


class Unsandboxed(Sandbox):
    name = "none"

    def popen(self, launch: Launch, **kwargs) -> subprocess.Popen:
        cwd = tempfile.mkdtemp(prefix="seams-executor-", dir=launch.code_dir)
        config = {**launch.config, "uid": None, "cwd": cwd, "cpu": launch.config.get("cpu", CPU_SECONDS),
                  "memory": launch.config.get("memory", MEMORY_BYTES)}
        return subprocess.Popen(python_command(executor_source(), json.dumps(config)), env=python_env(config), **kwargs)
