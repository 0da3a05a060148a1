"""Reading ``seams.toml`` strictly.

A typo in a config key silently falling back to a default is the kind of
bug a modeler never finds, so every unknown key is a ProjectError naming it.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from seams.errors import ProjectError
from seams.fs import CONFIG_NAME as CONFIG_NAME  # defined once, for every layer

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

GRAPH_ROLES = ("seams", "ontology", "shapes")
DEFAULT_TIMEOUT = 300


@dataclass(frozen=True)
class ProposeConfig:
    provider: str | None = None
    model: str | None = None
    timeout: float = DEFAULT_TIMEOUT


@dataclass(frozen=True)
class Config:
    base: str
    model: str = "model/model.trig"
    handlers: str = "handlers"
    generated: str = "generated"
    graphs: dict[str, str] = field(default_factory=dict)
    generators: tuple[str, ...] | None = None
    propose: ProposeConfig = ProposeConfig()


_SCHEMA: dict[str, dict[str, type | tuple[type, ...]]] = {
    "project": {"base": str, "model": str, "handlers": str, "generated": str},
    "generate": {"generators": list},
    "propose": {"provider": str, "model": str, "timeout": (int, float)},
}


def _check_table(path: Path, name: str, table: Any, allowed: dict[str, Any]) -> dict[str, Any]:
    if not isinstance(table, dict):
        raise ProjectError(f"{path}: [{name}] must be a table")
    for key, value in table.items():
        if key not in allowed:
            raise ProjectError(f"{path}: unknown key {name}.{key}")
        expected = allowed[key]
        if not isinstance(value, expected) or isinstance(value, bool):
            raise ProjectError(f"{path}: {name}.{key} has the wrong type ({type(value).__name__})")
    return table


def parse_config(path: Path) -> Config:
    """Parse and validate ``path``; every message names the file and the key."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ProjectError(f"{path}: not found") from None
    except UnicodeDecodeError:
        raise ProjectError(f"{path}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise ProjectError(f"{path}: not valid TOML: {exc}") from None

    for key in data:
        if key not in (*_SCHEMA, "model"):
            raise ProjectError(f"{path}: unknown key {key}")
    project = _check_table(path, "project", data.get("project", {}), _SCHEMA["project"])
    if "base" not in project:
        raise ProjectError(f"{path}: missing key project.base")
    generate = _check_table(path, "generate", data.get("generate", {}), _SCHEMA["generate"])
    propose = _check_table(path, "propose", data.get("propose", {}), _SCHEMA["propose"])
    graphs = _model_graphs(path, data.get("model", {}))

    generators = generate.get("generators")
    if generators is not None:
        if not all(isinstance(g, str) and g for g in generators):
            raise ProjectError(f"{path}: generate.generators must be a list of names")
        generators = tuple(generators)
    if "model" in propose and not propose["model"].strip():
        raise ProjectError(f"{path}: propose.model must be a non-empty string")
    timeout = propose.get("timeout", DEFAULT_TIMEOUT)
    if timeout <= 0:
        raise ProjectError(f"{path}: propose.timeout must be positive")

    return Config(
        base=project["base"],
        model=project.get("model", Config.model),
        handlers=project.get("handlers", Config.handlers),
        generated=project.get("generated", Config.generated),
        graphs=graphs,
        generators=generators,
        propose=ProposeConfig(
            provider=propose.get("provider"), model=propose.get("model"), timeout=float(timeout)
        ),
    )


def _model_graphs(path: Path, model: Any) -> dict[str, str]:
    model = _check_table(path, "model", model, {"graphs": dict})
    graphs = model.get("graphs", {})
    _check_table(path, "model.graphs", graphs, {role: str for role in GRAPH_ROLES})
    return dict(graphs)
