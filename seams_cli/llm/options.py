"""The provider options every asking command spells the same, and how each is chosen.

``--provider``, ``--llm-model``, ``--tries`` and ``--refresh`` for ``seams
propose``, ``seams suggest`` and ``seams draft-generator``: a flag wins over
its ``[propose]`` setting in seams.toml (docs/providers.md).
"""

from __future__ import annotations

import argparse

from seams.errors import ProjectError
from seams.project.config import CONFIG_NAME, MAX_TRIES, Config


def add_provider_arguments(parser: argparse.ArgumentParser) -> None:
    """``--provider`` and ``--llm-model``, spelled the same by every command that asks."""
    parser.add_argument("--provider", metavar="CMD", help="provider command (default: [propose] provider)")
    parser.add_argument("--llm-model", metavar="NAME",
                        help="LLM model name, passed as SEAMS_LLM_MODEL (default: [propose] model)")


def chosen_provider(flag: str | None, config: Config) -> str:
    """``--provider`` wins over ``[propose] provider``; having neither is a project error."""
    command = flag if flag is not None else config.propose.provider
    if command is None or not command.strip():
        raise ProjectError(f"{CONFIG_NAME}: no provider: set propose.provider or pass --provider")
    return command


def add_tries_argument(parser: argparse.ArgumentParser) -> None:
    """``--tries N``, spelled the same by every command that may ask again after a refusal."""
    parser.add_argument("--tries", metavar="N", type=int, default=None,
                        help="ask again up to N times in all, showing the provider the failed lines of its "
                             "previous answer (default: [propose] tries, else 1)")


def chosen_tries(flag: int | None, config: Config) -> int:
    """``--tries`` wins over ``[propose] tries``; from 1 to MAX_TRIES."""
    tries = flag if flag is not None else config.propose.tries
    if isinstance(tries, bool) or not 1 <= tries <= MAX_TRIES:
        raise ProjectError(f"propose.tries (--tries) must be a whole number from 1 to {MAX_TRIES}, not {tries}")
    return tries


def chosen_llm_model(flag: str | None, config: Config) -> str | None:
    """``--llm-model`` wins over ``[propose] model``; either must be a non-empty name."""
    if flag is None:
        return config.propose.model
    if not flag.strip():
        raise ProjectError("propose.model (--llm-model) must be a non-empty string")
    return flag


def add_refresh_argument(parser: argparse.ArgumentParser) -> None:
    """``--refresh``, spelled the same by every command with a provider cache."""
    parser.add_argument("--refresh", action="store_true",
                        help="ask the provider again even when an answer is cached, and replace it")
