"""The same sandbox whatever the backend and the user (issue 27): each attack a drafted
handler made on main, as root on the namespaces + Landlock backend or as anyone, tried
again on every backend that works here. CI runs this module as root and again as an
unprivileged user (.ci/run), so each attack is tried four ways where both backends work.

Each test drafts a handler that tries the attack and reports what it got as plain data;
the host side checks that nothing outside the sandbox changed and nothing is left running.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import uuid
from decimal import Decimal
from pathlib import Path

import pytest
from sandbox_backends import CONFINING, backend, handlers, unix_listener

from seams_runtime.handler_checks import Bindings, Inputs
from seams_runtime.sandbox import RUN_UIDS, SANDBOX_UID
from seams_runtime.sandbox.channel import Executor, ExecutorGone

pytestmark = pytest.mark.parametrize("name", CONFINING)


def run(name: str, tmp_path: Path, body: str, *, read=(), limit=None, given=None):
    """``handle`` with ``body`` as its body, run once in backend ``name``: what it returned."""
    package = handlers(tmp_path, draft="import os, sys, time, socket, signal, json\n\n"
                                       "def handle(inputs, bindings):\n" + body)
    with Executor([(package, "handlers")], sandbox=backend(name), read=read, limit=limit) as executor:
        handle, problems = executor.import_handler("handlers.draft", "handlers/draft.py")
        assert problems == []
        return handle(Inputs(given or {}, list(given or ())), Bindings([], {}))


STATUS = '''
    status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines())
    return {"uid": os.getuid(), "euid": os.geteuid(), "gid": os.getgid(), "groups": os.getgroups(),
            "pid": os.getpid(), "caps": [int(status[k].strip(), 16) for k in ("CapInh", "CapPrm", "CapEff",
                                                                                 "CapBnd", "CapAmb")],
            "no_new_privs": status["NoNewPrivs"].strip(), "seccomp": status["Seccomp"].strip()}
'''


def test_drafted_code_runs_unprivileged(name, tmp_path):
    seen = run(name, tmp_path, STATUS)
    if os.geteuid() == 0:
        assert seen["uid"] in RUN_UIDS and seen["euid"] == seen["uid"] and seen["gid"] == seen["uid"]
    else:
        assert seen["uid"] == seen["euid"] == SANDBOX_UID
    assert seen["groups"] in ([], [seen["gid"]])
    assert seen["caps"] == [0, 0, 0, 0, 0]
    assert seen["no_new_privs"] == "1" and seen["seccomp"] == "2"
    assert seen["pid"] != 1  # never its namespace's init: the supervisor is


@pytest.fixture
def listeners(tmp_path):
    """A Unix socket file anyone may connect to, an abstract one and a TCP one on loopback,
    each recording what reaches it."""
    sockets = tmp_path / "sockets"
    sockets.mkdir()
    path = str(sockets / "listener.sock")
    unix = unix_listener(sockets / "listener.sock")
    abstract = socket.socket(socket.AF_UNIX)
    abstract_name = f"\0seams-test-{uuid.uuid4().hex}"
    abstract.bind(abstract_name)
    tcp = socket.socket()
    tcp.bind(("127.0.0.1", 0))
    for server in (abstract, tcp):
        server.listen(4)
        server.setblocking(False)
    yield {"dir": sockets, "path": path, "abstract": abstract_name, "port": tcp.getsockname()[1],
           "servers": (unix, abstract, tcp)}
    for server in (unix, abstract, tcp):
        server.close()


def reached(servers) -> list:
    got = []
    for server in servers:
        try:
            got.append(server.accept())
        except BlockingIOError:
            pass
    return got


def test_no_socket_reaches_outside(name, tmp_path, listeners):
    body = f'''
    tried = {{}}
    for label, family, address in (("unix", socket.AF_UNIX, {listeners["path"]!r}),
                                   ("abstract", socket.AF_UNIX, {listeners["abstract"]!r}),
                                   ("tcp", socket.AF_INET, ("127.0.0.1", {listeners["port"]})),
                                   ("dgram", None, None)):
        try:
            if family is None:
                left, right = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
                left.connect({listeners["path"]!r})
            else:
                client = socket.socket(family)
                client.connect(address)
                client.sendall(b"every example's inputs")
            tried[label] = "connected"
        except OSError as exc:
            tried[label] = "denied: " + type(exc).__name__
    return tried
'''
    tried = run(name, tmp_path, body, read=[listeners["dir"]])
    assert all(v.startswith("denied") for v in tried.values()), tried
    assert reached(listeners["servers"]) == []


def test_no_metadata_change_outside_its_scratch(name, tmp_path):
    project = tmp_path / "victim"
    (project / "handlers").mkdir(parents=True)
    model = project / "model.trig"
    model.write_text("# the model\n")
    binary = project / "tool"
    binary.write_bytes(b"#!/bin/sh\n")
    binary.chmod(0o755)
    targets = [project, project / "handlers", model, binary, Path(sys.executable).resolve()]
    before = {str(t): (t.stat().st_mode, t.stat().st_uid, t.stat().st_gid, t.stat().st_mtime_ns) for t in targets}
    body = f'''
    tried = {{}}
    for path in {[str(t) for t in targets]!r} + [__file__, os.path.dirname(__file__)]:
        for label, change in (("chmod", lambda: os.chmod(path, 0o4777)), ("utime", lambda: os.utime(path, (0, 0))),
                              ("touch", lambda: os.utime(path)), ("chown", lambda: os.chown(path, os.getuid(), -1))):
            try:
                change()
                tried[label + " " + path] = "changed"
            except OSError as exc:
                tried[label + " " + path] = "denied: " + type(exc).__name__
    open("mine", "w").write("x")
    os.chmod("mine", 0o600)  # its scratch directory is its own
    os.utime("mine", (0, 0))
    tried["scratch"] = oct(os.stat("mine").st_mode)
    return tried
'''
    tried = run(name, tmp_path, body, read=[project])
    assert tried.pop("scratch") == "0o100600"
    assert all(v.startswith("denied") for v in tried.values()), tried
    after = {str(t): (t.stat().st_mode, t.stat().st_uid, t.stat().st_gid, t.stat().st_mtime_ns) for t in targets}
    assert after == before


JUDGE = '''
import json, sys, time
sys.path.insert(0, {tests!r})
from decimal import Decimal
from pathlib import Path
from seams_runtime.handler_checks import Bindings, Inputs
from seams_runtime.sandbox import choose
from seams_runtime.sandbox.channel import Executor, ExecutorGone, sandboxed
package = Path({package!r})
with Executor([(package, "handlers")], sandbox=choose({name!r})) as executor:
    handle, problems = executor.import_handler("handlers.draft", "handlers/draft.py")
    pids = sandboxed(executor.proc.pid)
    try:
        result = handle(Inputs({{}}, []), Bindings([], {{}}))
    except ExecutorGone as exc:
        result = str(exc)
    print(json.dumps({{"result": result, "sandboxed": pids + sandboxed(executor.proc.pid)}}), flush=True)
    if {hang!r}:
        time.sleep(600)
print(json.dumps({{"closed": True}}), flush=True)
'''

DAEMON = '''
    reader, writer = os.pipe()
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            import ctypes
            ctypes.CDLL(None).prctl(1, 0, 0, 0, 0)  # PR_SET_PDEATHSIG: none
            os.write(writer, b"x")
            while True:
                time.sleep(0.1)
        os._exit(0)
    os.read(reader, 1)
    return {"daemon": "started"}
'''

KILL_THE_JUDGE = '''
    for kill in (lambda: os.killpg(os.getpgid(os.getppid()), signal.SIGTERM),
                 lambda: os.kill(os.getppid(), signal.SIGKILL), lambda: os.kill(0, signal.SIGTERM)):
        try:
            kill()
        except OSError:
            pass
    time.sleep(1)
    return {"judge": "still there?"}
'''


def judge_process(name: str, tmp_path: Path, body: str, hang: bool) -> subprocess.Popen:
    """A judge of its own, in its own session: what a draft sends to the judge's group stays there."""
    backend(name)
    package = handlers(tmp_path, draft="import os, sys, time, signal\n\ndef handle(inputs, bindings):\n" + body)
    script = JUDGE.format(tests=str(Path(__file__).parent), package=str(package), name=name, hang=hang)
    return subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                            start_new_session=True)


