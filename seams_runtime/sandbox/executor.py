"""The executor: the process drafted code runs in (standard library only).

It is never imported by the judge: its text is handed to ``python -I -c``
inside the sandbox, with a JSON config as its one argument. It first closes
the ways out that need its own hands: as root it drops to the sandbox user
(no capabilities, no new privileges), sets CPU, memory, file-size and
process limits, enters Landlock when the backend asks for it, and moves the
protocol onto private descriptors (stdout and stdin then lead nowhere, so
a ``print`` in drafted code cannot corrupt it).

Then it answers requests, one JSON object per line: ``import`` a handler
module, call ``handle`` (binding calls go back to the judge as requests:
``binding`` asks whether a name is a binding, ``call`` asks for its reply),
or run a generator package's ``extract``. Whatever it sends is only data:
the judge decodes it into plain values and judges them itself, so nothing
drafted code does to this process reaches a verdict.
"""

import ctypes
import importlib
import importlib.util
import json
import os
import sys
import traceback
from collections.abc import Mapping
from datetime import date
from decimal import Decimal
from pathlib import Path

CONFIG = json.loads(sys.argv[1])
LINE_LIMIT = 16 << 20


def drop_privileges():
    import resource

    limits = {"RLIMIT_CPU": CONFIG["cpu"], "RLIMIT_AS": CONFIG["memory"],
              "RLIMIT_FSIZE": 64 << 20, "RLIMIT_CORE": 0}
    if CONFIG.get("uid") is not None:
        limits["RLIMIT_NPROC"] = 512
    for name, value in limits.items():
        resource.setrlimit(getattr(resource, name), (value, value))
    libc = ctypes.CDLL(None, use_errno=True)
    uid = CONFIG.get("uid")
    if uid is not None and os.getuid() == 0:
        for cap in range(64):  # PR_CAPBSET_DROP: nothing exec'd later regains a capability
            libc.prctl(24, cap, 0, 0, 0)
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
    if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
        raise OSError(ctypes.get_errno(), "no_new_privs")
    if CONFIG.get("landlock"):
        landlock(libc, CONFIG["landlock"])


def landlock(libc, rules):
    """Only ``read`` paths readable (and executable), only ``write`` paths writable."""
    syscall = libc.syscall
    syscall.restype = ctypes.c_long
    abi = syscall(444, None, 0, 1)  # landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION)
    if abi < 1:
        raise OSError(ctypes.get_errno(), "Landlock is not available")
    everything = (1 << 13) - 1  # ABI 1: execute .. make_sym
    if abi >= 2:
        everything |= 1 << 13  # refer
    if abi >= 3:
        everything |= 1 << 14  # truncate
    read = (1 << 0) | (1 << 2) | (1 << 3)  # execute, read_file, read_dir
    attr = (ctypes.c_uint64 * 1)(everything)
    ruleset = syscall(444, ctypes.byref(attr), ctypes.sizeof(attr), 0)
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset")

    class PathBeneath(ctypes.Structure):
        _pack_ = 1
        _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]

    for paths, access in ((rules.get("read", []), read), (rules.get("write", []), everything)):
        for path in paths:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            allowed = access if os.path.isdir(path) else access & ((1 << 0) | (1 << 1) | (1 << 2) | (1 << 14))
            rule = PathBeneath(allowed & everything, fd)
            if syscall(445, ruleset, 1, ctypes.byref(rule), 0) != 0:
                raise OSError(ctypes.get_errno(), f"landlock_add_rule {path}")
            os.close(fd)
    if syscall(446, ruleset, 0) != 0:
        raise OSError(ctypes.get_errno(), "landlock_restrict_self")
    os.close(ruleset)


# ---------------------------------------------------------------- values as JSON


