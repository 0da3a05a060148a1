"""The generator registry: a pluggy plugin manager, built lazily per run.

Built-ins are registered as ordinary plugins under their names. Installed
generator packages register through the entry point group
``seams.generators`` and are loaded (``load_setuptools_entrypoints``) only
when ``[generate] generators`` lists them: the default is the built-ins
``stubs`` and ``decisions`` and nothing installed (the worker generators
``zeebe`` and ``camunda7`` run only when listed), so installing a package never changes what an existing
project generates, and a broken package breaks only the projects that chose
it. A built-in name wins over an installed package of the same name.

:class:`Generators` is the loaded selection. Besides running each generator
on the whole model (:meth:`Generators.run`, what :func:`run` does), it tells
which ones are composable (they implement ``seams_generate_parts`` and
``seams_assemble``, seams.generators.hookspecs), runs those as parts on a
(sub-)model and assembles one file from merged parts, so an incremental
check can know the whole-model output without a whole-model run
(docs/generators.md, "Composable generators").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pluggy

from seams.errors import GeneratorError, ProjectError, SeamsError
from seams.generators import hookspecs
from seams.generators.camunda7 import Camunda7Generator
from seams.generators.decisions import DecisionsGenerator
from seams.generators.stubs import StubsGenerator
from seams.generators.zeebe import ZeebeGenerator

if TYPE_CHECKING:
    from seams.model.loading import Model

BUILTINS: dict[str, type] = {"stubs": StubsGenerator, "decisions": DecisionsGenerator,
                              "zeebe": ZeebeGenerator, "camunda7": Camunda7Generator}
DEFAULT_BUILTINS: tuple[str, ...] = ("stubs", "decisions")
"""What runs without ``[generate] generators``: the worker generators (``zeebe``, ``camunda7``)
write code for one engine and run only when the project lists them."""


@dataclass(frozen=True)
class Outcome:
    """What one generator did: its files (relative to the generated dir) or what went wrong."""

    name: str
    files: Mapping[str, bytes]
    problem: str | None = None  # the fact at fault, without the generator's name


def installed_names() -> list[str]:
    """Names of the installed generator packages (entry points; nothing is imported)."""
    return sorted({ep.name for ep in metadata.entry_points(group=hookspecs.ENTRY_POINT_GROUP)})


def selected_names(configured: tuple[str, ...] | None) -> list[str]:
    """``[generate] generators`` in order (duplicates dropped), or the default built-ins."""
    return list(dict.fromkeys(configured)) if configured is not None else list(DEFAULT_BUILTINS)


def run(names: list[str], model: Model, out_dir: Path, *, source: str) -> list[Outcome]:
    """Load the generators ``names`` and call each on its own, in that order.

    An unknown name is a ProjectError naming it (``source``, the config, is
    at fault). Everything a generator can get wrong (its package does not
    import or validate, it raises, it returns something other than files) is
    that generator's Outcome problem, so one broken generator never hides
    what the others produce.
    """
    return Generators(names, source=source).run(model, out_dir)


@dataclass(frozen=True)
class PartsOutcome:
    """What one composable generator gave as parts (path -> {part key -> bytes}) or what went wrong."""

    name: str
    parts: Mapping[str, Mapping[str, bytes]]
    problem: str | None = None  # the fact at fault, without the generator's name


class Generators:
    """The generators ``names``, loaded once (an unknown name is a ProjectError naming ``source``)."""

    def __init__(self, names: list[str], *, source: str):
        self.names = list(names)
        self._manager, self._problems = _load(self.names, source)
        self._callers: dict[tuple[str, str], Any] = {}

    def run(self, model: Model, out_dir: Path) -> list[Outcome]:
        """Each generator's files for the whole model, in order (see :func:`run`)."""
        outcomes = []
        for name in self.names:
            files, problem = self._call(name, "seams_generate", _files_of, model, out_dir)
            outcomes.append(Outcome(name, files or {}, problem))
        return outcomes

    def composable(self, name: str) -> bool:
        """True when ``name`` loaded and implements both ``seams_generate_parts`` and ``seams_assemble``."""
        if name in self._problems or not self._manager.has_plugin(name):
            return False
        return all(any(impl.plugin_name == name for impl in getattr(self._manager.hook, hook).get_hookimpls())
                   for hook in _PART_HOOKS)

    def parts(self, model: Model, out_dir: Path) -> list[PartsOutcome]:
        """Each generator's parts for ``model`` (the whole model or one component's sub-model), in
        order. A generator that is not :meth:`composable`, that raises or that returns something
        other than parts has a problem instead, as in :meth:`run`."""
        outcomes = []
        for name in self.names:
            if name not in self._problems and not self.composable(name):
                outcomes.append(PartsOutcome(name, {}, _NOT_COMPOSABLE))
                continue
            parts, problem = self._call(name, "seams_generate_parts", _parts_of, model, out_dir)
            outcomes.append(PartsOutcome(name, parts or {}, problem))
        return outcomes

    def assemble(self, name: str, path: str, parts: Mapping[str, bytes]) -> bytes:
        """The file ``path`` of the composable generator ``name`` from ``parts`` (every component's
        parts of that path, merged: seams.generators.parts.merge_parts). Whatever goes wrong is a
        GeneratorError whose text is the problem, without the generator's name, as in an Outcome."""
        if not self.composable(name):
            raise GeneratorError(self._problems.get(name, _NOT_COMPOSABLE))
        try:
            results = self._hook(name, "seams_assemble")(path=path, parts=parts)
        except SeamsError as exc:
            raise GeneratorError(str(exc)) from None
        except Exception as exc:  # a generator's bug is reported, not a traceback
            raise GeneratorError(f"failed: {_reason(exc)}") from None
        if len(results) != 1 or not isinstance(results[0], bytes):
            raise GeneratorError(f"seams_assemble must return the bytes of {path}")
        return results[0]

    def _call(self, name: str, hook: str, convert: Callable[[list[Any]], Any], model: Model,
              out_dir: Path) -> tuple[Any, str | None]:
        """``convert`` of what the hook ``hook`` of ``name`` returns for ``model``, or its problem:
        its package's, a seams error it raised, or any other exception (a bug, not a traceback)."""
        if name in self._problems:
            return None, self._problems[name]
        try:
            return convert(self._hook(name, hook)(model=model, trig=model.trig_path, out_dir=out_dir)), None
        except SeamsError as exc:
            return None, str(exc)
        except Exception as exc:  # a generator's bug is reported, not a traceback
            return None, f"failed: {_reason(exc)}"

    def _hook(self, name: str, hook: str) -> Any:
        """The hook ``hook`` of the plugin ``name`` alone (built once per pair)."""
        if (name, hook) not in self._callers:
            others = [plugin for other, plugin in self._manager.list_name_plugin() if other != name]
            self._callers[name, hook] = self._manager.subset_hook_caller(hook, remove_plugins=others)
        return self._callers[name, hook]


