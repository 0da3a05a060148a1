"""Reading ``seams.toml`` strictly.

A typo in a config key silently falling back to a default is the kind of
bug a modeler never finds, so every unknown key is a ProjectError naming it.
"""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from seams.errors import ProjectError
from seams.fs import CONFIG_NAME as CONFIG_NAME  # defined once, for every layer
from seams.project.limits import DEFAULT_PAYLOAD_BYTES, LimitError, loads_toml, path_text_problem

GRAPH_ROLES = ("seams", "ontology", "shapes")
DEFAULT_TIMEOUT = 300
DEFAULT_LOCK_TIMEOUT = 60.0
DEFAULT_GENERATED_CASES = 25  # inputs the contract item generates per task (docs/plugin.md)
MAX_GENERATED_CASES = 10_000
# an absolute IRI: a scheme, then no character an IRI never holds (RFC 3987: no space, <>"{}|\^`)
_ABSOLUTE_IRI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s<>\"{}|\\^`\x00-\x1f\x7f]*$")


@dataclass(frozen=True)
class ProposeConfig:
    provider: str | None = None
    model: str | None = None
    timeout: float = DEFAULT_TIMEOUT


# an xsd:dayTimeDuration as job settings spell it (PT30S, PT5M, P1DT2H, PT0.5S): no years or months,
# whose length in milliseconds depends on the calendar
_DAY_TIME_DURATION = re.compile(r"^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$")
MAX_DURATION_MS = 366 * 24 * 3600 * 1000  # a job setting longer than a year is a typo


def duration_ms(text: str) -> int | None:
    """The milliseconds an ISO 8601 day-time duration (``PT30S``, ``PT5M``, ``P1DT2H``) names,
    rounded down; None when ``text`` is not one, is zero, or exceeds a year."""
    match = _DAY_TIME_DURATION.match(text)
    if match is None or text in ("P", "PT") or text.endswith("T"):
        return None
    days, hours, minutes, seconds = match.groups()
    total = (Decimal(days or 0) * 86400 + Decimal(hours or 0) * 3600 + Decimal(minutes or 0) * 60
             + Decimal(seconds or 0)) * 1000
    ms = int(total)
    return ms if 0 < ms <= MAX_DURATION_MS else None


@dataclass(frozen=True)
class WorkersConfig:
    """``[workers]``: the job settings of every generated worker task that its model does not
    set itself (docs/generators.md, "Job settings"); None leaves the built-in default."""

    job_timeout_ms: int | None = None
    max_jobs: int | None = None
    retries: int | None = None
    retry_backoff_ms: int | None = None
    retry_backoff_max_ms: int | None = None
    tenant_ids: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Config:
    base: str
    model: str = "model/model.trig"
    handlers: str = "handlers"
    generated: str = "generated"
    graphs: dict[str, str] = field(default_factory=dict)
    generators: tuple[str, ...] | None = None
    propose: ProposeConfig = ProposeConfig()
    payload_bytes: int = DEFAULT_PAYLOAD_BYTES
    lock_timeout: float = DEFAULT_LOCK_TIMEOUT
    generated_cases: int = DEFAULT_GENERATED_CASES
    workers: WorkersConfig = WorkersConfig()


