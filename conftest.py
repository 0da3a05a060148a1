"""Shared fixtures of seams' own test suite.

Tests never touch the bundled example in place: ``example_project`` gives
each test its own copy, so a test that proposes, generates or accepts a
suggestion cannot leak into another.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

try:  # pyshacl imports the importlib_metadata backport, which swaps the stdlib's
    # distribution finder; importing it first keeps in-process pytester runs from
    # undoing half of that swap and losing every entry point (our plugin included).
    import importlib_metadata  # noqa: F401
except ImportError:  # pragma: no cover - only where the backport is absent
    pass

pytest_plugins = ["pytester"]

# Fixture projects are data for the tests, not part of seams' own suite: the
# seams plugin would otherwise collect their gates as items of this session.
collect_ignore = ["tests/fixtures"]

REPO = Path(__file__).resolve().parent
EXAMPLE = REPO / "examples" / "leave"


def copy_example_to(target: Path) -> Path:
    shutil.copytree(EXAMPLE, target, ignore=shutil.ignore_patterns(".seams", "__pycache__"))
    return target


@pytest.fixture
def example_project(tmp_path: Path) -> Path:
    """A fresh copy of examples/leave."""
    return copy_example_to(tmp_path / "leave")
