"""Job settings of the generated workers: seam predicates on a task, ``[workers]`` in seams.toml.

Where a setting comes from (the task, else the config, else the built-in
default), that it reaches the generated module's task table, and that a bad
value is named: by the seam shapes and the generator in ``seams check``, by
the config reader for seams.toml.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from seams.errors import ProjectError
from seams.generators.camunda7 import Camunda7Generator
from seams.generators.zeebe import ZeebeGenerator
from seams.model.loading import load_model
from seams.project.config import duration_ms, parse_config
from seams.project.layout import load_project
from seams_cli.main import main

REPO = Path(__file__).resolve().parents[1]


def _copy(tmp_path: Path, variant: str, predicates: str = "", workers: str = "") -> Path:
    root = tmp_path / variant
    shutil.copytree(REPO / "examples" / variant, root, ignore=shutil.ignore_patterns(".seams", "__pycache__"))
    trig = root / "model" / "model.trig"
    anchor = 'seam:handler "check_balance" ;'
    trig.write_text(trig.read_text(encoding="utf-8").replace(anchor, f"{anchor}\n        {predicates}"
                                                              if predicates else anchor), encoding="utf-8")
    if workers:
        config = root / "seams.toml"
        config.write_text(config.read_text(encoding="utf-8") + "\n[workers]\n" + workers, encoding="utf-8")
    return root


def _tables(root: Path, generator) -> dict[str, dict]:
    """The task tables of the generated module, run as Python (they are plain literals)."""
    [(name, source)] = generator.seams_generate(load_model(load_project(root, env={}))).items()
    text = source.decode()
    tables: dict[str, dict] = {}
    for start in [i for i in range(len(text)) if text.startswith("_TASK = {", i)]:
        line_start = text.rindex("\n", 0, start) + 1
        end = text.index("\n}\n", start) + 2
        exec(text[line_start:end], {}, tables)  # noqa: S102 - our own generated literal
    return tables


@pytest.mark.parametrize(("text", "ms"), [("PT30S", 30_000), ("PT5M", 300_000), ("PT1.5S", 1500), ("P1DT2H", 93_600_000),
                                          ("PT1H30M", 5_400_000)])
def test_durations_are_iso_8601_day_time_durations(text, ms):
    assert duration_ms(text) == ms


@pytest.mark.parametrize("text", ["PT0S", "P", "PT", "P1Y", "P1M", "-PT1S", "30s", "PT0.0001S", "P400D", "PT5M "])
def test_a_duration_that_is_zero_calendar_bound_or_not_one_is_refused(text):
    assert duration_ms(text) is None


def test_a_task_s_own_setting_wins_over_the_config_which_wins_over_the_default(tmp_path):
    root = _copy(tmp_path, "leave-c8", predicates=(
        'seam:jobTimeout "PT45S"^^xsd:duration ; seam:maxJobs 4 ; seam:retries 5 ; '
        'seam:retryBackoff "PT2S"^^xsd:duration ; seam:tenantId "acme", "beta" ;'),
        workers='job_timeout = "PT2M"\nretry_backoff_max = "PT1M"\ntenant_ids = ["main"]\n')
    tables = _tables(root, ZeebeGenerator())
    settings = ("timeout_ms", "max_jobs", "retries", "backoff_ms", "backoff_max_ms", "tenants")
    assert {k: tables["CHECK_BALANCE_TASK"][k] for k in settings} == {
        "timeout_ms": 45_000, "max_jobs": 4, "retries": 5, "backoff_ms": 2000, "backoff_max_ms": 60_000,
        "tenants": ("acme", "beta")}
    assert {k: tables["RECORD_LEAVE_TASK"][k] for k in settings} == {
        "timeout_ms": 120_000, "max_jobs": 32, "retries": 3, "backoff_ms": 5000, "backoff_max_ms": 60_000,
        "tenants": ("main",)}
    plain = _tables(_copy(tmp_path / "plain", "leave-c7"), Camunda7Generator())
    assert {k: plain["CHECK_BALANCE_TASK"][k] for k in settings} == {
        "timeout_ms": 300_000, "max_jobs": 32, "retries": 3, "backoff_ms": 5000, "backoff_max_ms": 300_000,
        "tenants": ()}


def test_changing_a_setting_is_a_model_change_seams_check_reports_until_generated(tmp_path, capsys):
    root = _copy(tmp_path, "leave-c8")
    assert main(["generate", "--project", str(root)]) == 0
    trig = root / "model" / "model.trig"
    trig.write_text(trig.read_text(encoding="utf-8").replace(
        'seam:handler "check_balance" ;', 'seam:handler "check_balance" ;\n        seam:maxJobs 2 ;'), encoding="utf-8")
    capsys.readouterr()
    assert main(["check", "--project", str(root)]) == 1
    assert "generated-stale generated/zeebe_workers.py: regenerating would change it; run seams generate" in (
        capsys.readouterr().out)
    assert main(["generate", "--project", str(root)]) == 0
    assert '    "max_jobs": 2,' in (root / "generated" / "zeebe_workers.py").read_text(encoding="utf-8")


def test_seams_check_names_each_bad_setting_by_task_and_predicate(tmp_path, capsys):
    root = _copy(tmp_path, "leave-c8", predicates=(
        'seam:jobTimeout "5 minutes" ; seam:maxJobs 0 ; seam:retries 2, 3 ; '
        'seam:retryBackoffMax "P1M"^^xsd:duration ; seam:tenantId "a b" ;'))
    assert main(["check", "--project", str(root)]) == 1
    out = capsys.readouterr().out.splitlines()
    shapes = sorted(line.split(": ")[0] for line in out if line.startswith("shape ex:CheckBalance"))
    assert shapes == ["shape ex:CheckBalance seam:jobTimeout", "shape ex:CheckBalance seam:maxJobs",
                      "shape ex:CheckBalance seam:retries", "shape ex:CheckBalance seam:retryBackoffMax",
                      "shape ex:CheckBalance seam:tenantId"]
    assert any(line.startswith("generate zeebe: ex:CheckBalance seam:") for line in out), out


def test_the_generator_refuses_a_cap_below_the_back_off(tmp_path, capsys):
    root = _copy(tmp_path, "leave-c7", predicates=(
        'seam:retryBackoff "PT10S"^^xsd:duration ; seam:retryBackoffMax "PT5S"^^xsd:duration ;'))
    assert main(["generate", "--project", str(root)]) == 1
    assert capsys.readouterr().err.splitlines() == [
        "seams generate: generator camunda7: ex:CheckBalance seam:retryBackoffMax: the cap (5000 ms) is below the "
        "back-off itself (10000 ms)"]


@pytest.mark.parametrize(("table", "message"), [
    ('job_timeout = "5m"', "workers.job_timeout must be an ISO 8601 duration above zero and at most a year, in days, "
                           "hours, minutes and seconds (like PT30S or PT5M), not '5m'"),
    ("max_jobs = 0", "workers.max_jobs must be a whole number from 1 to 1000, not 0"),
    ("retries = 1001", "workers.retries must be a whole number from 1 to 1000, not 1001"),
    ('tenant_ids = ["a b"]', "workers.tenant_ids must be a list of tenant ids (letters, digits, _ . @ -)"),
    ("lock_duration = 3", "unknown key workers.lock_duration"),
    ('max_jobs = "3"', "workers.max_jobs has the wrong type (str)"),
])
def test_a_bad_workers_table_is_one_line_naming_the_key(tmp_path, table, message):
    config = tmp_path / "seams.toml"
    config.write_text(f'[project]\nbase = "https://example.org/x/"\n\n[workers]\n{table}\n', encoding="utf-8")
    with pytest.raises(ProjectError) as raised:
        parse_config(config)
    assert str(raised.value) == f"{config}: {message}"


def test_json_text_writes_decimals_from_their_digits_and_refuses_what_json_cannot_hold():
    from datetime import date
    from decimal import Decimal

    from seams.generators.worker_runtime import WorkerError, json_text, read_json

    value = {"a": Decimal("12.50"), "b": [Decimal("1E+2"), 0.1, 3, True, None], "c": date(2024, 1, 31), "d": "x"}
    assert json_text(value) == '{"a": 12.50, "b": [1E+2, 0.1, 3, true, null], "c": "2024-01-31", "d": "x"}'
    assert read_json(json_text(value))["a"] == Decimal("12.50")
    for bad in (Decimal("NaN"), float("inf"), object()):
        with pytest.raises(WorkerError):
            json_text({"x": bad})


@pytest.mark.parametrize(("retries_before", "wait"), [(5, 1000), (4, 2000), (3, 4000), (2, 6000), (1, 6000), (9, 1000)])
def test_the_back_off_doubles_per_attempt_up_to_its_cap(retries_before, wait):
    from seams.generators.worker_runtime import backoff_ms

    assert backoff_ms({"retries": 5, "backoff_ms": 1000, "backoff_max_ms": 6000}, retries_before) == wait


def test_health_is_live_while_every_loop_beats_and_ready_only_when_each_reached_the_engine():
    from seams.generators.worker_runtime import Health

    now = [100.0]
    health = Health(["a", "b"], stale_s=10, clock=lambda: now[0])
    assert (health.live(), health.ready()) == (True, False)
    health.beat("a", True)
    health.beat("b", True)
    assert health.ready()
    health.beat("b", False)
    assert (health.live(), health.ready()) == (True, False)
    health.beat("b", True)
    now[0] += 11
    health.beat("a", True)
    assert (health.live(), health.ready()) == (False, False)  # b is stuck
    health.beat("b", True)
    health.stopping = True
    assert (health.live(), health.ready()) == (True, False)
