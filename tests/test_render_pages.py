"""The review pages, made by the real commands on a copy of the example (tests/render_pages.py).

``seams suggest --show``, ``seams run --html`` and ``pytest --seams-coverage-html`` each write one
self-contained page: no script, nothing fetched. What each page marks is held to what the command
knows (the suggestion's new elements, the run's path, the uncovered flows); where Chromium is
installed each page is rendered headless and screenshot, with no console error or refused load.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import render_diagram
import render_pages
from lxml import etree
from test_render import png_facts


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, Path]:
    return render_pages.make_pages(tmp_path_factory.mktemp("pages"))


def parsed(path: Path) -> etree._Element:
    return etree.fromstring(path.read_bytes(), etree.HTMLParser())


def marks(root: etree._Element, section: str) -> dict[str, str]:
    """Element or rule id -> mark, inside the section whose heading starts with ``section``."""
    found = {}
    for part in root.iter("section"):
        if part.findtext("h2", "").startswith(section):
            for element in part.iter():
                ident = element.get("data-element-id") or element.get("data-rule-id")
                if ident and element.get("data-mark"):
                    found[ident] = element.get("data-mark")
    return found


def test_pages_are_self_contained(pages: dict[str, Path]) -> None:
    for name, path in pages.items():
        root = parsed(path)
        assert root.find(".//script") is None, name
        assert not [e for e in root.iter() if e.get("src") or (e.get("href") or "").startswith(("http", "//"))], name
        assert "default-src 'none'" in (root.find(".//meta[@http-equiv='Content-Security-Policy']").get("content"))
        assert root.find(".//svg") is not None, name


def test_the_suggestion_page_shows_the_change(pages: dict[str, Path]) -> None:
    root = parsed(pages["suggest-review"])
    headings = [h.text for h in root.iter("h2")]
    assert headings[:3] == ["What changes", "Before: model/leave.bpmn", "After: model/leave.bpmn"]
    after = marks(root, "After")
    assert after["Task_Escalation"] == "added" and after["Flow_Task_Escalation"] == "added"
    assert after["Flow_HR"] == after["Flow_Done"] == "changed"
    assert marks(root, "Before")["Flow_6"] == "changed"  # now leads to the new task
    assert set(marks(root, "New decision").values()) == {"added"}
    conditions = next(s for s in root.iter("section") if s.findtext("h2").startswith("Conditions"))
    rows = [[" ".join(td.itertext()) for td in tr.iter("td")] for tr in conditions.iter("tr")][1:]
    # the name column is the flow's name after the change: "otherwise" restated nothing and is kept
    assert rows == [["Flow_Done", "otherwise", 'days <= 20 and leave_type != "unpaid"', 'escalation == "none"'],
                    ["Flow_HR", "hr", 'days > 20 or leave_type == "unpaid"', 'escalation == "hr"']]
    samples = next(s for s in root.iter("section") if s.findtext("h2") == "Routing samples")
    count = int(re.search(r"(\d+) sample inputs", " ".join(samples.itertext())).group(1))
    assert count == 21 == len(samples.findall(".//tbody/tr"))  # the routing kept (21 samples) of seams suggest
    assert "+    ex:escalation a seam:Variable" in " ".join(root.find(".//pre").itertext())


def test_the_run_page_draws_the_path(pages: dict[str, Path]) -> None:
    root = parsed(pages["run-page"])
    path = marks(root, "Path")
    assert {k for k, v in path.items() if v == "taken"} >= {"Flow_Review", "Task_ManagerReview", "Flow_Approved",
                                                            "EndEvent_Done"}
    assert "Flow_Auto" not in path and "Task_HRReview" not in path
    assert marks(root, "Decision Decision_ApprovalLevel") == {"Rule_Long": "taken"}
    steps = next(s for s in root.iter("section") if s.findtext("h2") == "Steps")
    assert len(steps.findall(".//tbody/tr")) == 10


def test_the_coverage_page_draws_the_gaps(pages: dict[str, Path]) -> None:
    root = parsed(pages["coverage-page"])
    drawn = marks(root, "Process Process_LeaveRequest")
    assert {k for k, v in drawn.items() if v == "not-covered"} == {"Flow_Rejected", "Flow_HR"}
    assert drawn["Flow_Auto"] == drawn["Flow_Review"] == "taken"


@pytest.mark.skipif(render_diagram.chromium() is None, reason="chromium (installed by .ci/run)")
def test_each_page_renders_in_chromium_without_errors(pages: dict[str, Path], tmp_path: Path) -> None:
    for name, page in pages.items():
        png = tmp_path / f"{name}.png"
        log = render_diagram.screenshot(page, png, render_pages.SIZES[name])
        problems = [line for line in log.splitlines() if "CONSOLE" in line or "Refused to" in line
                    or "Uncaught" in line]
        assert problems == [], (name, problems)
        width, height, shades = png_facts(png)
        assert (width, height) == render_pages.SIZES[name]
        assert shades > 50, name  # a drawing, not a blank page
