"""Composable generators: every built-in's parts assemble into its files, compose over
independent components, and assemble alike in any order (docs/generators.md,
"Composable generators").

The components here are the copies of the synthetic project (tests/helpers.py,
``synthetic_project``): each copy's sub-model is built in the test from the
3-copy model's own quads, by the ``_<i>`` every ``ex:`` name of copy ``i`` ends
with, so nothing here trusts the code under test to split the model.
"""

from __future__ import annotations

import random
import re
import shutil
import sys
from pathlib import Path

import pytest
from helpers import REPO, copy_example, edit, run_seams, synthetic_project
from rdflib import BNode, URIRef

from seams.errors import GeneratorError
from seams.generators.parts import merge_parts
from seams.generators.registry import BUILTINS, Generators
from seams.model.loading import Model, load_model
from seams.model.trig_parse import model_dataset
from seams.project.layout import load_project

ALL = list(BUILTINS)  # stubs, decisions, zeebe, camunda7: each runs on any model here
COPIES = 3
EXAMPLES = ["leave", "leave-c7", "leave-c8"]
DMN_FIXTURES = REPO / "tests" / "fixtures"


def _generators() -> Generators:
    return Generators(ALL, source="seams.toml")


def _model(root: Path) -> Model:
    return load_model(load_project(root))


def _whole_and_assembled(model: Model) -> tuple[dict[str, dict[str, bytes]], dict[str, dict[str, bytes]]]:
    """Per generator: its files for the whole model, and the files assembled from its parts."""
    generators = _generators()
    out_dir = model.project.generated_dir
    whole, assembled = {}, {}
    for outcome, parts in zip(generators.run(model, out_dir), generators.parts(model, out_dir)):
        assert outcome.problem is None and parts.problem is None, (outcome.problem, parts.problem)
        whole[outcome.name] = dict(outcome.files)
        assembled[parts.name] = {path: generators.assemble(parts.name, path, file_parts)
                                 for path, file_parts in parts.parts.items()}
    return whole, assembled


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory) -> Path:
    return synthetic_project(tmp_path_factory.mktemp("parts"), COPIES)


@pytest.fixture(scope="module")
def invoice(tmp_path_factory) -> Path:
    """The invoice example as ``seams init`` imports it (examples/invoice/README.md)."""
    sources = REPO / "examples" / "invoice" / "camunda"
    cwd = tmp_path_factory.mktemp("invoice")
    args = [a for name in ("invoice.bpmn", "reviewInvoice.bpmn", "invoiceBusinessDecisions.dmn")
            for a in ("--from", str(sources / name))]
    done = run_seams("init", *args, "invoice", cwd=cwd)
    assert done.returncode == 0, done.stderr
    return cwd / "invoice"


