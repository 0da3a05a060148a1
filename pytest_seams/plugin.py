"""The seams pytest plugin (entry point ``pytest11``: ``seams = "pytest_seams.plugin"``).

Every pytest run on the machine loads this module, so it imports nothing but
pytest, the standard library and the gate registry (seams.checks.registry,
plain data, for the options' help): the collectors (and with them rdflib,
pyshacl, lxml and the rest of the seams core) are imported only when a
``seams.toml`` or a generator package's golden file is actually collected.
"""

from __future__ import annotations

import importlib
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

import pytest

from pytest_seams import CONFIG_NAME
from pytest_seams.fixtures import seams_model, seams_project, seams_run, seams_scenario  # noqa: F401 (fixtures)

PROPERTY = "seams"  # the user_properties entry that carries an item's gate and findings


def pytest_addoption(parser: pytest.Parser) -> None:
    from seams.checks.registry import LOCK_GATE_NAMES

    group = parser.getgroup("seams", "seams model gates")
    group.addoption("--seams-check", action="store_true", default=False,
                    help=f"also collect the lock items: {', '.join(LOCK_GATE_NAMES)} "
                         "(never calls a provider)")
    group.addoption("--seams-suggestion", metavar="PATH", default=None,
                    help="also collect the routing item of the pending suggestion whose record "
                         "(suggestion.json) is PATH, run over the model it changed")
    group.addoption("--seams-only", metavar="model|TASK", default=None,
                    help="collect only the model gates (model), or only the acceptance items "
                         "of one service task (IRI, prefixed name, BPMN id or handler name)")
    group.addoption("--seams-update-golden", action="store_true", default=False,
                    help="rewrite a generator package's golden files from the current model "
                         "(markers kept where lines come from the same place), then fail for review")
    group.addoption("--seams-coverage", action="store_true", default=False,
                    help="after the session, list the gateway flows and decision rules no scenario "
                         "ran, with sample values that would (docs/plugin.md)")
    group.addoption("--seams-coverage-html", metavar="FILE", default=None,
                    help="also write the coverage as one HTML page: each process's diagram with the "
                         "flows taken and not taken, each decision table with its rules (implies --seams-coverage)")


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from pytest_seams import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def pytest_configure(config: pytest.Config) -> None:
    """Register seams' markers (``pytest -m seams_model``); in a seams project, hide rdflib's
    warnings about its own internals.

    rdflib 7 warns (``ConjunctiveGraph``, ``default_context``) from inside its
    TriG parser on every model load; a modeler can act on none of them.
    """
    from pytest_seams.items import MARKERS

    for name, about in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {about}")
    if (config.rootpath / CONFIG_NAME).is_file():
        config.addinivalue_line("filterwarnings", "ignore::DeprecationWarning:rdflib")


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.name == CONFIG_NAME:
        from pytest_seams.collect import SeamsFile

        return SeamsFile.from_parent(parent, path=file_path)
    golden = _golden()
    if golden is not None and golden.is_golden_file(file_path):
        return golden.GoldenFile.from_parent(parent, path=file_path)
    return None


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    """``--seams-coverage``: the scenario coverage of every project whose items ran;
    ``--seams-coverage-html FILE`` also draws it."""
    html = config.getoption("seams_coverage_html", None)
    if config.getoption("seams_coverage", False) or html:
        from pytest_seams.coverage_report import write_report

        write_report(terminalreporter, config.rootpath, PROPERTY, html=Path(html) if html else None)


@cache
def _golden() -> ModuleType | None:
    """The generator packages' golden items, when that part of the plugin is installed."""
    try:
        return importlib.import_module("pytest_seams.golden")
    except ModuleNotFoundError as exc:
        if exc.name == "pytest_seams.golden":
            return None
        raise


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """Copy a gate item's findings onto its call report as plain data (survives xdist)."""
    report = yield
    items = sys.modules.get("pytest_seams.items")  # no gate item exists before it is imported
    if call.when == "call" and items is not None and isinstance(item, items.GateItem):
        item.config.hook.pytest_seams_findings(item=item, findings=list(item.findings))
        report.user_properties.append((PROPERTY, {
            "gate": item.gate,
            "subject": item.subject,
            "findings": [finding.as_dict() for finding in item.findings],
            **({"facts": item.facts} if item.facts else {}),
        }))
    return report
