"""``--seams-coverage``: after the session, the gateway flows and decision rules no scenario ran.

A scenario item (gate ``scenario``) reports its run as facts (plain data:
``process``, ``flows``, ``decisions`` and more, see pytest_seams.scenarios),
which the plugin copies onto its report, so the runs reach this summary
from xdist workers too (seams.suggestions.coverage.Trace reads them). Every ``seams.toml`` whose items ran is reported,
with or without scenarios; the lines are docs/plugin.md's "Scenario coverage".
The report never changes the session's outcome.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pytest_seams import CONFIG_NAME

SCENARIO_GATE = "scenario"


def project_traces(reports: Iterable[Any], rootpath: Path, property_name: str) -> dict[Path, list[dict]]:
    """Each reporting ``seams.toml`` (absolute path) with the traces its items reported."""
    found: dict[Path, list[dict]] = {}
    for report in reports:
        if getattr(report, "when", None) != "call":
            continue
        path = rootpath / report.nodeid.split("::", 1)[0]
        if path.name != CONFIG_NAME:
            continue
        traces = found.setdefault(path, [])
        for key, value in getattr(report, "user_properties", ()):
            if key == property_name and isinstance(value, dict) and value.get("gate") == SCENARIO_GATE:
                facts = value.get("facts")
                if isinstance(facts, dict) and "flows" in facts:
                    traces.append(facts)
    return found


def coverage_lines(config_path: Path, traces: list[dict], pages: list[str] | None = None) -> list[str]:
    """The report of one project; one line naming the project when its model does not load.
    With ``pages``, the project's HTML page (seams.render.pages) is appended to it."""
    from seams.errors import SeamsError
    from seams.model.loading import load_model
    from seams.project.layout import load_project
    from seams.suggestions.coverage import Trace, coverage

    try:
        model = load_model(load_project(config_path.parent))
    except SeamsError as exc:
        return [f"seams coverage: {config_path}: {str(exc).splitlines()[0]}"]
    read = [Trace.of(t) for t in traces]
    report = coverage(model, read)
    if pages is not None:
        from seams.render.pages import coverage_page

        pages.append(coverage_page(model, report, read))
    return report.lines()


def write_report(terminalreporter: Any, rootpath: Path, property_name: str, *, html: Path | None = None) -> None:
    reports = [r for key in ("passed", "failed") for r in terminalreporter.stats.get(key, ())]
    projects = project_traces(reports, rootpath, property_name)
    if not projects:
        return
    terminalreporter.section("seams coverage")
    pages: list[str] | None = [] if html is not None else None
    for path in sorted(projects):
        if len(projects) > 1:
            terminalreporter.write_line(str(path.relative_to(rootpath) if path.is_relative_to(rootpath) else path))
        for line in coverage_lines(path, projects[path], pages):
            terminalreporter.write_line(line)
    if html is not None and pages:
        _write_pages(terminalreporter, html, pages)


def _write_pages(terminalreporter: Any, html: Path, pages: list[str]) -> None:
    """One page per project: FILE for the first, FILE with ``-2``, ``-3``... before its suffix for the rest."""
    from seams.fs import atomic_write

    for number, page in enumerate(pages, start=1):
        path = html if number == 1 else html.with_name(f"{html.stem}-{number}{html.suffix}")
        try:
            atomic_write(path, page.encode("utf-8"))
        except OSError as exc:
            terminalreporter.write_line(f"seams coverage: {path}: cannot write: {exc.strerror or exc}")
            continue
        terminalreporter.write_line(f"seams coverage: wrote {path}")
