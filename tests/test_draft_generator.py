"""``seams draft-generator``: exact lines, the cache, every refusal, nothing written on failure,
and a drafted package that ``seams generate`` runs (docs/draft-generator.md).

Providers are fakes (tests/fixtures/draft_generator/fake_provider.py) or the
example's recorded-answer provider; nothing calls an LLM.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import sys
from pathlib import Path

import pytest
from helpers import edit, run_seams

from seams.generators.new_generator import read_reference, scaffold
from seams.model.loading import load_model
from seams.project.layout import load_project
from seams_cli.commands.draft_generator import build_prompt
from seams_cli.main import main
from seams_cli.workflows.generator_draft import model_subjects

FIXTURES = Path(__file__).parent / "fixtures" / "draft_generator"
FAKE = FIXTURES / "fake_provider.py"
REFERENCE = FIXTURES / "references" / "bindings.md"
GOOD = FIXTURES / "answers" / "bindings.txt"
PACKAGE_FILES = ["pyproject.toml", "seams_bindings/__init__.py", "seams_bindings/templates/bindings.md",
                 "tests/golden/bindings.md"]
SCRATCH_MARKS = ("seams-scratch-", "seams-draft-generator-", "seams-session-", "/tmp/")


def fake(mode: str, *args: str) -> str:
    return shlex.join([sys.executable, str(FAKE), mode, *args])


def good_answer() -> dict[str, str]:
    return json.loads(GOOD.read_text().strip().removeprefix("```json").removesuffix("```"))


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (project, its .seams cache, any output dir) by relative path."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts and p.name != "provider.log"}


@pytest.fixture
def draft(capsys, monkeypatch, tmp_path, example_project):
    """``seams draft-generator ARGS --project ROOT`` in-process, from ``tmp_path``
    -> (exit, stdout lines, stderr lines); ``draft.calls()`` reads the provider's log."""
    log = tmp_path / "provider.log"
    monkeypatch.setenv("DRAFT_GENERATOR_LOG", str(log))
    monkeypatch.delenv("SEAMS_LLM_MODEL", raising=False)
    monkeypatch.delenv("SEAMS_MODEL", raising=False)
    monkeypatch.chdir(tmp_path)

    def run(*args: str, name: str = "bindings", reference: Path = REFERENCE) -> tuple[int, list[str], list[str]]:
        code = main(["draft-generator", name, "--reference", str(reference), *args,
                     "--project", str(example_project)])
        out, err = capsys.readouterr()
        return code, out.splitlines(), err.splitlines()

    run.root = example_project
    run.calls = lambda: [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return run


def expected_prompt_sha(root: Path, name: str = "bindings") -> str:
    model = load_model(load_project(root, env={}))
    package = scaffold(name, REFERENCE)[f"seams_{name}/__init__.py"].decode()
    prompt = build_prompt(reference_name=REFERENCE.name, reference=read_reference(REFERENCE),
                          subjects=model_subjects(model), package=package)
    return hashlib.sha256(prompt.encode()).hexdigest()


def write_answer(tmp_path: Path, **changes: str) -> Path:
    answer = {**good_answer(), **changes}
    path = tmp_path / "answer.json"
    path.write_text(json.dumps(answer))
    return path


def test_accepted_draft_prints_the_lines_writes_the_package_and_caches_the_answer(draft, tmp_path):
    provider = fake("answer", str(GOOD))
    code, out, err = draft("--provider", provider)
    assert (code, err) == (0, [])
    assert out == [f"prompt {expected_prompt_sha(draft.root)}", f"provider {provider}", "cache miss",
                   "tests passed", *[f"wrote seams-bindings/{rel}" for rel in PACKAGE_FILES],
                   "next: pip install ./seams-bindings",
                   'next: add "bindings" to [generate] generators in seams.toml', "next: seams generate"]
    answer = good_answer()
    written = {rel: (tmp_path / "seams-bindings" / rel).read_bytes() for rel in PACKAGE_FILES}
    assert written == scaffold("bindings", REFERENCE, extract_source=answer["extract"],
                               template=answer["template"], golden=answer["golden"])
    assert answer["extract"].strip() in written["seams_bindings/__init__.py"].decode()
    [call] = draft.calls()
    # the provider runs in an empty folder of its own, never in the project (docs/providers.md)
    assert call["cwd"] != str(draft.root) and "seams-provider-" in call["cwd"] and call["llm_model"] is None
    assert out[0] == f"prompt {call['prompt_sha256']}"
    [cached] = (draft.root / ".seams" / "generator-drafts").iterdir()
    assert json.loads(cached.read_text()) == answer

    # a re-run with the same reference, model and provider is free and gives the same package
    code, out, err = draft("--provider", provider, "--out", "again")
    assert (code, err) == (0, []) and out[2] == "cache hit" and len(draft.calls()) == 1
    # --refresh asks again all the same (a new model run may answer better) and keeps the new answer
    code, out, err = draft("--provider", provider, "--out", "third", "--refresh")
    assert (code, err) == (0, []) and out[2] == "cache miss (--refresh)" and len(draft.calls()) == 2
    assert {rel: (tmp_path / "again" / rel).read_bytes() for rel in PACKAGE_FILES} == written


def test_cache_hit_never_runs_the_provider_and_the_key_is_documented(draft, tmp_path):
    reference_sha = hashlib.sha256(REFERENCE.read_bytes()).hexdigest()
    model_hash = load_model(load_project(draft.root, env={})).hash
    provider = fake("never")
    parts = [reference_sha, model_hash, "draft-generator-v2.txt", provider, "model-a"]
    key = hashlib.sha256(json.dumps(parts, ensure_ascii=False, separators=(",", ":")).encode()).hexdigest()
    store = draft.root / ".seams" / "generator-drafts"
    store.mkdir(parents=True)
    (store / f"{key}.json").write_text(json.dumps(good_answer()))
    code, out, err = draft("--provider", provider, "--llm-model", "model-a")
    assert (code, err) == (0, []), err
    assert out[1:4] == [f"provider {provider}", "llm-model model-a", "cache hit"]
    assert draft.calls() == []
    # without the model name the key differs: a miss, and the provider that must not run fails
    code, out, err = draft("--provider", provider, "--out", "other")
    assert code == 1 and out[-1] == "cache miss"
    assert err == [f"seams draft-generator: provider {sys.executable} exited with status 9: fake provider: "
                   "called although the answer should come from the cache"]


def test_llm_model_is_passed_to_the_provider_and_printed(draft, example_project):
    edit(example_project / "seams.toml", "timeout = 120", 'timeout = 120\nmodel = "from-config"')
    code, out, _ = draft("--provider", fake("answer", str(GOOD)), "--llm-model", "from-flag", "--out", "a")
    assert code == 0 and out[2] == "llm-model from-flag"
    assert [call["llm_model"] for call in draft.calls()] == ["from-flag"]


@pytest.mark.parametrize("name, reference, message", [
    ("Bad_Name", REFERENCE, "name 'Bad_Name': use lowercase letters, digits and hyphens, starting with a letter"),
    ("bindings", FIXTURES / "fake_provider.exe", "reference fake_provider.exe: unsupported suffix .exe"),
    ("bindings", FIXTURES / "references" / "latin1.md", "reference latin1.md: not UTF-8 text"),
    ("bindings", FIXTURES / "references" / "empty.md", "reference empty.md: empty"),
    ("bindings", REFERENCE, "out seams-bindings: not empty (--force replaces the package's files in it)"),
])
def test_refusals_come_before_the_provider_and_write_nothing(draft, tmp_path, name, reference, message):
    if message.startswith("out "):
        (tmp_path / "seams-bindings").mkdir()
        (tmp_path / "seams-bindings" / "notes.txt").write_text("mine\n")
    before = snapshot(tmp_path)
    code, out, err = draft("--provider", fake("never"), name=name, reference=reference)
    assert (code, out) == (1, [])
    assert len(err) == 1 and err[0].startswith(f"seams draft-generator: {message}"), err
    assert draft.calls() == [] and snapshot(tmp_path) == before


def test_a_project_error_exits_1_too(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code = main(["draft-generator", "bindings", "--reference", str(REFERENCE), "--provider", fake("never"),
                 "--project", str(tmp_path)])
    assert code == 1
    assert capsys.readouterr().err == f"seams draft-generator: {tmp_path}: no seams.toml in the project directory\n"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("answer, message", [
    (None, f"seams draft-generator: provider {sys.executable} exited with status 7: fake provider: quota exceeded"),
    ("plain text, no JSON", "seams draft-generator: answer: not JSON: Expecting value (line 1, column 1)"),
    ('{"extract": "", "template": "", "golden": "", "readme": ""}',
     "seams draft-generator: answer: unexpected key readme (expected exactly extract, template, golden)"),
    ('{"extract": "", "golden": ""}', "seams draft-generator: answer: missing key template"),
    ('{"extract": "", "template": ["a"], "golden": ""}',
     "seams draft-generator: answer: key template must be a string, not an array"),
])
def test_provider_failures_and_malformed_answers_write_nothing(draft, tmp_path, answer, message):
    provider = fake("fail")
    if answer is not None:
        (tmp_path / "answer.txt").write_text(answer)
        provider = fake("answer", str(tmp_path / "answer.txt"))
    before = snapshot(tmp_path)
    code, out, err = draft("--provider", provider)
    assert (code, err) == (1, [message])
    assert out[-1] == "cache miss" and snapshot(tmp_path) == before


def test_a_template_restating_a_label_is_refused_naming_line_and_label(draft, tmp_path):
    reference = REFERENCE.read_text()
    before = snapshot(tmp_path)
    code, _, err = draft("--provider", fake("answer", str(write_answer(tmp_path, template=reference))))
    assert code == 1 and err == [
        "seams draft-generator: template line 7: restates the model label 'Leave balance service' "
        "(<https://example.org/leave/Balances>); extract has to read it from the model"]
    assert snapshot(tmp_path) == before | {"answer.json": (tmp_path / "answer.json").read_bytes()}


def test_logic_in_the_template_is_refused_naming_the_line(draft, tmp_path):
    template = good_answer()["template"].replace("[[ b.label ]]", "[[ b.label|upper ]]")
    code, _, err = draft("--provider", fake("answer", str(write_answer(tmp_path, template=template))))
    assert code == 1 and err == [
        "seams draft-generator: template line 7: a filter (|) is logic; only [[ name ]], [[ name.attr ]], "
        "[% for x in xs %] and [% endfor %] are allowed"]
    assert not (tmp_path / "seams-bindings").exists() and not (draft.root / ".seams").exists()


def test_golden_failure_names_each_failed_test_and_writes_nothing(draft, tmp_path):
    golden = good_answer()["golden"].replace("| balances |", "| balance |")
    store = draft.root / ".seams" / "generator-drafts"
    store.mkdir(parents=True)
    (store / "0123.json").write_text('{"an": "earlier entry"}\n')
    before = snapshot(tmp_path)
    code, out, err = draft("--provider", fake("answer", str(write_answer(tmp_path, golden=golden))))
    assert code == 1 and "tests passed" not in out
    assert err == ["seams draft-generator: the golden test failed (1 failed) in the scratch package",
                   "failed tests/golden/bindings.md::golden: the rendered output differs from the golden text"]
    assert snapshot(tmp_path) == before | {"answer.json": (tmp_path / "answer.json").read_bytes()}


def test_golden_failure_lines_hold_no_scratch_paths(draft, tmp_path):
    extract = good_answer()["extract"].replace(
        '    dataset = load(trig)\n', '    raise RuntimeError(f"cannot read {trig} from {__file__}")\n')
    code, _, err = draft("--provider", fake("answer", str(write_answer(tmp_path, extract=extract))))
    assert code == 1
    assert err[0] == "seams draft-generator: the golden test failed (4 failed) in the scratch package"
    assert [line.split(": ")[0] for line in err[1:]] == [
        f"failed tests/golden/bindings.md::{gate}" for gate in ("golden", "determinism", "parses", "sources")]
    assert ("failed tests/golden/bindings.md::golden: the package failed: RuntimeError: cannot read "
            "model/model.trig from seams-bindings/seams_bindings/__init__.py") == err[1]
    assert not any(mark in line for line in err for mark in SCRATCH_MARKS), err
    assert not (tmp_path / "seams-bindings").exists() and not (draft.root / ".seams").exists()


def test_force_replaces_the_package_files_and_keeps_the_others(draft, tmp_path):
    out_dir = tmp_path / "seams-bindings"
    (out_dir / "tests" / "golden").mkdir(parents=True)
    (out_dir / "README.md").write_text("mine\n")
    (out_dir / "tests" / "golden" / "bindings.md").write_text("old\n")
    code, _, err = draft("--provider", fake("answer", str(GOOD)), "--force")
    assert (code, err) == (0, [])
    assert (out_dir / "README.md").read_text() == "mine\n"
    assert (out_dir / "tests" / "golden" / "bindings.md").read_text() == good_answer()["golden"]


def test_example_walkthrough_and_seams_generate_runs_the_drafted_package(example_project, tmp_path):
    """README: ``seams draft-generator variables --reference reference/variables.md`` in
    examples/leave, offline; then the package, put on the path with an entry point, is run
    by ``seams generate`` and renders the reference."""
    result = run_seams("draft-generator", "variables", "--reference", "reference/variables.md",
                       cwd=example_project)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("prompt ") and len(lines[0]) == len("prompt ") + 64
    assert lines[1:] == ["provider python3 provider/recorded.py", "cache miss", "tests passed",
                         "wrote seams-variables/pyproject.toml", "wrote seams-variables/seams_variables/__init__.py",
                         "wrote seams-variables/seams_variables/templates/variables.md",
                         "wrote seams-variables/tests/golden/variables.md",
                         "next: pip install ./seams-variables",
                         'next: add "variables" to [generate] generators in seams.toml', "next: seams generate"]
    site = tmp_path / "site"
    dist_info = site / "seams_variables-0.1.0.dist-info"
    dist_info.mkdir(parents=True)
    (dist_info / "METADATA").write_text("Metadata-Version: 2.1\nName: seams-variables\nVersion: 0.1.0\n")
    (dist_info / "entry_points.txt").write_text("[seams.generators]\nvariables = seams_variables:generator\n")
    edit(example_project / "seams.toml", 'generators = ["stubs", "decisions"]',
         'generators = ["stubs", "decisions", "variables"]')
    path = os.pathsep.join([str(example_project / "seams-variables"), str(site)])
    generated = run_seams("generate", cwd=example_project, env={"PYTHONPATH": path})
    assert generated.returncode == 0, generated.stderr
    assert (example_project / "generated" / "variables.md").read_bytes() == \
        (example_project / "reference" / "variables.md").read_bytes()


def test_new_generator_keeps_its_output_byte_for_byte(tmp_path, monkeypatch, capsys):
    """draft-generator reuses the scaffold through its parameters; the defaults, and so
    ``seams new-generator``'s files, stay as they were (sha256 recorded before the change)."""
    monkeypatch.chdir(tmp_path)
    assert main(["new-generator", "bindings", "--reference", str(REFERENCE)]) == 0
    capsys.readouterr()
    root = tmp_path / "seams-bindings"
    digests = {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
               for p in sorted(root.rglob("*")) if p.is_file()}
    assert digests == json.loads((FIXTURES / "new-generator-bindings.sha256.json").read_text())


def test_a_second_try_shows_the_failed_lines_and_accepts_the_corrected_answer(draft, tmp_path):
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({**good_answer(), "golden": good_answer()["golden"].replace("| balances |",
                                                                                            "| balance |")}))
    provider = fake("retry", str(wrong), str(GOOD))
    code, out, err = draft("--provider", provider, "--tries", "2")
    assert code == 0, err
    assert out[0] == "try 1 of 2" and out[2] == f"provider {provider}"
    assert "failed tests/golden/bindings.md::golden: the rendered output differs from the golden text" in out
    second = out.index("try 2 of 2")
    assert out[second + 1].startswith("prompt ") and out[second + 2] == "cache miss"
    assert "tests passed" in out
    assert [call["mode"] for call in draft.calls()] == ["retry", "retry"]
    assert draft.calls()[0]["prompt_sha256"] != draft.calls()[1]["prompt_sha256"]

    code, out, err = draft("--provider", provider, "--out", str(tmp_path / "other"))  # one try, the default
    assert code == 1 and not any(line.startswith("try ") for line in out)
    assert err[0] == "seams draft-generator: the golden test failed (1 failed) in the scratch package"
