"""A service task's acceptance items: ``import``, one ``example[<label>]`` per example,
and ``contract`` (docs/architecture.md, D-handler-contract).

What the model says of a task is read into a :class:`~seams_runtime.task_specs.TaskSpec`.
The judging is done by the standard-library-only functions of
:mod:`seams_runtime.handler_checks`, in this (the judge's) process; the handler
itself runs in an executor process in a sandbox (:mod:`seams_runtime.sandbox`),
imported and called over a pipe, so what it returns is plain data by the time
it is compared. The session keeps one executor per handlers package
(:func:`session_executor`), shared with the scenario items.
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_seams.items import GateItem
from seams_runtime.acceptance_source import item_source
from seams_runtime.handler_checks import contract_problems, example_problems
from seams_runtime.task_specs import ExampleSpec, TaskSpec

EXECUTORS = pytest.StashKey[dict]()
"""The session's executors, by handlers package (:func:`session_executor`)."""


class AcceptanceItem(GateItem):
    """Runs the handler in an executor process (a sandbox, :mod:`seams_runtime.sandbox`)
    and judges what comes back as plain data; nothing of the handler runs in this process."""

    marker = "seams_acceptance"

    def __init__(self, *, spec: TaskSpec, **kwargs):
        super().__init__(subject=spec.subject, **kwargs)
        self.spec = spec
        self.binding_calls: list[dict] = []  # every binding request the handler made, as answered

    def check(self, problems: list[tuple[str, str]]) -> None:
        from seams.findings import Finding

        if problems:
            self.fail_with([Finding(self.gate, self.subject, p, m) for p, m in problems])

    def handle(self, executor: Any):
        handle, problems = executor.import_handler(self.spec.module, self.spec.module_file)
        self.check(problems)
        return handle

    def runtest(self) -> None:
        from seams_runtime.sandbox import SandboxUnavailable
        from seams_runtime.sandbox.channel import Executor, ExecutorGone

        self.check([("seam:handler", self.spec.problem)] if self.spec.problem else [])
        try:
            executor = self.executor(Executor)
            first_call = len(executor.calls)
            try:
                self.run_checks(executor)
            finally:
                self.binding_calls = executor.calls[first_call:]
        except (ExecutorGone, SandboxUnavailable) as exc:
            self.drop_executor()
            self.check([("seam:handler", str(exc))])

    def executor(self, start: Any) -> Any:
        """The session's executor for this handlers package (:func:`session_executor`)."""
        return session_executor(self.session, self.spec, start)

    def drop_executor(self) -> None:
        drop_session_executor(self.session, self.spec)

    def run_checks(self, executor: Any) -> None:
        self.handle(executor)

    def reportinfo(self):
        parent = self.parent.name if self.parent is not None else ""
        where = self.subject_location()
        path, line = where if where is not None else (self.path, None)
        return path, line, f"{self.gate}: {parent}::{self.name} ({self.subject})"

    def as_pytest_source(self) -> str:
        """This item as a pytest test function (its helpers: :func:`acceptance_source`)."""
        return item_source(self.spec, self.name)


def _executors(session: Any) -> dict:
    executors: dict | None = session.stash.get(EXECUTORS, None)
    if executors is None:
        executors = session.stash[EXECUTORS] = {}

        def close_all(executors: dict = executors) -> None:
            for executor in executors.values():
                executor.close()
            executors.clear()

        session.addfinalizer(close_all)
    return executors


def session_executor(session: Any, spec: TaskSpec, start: Any) -> Any:
    """The session's executor for ``spec``'s handlers package, shared by the acceptance and
    scenario items (each import takes the module afresh: its modules are dropped first); a
    new one (``start(code)``) when the last has ended. It ends with the session, and with it
    everything the handlers started."""
    executors = _executors(session)
    package = spec.module.partition(".")[0]
    source = spec.handlers_parent / package
    executor = executors.get(source)
    if executor is None or not executor.alive():
        drop_session_executor(session, spec)
        executor = executors[source] = start([(source, package)])
    return executor


def drop_session_executor(session: Any, spec: TaskSpec) -> None:
    package = spec.module.partition(".")[0]
    executor = _executors(session).pop(spec.handlers_parent / package, None)
    if executor is not None:
        executor.close()


class ImportItem(AcceptanceItem):
    gate = "import"


class ExampleItem(AcceptanceItem):
    gate = "example"

    def __init__(self, *, example: ExampleSpec, **kwargs):
        super().__init__(**kwargs)
        self.example = example

    def run_checks(self, executor: Any) -> None:
        self.check([("seam:example", self.example.problem)] if self.example.problem else [])
        handle = self.handle(executor)
        self.check(example_problems(handle, self.spec.reads, self.spec.bindings, self.example.data,
                                    self.spec.signatures))


class ContractItem(AcceptanceItem):
    gate = "contract"

    def run_checks(self, executor: Any) -> None:
        from pytest_seams.generated_inputs import contract_on_generated_inputs

        handle = self.handle(executor)
        self.check(contract_problems(handle, self.spec.reads, self.spec.bindings, self.spec.outputs,
                                     self.spec.runnable_examples(), self.spec.signatures))
        problems, detail = contract_on_generated_inputs(handle, self.spec)
        if problems:
            from seams.findings import Finding

            self.fail_with([Finding(self.gate, self.subject, p, m) for p, m in problems], detail)


def acceptance_items(parent: Any, spec: TaskSpec) -> list[AcceptanceItem]:
    """The items of one task, in their fixed order: import, examples, contract."""
    return [ImportItem.from_parent(parent, name="import", spec=spec),
            *(ExampleItem.from_parent(parent, name=e.item, spec=spec, example=e) for e in spec.examples),
            ContractItem.from_parent(parent, name="contract", spec=spec)]
