"""The project modules an accepted handler imports, so its lock record covers them.

A handler may delegate (``from handlers._impl import book as handle``): the
accepted file then stays byte for byte the same while what runs changes. So
the record of an accepted handler also holds the sha256 of every module of
the project it imports, directly or through another, and of the packages'
``__init__.py`` files those imports run; a change to any of them is
``draft-hand-edited`` (docs/propose.md). The imports are read from the source
(``ast``), as Python resolves them with the handlers' parent folder on
``sys.path``; an import computed at run time (``importlib.import_module`` of
a string) is not seen.
"""

from __future__ import annotations

import ast
import hashlib
from pathlib import Path

MAX_MODULES = 200
"""More imported project modules than this are not followed (a record stays small)."""


def project_imports(search_root: Path, module_file: Path, project_root: Path) -> dict[str, str]:
    """Path (relative to ``project_root``, forward slashes) -> sha256 of every module under
    ``search_root`` that ``module_file`` imports, transitively; the module itself left out."""
    search_root, project_root = search_root.resolve(), project_root.resolve()
    start = module_file.resolve()
    seen: dict[Path, str] = {}
    pending = [start]
    while pending and len(seen) <= MAX_MODULES:
        current = pending.pop()
        if current in seen:
            continue
        try:
            data = current.read_bytes()
        except OSError:
            continue
        seen[current] = hashlib.sha256(data).hexdigest()
        pending.extend(p for p in _imported_files(search_root, current, data) if p not in seen)
    seen.pop(start, None)
    return {path.relative_to(project_root).as_posix(): digest for path, digest in sorted(seen.items())
            if path.is_relative_to(project_root)}


def _imported_files(search_root: Path, current: Path, data: bytes) -> list[Path]:
    try:
        tree = ast.parse(data, filename=str(current))
    except (SyntaxError, ValueError):
        return []
    package = _package_of(search_root, current)
    found: list[Path] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.extend(_files_of(search_root, alias.name))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                if package is None or node.level - 1 > len(package):
                    continue
                anchor = package[: len(package) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            if base:
                found.extend(_files_of(search_root, base))
            for alias in node.names:
                if alias.name != "*" and base:
                    found.extend(_files_of(search_root, f"{base}.{alias.name}", only_module=True))
    return found


def _package_of(search_root: Path, current: Path) -> list[str] | None:
    """The dotted package ``current`` belongs to, as parts, or None outside ``search_root``."""
    if not current.is_relative_to(search_root):
        return None
    parts = list(current.relative_to(search_root).with_suffix("").parts)
    if parts and parts[-1] == "__init__":
        parts.pop()
        return parts
    return parts[:-1]


def _files_of(search_root: Path, dotted: str, *, only_module: bool = False) -> list[Path]:
    """The files importing ``dotted`` runs under ``search_root``: each package's
    ``__init__.py`` on the way, and the module (``x.py`` or ``x/__init__.py``)."""
    parts = dotted.split(".")
    if not all(part.isidentifier() for part in parts):
        return []
    files: list[Path] = []
    folder = search_root
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        module, package = folder / f"{part}.py", folder / part / "__init__.py"
        if last and module.is_file():
            files.append(module)
        elif package.is_file():
            files.append(package)
        else:
            return [] if only_module else files
        folder = folder / part
    if only_module and not files:
        return []
    return [f for f in files if f.resolve().is_relative_to(search_root)]
