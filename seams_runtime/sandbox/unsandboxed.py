"""``--no-sandbox``: drafted code still runs in a separate process and speaks JSON,
so the judge decides from data, and it gets its own session and the per-process
limits, but nothing confines that process: it runs as the caller, sees every file
the caller can, and may open network connections (docs/plugin.md lists what this
gives up)."""

from __future__ import annotations

import json
import subprocess
import tempfile

from seams_runtime.sandbox import Launch, Sandbox, executor_config, executor_source, python_command, python_env


class Unsandboxed(Sandbox):
    name = "none"

    def popen(self, launch: Launch, **kwargs) -> subprocess.Popen:
        cwd = tempfile.mkdtemp(prefix="seams-executor-", dir=launch.code_dir)
        config = executor_config(launch, uid=None, cwd=cwd)
        return self.start(launch, python_command(executor_source(), json.dumps(config)), python_env(config), **kwargs)
