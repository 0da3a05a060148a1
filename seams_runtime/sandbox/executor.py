"""The executor: the process drafted code runs in (standard library only).

It is never imported by the judge: its text is handed to ``python -c`` inside
the sandbox, with a JSON config as its one argument. It first closes the ways
out that need its own hands (:func:`enter`): it sets the run's limits, builds
its root when the backend asks it to (the namespaces backend: read-only binds,
a size-limited ``/tmp``, ``pivot_root``), leaves every privilege (as root: the
run's own uid; in a user namespace of its making: uid 65534; no capabilities,
no new privileges), enters Landlock when asked, and installs a seccomp filter
(no socket, no namespace, no mount, no ptrace). Then it forks: this process
stays behind as a small supervisor (the PID namespace's init on the
namespaces backend), which ends when the judge's lifeline pipe closes or when
the worker ends -- and with it everything in the namespace; the worker, in a
session and process group of its own, moves the protocol onto private
descriptors (stdout and stdin then lead nowhere, so a ``print`` in drafted
code cannot corrupt it) and serves.

The worker answers requests, one JSON object per line: ``import`` a handler
module, call ``handle`` (binding calls go back to the judge as requests:
``binding`` asks whether a name is a binding, ``call`` asks for its reply),
or run a generator package's ``extract``. Whatever it sends is only data:
the judge checks it against its schema, decodes it into plain values and
judges them itself, so nothing drafted code does to this process reaches a
verdict.
"""

import ctypes
import importlib
import importlib.util
import json
import os
import select
import signal
import sys
import traceback
from collections.abc import Mapping
from datetime import date
from decimal import Decimal
from pathlib import Path

CONFIG = json.loads(sys.argv[1])
LINE_LIMIT = 16 << 20
TEXT_LIMIT, PATH_LIMIT, LIST_LIMIT, NAME_LIMIT = 4000, 4096, 10000, 200  # as the judge checks them
SANDBOX_UID = 65534
LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.syscall.restype = ctypes.c_long
MACHINE = os.uname().machine
PR_SET_PDEATHSIG, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, PR_CAP_AMBIENT = 1, 24, 38, 22, 47
CLONE_NEWUSER = 0x10000000
NEW_NAMESPACES = 0x10000000 | 0x20000000 | 0x40000000 | 0x08000000 | 0x04000000 | 0x02000000 | 0x00020000 | 0x80
MS_NOSUID, MS_NODEV, MS_BIND, MS_REC, MS_PRIVATE = 2, 4, 4096, 16384, 1 << 18
MOUNT_ATTR_RDONLY, MOUNT_ATTR_NOSUID, AT_RECURSIVE = 1, 2, 0x8000
SYSCALLS: dict[str, dict] = {  # the numbers this file calls by number, and those its seccomp filter refuses
    "x86_64": {"pivot_root": 155, "mount_setattr": 442, "landlock_create_ruleset": 444,
               "landlock_add_rule": 445, "landlock_restrict_self": 446, "capset": 126,
               "refused": [41, 42, 43, 49, 50, 53, 288,  # socket connect accept bind listen socketpair accept4
                           101, 310, 311, 312,  # ptrace process_vm_readv/writev kcmp
                           165, 166, 155, 161, 272, 308,  # mount umount2 pivot_root chroot unshare setns
                           428, 429, 430, 431, 432, 433, 442,  # open_tree move_mount fs* mount_setattr
                           321, 298, 250, 248, 249, 323, 425, 426, 427,  # bpf perf keys userfaultfd io_uring
                           246, 320, 175, 313, 176, 163, 167, 168, 169, 170, 171, 172, 173, 179, 303, 304],
               "clone": 56, "clone3": 435, "arch": 0xC000003E},
    "aarch64": {"pivot_root": 41, "mount_setattr": 442, "landlock_create_ruleset": 444,
                "landlock_add_rule": 445, "landlock_restrict_self": 446, "capset": 91,
                "refused": [198, 203, 202, 200, 201, 199, 242, 117, 270, 271, 272, 40, 39, 41, 51, 97, 268,
                            428, 429, 430, 431, 432, 433, 442, 280, 241, 219, 217, 218, 282, 425, 426, 427,
                            104, 294, 105, 273, 106, 89, 224, 225, 142, 161, 162, 60, 264, 265],
                "clone": 220, "clone3": 435, "arch": 0xC00000B7},
}


