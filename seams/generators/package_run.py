"""Running a generator package's extract and render from its source tree.

The golden items of ``pytest_seams`` judge a package before it is
installed (and ``seams draft-generator`` judges drafted code), so the package
is imported from its directory under a fresh module name, with its root on
``sys.path`` only while it runs; nothing it imports stays behind to leak into
the next session. Reads are recorded with an audit hook (every ``open``,
whatever API made it), so "sources name the files" is checked against what
extract really read, not what it claims.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

_LOADS = itertools.count()
_recording: list[list[str]] = []
_hook_lock = threading.Lock()
_hook_installed = False
_READ_MODES = (os.O_RDONLY, os.O_RDWR)
_ACCESS_MASK = getattr(os, "O_ACCMODE", 3)
_SYSTEM_DIRS = ("/dev", "/proc", "/sys", "/etc", "/usr", "/lib", "/lib64", "/bin", "/sbin")
_MODULE_SUFFIXES = (".py", ".pyc", ".pyi", ".pyd", ".so", ".pth")


@dataclass(frozen=True)
class Rendered:
    output: str
    reads: tuple[Path, ...]  # files extract opened for reading, Python's own files left out
    sources: tuple[Path, ...]  # what the package's sources(trig) names, resolved


@contextmanager
def loaded_package(root: Path, package_dir: Path) -> Iterator[ModuleType]:
    """The package at ``package_dir`` imported under a unique name, ``root`` on sys.path meanwhile."""
    unique = f"_seams_golden_{package_dir.name}_{os.getpid()}_{next(_LOADS)}"
    before = set(sys.modules)
    spec = importlib.util.spec_from_file_location(
        unique, package_dir / "__init__.py", submodule_search_locations=[str(package_dir)])
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {package_dir}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[unique] = module
    sys.path.insert(0, str(root))
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.path.remove(str(root))
        for name in set(sys.modules) - before:
            ours = name == unique or name.startswith(f"{unique}.")
            if ours or _under(getattr(sys.modules[name], "__file__", None), root):
                del sys.modules[name]


def _under(file: str | None, root: Path) -> bool:
    return file is not None and Path(file).resolve().is_relative_to(root.resolve())


def render_package(module: ModuleType, trig: Path, out: Path) -> Rendered:
    """extract (reads recorded), render, sources: what the four golden items judge."""
    with _recorded_reads() as reads:
        view = module.extract(trig, out)
    output = module.render(view)
    if not isinstance(output, str):
        raise TypeError(f"render returned {type(output).__name__}, not str")
    sources = tuple(Path(p).resolve() for p in module.sources(trig))
    model_dir = Path(trig).resolve().parent
    library = _library_dirs(Path(module.__file__ or ".").parent, model_dir)
    seen = dict.fromkeys(Path(p).resolve() for p in reads)
    return Rendered(output, tuple(p for p in seen if not _is_library_file(p, library, model_dir)), sources)


_CHILD = """
import importlib.util, sys
from pathlib import Path
root, package_dir, trig, out = sys.argv[1:5]
sys.path.insert(0, root)
spec = importlib.util.spec_from_file_location("_seams_golden_child", Path(package_dir) / "__init__.py",
                                              submodule_search_locations=[package_dir])
module = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = module
spec.loader.exec_module(module)
sys.stdout.buffer.write(module.render(module.extract(Path(trig), Path(out))).encode("utf-8"))
"""


def render_in_child(root: Path, package_dir: Path, trig: Path, out: Path, *, timeout: float = 120) -> str:
    """Render in a fresh interpreter with another hash seed: set and dict orders that
    depend on string hashing change there, so output that depends on them shows."""
    seed = "1" if os.environ.get("PYTHONHASHSEED") == "0" else "0"
    env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run([sys.executable, "-c", _CHILD, str(root), str(package_dir), str(trig), str(out)],
                          capture_output=True, env=env, timeout=timeout, check=False)
    if done.returncode != 0:
        tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no message"]
        raise RuntimeError(f"a fresh interpreter could not render: {tail[0]}")
    return done.stdout.decode("utf-8")


@contextmanager
def _recorded_reads() -> Iterator[list[str]]:
    _install_hook()
    reads: list[str] = []
    _recording.append(reads)
    try:
        yield reads
    finally:
        _recording.remove(reads)


def _install_hook() -> None:
    """Audit hooks cannot be removed, so one is installed per process and is idle
    (one comparison per event) while nothing records."""
    global _hook_installed
    with _hook_lock:
        if not _hook_installed:
            sys.addaudithook(_audit)
            _hook_installed = True


def _audit(event: str, args: tuple) -> None:
    if event != "open" or not _recording:
        return
    path, mode, flags = args
    if not isinstance(path, (str, bytes, os.PathLike)):
        return  # an already open descriptor
    reading = ("r" in mode or "+" in mode) if isinstance(mode, str) else ((flags or 0) & _ACCESS_MASK) in _READ_MODES
    if reading:
        _recording[-1].append(os.path.abspath(os.fsdecode(path)))


def _library_dirs(package_dir: Path, model_dir: Path) -> tuple[Path, ...]:
    """Where Python and its libraries keep their files: the system directories, the
    interpreter's prefixes, the directories of the packages imported so far and the
    generator package itself; never one that holds the model."""
    dirs = {Path(p).resolve() for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)}
    dirs |= {Path(system) for system in _SYSTEM_DIRS}
    for module in list(sys.modules.values()):
        for entry in getattr(module, "__path__", None) or ():
            if isinstance(entry, str) and os.path.isabs(entry):
                dirs.add(Path(entry).resolve())
    dirs.add(package_dir.resolve())
    return tuple(d for d in dirs if not model_dir.is_relative_to(d))


def _is_library_file(path: Path, library: tuple[Path, ...], model_dir: Path) -> bool:
    if path.suffix in _MODULE_SUFFIXES or any(part.endswith((".dist-info", ".egg-info")) for part in path.parts):
        return True
    return not path.is_relative_to(model_dir) and any(path.is_relative_to(d) for d in library)


# ---------------------------------------------------------------- judging a package without running it here


def is_scaffold_package(package_dir: Path) -> bool:
    """True when the package module ends with the scaffold's render-and-register part
    (every package ``seams new-generator`` or ``seams draft-generator`` writes): its
    render is then known, and the judge can render the template itself."""
    from seams.generators.package import _TAIL

    try:
        text = (Path(package_dir) / "__init__.py").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return text.endswith(_TAIL)


def render_in_judge(templates: Path, template: str, view: object) -> str:
    """The scaffold's render, done by the judge with Jinja's SandboxedEnvironment: the
    same delimiters and settings as ``environment()`` of a scaffolded package, so the
    template (drafted text) can reach no attribute or call Jinja's sandbox refuses."""
    import jinja2
    from jinja2.sandbox import SandboxedEnvironment

    environment = SandboxedEnvironment(
        loader=jinja2.FileSystemLoader(templates),
        variable_start_string="[[", variable_end_string="]]",
        block_start_string="[%", block_end_string="%]",
        comment_start_string="[#", comment_end_string="#]",
        undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
        autoescape=jinja2.select_autoescape(("html", "xml", "bpmn", "dmn"), default_for_string=False),
    )
    return environment.get_template(template).render(view if isinstance(view, dict) else {})


def rendered_from_run(run: dict, output: str, trig: Path, package_dir: Path, code_dir: Path) -> Rendered:
    """A sandboxed run (:meth:`seams_runtime.sandbox.channel.Executor.extract`) as the
    golden items judge it: the files extract read, Python's and the package's own left out."""
    model_dir = Path(trig).resolve().parent
    library = tuple({*(Path(p) for p in run["library"]), *_library_dirs(Path(package_dir), model_dir),
                     Path(code_dir).resolve()})
    library = tuple(d for d in library if not model_dir.is_relative_to(d))
    seen = dict.fromkeys(Path(p) for p in run["reads"])
    return Rendered(output, tuple(p for p in seen if not _is_library_file(p, library, model_dir)),
                    tuple(Path(p) for p in run["sources"]))
