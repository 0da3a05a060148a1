"""The hooks seams adds to pytest (registered with ``pytest_addhooks``).

A project's ``conftest.py`` implements them like any pytest hook, e.g. to send
every gate's findings to a dashboard (docs/plugin.md, "Hooks").
"""

from __future__ import annotations

from typing import Any


def pytest_seams_findings(item: Any, findings: list[Any]) -> None:
    """Called after each seams gate item ran, with its ``seams.findings.Finding`` list
    (empty when it passed); ``item.gate`` names the gate, ``item.subject`` what it checked."""
