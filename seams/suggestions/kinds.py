"""The kinds of change ``seams suggest`` asks for, in the order it offers them (docs/suggest.md)."""

from __future__ import annotations

KIND_NAMES: tuple[str, ...] = ("condition-to-dmn", "merge-shapes", "gist-anchor")
