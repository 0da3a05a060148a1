"""seams' runtime: what runs handler and drafted code, for the test plugin and the CLI alike.

The OS sandbox and the executor process (``sandbox``), the checks that judge
what a handler returns (``handler_checks``), a task's acceptance facts
(``task_specs``) and their pytest source (``acceptance_source``), the embedded
engine (``engine``) and the scenario runs (``scenarios``). It sits above the
core and ``seams_edit`` and below ``pytest_seams`` and ``seams_cli``
(docs/architecture.md).
"""
