"""Finding and loading a seams project.

The project is the unit every command works on: its root (where
``seams.toml`` lives), its config, and the paths derived from them. Paths
from the config are resolved and kept inside the root, so a config cannot
point a write outside the project.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from rdflib import URIRef

from seams.errors import ProjectError
from seams.fs import MODEL_ENV, resolve_inside
from seams.project.config import CONFIG_NAME, GRAPH_ROLES, Config, parse_config

__all__ = ["CACHE_DIR", "LOCK_NAME", "MODEL_ENV", "Project", "find_project_root", "inside", "load_project"]
LOCK_NAME = "seams.lock"
CACHE_DIR = ".seams"


def find_project_root(start: Path | None = None, explicit: Path | None = None) -> Path:
    """``explicit`` (from ``--project``) wins; else walk up from ``start``."""
    if explicit is not None:
        root = Path(explicit).resolve()
        if not (root / CONFIG_NAME).is_file():
            raise ProjectError(f"{root}: no {CONFIG_NAME} in the project directory")
        return root
    here = Path(start or Path.cwd()).resolve()
    for candidate in (here, *here.parents):
        if (candidate / CONFIG_NAME).is_file():
            return candidate
    raise ProjectError(f"{here}: no {CONFIG_NAME} here or in any parent directory")


def inside(root: Path, relative: str | Path, *, what: str) -> Path:
    """Resolve ``relative`` against ``root`` and refuse anything that leaves it."""
    path = resolve_inside(root, relative)
    if path is None:
        raise ProjectError(f"{what}: {relative} leads outside {root.resolve()}")
    return path


@dataclass(frozen=True)
class Project:
    root: Path
    config: Config
    model_path: Path

    @property
    def config_path(self) -> Path:
        return self.root / CONFIG_NAME

    @property
    def handlers_dir(self) -> Path:
        return inside(self.root, self.config.handlers, what=f"{self.config_path}: project.handlers")

    @property
    def generated_dir(self) -> Path:
        return inside(self.root, self.config.generated, what=f"{self.config_path}: project.generated")

    @property
    def lock_path(self) -> Path:
        return self.root / LOCK_NAME

    @property
    def cache_dir(self) -> Path:
        return self.root / CACHE_DIR

    @cached_property
    def graphs(self) -> dict[str, URIRef]:
        """Named graph IRI by role: the config's ``[model.graphs]`` or ``<base>graph/<role>``."""
        return {
            role: URIRef(self.config.graphs.get(role, f"{self.config.base}graph/{role}"))
            for role in GRAPH_ROLES
        }

    def relative(self, path: Path) -> str:
        """A path as users see it: relative to the project root, with forward slashes."""
        try:
            return Path(path).resolve().relative_to(self.root).as_posix()
        except ValueError:
            return str(path)


def load_project(
    project: Path | str | None = None,
    *,
    model: Path | str | None = None,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> Project:
    """Load the project; the model path is ``model`` (``--model``), else
    ``SEAMS_MODEL``, else ``project.model`` from the config (docs/model.md)."""
    env = os.environ if env is None else env
    root = find_project_root(cwd, Path(project) if project is not None else None)
    config = parse_config(root / CONFIG_NAME)
    if model is not None:
        model_path = Path(cwd or Path.cwd(), model).resolve()
    elif env.get(MODEL_ENV):
        model_path = Path(cwd or Path.cwd(), env[MODEL_ENV]).resolve()
    else:
        model_path = inside(root, config.model, what=f"{root / CONFIG_NAME}: project.model")
    if not model_path.is_file():
        raise ProjectError(f"{model_path}: model file not found")
    return Project(root=root, config=config, model_path=model_path)
