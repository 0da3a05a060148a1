"""The provider workflows' output lines, printed as each is known."""

from __future__ import annotations


def say(line: str) -> None:
    """Print one output line now: a provider may take minutes, so each line shows as it is known."""
    print(line, flush=True)


def say_provider(provider: str, llm_model: str | None) -> None:
    """``provider <command>`` and, when one is named, ``llm-model <name>``: who answers."""
    say(f"provider {provider}")
    if llm_model:
        say(f"llm-model {llm_model}")
