"""Throughput of one generated worker process: ``python benchmarks/workers_load.py [--jobs N]``.

For each engine, a copy of the example (examples/leave-c8, examples/leave-c7)
is generated afresh in a temporary directory with ``seam:maxJobs`` on its
check-balance task, N jobs wait on the fake engine of the test suite
(tests/fake_engines.py: the Zeebe gateway over gRPC, the Camunda 7 REST API
over HTTP, both on 127.0.0.1), and the module runs as it is deployed, ``python
-m generated.<module>`` in a process of its own, until every job is
completed; then SIGTERM, and the process must exit 0. Measured: jobs per
second from the first activation to the last completion, and the most jobs
that ran at once (which must never pass maxJobs). Every answer is checked:
N completions, each with the exact decimal the handler returned.

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
    return ("import threading, time\nfrom decimal import Decimal\n\nLOCK = threading.Lock()\nNOW = [0]\nMOST = [0]\n\n"
            "def handle(inputs, bindings):\n"
            "    with LOCK:\n        NOW[0] += 1\n        MOST[0] = max(MOST[0], NOW[0])\n"
            f"{wait}"
            "    with LOCK:\n        NOW[0] -= 1\n"
            "    return {'balance_left': Decimal('12.50')}\n")


def project(workdir: Path, variant: str, wait: str) -> Path:
    root = workdir / variant
    shutil.copytree(REPO / "examples" / variant, root, ignore=shutil.ignore_patterns(".seams", "__pycache__"))
    trig = root / "model" / "model.trig"
    anchor = 'seam:handler "check_balance" ;'
    trig.write_text(trig.read_text(encoding="utf-8").replace(anchor, f"{anchor}\n        seam:maxJobs {MAX_JOBS} ;"),
                    encoding="utf-8")
    (root / "handlers" / "check_balance.py").write_text(handler_source(wait), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "seams_cli.main", "generate", "--project", str(root)],
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
    variables = {"employee": '"ana"', "leave_type": '"annual"'}
    for _ in range(jobs):
        store.add("check-balance", variables, retries=3 if engine == "zeebe" else None, element="Task_CheckBalance")
    module = "zeebe_workers" if engine == "zeebe" else "camunda7_workers"
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("SEAMS_", "ZEEBE_", "CAMUNDA_"))},
           "PYTHONPATH": str(root), "SEAMS_WORKERS_POLL_SECONDS": "0.5", "SEAMS_WORKERS_LOG_LEVEL": "WARNING"}
    with fake:
        env["ZEEBE_ADDRESS" if engine == "zeebe" else "CAMUNDA_URL"] = (
            fake.address if isinstance(fake, FakeZeebeGateway) else fake.url)
        process = subprocess.Popen([sys.executable, "-m", f"generated.{module}"], cwd=root, env=env,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
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
    assert store.first_activation_at is not None and store.last_answer_at is not None
    return jobs / max(store.last_answer_at - store.first_activation_at, 1e-9), store.most_active


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
                      f"{rate / direct:.2f}x | {most} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
