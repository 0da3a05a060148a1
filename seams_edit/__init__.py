"""seams_edit: the one write path of seams (ADR-0017).

Model changes arrive as a ``Patch``; ``apply_patch`` turns it into new TriG
text without disturbing the file's layout; ``files.apply`` writes every
changed file or none and records an undo entry; ``undo_last`` restores the
last apply byte for byte.
"""

from __future__ import annotations

from .files import ApplyRecord, apply
from .patch import Patch, Quad
from .trig import apply_patch
from .undo import undo_dir, undo_last

__all__ = ["ApplyRecord", "Patch", "Quad", "apply", "apply_patch", "undo_dir", "undo_last"]
