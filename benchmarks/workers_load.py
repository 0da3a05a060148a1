"""Throughput of one generated worker process: ``python benchmarks/workers_load.py [--jobs N]``.

For each engine, a copy of the example (examples/leave-c8, examples/leave-c7)
is generated afresh in a temporary directory with ``seam:maxJobs`` on its
check-balance task, N jobs wait on the fake engine of the test suite
(tests/fake_engines.py: the Zeebe gateway over gRPC, the Camunda 7 REST API
over HTTP, both on 127.0.0.1), and the module runs as it is deployed, ``python
-m generated.<module>`` in a process of its own, until every job is
completed; then SIGTERM, and the process must exit 0. The task carries
``seam:jobTimeout "PT30S"``, ``seam:retries 3`` and ``seam:retryBackoff "PT10S"``,
and every tenth job fails its first attempt. Measured: jobs per second from
the first activation until every job is answered (completed, or failed
with its back-off), and the most jobs handed out and not yet answered
(never above maxJobs). Then checked: no failed job is handed out again before
the fake clock passes its 10 s back-off, after which all N complete, each
with the exact decimal the handler returned; every activation carried the
30 s timeout and every failure 2 retries left and the 10 s back-off.

Baseline, side by side in the same run: the same handler called N times
in a row in this process through the module's own ``run_handler`` (contract
check included), so the ratio is what the engine round trips and the worker
loop cost, or, for a handler that waits on I/O, what running maxJobs of them
at once gains. Two handlers: ``instant`` (returns at once: the worker's own
cost) and ``io-10ms`` (sleeps 10 ms, as a call to a remote service would).
The fake engine runs on the same machine and takes its share of the cores.
"""

from __future__ import annotations

import argparse
import importlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from fake_engines import FakeCamunda7, FakeClock, FakeZeebeGateway, JobStore  # noqa: E402

HANDLERS = {
    "instant": "",
    "io-10ms": "    time.sleep(0.01)\n",
}
MAX_JOBS = 32


def handler_source(wait: str) -> str:
    """The handler: ``wait``, then 12.50; a first attempt for an employee ``retry-<n>`` fails."""
    return ("import threading, time\nfrom decimal import Decimal\n\nSEEN = set()\n\n"
            "def handle(inputs, bindings):\n"
            f"{wait}"
            "    if inputs['employee'].startswith('retry-') and inputs['employee'] not in SEEN:\n"
            "        SEEN.add(inputs['employee'])\n"
            "        raise RuntimeError('the first attempt fails')\n"
            "    return {'balance_left': Decimal('12.50')}\n")


def project(workdir: Path, variant: str, wait: str) -> Path:
    root = workdir / variant
    shutil.copytree(REPO / "examples" / variant, root, ignore=shutil.ignore_patterns(".seams", "__pycache__"))
    trig = root / "model" / "model.trig"
    anchor = 'seam:handler "check_balance" ;'
    settings = (f"seam:maxJobs {MAX_JOBS} ; seam:jobTimeout \"PT30S\"^^xsd:duration ; seam:retries 3 ; "
                "seam:retryBackoff \"PT10S\"^^xsd:duration ;")
    trig.write_text(trig.read_text(encoding="utf-8").replace(anchor, f"{anchor}\n        {settings}"),
                    encoding="utf-8")
    (root / "handlers" / "check_balance.py").write_text(handler_source(wait), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "seams_cli", "generate", "--project", str(root)],
                          capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise SystemExit(f"seams generate failed: {done.stdout}{done.stderr}")
    return root


def baseline(root: Path, module: str, jobs: int) -> float:
    """Calls per second of the handler through the module's run_handler, one after another."""
    sys.path.insert(0, str(root))
    try:
        for name in [n for n in sys.modules if n.split(".")[0] in ("handlers", "generated", "workers_bindings")]:
            del sys.modules[name]
        workers = importlib.import_module(f"generated.{module}")
        task = workers.TASKS["check-balance"]
        variables = {"employee": "ana", "leave_type": "annual"}
        workers.run_handler(task, variables)  # imports the handler and the bindings, as a worker's first job does
        start = time.perf_counter()
        for _ in range(jobs):
            workers.run_handler(task, variables)
        return jobs / (time.perf_counter() - start)
    finally:
        sys.path.remove(str(root))