def encode(value, depth=0):
    if depth > 64:
        return {"$seams:opaque": "a value nested deeper than 64"}
    if value is None or type(value) is bool:
        return value
    if isinstance(value, str):  # a subclass (a str Enum, say) crosses as its plain text
        return str.__str__(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return int.__int__(value)
    if isinstance(value, float):
        value = float.__float__(value)
        return value if value == value and value not in (float("inf"), float("-inf")) else {"$seams:float": repr(value)}
    if type(value) is Decimal:
        return {"$seams:decimal": str(value)}
    if type(value) is date:
        return {"$seams:date": value.isoformat()}
    if type(value) in (list, tuple):
        return [encode(v, depth + 1) for v in value]
    if type(value) is dict and all(type(k) is str for k in value):
        return {k: encode(v, depth + 1) for k, v in value.items()}
    if isinstance(value, Mapping):
        try:
            return {"$seams:mapping": [[encode(k, depth + 1), encode(value[k], depth + 1)] for k in value]}
        except Exception as exc:
            return {"$seams:opaque": f"a {type(value).__name__} that could not be read: {describe(exc)}"}
    return {"$seams:opaque": f"{type(value).__name__} {object.__repr__(value)[:100]}"}


def decode(value):
    if isinstance(value, list):
        return [decode(v) for v in value]
    if isinstance(value, dict):
        if len(value) == 1:
            (key, inner), = value.items()
            if key == "$seams:decimal":
                return Decimal(inner)
            if key == "$seams:date":
                return date.fromisoformat(inner)
        return {k: decode(v) for k, v in value.items()}
    return value


# ---------------------------------------------------------------- the protocol

def describe(exc):
    """``Type: message (file.py:line)``, the line in the innermost frame of drafted code."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename != "<string>"]
    where = f" ({os.path.basename(frames[-1].filename)}:{frames[-1].lineno})" if frames else ""
    return f"{type(exc).__name__}: {exc}{where}"


class Channel:
    def __init__(self):
        self.inp = os.fdopen(os.dup(0), "r", encoding="utf-8")
        self.out = os.fdopen(os.dup(1), "w", encoding="utf-8")
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(2, 1)
        os.close(null)

    def send(self, message):
        self.out.write(json.dumps(message, ensure_ascii=False) + "\n")
        self.out.flush()

    def receive(self):
        line = self.inp.readline(LINE_LIMIT)
        if not line:
            raise SystemExit(0)
        return json.loads(line)

    def ask(self, message):
        self.send(message)
        return self.receive()


class Inputs(Mapping):
    def __init__(self, values, declared):
        self._declared = tuple(declared)
        self._values = dict(values)
        self.undeclared = []

    def _allowed(self, key):
        if key not in self._declared:
            self.undeclared.append(key)
            return False
        return True

    def __getitem__(self, key):
        if not self._allowed(key):
            raise KeyError(f"{key!r} is not an input of this task (declared: "
                           f"{', '.join(self._declared) or 'none'})")
        return self._values[key]

    def __contains__(self, key):
        return self._allowed(key) and key in self._values

    def get(self, key, default=None):
        return self[key] if key in self else default

    def __iter__(self):
        return iter(self._values)

    def __len__(self):
        return len(self._values)

    def __repr__(self):
        return f"Inputs({self._values!r})"


ERRORS = {"AttributeError": AttributeError, "LookupError": LookupError}


class Bindings:
    """Each attribute is asked of the judge, each call answered by it."""

    def __init__(self, channel):
        self._channel = channel

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        answer = self._channel.ask({"op": "binding", "name": name})
        if "error" in answer:
            raise ERRORS.get(answer.get("type"), RuntimeError)(answer["error"])
        channel = self._channel

        def call(*args, **kwargs):
            answer = channel.ask({"op": "call", "name": name, "args": encode(list(args)),
                                  "kwargs": encode(dict(kwargs)) if all(type(k) is str for k in kwargs) else {}})
            if "error" in answer:
                raise ERRORS.get(answer.get("type"), RuntimeError)(answer["error"])
            return decode(answer["value"])

        return call


def _missing(module, where):
    """The handler module is missing: say so, and how to get one."""
    handler = module.rpartition(".")[2]
    return (f"handler module {module} not found ({where}); run seams propose {handler}, "
            f"or write it from its stub (stubs/{handler}.py in the generated directory)")


def import_handler(request):
    module, where = request["module"], request["where"]
    package = module.partition(".")[0]
    for name in [n for n in sys.modules if n == package or n.startswith(package + ".")]:
        del sys.modules[name]
    importlib.invalidate_caches()
    try:
        loaded = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name in (module, package):
            return None, [["seam:handler", _missing(module, where)]]
        return None, [["seam:handler", f"importing {module} failed: {describe(exc)}"]]
    except (Exception, SystemExit) as exc:
        return None, [["seam:handler", f"importing {module} failed: {describe(exc)}"]]
    if not callable(getattr(loaded, "handle", None)):
        return None, [["seam:handler", f"{where} defines no handle(inputs, bindings)"]]
    return loaded.handle, []


def run_extract(request):
    """A generator package's extract (reads recorded) and sources, from its directory."""
    root, package_dir = request["root"], Path(request["package_dir"])
    reads: list = []

    def audit(event, args):
        if event == "open" and recording:
            path, mode, flags = args
            if isinstance(path, (str, bytes, os.PathLike)):
                reading = ("r" in mode or "+" in mode) if isinstance(mode, str) else ((flags or 0) & 3) in (0, 2)
                if reading:
                    reads.append(os.path.abspath(os.fsdecode(path)))

    recording = False
    sys.addaudithook(audit)
    sys.path.insert(0, root)
    spec = importlib.util.spec_from_file_location(
        "_seams_golden_" + package_dir.name, package_dir / "__init__.py",
        submodule_search_locations=[str(package_dir)])
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {package_dir}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    out = Path(os.getcwd()) / "out"
    out.mkdir(exist_ok=True)
    recording = True
    view = module.extract(Path(request["trig"]), out)
    recording = False
    output = module.render(view) if request.get("render") else None
    sources = [str(Path(p).resolve()) for p in module.sources(Path(request["trig"]))]
    library = sorted({str(Path(e).resolve()) for m in list(sys.modules.values())
                      for e in (getattr(m, "__path__", None) or ()) if isinstance(e, str) and os.path.isabs(e)})
    return {"op": "extracted", "view": encode(view), "reads": reads, "sources": sources, "library": library,
            "output": output if isinstance(output, str) else encode(output)}


def serve(channel):
    handle = None
    while True:
        request = channel.receive()
        op = request.get("op")
        if op == "import":
            sys.path[:0] = [p for p in request.get("path", []) if p not in sys.path]
            handle, problems = import_handler(request)
            channel.send({"op": "imported", "problems": problems})
        elif op == "handle":
            inputs = Inputs(decode(request["given"]), request["declared"])
            try:
                if handle is None:
                    raise RuntimeError("no handler was imported")
                result = handle(inputs, Bindings(channel))
                channel.send({"op": "returned", "value": encode(result), "undeclared": inputs.undeclared})
            except BaseException as exc:
                channel.send({"op": "raised", "description": describe(exc), "undeclared": inputs.undeclared})
        elif op == "extract":
            try:
                channel.send(run_extract(request))
            except BaseException as exc:
                channel.send({"op": "failed", "description": f"{type(exc).__name__}: {exc}",
                              "details": "".join(traceback.format_exception(exc, limit=-8))})
        else:
            return


def main():
    channel = Channel()
    try:
        drop_privileges()
    except Exception as exc:
        channel.send({"op": "refused", "description": f"the sandbox could not be entered: {describe(exc)}"})
        return
    os.chdir(CONFIG.get("cwd") or "/")
    sys.path[:0] = [p for p in CONFIG.get("path", []) if p not in sys.path]
    channel.send({"op": "ready", "uid": os.getuid()})
    serve(channel)


main()
