"""Which sandbox judges drafted code, for the commands that run it (propose, draft-generator).

Drafted code runs only in a sandbox (:mod:`seams_runtime.sandbox`): the first
backend that works here, else the command refuses before the provider is
asked, with one line saying how to get one. ``--no-sandbox`` is the explicit
way to run it without (docs/propose.md says what that gives up).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping

from seams.errors import ProjectError
from seams_runtime.sandbox import AUTO, NONE, SANDBOX_ENV, Sandbox, SandboxUnavailable, choose

BACKEND_NAMES = ("bubblewrap", "namespaces")


def add_sandbox_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--no-sandbox", action="store_true",
                        help="run the drafted code without an OS sandbox (it can then read your files, "
                             "write where you can, use the network; see docs/propose.md)")


def chosen_sandbox(no_sandbox: bool, env: Mapping[str, str] | None = None) -> Sandbox:
    """The sandbox for this run, or a ProjectError (one line) when none works here.
    ``SEAMS_SANDBOX`` may name a backend (``bubblewrap``, ``namespaces``) to use that
    one; only ``--no-sandbox`` turns the sandbox off."""
    env = os.environ if env is None else env
    wanted = env.get(SANDBOX_ENV, "")
    mode = NONE if no_sandbox else wanted if wanted in BACKEND_NAMES else AUTO
    try:
        return choose(mode)
    except SandboxUnavailable as exc:
        raise ProjectError(str(exc)) from None


def sandbox_env(sandbox: Sandbox) -> dict[str, str]:
    """What tells the session's judge which sandbox to run drafted code in."""
    return {SANDBOX_ENV: sandbox.name}