def check(result, what):
    if result != 0:
        raise OSError(ctypes.get_errno(), f"{what}: {os.strerror(ctypes.get_errno())}")


def enter():
    """Everything between the backend's namespaces and the first line of drafted code."""
    import resource

    os.umask(0o022)
    limits = CONFIG["limits"]
    confined = CONFIG.get("seccomp", False)
    rlimits = {"RLIMIT_CPU": limits["cpu"], "RLIMIT_AS": limits["memory"], "RLIMIT_FSIZE": limits["disk"],
               "RLIMIT_CORE": 0, "RLIMIT_NOFILE": limits["files"]}
    if confined:  # the run's own uid or user namespace: its processes are the run's processes
        rlimits["RLIMIT_NPROC"] = limits["processes"]
    for name, value in rlimits.items():
        resource.setrlimit(getattr(resource, name), (value, value))
    if CONFIG.get("root"):
        build_root(CONFIG["root"], limits)
    drop_privileges()
    if CONFIG.get("landlock"):
        landlock(CONFIG["landlock"])
    if confined:
        seccomp()


def mount(source, target, fstype, flags, data=None):
    code = [None if v is None else os.fsencode(v) for v in (source, target, fstype, data)]
    check(LIBC.mount(code[0], code[1], code[2], ctypes.c_ulong(flags), code[3]), f"mount {target}")


def mount_setattr(path, flags, set_=0, clear=0):
    attr = (ctypes.c_uint64 * 4)(set_, clear, 0, 0)
    number = SYSCALLS[MACHINE]["mount_setattr"]
    check(LIBC.syscall(number, -100, os.fsencode(path), flags, ctypes.byref(attr), 32), f"mount_setattr {path}")


def build_root(spec, limits):
    """Bubblewrap's root, by hand: what ``view`` lists bound read-only at its own path on a
    fresh tmpfs, ``/proc``, ``/tmp`` a tmpfs of the run's disk size; then ``pivot_root``."""
    new = spec["new"]
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    mount("tmpfs", new, "tmpfs", MS_NOSUID | MS_NODEV, "size=4m,nr_inodes=4096,mode=0755")
    os.makedirs(new + "/tmp", exist_ok=True)
    owner = int(spec["owner"])
    mount("tmpfs", new + "/tmp", "tmpfs", MS_NOSUID | MS_NODEV,  # first: binds may lie inside
          f"size={limits['disk']},nr_inodes={limits['inodes']},mode=0700,uid={owner},gid={owner}")
    for target, path in spec["links"]:
        os.makedirs(os.path.dirname(new + path), exist_ok=True)
        os.symlink(target, new + path)
    for source, path in spec["binds"]:
        where = new + path
        if os.path.isdir(source):
            os.makedirs(where, exist_ok=True)
        else:
            os.makedirs(os.path.dirname(where), exist_ok=True)
            open(where, "a").close()
        mount(source, where, None, MS_BIND | MS_REC)
    os.makedirs(new + "/proc", exist_ok=True)
    mount("/proc", new + "/proc", None, MS_BIND | MS_REC)  # the fresh /proc of this PID namespace
    mount_setattr(new, AT_RECURSIVE, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID)
    for writable in ("/tmp", "/proc"):  # /proc: a user namespace's maps are written there; Landlock closes it
        mount_setattr(new + writable, 0, clear=MOUNT_ATTR_RDONLY)
    os.chdir(new)
    check(LIBC.syscall(SYSCALLS[MACHINE]["pivot_root"], b".", b"."), "pivot_root")
    check(LIBC.umount2(b".", 2), "umount the old root")  # MNT_DETACH
    os.chdir("/")