def load(root: Path, engine: str, jobs: int) -> tuple[float, int]:
    """Jobs per second of one worker process, and the most that ran at once (from its log)."""
    store = JobStore(FakeClock())
    fake = FakeZeebeGateway(store) if engine == "zeebe" else FakeCamunda7(store)
    retried = set()
    for n in range(jobs):  # every tenth job fails once and comes back after its back-off
        employee = f"retry-{n}" if n % 10 == 0 else "ana"
        key = store.add("check-balance", {"employee": f'"{employee}"', "leave_type": '"annual"'},
                        retries=3 if engine == "zeebe" else None, element="Task_CheckBalance")
        if n % 10 == 0:
            retried.add(key)
    module = "zeebe_workers" if engine == "zeebe" else "camunda7_workers"
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("SEAMS_", "ZEEBE_", "CAMUNDA_"))},
           "PYTHONPATH": str(root), "SEAMS_WORKERS_POLL_SECONDS": "0.5", "SEAMS_WORKERS_LOG_LEVEL": "WARNING"}
    with fake:
        env["ZEEBE_ADDRESS" if engine == "zeebe" else "CAMUNDA_URL"] = (
            fake.address if isinstance(fake, FakeZeebeGateway) else fake.url)
        process = subprocess.Popen([sys.executable, "-m", f"generated.{module}"], cwd=root, env=env,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            store.wait_for(lambda: store.states().get("completed", 0) == jobs - len(retried)
                           and all(store.jobs[k].state == "ready" for k in retried), timeout=600)
            rate = jobs / max(time.monotonic() - (store.first_activation_at or 0.0), 1e-9)
            most = store.most_active
            time.sleep(1.0)  # two long polls: a failed job waits for its back-off on the engine's clock
            if any(store.jobs[k].activations != 1 for k in retried):
                raise SystemExit(f"{engine}: a failed job was handed out again before its back-off")
            store.advance(10_000)
            store.wait_for(lambda: store.states().get("completed", 0) == jobs, timeout=600)
            process.send_signal(signal.SIGTERM)
            _, err = process.communicate(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
        if process.returncode != 0:
            raise SystemExit(f"{module} exited {process.returncode}: {err[-2000:]}")
    answered = [details for job in store.jobs.values() for kind, details in job.history if kind == "complete"]
    if len(answered) != jobs:
        raise SystemExit(f"{engine}: {len(answered)} completions for {jobs} jobs")
    wanted = '{"balance_left": 12.50}' if engine == "zeebe" else {"balance_left": {"value": Decimal("12.50")}}
    if any(details["variables"] != wanted for details in answered):
        raise SystemExit(f"{engine}: a completion without the exact decimal 12.50")
    timeouts = {r["timeout"] if kind == "ActivateJobs" else r["topics"][0]["lockDuration"]
                for kind, r in store.requests if kind in ("ActivateJobs", "fetchAndLock")
                and (r.get("type") or r["topics"][0]["topicName"]) == "check-balance"}
    failures = {(r["retries"], r.get("retryBackOff", r.get("retryTimeout"))) for kind, r in store.requests
                if kind in ("FailJob", "failure")}
    if timeouts != {30_000} or failures != {(2, 10_000)}:
        raise SystemExit(f"{engine}: job timeouts {timeouts} and failures {failures}, not 30000 and (2, 10000)")
    return rate, most


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1000)
    args = parser.parse_args(argv)
    print("| worker process | handler | jobs | measured | baseline (direct calls) | ratio | most at once |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory(prefix="seams-workers-load-") as tmp:
        for engine, variant, module in (("zeebe", "leave-c8", "zeebe_workers"),
                                        ("camunda7", "leave-c7", "camunda7_workers")):
            for name, wait in HANDLERS.items():
                root = project(Path(tmp) / f"{engine}-{name}", variant, wait)
                direct = baseline(root, module, min(args.jobs, 200) if wait else args.jobs)
                rate, most = load(root, engine, args.jobs)
                if most > MAX_JOBS:
                    raise SystemExit(f"{engine}: {most} jobs at once, above maxJobs {MAX_JOBS}")
                print(f"| {module} | {name} | {args.jobs} | {rate:,.0f} jobs/s | {direct:,.0f} calls/s | "
                      f"{rate / direct:.3g}x | {most} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