@pytest.fixture(scope="module")
def expressions(tmp_path_factory) -> Path:
    """Decisions that are no tables (seams' DMN interpreter, the module's ``_DMN_<n>`` texts) in two
    DMN files: ``ex:A_second`` reads the second file and sorts first by IRI, its function
    ``zz_total`` last by name, so the texts' numbers follow the IRIs, not the function names."""
    import test_dmn_expression_decisions as fixture

    second = ('ex:dmn2 a seam:Payload ; seam:path "pricing2.dmn" ; seam:format "dmn" .\n'
              'ex:A_second a dec:Decision ; rdfs:label "zz total" ; seam:payload ex:dmn2 ; '
              'dec:payloadElement "Decision_Total" ;\n  dec:input [ dec:variable "order" ; dec:fromPath ex:order ] ;\n'
              '  dec:output [ dec:variable "Order Total" ; dec:processVariable ex:out_zz ] .\n'
              'ex:out_zz a seam:Variable ; seam:name "out_zz" .')
    root = fixture.project(tmp_path_factory.mktemp("expressions"), extra=second)
    text = (root / "model" / "pricing.dmn").read_text(encoding="utf-8")
    (root / "model" / "pricing2.dmn").write_text(text.replace('name="Pricing"', 'name="Pricing 2"', 1),
                                                 encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def imports(tmp_path_factory) -> Path:
    """Tables that invoke a BKM or require an imported model's decision (texts with imports)."""
    import test_dmn_interpreted_tables as fixture

    return fixture.project(tmp_path_factory.mktemp("imports"))


# (a) the assembled parts are the files ------------------------------------------------------------


@pytest.mark.parametrize("example", EXAMPLES)
def test_assembled_parts_are_the_examples_generated_files(example):
    """The examples ship what ``seams generate`` wrote: their parts assemble into exactly those bytes."""
    root = REPO / "examples" / example
    model = _model(root)
    whole, assembled = _whole_and_assembled(model)
    assert assembled == whole
    configured = model.project.config.generators or ()
    on_disk = {path: (root / "generated" / path).read_bytes() for name in configured for path in assembled[name]}
    assert on_disk and {path: data for name in configured for path, data in assembled[name].items()} == on_disk


@pytest.mark.parametrize("project", ["synthetic", "invoice", "expressions", "imports"])
def test_assembled_parts_are_the_whole_model_files(project, request):
    whole, assembled = _whole_and_assembled(_model(request.getfixturevalue(project)))
    assert assembled == whole
    assert any(whole.values())  # some generator wrote something to compare


def test_expression_decisions_number_their_dmn_texts_from_the_parts(expressions, imports):
    """The ``_DMN_<n>`` globals are named at assembly, by the decisions' IRIs: no part holds a number."""
    for root in (expressions, imports):
        parts = _generators().parts(_model(root), root / "generated")[1]
        module = _generators().assemble("decisions", "decisions.py", parts.parts["decisions.py"])
        assert b"_DMN_1 = " in module
        if root == expressions:  # the second file, read by the decision first by IRI, is _DMN_1
            assert b'name="Pricing 2"' in module.split(b"_DMN_1 = ")[1].split(b"\n")[0]
            assert b"_DMN_2 = " in module and b"return decide_by_id(_DMN_1, 'Decision_Total'" in module
        assert not any(b"_DMN_" in part for part in parts.parts["decisions.py"].values())


# (b) parts compose over independent components --------------------------------------------------


_COPY_SUFFIX = re.compile(r"_(\d+)$")


def _copy_models(model: Model) -> list[Model]:
    """Each copy's sub-model: the quads that mention only that copy's ``ex:`` names (blank nodes
    belong to the copy of the term that holds them), the shared ones, and the copy's payloads."""
    base = str(dict(model.dataset.namespaces())["ex"])

    def named_owner(term) -> int | None:
        if isinstance(term, URIRef) and str(term).startswith(base):
            found = _COPY_SUFFIX.search(str(term)[len(base):])
            return int(found.group(1)) if found else None
        return None

    quads = list(model.dataset.quads((None, None, None, None)))
    blank_owner: dict[BNode, int] = {}

    def owners(s, p, o) -> set[int]:
        found = {named_owner(s), named_owner(p), named_owner(o), blank_owner.get(s), blank_owner.get(o)}
        assert len(found - {None}) <= 1, f"the copies are not independent: {s} {p} {o}"
        return {x for x in found if x is not None}

    changed = True
    while changed:  # a blank node takes the copy of a term beside it, along chains (lists, nested nodes)
        changed = False
        for s, p, o, _ in quads:
            for who in owners(s, p, o):
                for term in (s, o):
                    if isinstance(term, BNode) and term not in blank_owner:
                        blank_owner[term] = who
                        changed = True

    owned = [next(iter(owners(s, p, o)), None) for s, p, o, _ in quads]
    assert {o for o in owned if o is not None} == set(range(COPIES))
    models = []
    for i in range(COPIES):
        dataset = model_dataset()
        for prefix, namespace in model.dataset.namespaces():
            dataset.bind(prefix, namespace, override=True)
        dataset.addN((s, p, o, dataset.graph(g)) for (s, p, o, g), who in zip(quads, owned) if who in (None, i))
        payloads = {iri: payload for iri, payload in model.payloads.items() if named_owner(iri) == i}
        assert payloads, f"copy {i} has no payloads"
        models.append(Model(model.project, model.trig_path, model.trig_bytes, dataset, payloads))
    return models


def _parts_by_generator(model: Model) -> dict[str, dict[str, dict[str, bytes]]]:
    outcomes = _generators().parts(model, model.project.generated_dir)
    assert [o.problem for o in outcomes] == [None] * len(ALL), [o.problem for o in outcomes]
    return {o.name: {path: dict(parts) for path, parts in o.parts.items()} for o in outcomes}


def test_the_parts_of_the_whole_are_the_disjoint_union_of_each_copys(synthetic):
    model = _model(synthetic)
    whole = _parts_by_generator(model)
    copies = [_parts_by_generator(copy) for copy in _copy_models(model)]
    generators = _generators()
    for name in ALL:
        merged, clashes = merge_parts(copy[name] for copy in copies)
        assert clashes == [], name
        assert merged == whole[name], name
        for path in merged:  # each copy gives its own parts, none empty-handed where the whole has some
            assert all(copy[name].get(path) for copy in copies) or name == "stubs", (name, path)
        assert {path: generators.assemble(name, path, parts) for path, parts in merged.items()} == \
            {path: data for outcome in generators.run(model, model.project.generated_dir)
             if outcome.name == name for path, data in outcome.files.items()}
    assert len(whole["stubs"]) == 2 * COPIES  # two service tasks per copy: one stub file each
    assert len(whole["decisions"]["decisions.py"]) == COPIES  # one decision per copy: one function each


@pytest.mark.parametrize(("old", "new", "generators", "clash"), [
    ('seam:handler "check_balance_1"', 'seam:handler "check_balance_0"', ["stubs"],
     ("stubs/check_balance_0.py", "")),
    ('seam:handler "check_balance_1"', 'seam:handler "CHECK_BALANCE_0"', ["zeebe", "camunda7"],
     ("{module}", "table:CHECK_BALANCE_0_TASK")),
    ('rdfs:label "Approval level 1"', 'rdfs:label "Approval level 0"', ["decisions"],
     ("decisions.py", "approval_level_0")),
])
def test_what_the_whole_model_refuses_across_copies_is_a_key_clash(tmp_path, old, new, generators, clash):
    """Two copies that each generate fine but clash together (one handler, handlers that differ only
    in case, one function name): their parts share a key, so a caller falls back to the whole-model
    run, which refuses the model."""
    root = synthetic_project(tmp_path, COPIES)
    edit(root / "model" / "model.trig", old, new)
    model = _model(root)
    copies = [_parts_by_generator(copy) for copy in _copy_models(model)]
    for name in generators:
        module = {"zeebe": "zeebe_workers.py", "camunda7": "camunda7_workers.py"}.get(name, "")
        _, clashes = merge_parts(copy[name] for copy in copies)
        assert (clash[0].format(module=module), clash[1]) in clashes, (name, clashes)
        (outcome,) = Generators([name], source="seams.toml").run(model, model.project.generated_dir)
        assert outcome.problem is not None and "_0" in outcome.problem, name


# (c) assembly is a pure function of the parts ------------------------------------------------------


@pytest.mark.parametrize("project", ["synthetic", "expressions", "imports"])
def test_assembly_does_not_depend_on_the_order_of_the_parts(project, request):
    model = _model(request.getfixturevalue(project))
    generators = _generators()
    shuffle = random.Random(29).shuffle
    for outcome in generators.parts(model, model.project.generated_dir):
        for path, parts in outcome.parts.items():
            expected = generators.assemble(outcome.name, path, parts)
            for _ in range(5):
                keys = list(parts)
                shuffle(keys)
                assert generators.assemble(outcome.name, path, {k: parts[k] for k in keys}) == expected


# the registry ------------------------------------------------------------------------------------


_PLAIN = """from seams.generators import hookimpl


class Plain:
    @hookimpl
    def seams_generate(self):
        return {"plain.txt": b"x"}


generator = Plain()
"""
_COMPOSED = """from seams.generators import hookimpl


class Composed:
    \"\"\"One line per service task, in the order of their IRIs (the part keys).\"\"\"

    @hookimpl
    def seams_generate_parts(self, model):
        return {"tasks.txt": {str(t.iri): t.iri.encode() + b"\\n" for t in model.view.service_tasks()}}

    @hookimpl
    def seams_assemble(self, path, parts):
        return b"".join(parts[key] for key in sorted(parts))

    @hookimpl
    def seams_generate(self, model):
        parts = self.seams_generate_parts(model)
        return {path: self.seams_assemble(path, each) for path, each in parts.items()}


generator = Composed()
"""


def test_a_package_is_composable_when_it_implements_both_hooks(tmp_path, monkeypatch, request):
    site = tmp_path / "site"
    for module, source in (("seams_plain", _PLAIN), ("seams_composed", _COMPOSED)):
        info = site / f"{module}-0.1.0.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 0.1.0\n", encoding="utf-8")
        entry = module.removeprefix("seams_")
        (info / "entry_points.txt").write_text(f"[seams.generators]\n{entry} = {module}:generator\n",
                                               encoding="utf-8")
        (site / f"{module}.py").write_text(source, encoding="utf-8")
        request.addfinalizer(lambda module=module: sys.modules.pop(module, None))  # forgotten after the test
    monkeypatch.syspath_prepend(str(site))
    names = [*ALL, "plain", "composed"]
    generators = Generators(names, source="seams.toml")
    assert [generators.composable(name) for name in names] == [True] * len(ALL) + [False, True]
    model = _model(copy_example(tmp_path))
    out_dir = model.project.generated_dir
    outcomes = {o.name: o for o in generators.parts(model, out_dir)}
    assert outcomes["plain"].problem is not None and "not composable" in outcomes["plain"].problem
    assert set(outcomes["composed"].parts["tasks.txt"]) == {str(t.iri) for t in model.view.service_tasks()}
    files = {o.name: o.files for o in generators.run(model, out_dir)}
    assert files["plain"] == {"plain.txt": b"x"}
    assert generators.assemble("composed", "tasks.txt", outcomes["composed"].parts["tasks.txt"]) == \
        files["composed"]["tasks.txt"]
    with pytest.raises(GeneratorError, match="not composable"):
        generators.assemble("plain", "plain.txt", {"": b"x"})