def drop_privileges():
    """No privilege left: as root the run's own uid; in a user namespace the executor made,
    uid 65534 there; no capability in any set, none to regain (bounding set, no_new_privs)."""
    uid = CONFIG.get("uid")
    bounding()
    if uid is not None and os.getuid() == 0:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    elif CONFIG.get("userns"):
        check(LIBC.unshare(CLONE_NEWUSER), "unshare a user namespace")
        for name, text in (("setgroups", "deny"), ("uid_map", f"{SANDBOX_UID} 0 1"), ("gid_map", f"{SANDBOX_UID} 0 1")):
            with open(f"/proc/self/{name}", "w") as out:
                out.write(text)
        bounding()
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
    data = (ctypes.c_uint32 * 6)()  # effective, permitted, inheritable: nothing, both words
    check(LIBC.syscall(SYSCALLS[MACHINE]["capset"], ctypes.byref(header), ctypes.byref(data)), "capset")
    LIBC.prctl(PR_CAP_AMBIENT, 4, 0, 0, 0)  # PR_CAP_AMBIENT_CLEAR_ALL
    check(LIBC.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")


def bounding():
    """Empty the capability bounding set, as far as this process may (nothing exec'd regains one)."""
    for cap in range(64):
        LIBC.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)


def seccomp():
    """A classic BPF filter: the system calls in ``refused`` fail with EPERM (sockets of every
    family, so no Unix socket file or abstract name outside is reachable; namespaces, mounts,
    ptrace, keys, io_uring), ``clone`` with a namespace flag too, ``clone3`` with ENOSYS (the
    C library then uses ``clone``), another architecture's calls kill the process."""
    table = SYSCALLS.get(MACHINE)
    if table is None:
        raise OSError(0, f"no seccomp filter for {MACHINE}")
    allow, kill, eperm, enosys = 0x7FFF0000, 0x80000000, 0x00050000 | 1, 0x00050000 | 38
    load, jeq, jge, jset, ret = 0x20, 0x15, 0x35, 0x45, 0x06
    program = [(load, 0, 0, 4), (jeq, 1, 0, table["arch"]), (ret, 0, 0, kill), (load, 0, 0, 0)]
    if MACHINE == "x86_64":
        program += [(jge, 0, 1, 0x40000000), (ret, 0, 0, eperm)]  # the x32 ABI
    for number in table["refused"]:
        program += [(jeq, 0, 1, number), (ret, 0, 0, eperm)]
    program += [(jeq, 0, 1, table["clone3"]), (ret, 0, 0, enosys),
                (jeq, 0, 3, table["clone"]), (load, 0, 0, 16), (jset, 0, 1, NEW_NAMESPACES), (ret, 0, 0, eperm),
                (ret, 0, 0, allow)]

    class Filter(ctypes.Structure):
        _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]

    class Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(Filter))]

    filters = (Filter * len(program))(*[Filter(code, jt, jf, k) for code, jt, jf, k in program])
    check(LIBC.prctl(PR_SET_SECCOMP, 2, ctypes.byref(Program(len(program), filters)), 0, 0), "seccomp")


def landlock(rules):
    """Only ``read`` paths readable (and executable), ``list`` directories listed (their
    entries' names, nothing read), only ``write`` paths writable."""
    syscall = LIBC.syscall
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

    listing = 1 << 3  # read_dir
    for paths, access in ((rules.get("read", []), read), (rules.get("list", []), listing),
                          (rules.get("write", []), everything)):
        for path in paths:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            allowed = access if os.path.isdir(path) else access & ((1 << 0) | (1 << 1) | (1 << 2) | (1 << 14))
            rule = PathBeneath(allowed & everything, fd)
            if not rule.allowed_access:  # a file named where only directories are listed
                os.close(fd)
                continue
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
    return cut(f"{type(exc).__name__}: {exc}", 1900) + where


