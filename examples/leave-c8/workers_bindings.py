"""The bindings the generated workers hand to the handlers (docs/generators.md, "Workers for real engines").

`python -m generated.zeebe_workers` calls `bindings()` once, at the first job
of a task that uses a binding, and passes the object it returns to every
handler. This one is a try-out: in-memory stand-ins for the leave balance
service and the team calendar. Replace their bodies with calls to the real
services; keep one method per binding `seam:name` (`balances`, `calendar`),
as `generated/stubs/<handler>.py` describes them.
"""

import itertools


class DemoBindings:
    """Every employee has 25 days of each leave type; bookings are numbered from BK-1000."""

    def __init__(self) -> None:
        self._references = itertools.count(1000)

    def balances(self, employee, leave_type):
        return 25

    def calendar(self, *args, **kwargs):
        return f"BK-{next(self._references)}"


def bindings():
    return DemoBindings()
