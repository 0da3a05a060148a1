"""One executor's life, timed, with the packages found under a given root (today's or the
baseline's): ``python sandbox_limits_run.py ROOT HANDLERS BACKEND CALLS``; prints JSON: the wall
seconds of the life."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path


def main() -> None:
    root, package, backend, calls = sys.argv[1], Path(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    sys.path.insert(0, root)
    import seams_runtime
    from seams_runtime.handler_checks import Bindings, Inputs
    from seams_runtime.sandbox import SandboxUnavailable, choose
    from seams_runtime.sandbox.channel import Executor

    try:
        sandbox = choose(backend)
    except SandboxUnavailable as exc:
        print(json.dumps({"unavailable": str(exc)}))
        return
    given = {"employee": "ann", "leave_type": "annual", "days": 3}
    start = time.perf_counter()
    with Executor([(package, "handlers")], sandbox=sandbox) as executor:
        handle, problems = executor.import_handler("handlers.record_leave", "handlers/record_leave.py")
        assert not problems, problems
        for _ in range(calls):
            result = handle(Inputs(given, list(given)), Bindings(["calendar"], {"calendar": "BK-1"}))
            assert result == {"booking_ref": "BK-1"}, result
    print(json.dumps({"seconds": time.perf_counter() - start, "runtime": seams_runtime.__file__}))


main()