@pytest.mark.parametrize(("name", "path", "parts", "problem"), [
    ("stubs", "stubs/x.py", {"a": b"x"}, "one part with the key ''"),
    ("decisions", "decisions.py", {"f": b"not json"}, "part 'f' is no JSON object"),
    ("decisions", "decisions.py", {"f": b'{"needs": []}'}, "part 'f' has no source"),
    ("zeebe", "zeebe_workers.py", {"other": b"{}"}, "part 'other' is no task's part"),
    ("camunda7", "camunda7_workers.py", {}, "has no task's part"),
])
def test_parts_a_generator_did_not_write_are_one_line_problems(name, path, parts, problem):
    with pytest.raises(GeneratorError) as raised:
        _generators().assemble(name, path, parts)
    assert problem in str(raised.value) and "\n" not in str(raised.value)


def test_worker_parts_of_two_projects_do_not_assemble(synthetic, tmp_path):
    model = _model(synthetic)
    generators = _generators()
    (zeebe,) = [o for o in generators.parts(model, model.project.generated_dir) if o.name == "zeebe"]
    parts = dict(zeebe.parts["zeebe_workers.py"])
    other = tmp_path / "other"
    shutil.copytree(synthetic, other)
    edit(other / "seams.toml", 'generated = "generated"', 'generated = "gen"')
    moved = _model(other)
    (elsewhere,) = [o for o in generators.parts(moved, moved.project.generated_dir) if o.name == "zeebe"]
    key = next(k for k in parts if k.startswith("job:"))
    parts[key] = elsewhere.parts["zeebe_workers.py"][key]
    with pytest.raises(GeneratorError, match="different projects"):
        generators.assemble("zeebe", "zeebe_workers.py", parts)