def gone(pids: list[int], within: float = 5) -> list[int]:
    """Those of ``pids`` still running (not a zombie) after ``within`` seconds."""
    deadline = time.monotonic() + within
    while True:
        alive = []
        for pid in pids:
            try:
                state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if state != "Z":
                alive.append(pid)
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.1)


def judged(judge: subprocess.Popen) -> tuple[dict, dict]:
    try:
        first = json.loads(judge.stdout.readline() or "{}")
        last = json.loads(judge.stdout.readline() or "{}")
        assert judge.wait(timeout=60) == 0
    finally:
        judge.kill()
    return first, last


def test_a_draft_cannot_signal_its_judge(name, tmp_path):
    first, last = judged(judge_process(name, tmp_path, KILL_THE_JUDGE, hang=False))
    assert first.get("result", "").startswith("the drafted code's process ended (exit status"), first
    assert last == {"closed": True}
    assert gone(first["sandboxed"]) == []


def test_a_daemon_of_the_draft_does_not_outlive_the_session(name, tmp_path):
    first, last = judged(judge_process(name, tmp_path, DAEMON, hang=False))
    assert first.get("result") == {"daemon": "started"} and last == {"closed": True}
    assert len(first["sandboxed"]) >= 3  # the sandbox's processes, the daemon among them
    assert gone(first["sandboxed"]) == []


