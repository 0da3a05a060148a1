"""The gates, defined once: name -> check function -> finding kinds.

A *gate* is one acceptance check with a stable name (``shapes``,
``draft-stale``); a *finding kind* is what its findings say they are
(``shape``, ``draft-stale``). ``seams check``, the plugin's gate items
(``seams.toml::<gate>``), ``--seams-only model``, the scratch sessions of
the LLM workflows and the gate table in docs/plugin.md all read this
registry, so a gate added here appears everywhere at once.

Each check function lives with its concern (shapes, decisions, generation,
the lock, drafts) and is imported only when it runs: the pytest plugin reads
the registry in every session without loading rdflib.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from seams.checks.gate_hooks import hookimpl
from seams.findings import Finding

if TYPE_CHECKING:
    from seams.model.loading import Model
    from seams.project.layout import Project


@dataclass(frozen=True)
class Source:
    """A check function, by module and name; ``needs_project``: called as f(project, model)."""

    module: str
    function: str
    needs_project: bool

    @property
    def qualname(self) -> str:
        return f"{self.module}.{self.function}"

    def load(self) -> Callable[..., Any]:
        return getattr(importlib.import_module(self.module), self.function)

    def findings(self, project: Project | None, model: Model) -> list[Finding]:
        function = self.load()
        if not self.needs_project:
            return list(function(model))
        if project is None:
            raise ValueError(f"{self.qualname} needs the project")
        return list(function(project, model))


@dataclass(frozen=True)
class Gate:
    """One gate: its item name, the function whose findings it reports, and their kinds.

    A lock gate shares its function with another gate and keeps only the
    findings of its own kind (``only_kind``)."""

    name: str
    source: Source
    kinds: tuple[str, ...]
    lock: bool = False
    about: str = ""
    option: str | None = None  # the pytest option that collects the gate, when not always collected
    item: str | None = None  # the item name, when it is not the gate's name (one item per scenario)
    generators: tuple[str, ...] = ()  # collected only when [generate] generators lists one of these

    def applies(self, configured: tuple[str, ...] | None) -> bool:
        """Whether a project whose ``[generate] generators`` is ``configured`` collects this gate."""
        return not self.generators or any(name in (configured or ()) for name in self.generators)

    @property
    def only_kind(self) -> str | None:
        return self.kinds[0] if self.lock else None


_SHAPES = Source("seams.checks.shapes", "shape_findings", False)
_DECISIONS = Source("seams.checks.decisions", "decision_findings", False)
_GENERATE = Source("seams.generators.generate", "generate_findings", True)
_GENERATED = Source("seams.generators.generate", "generated_findings", True)
_DRAFTS = Source("seams.checks.handler_drafts", "draft_findings", True)
_ENGINE_BINDINGS = Source("seams.checks.engine_bindings", "engine_binding_findings", True)

MODEL_GATES: tuple[Gate, ...] = (
    Gate("shapes", _SHAPES, ("shape",), about="the seam shapes"),
    Gate("decisions", _DECISIONS, ("decision",), about="decisions, DMN tables, flow conditions"),
    Gate("generate", _GENERATE, ("generate",), about="every configured generator runs"),
    Gate("engine-bindings", _ENGINE_BINDINGS, ("engine-binding",), generators=("zeebe", "camunda7"),
         about="each service task's zeebe:taskDefinition or camunda:topic names its handler"),
)
"""The gates of the model itself, in the order ``seams check`` prints them (``--seams-only model``)."""

LOCK_GATES: tuple[Gate, ...] = (
    Gate("generated-stale", _GENERATED, ("generated-stale",), lock=True, option="--seams-check",
         about="regenerating would change, add or remove a file"),
    Gate("generated-hand-edited", _GENERATED, ("generated-hand-edited",), lock=True, option="--seams-check",
         about="a generated file differs from seams.lock"),
    Gate("draft-stale", _DRAFTS, ("draft-stale",), lock=True, option="--seams-check",
         about="an accepted draft's context changed"),
    Gate("draft-hand-edited", _DRAFTS, ("draft-hand-edited",), lock=True, option="--seams-check",
         about="an accepted draft differs from seams.lock"),
)
"""The lock gates (``pytest --seams-check``): they compare files and hashes, never call a provider."""

ROUTING = Gate("routing", Source("seams.suggestions.routing", "routing_of_record", False), ("routing",),
               option="--seams-suggestion=PATH",
               about="a pending suggestion keeps the gateway's routing (original conditions vs. "
                     "the changed model's decision and conditions)")
"""The gate of a pending model change: collected only for a suggestion record, in the scratch
copy the suggestion changed (``seams suggest``, ``seams suggest --accept``); its function
takes the changed model and the record, so ``seams check`` never runs it."""

FORMS = Gate("forms", Source("seams.suggestions.form_acceptance", "forms_of_record", False), ("forms",),
             option="--seams-suggestion=PATH",
             about="a pending merge-shapes suggestion keeps what each merged form accepts (sample records at "
                   "each constraint's boundaries, old shape vs. the merged one)")
"""The gate of a pending ``merge-shapes`` change, collected as ROUTING is for ``condition-to-dmn``."""

SUGGESTION_GATES: dict[str, Gate] = {"condition-to-dmn": ROUTING, "merge-shapes": FORMS}
"""The gate each kind of suggestion adds to the model gates in its scratch session (a kind not
listed adds none: ``gist-anchor`` is judged by the model gates alone)."""

GOLDEN_GATE_NAMES: tuple[str, ...] = ("golden", "determinism", "parses", "sources")
"""The items of a generator package's golden file (pytest_seams.golden; docs/generators.md)."""
DRAFT_RULE_NAMES: tuple[str, ...] = ("extract", "no-logic", "restated-label")
"""The items a drafted package's golden file adds (pytest_seams.golden_rules), in the order
``seams draft-generator`` reports their refusals (docs/draft-generator.md)."""