_SCHEMA: dict[str, dict[str, type | tuple[type, ...]]] = {
    "project": {"base": str, "model": str, "handlers": str, "generated": str},
    "generate": {"generators": list},
    "propose": {"provider": str, "model": str, "timeout": (int, float)},
    "limits": {"payload_bytes": int, "lock_timeout": (int, float)},
    "acceptance": {"generated_cases": int},
    "workers": {"job_timeout": str, "max_jobs": int, "retries": int, "retry_backoff": str,
                "retry_backoff_max": str, "tenant_ids": list},
}
TENANT_ID = re.compile(r"^[A-Za-z0-9_.@-]{1,128}$")  # the seam shapes hold seam:tenantId to the same
MAX_JOBS = 1000  # running jobs per task and process; the seam shapes hold seam:maxJobs to the same
MAX_RETRIES = 1000


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
        data = loads_toml(path.read_text(encoding="utf-8"), tomllib.loads)
    except FileNotFoundError:
        raise ProjectError(f"{path}: not found") from None
    except UnicodeDecodeError:
        raise ProjectError(f"{path}: not UTF-8 text") from None
    except LimitError as exc:
        raise ProjectError(f"{path}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ProjectError(f"{path}: not valid TOML: {exc}") from None
    except OSError as exc:
        raise ProjectError(f"{path}: cannot read: {exc.strerror or exc}") from None

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
    if not math.isfinite(timeout) or timeout <= 0:
        raise ProjectError(f"{path}: propose.timeout must be a finite number of seconds above 0, not {timeout}")
    limits = _check_table(path, "limits", data.get("limits", {}), _SCHEMA["limits"])
    payload_bytes = limits.get("payload_bytes", DEFAULT_PAYLOAD_BYTES)
    if payload_bytes <= 0:
        raise ProjectError(f"{path}: limits.payload_bytes must be a positive number of bytes")
    lock_timeout = limits.get("lock_timeout", DEFAULT_LOCK_TIMEOUT)
    if not math.isfinite(lock_timeout) or lock_timeout < 0:
        raise ProjectError(f"{path}: limits.lock_timeout must be a finite number of seconds, 0 or more")
    acceptance = _check_table(path, "acceptance", data.get("acceptance", {}), _SCHEMA["acceptance"])
    generated_cases = acceptance.get("generated_cases", DEFAULT_GENERATED_CASES)
    if not 0 <= generated_cases <= MAX_GENERATED_CASES:
        raise ProjectError(f"{path}: acceptance.generated_cases must be a whole number from 0 to "
                           f"{MAX_GENERATED_CASES}, not {generated_cases}")
    workers = _workers(path, _check_table(path, "workers", data.get("workers", {}), _SCHEMA["workers"]))
    _check_iri(path, "project.base", project["base"])
    for role, iri in graphs.items():
        _check_iri(path, f"model.graphs.{role}", iri)
    for key in ("model", "handlers", "generated"):
        problem = path_text_problem(project[key]) if key in project else None
        if problem or (key in project and not project[key].strip()):
            raise ProjectError(f"{path}: project.{key} {problem or 'is empty'}")

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
        payload_bytes=payload_bytes,
        lock_timeout=float(lock_timeout),
        generated_cases=generated_cases,
        workers=workers,
    )


def _workers(path: Path, table: dict[str, Any]) -> WorkersConfig:
    """``[workers]`` checked key by key, each message naming the key and the value."""
    durations: dict[str, int] = {}
    for key in ("job_timeout", "retry_backoff", "retry_backoff_max"):
        if key in table:
            ms = duration_ms(table[key])
            if ms is None:
                raise ProjectError(f"{path}: workers.{key} must be an ISO 8601 duration above zero and at most a "
                                   f"year, in days, hours, minutes and seconds (like PT30S or PT5M), not "
                                   f"{table[key][:40]!r}")
            durations[key] = ms
    for key, low, high in (("max_jobs", 1, MAX_JOBS), ("retries", 1, MAX_RETRIES)):
        if key in table and not low <= table[key] <= high:
            raise ProjectError(f"{path}: workers.{key} must be a whole number from {low} to {high}, not {table[key]}")
    tenants = table.get("tenant_ids")
    if tenants is not None and not all(isinstance(t, str) and TENANT_ID.match(t) for t in tenants):
        raise ProjectError(f"{path}: workers.tenant_ids must be a list of tenant ids (letters, digits, _ . @ -)")
    return WorkersConfig(
        job_timeout_ms=durations.get("job_timeout"), max_jobs=table.get("max_jobs"), retries=table.get("retries"),
        retry_backoff_ms=durations.get("retry_backoff"), retry_backoff_max_ms=durations.get("retry_backoff_max"),
        tenant_ids=tuple(tenants) if tenants is not None else None)


def _check_iri(path: Path, key: str, value: str) -> None:
    """An absolute IRI (a scheme, no space or other character IRIs exclude), else one line."""
    if not _ABSOLUTE_IRI.match(value):
        raise ProjectError(f"{path}: {key} must be an absolute IRI (like https://example.org/app/), "
                           f"not {value[:80]!r}")


def _model_graphs(path: Path, model: Any) -> dict[str, str]:
    model = _check_table(path, "model", model, {"graphs": dict})
    graphs = model.get("graphs", {})
    _check_table(path, "model.graphs", graphs, {role: str for role in GRAPH_ROLES})
    return dict(graphs)