_PART_HOOKS = ("seams_generate_parts", "seams_assemble")
_NOT_COMPOSABLE = "implements no seams_generate_parts and seams_assemble hooks (not composable)"


def _load(names: list[str], source: str) -> tuple[pluggy.PluginManager, dict[str, str]]:
    manager = pluggy.PluginManager(hookspecs.PROJECT_NAME)
    manager.add_hookspecs(hookspecs)
    problems: dict[str, str] = {}
    for name in names:
        if name in BUILTINS:
            manager.register(BUILTINS[name](), name=name)
            continue
        try:
            manager.load_setuptools_entrypoints(hookspecs.ENTRY_POINT_GROUP, name=name)
        except pluggy.PluginValidationError as exc:
            problems[name] = f"does not fit the seams hooks: {str(exc).strip().splitlines()[-1]}"
            continue
        except Exception as exc:  # an installed package's import can raise anything
            problems[name] = f"cannot load its package: {_reason(exc)}"
            continue
        if not manager.has_plugin(name):
            known = ", ".join([*BUILTINS, *installed_names()])
            raise ProjectError(f"{source}: generate.generators names unknown generator {name} (known: {known})")
    try:
        manager.check_pending()
    except pluggy.PluginValidationError as exc:  # pluggy's message ends with the plugin's repr
        problems[manager.get_name(exc.plugin) or "?"] = str(exc).split(" in plugin ")[0]
    implemented = {impl.plugin_name for impl in manager.hook.seams_generate.get_hookimpls()}
    for name in names:
        if name not in implemented:
            problems.setdefault(name, "implements no seams_generate hook")
    return manager, problems


def _files_of(results: list[Any]) -> dict[str, bytes]:
    if len(results) != 1 or not isinstance(results[0], Mapping):
        raise GeneratorError("seams_generate must return a mapping of path to bytes")
    files = {}
    for path, data in results[0].items():
        if not isinstance(path, str) or not isinstance(data, bytes):
            raise GeneratorError(f"seams_generate must map a str path to bytes, not {path!r} to {type(data).__name__}")
        files[path] = data
    return files


def _parts_of(results: list[Any]) -> dict[str, dict[str, bytes]]:
    if len(results) != 1 or not isinstance(results[0], Mapping):
        raise GeneratorError("seams_generate_parts must return a mapping of path to parts")
    parts: dict[str, dict[str, bytes]] = {}
    for path, file_parts in results[0].items():
        if not isinstance(path, str) or not isinstance(file_parts, Mapping):
            raise GeneratorError(f"seams_generate_parts must map a str path to its parts, not {path!r} to "
                                 f"{type(file_parts).__name__}")
        for key, data in file_parts.items():
            if not isinstance(key, str) or not isinstance(data, bytes):
                raise GeneratorError(f"seams_generate_parts must map each part key (str) of {path} to bytes, "
                                     f"not {key!r} to {type(data).__name__}")
        parts[path] = dict(file_parts)
    return parts


def _reason(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