CHECK_GATES: tuple[Gate, ...] = (*MODEL_GATES, *LOCK_GATES)
"""What ``seams check`` runs, in the order it prints."""
CORE_GATES: tuple[Gate, ...] = (*CHECK_GATES, ROUTING, FORMS)
"""The gates the core defines; layers above add theirs through the ``seams_gates`` hook."""
MODEL_GATE_NAMES: tuple[str, ...] = tuple(gate.name for gate in MODEL_GATES)
LOCK_GATE_NAMES: tuple[str, ...] = tuple(gate.name for gate in LOCK_GATES)
MODEL_KINDS: tuple[str, ...] = tuple(kind for gate in MODEL_GATES for kind in gate.kinds)
LOCK_KINDS: tuple[str, ...] = tuple(kind for gate in LOCK_GATES for kind in gate.kinds)


@hookimpl
def seams_gates() -> list[Gate]:
    return list(CORE_GATES)


@cache
def gates() -> tuple[Gate, ...]:
    """Every gate: the core's, then those the ``seams_gates`` hook adds (entry point group
    ``seams.gates``, loaded on the first call), each name once."""
    import sys

    import pluggy

    from seams.checks import gate_hooks

    manager = pluggy.PluginManager(gate_hooks.PROJECT_NAME)
    manager.add_hookspecs(gate_hooks)
    manager.register(sys.modules[__name__], name="seams.checks.registry")
    manager.load_setuptools_entrypoints(gate_hooks.ENTRY_POINT_GROUP)
    found: dict[str, Gate] = {}
    for batch in reversed(manager.hook.seams_gates()):  # registration order: the core's first
        for candidate in batch:
            if candidate.name in found and found[candidate.name] != candidate:
                raise ValueError(f"two gates are called {candidate.name!r}")
            found[candidate.name] = candidate
    return tuple(found.values())


def gate(name: str) -> Gate:
    """The gate called ``name``; a KeyError names the gates there are."""
    for candidate in gates():
        if candidate.name == name:
            return candidate
    raise KeyError(f"no gate {name!r} (gates: {', '.join(g.name for g in gates())})")


def gate_of_kind(kind: str) -> Gate | None:
    """The gate that reports findings of ``kind`` (``shape`` -> ``shapes``)."""
    return next((g for g in gates() if kind in g.kinds), None)


def sources(gates: tuple[Gate, ...]) -> list[Source]:
    """The distinct check functions of ``gates``, in gate order (a lock function once)."""
    return list(dict.fromkeys(g.source for g in gates))


def findings_of(gates: tuple[Gate, ...], project: Project, model: Model) -> list[Finding]:
    """Every finding of ``gates``, each function called once, in gate order."""
    return [f for source in sources(gates) for f in source.findings(project, model)]


def model_findings(model: Model) -> list[Finding]:
    """Shapes and decision checks: is the model sound? (the model gates but generation)"""
    return [f for g in MODEL_GATES if not g.source.needs_project for f in g.source.findings(None, model)]


def lock_findings(project: Project, model: Model) -> list[Finding]:
    """Generated files and accepted drafts against ``seams.lock``."""
    return findings_of(LOCK_GATES, project, model)


def all_findings(project: Project, model: Model) -> list[Finding]:
    """What ``seams check`` prints: every gate's findings, model gates first, then the lock's."""
    return findings_of(CHECK_GATES, project, model)


def markdown_table() -> str:
    """The gate table of docs/plugin.md (a test keeps the two equal)."""
    rows = ["| gate | item | checks | function | finding kinds |", "| --- | --- | --- | --- | --- |"]
    for g in gates():
        item = f"`seams.toml::{g.item or g.name}`" + (f" (`{g.option}`)" if g.option else "")
        if g.generators:
            item += " (when `[generate] generators` lists " + " or ".join(f"`{n}`" for n in g.generators) + ")"
        kinds = ", ".join(f"`{kind}`" for kind in g.kinds)
        rows.append(f"| `{g.name}` | {item} | {g.about} | `{g.source.qualname}` | {kinds} |")
    return "\n".join(rows) + "\n"