def cut(text, limit=TEXT_LIMIT):
    """``text`` within the judge's size check for it (channel.SCHEMAS)."""
    text = str(text)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def names(values, limit=TEXT_LIMIT):
    """Distinct strings, each within the judge's size check, at most LIST_LIMIT of them."""
    return [cut(v, limit) for v in dict.fromkeys(map(str, values))][:LIST_LIMIT]


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
        answer = self._channel.ask({"op": "binding", "name": cut(name, NAME_LIMIT)})
        if "error" in answer:
            raise ERRORS.get(answer.get("type"), RuntimeError)(answer["error"])
        channel = self._channel

        def call(*args, **kwargs):
            answer = channel.ask({"op": "call", "name": cut(name, NAME_LIMIT), "args": encode(list(args)),
                                  "kwargs": encode(dict(kwargs)) if all(type(k) is str and len(k) <= NAME_LIMIT
                                                                        for k in kwargs) else {}})
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
    return {"op": "extracted", "view": encode(view), "reads": names(reads, PATH_LIMIT),
            "sources": names(sources, PATH_LIMIT), "library": names(library, PATH_LIMIT),
            "output": output if isinstance(output, str) else encode(output)}


def serve(channel):
    handle = None
    while True:
        request = channel.receive()
        op = request.get("op")
        if op == "import":
            sys.path[:0] = [p for p in request.get("path", []) if p not in sys.path]
            handle, problems = import_handler(request)
            channel.send({"op": "imported", "problems": [[cut(p), cut(m)] for p, m in problems]})
        elif op == "handle":
            inputs = Inputs(decode(request["given"]), request["declared"])
            try:
                if handle is None:
                    raise RuntimeError("no handler was imported")
                result = handle(inputs, Bindings(channel))
                channel.send({"op": "returned", "value": encode(result), "undeclared": names(inputs.undeclared)})
            except BaseException as exc:
                code = getattr(exc, "error_code", None)  # a BPMN error (docs/model.md, "Declared errors")
                channel.send({"op": "raised", "description": describe(exc), "undeclared": names(inputs.undeclared),
                              "error_code": code[:200] if isinstance(code, str) and code else None})
        elif op == "extract":
            try:
                channel.send(run_extract(request))
            except BaseException as exc:
                channel.send({"op": "failed", "description": cut(f"{type(exc).__name__}: {exc}"),
                              "details": cut("".join(traceback.format_exception(exc, limit=-8)), 16 * TEXT_LIMIT)})
        else:
            return


def supervise(worker, lifeline):
    """Stay until the worker ends (then end with its status) or the judge's lifeline closes
    (then end at once): on the namespaces backend this process is the PID namespace's init,
    and its end ends every process the drafted code started, daemons included."""
    LIBC.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE: its /proc entries are not the worker's to read
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE):
        signal.signal(number, signal.SIG_IGN)
    while True:
        if lifeline is not None:
            readable, _, _ = select.select([lifeline], [], [], 0.2)
            if readable and not os.read(lifeline, 1):
                os._exit(137)
        else:
            select.select([], [], [], 0.2)
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                os._exit(1)
            if pid == 0:
                break
            if pid == worker:
                os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))


def main():
    channel = Channel()
    try:
        enter()
    except Exception as exc:
        channel.send({"op": "refused", "description": cut(f"the sandbox could not be entered: {describe(exc)}")})
        return
    lifeline = CONFIG.get("lifeline")
    worker = os.fork()
    if worker:
        channel.inp.close()
        channel.out.close()
        supervise(worker, lifeline)
    os.setsid()  # its own session and process group: a kill(0, ...) reaches only the draft's processes
    LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if lifeline is not None:
        os.close(lifeline)
    os.chdir(CONFIG.get("cwd") or "/")
    sys.path[:0] = [p for p in CONFIG.get("path", []) if p not in sys.path]
    channel.send({"op": "ready", "uid": os.getuid()})
    try:
        serve(channel)
    finally:
        channel.out.flush()
    os._exit(0)


main()