def test_the_sandbox_ends_when_its_judge_is_killed(name, tmp_path):
    judge = judge_process(name, tmp_path, DAEMON, hang=True)
    try:
        first = json.loads(judge.stdout.readline() or "{}")
        assert first.get("result") == {"daemon": "started"}
    finally:
        judge.kill()  # the judge alone (not its group), as a crash or an OOM kill would
        judge.wait()
    assert gone(first["sandboxed"]) == []


# ---------------------------------------------------------------- limits of the whole draft

FORK_BOMB = '''
    children = []
    for _ in range(200):
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            time.sleep(60)
            os._exit(0)
        children.append(pid)
    for pid in children:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    return {"children": len(children)}
'''


def test_the_whole_draft_has_a_process_limit(name, tmp_path):
    seen = run(name, tmp_path, FORK_BOMB, limit={"processes": 12})
    assert 0 < seen["children"] < 12


MEMORY_HOG = '''
    for _ in range(4):
        if os.fork() == 0:
            hold = b"x" * (96 << 20)
            time.sleep(60)
            os._exit(0)
    time.sleep(60)
    return {"held": "all of it"}
'''


def test_the_whole_draft_has_a_memory_limit(name, tmp_path):
    started = time.monotonic()
    with pytest.raises(ExecutorGone, match=r"held \d+ MiB of memory in all its processes \(the limit is 256 MiB\)"):
        run(name, tmp_path, MEMORY_HOG, limit={"total_memory": 256 << 20})
    assert time.monotonic() - started < 30


def test_each_process_has_an_address_space_limit(name, tmp_path):
    body = '''
    try:
        hold = b"x" * (300 << 20)
        return {"allocated": len(hold)}
    except MemoryError:
        return {"allocated": 0}
'''
    assert run(name, tmp_path, body, limit={"memory": 256 << 20}) == {"allocated": 0}


DISK_HOG = '''
    written = {}
    places = {os.path.realpath(p) for p in ["/tmp", os.getcwd(), "/dev/shm", "/var/tmp", "/dev", "/",
                                            os.path.expanduser("~"), os.path.dirname(__file__)]}
    for place in sorted(places):
        for number in range(6):
            try:
                with open(os.path.join(place, f"fill-{number}"), "xb") as out:
                    while True:
                        out.write(b"x" * (1 << 20))
                        out.flush()
                        written[place] = written.get(place, 0) + (1 << 20)
            except (OSError, ValueError):
                continue
    return written
'''


def test_the_whole_draft_has_a_disk_limit(name, tmp_path):
    written = run(name, tmp_path, DISK_HOG, limit={"disk": 8 << 20})
    assert set(written) <= {"/tmp"}, written
    assert 0 < sum(written.values()) <= 8 << 20
    assert not list((tmp_path / "project" / "handlers").glob("fill-*"))


def test_the_limits_are_the_documented_figures(name, tmp_path):
    from seams_runtime.sandbox import CPU_SECONDS, DISK_BYTES, MEMORY_BYTES, OPEN_FILES, PROCESSES

    body = '''
    import resource
    disk = os.statvfs("/tmp")
    return {"limits": [resource.getrlimit(getattr(resource, n))[0] for n in
                       ("RLIMIT_CPU", "RLIMIT_NPROC", "RLIMIT_AS", "RLIMIT_FSIZE", "RLIMIT_NOFILE")],
            "tmp": disk.f_blocks * disk.f_frsize}
'''
    seen = run(name, tmp_path, body)
    assert seen == {"limits": [CPU_SECONDS, PROCESSES, MEMORY_BYTES, DISK_BYTES, OPEN_FILES], "tmp": DISK_BYTES}


def test_ordinary_code_still_runs_inside_the_limits(name, tmp_path):
    """The filter and the limits refuse the ways out, not ordinary work: threads, a child
    process, files in its scratch directory, decimals and dates."""
    body = '''
    import subprocess, threading, tempfile, decimal
    results = []
    threads = [threading.Thread(target=lambda n=n: results.append(n * n)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    child = subprocess.run([sys.executable, "-c", "print(6 * 7)"], capture_output=True, text=True, timeout=60)
    with tempfile.NamedTemporaryFile("w+", dir=".") as scratch:
        scratch.write("kept")
        scratch.seek(0)
        kept = scratch.read()
    return {"threads": sorted(results), "child": child.stdout.strip(), "scratch": kept,
            "sum": decimal.Decimal("0.1") + decimal.Decimal("0.2")}
'''
    seen = run(name, tmp_path, body)
    assert seen == {"threads": [0, 1, 4, 9], "child": "42", "scratch": "kept", "sum": Decimal("0.3")}
