"""``seams init``: start a project, or bring an existing BPMN/DMN model in.

``seams init [DIR]`` makes an empty project that ``seams check`` passes as
made; ``seams init --from FILE.bpmn [--from FILE.dmn ...] [DIR]`` copies a
team's Camunda 7 or 8 files into ``model/`` byte for byte and writes the
seams graph for them (seams.importer builds it); ``--update`` re-reads the
payloads after they changed and adds what is new through seams_edit,
leaving every fact already in the model as it is (docs/init.md).

Nothing is written until the whole result has loaded as a model from a
scratch directory, and then every file is written at once or none is.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

from rdflib import URIRef

from seams import vocab as V
from seams.errors import ProjectError, SeamsError
from seams.importer import skeleton
from seams.importer.build import Source, build_import
from seams.importer.plan import Plan
from seams.importer.render import render_trig
from seams.importer.sources import FormFile, existing_of, forms_beside, read_file, read_form_file, read_sources
from seams.model.loading import load_model
from seams.project.config import CONFIG_NAME, GRAPH_ROLES
from seams.project.layout import load_project
from seams.project.lock import Lock, lock_bytes

MODEL = "model/model.trig"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("directory", nargs="?", default=".", metavar="DIR",
                        help="the project directory (default: the working directory; made if missing)")
    parser.add_argument("--from", dest="sources", action="append", default=[], metavar="FILE",
                        help="a BPMN, DMN or Camunda Forms (.form) file to import; repeat for several")
    parser.add_argument("--base", metavar="IRI",
                        help="the model's IRI base (default: an https://example.org/ placeholder)")
    parser.add_argument("--update", action="store_true",
                        help="re-import into the existing project at DIR: add new elements, report removed ones")


def run(args: argparse.Namespace) -> int:
    target = Path(args.directory).resolve()
    if args.update:
        return _update(target, [Path(p) for p in args.sources])
    if target.exists() and not target.is_dir():
        raise ProjectError(f"{target}: not a directory; expected the project directory to make or fill")
    if (target / CONFIG_NAME).exists():
        raise ProjectError(f"{target / CONFIG_NAME}: a seams project is already here; "
                           "use seams init --update to re-import into it")
    if args.base is not None and not _plausible_base(args.base):
        raise ProjectError(f"--base {args.base}: expected an absolute IRI ending in / or # (or : for a urn:)")
    base = args.base or skeleton.default_base(target.name)
    return _create(target, base, [Path(p) for p in args.sources], placeholder=args.base is None)


def _plausible_base(base: str) -> bool:
    scheme, _, rest = base.partition(":")
    return bool(scheme) and scheme.isalnum() and bool(rest) and base[-1] in "/#:" and " " not in base


# ------------------------------------------------------------------ new project


def _read_inputs(paths: list[Path], notes: list[str]) -> tuple[list[tuple[str, Path, bytes]], dict[str, FormFile]]:
    """The payload files (name in model/, path, bytes) and the forms by id (given, or beside a BPMN)."""
    payloads: list[tuple[str, Path, bytes]] = []
    forms: dict[str, FormFile] = {}
    for path in paths:
        if path.suffix == ".form":
            form_id, form = read_form_file(path)
            if not form_id:
                raise ProjectError(f"{path}: the form has no id; Camunda Forms link a task by the form's id")
            forms[form_id] = form
            continue
        data = read_file(path)
        if any(name == path.name for name, _, _ in payloads):
            raise ProjectError(f"{path}: another --from file is also named {path.name}; "
                               "model/ holds one file per name")
        if path.name == "model.trig":
            raise ProjectError(f"{path}: model.trig is the name of the TriG model; rename the payload")
        payloads.append((path.name, path, data))
    forms = forms_beside([p for _, p, _ in payloads], forms, notes)
    return payloads, forms


def _create(target: Path, base: str, paths: list[Path], *, placeholder: bool) -> int:
    notes: list[str] = []
    if paths:
        payloads, forms = _read_inputs(paths, notes)
        if not payloads:
            raise ProjectError("--from: no BPMN or DMN file given; expected at least one .bpmn file")
    else:
        starter = skeleton.STARTER_BPMN
        payloads, forms = [(starter, Path(starter), skeleton.starter_bpmn())], {}
    sources = read_sources(payloads, forms)
    if not any(s.format == "bpmn" for s in sources):
        raise ProjectError(f"{payloads[0][1]}: no BPMN file among the --from files; "
                           "expected at least one .bpmn file with a process")
    graphs = {role: URIRef(f"{base}graph/{role}") for role in GRAPH_ROLES}
    plan = build_import(base, sources)
    plan.notes[:0] = notes
    files: dict[str, bytes] = {
        CONFIG_NAME: skeleton.config_text(base).encode("utf-8"),
        MODEL: render_trig(plan, base, graphs).encode("utf-8"),
        **{f"model/{name}": data for name, _, data in payloads},
        **{f"model/{name}": data for name, data in _linked_forms(sources, forms, payloads).items()},
        "handlers/__init__.py": skeleton.HANDLERS_INIT.encode("utf-8"),
    }
    gitignore = _gitignore(target)
    if gitignore is not None:
        files[".gitignore"] = gitignore
    files.update(_validate(target, files, generate=True))
    for rel, data in files.items():
        if rel != ".gitignore" and (target / rel).exists() \
                and not (rel.startswith("model/") and _same_bytes(target / rel, data)):
            raise ProjectError(f"{target / rel}: already exists; seams init writes only new files "
                               "(move it away, or start in an empty directory)")

    from seams_edit.files import apply

    apply(target, {target / rel: data for rel, data in files.items()}, undo_dir=None)
    _report_created(target, base, plan, payloads, files, placeholder=placeholder, imported=bool(paths))
    return 0


def _linked_forms(sources: list[Source], forms: dict[str, FormFile],
                  payloads: list[tuple[str, Path, bytes]]) -> dict[str, bytes]:
    """The Camunda Forms files a BPMN links, by file name, to copy beside it into model/ (so that
    ``--update`` finds them there). A name a payload or another form already takes is left out."""
    taken = {name for name, _, _ in payloads} | {"model.trig"}
    out: dict[str, bytes] = {}
    for source in sources:
        if source.format != "bpmn":
            continue
        for form_id in source.spec.linked_forms:  # type: ignore[union-attr]
            form = forms.get(form_id)
            if form is not None and form.path.name not in taken:
                taken.add(form.path.name)
                out[form.path.name] = form.data
    return out


def _same_bytes(path: Path, data: bytes) -> bool:
    """A payload already in model/ with the bytes it would get (``--from model/x.bpmn``) is no clash."""
    return path.is_file() and read_file(path) == data


def _gitignore(target: Path) -> bytes | None:
    """A .gitignore that ignores .seams/ (the existing one with a line added, if it lacks it)."""
    path = target / ".gitignore"
    if not path.exists():
        return skeleton.GITIGNORE.encode("utf-8")
    old = read_file(path)
    lines = {line.strip() for line in old.decode("utf-8", errors="replace").splitlines()}
    if lines & {".seams", ".seams/", "/.seams", "/.seams/"}:
        return None
    return old + (b"" if old.endswith(b"\n") or not old else b"\n") + b".seams/\n"


def _validate(target: Path, files: dict[str, bytes], *, generate: bool) -> dict[str, bytes]:
    """Load the would-be project from a scratch directory; its generated files and lock.

    A model the loader refuses (a payload version it does not read, say) is
    a ProjectError naming the file as it will be in ``target``; nothing has
    been written then. Generators that cannot run on the model yet (it is
    incomplete until the user fills it in) leave ``generated/`` to
    ``seams generate``.
    """
    scratch = Path(tempfile.mkdtemp(prefix="seams-init-"))
    try:
        for rel, data in files.items():
            path = scratch / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        try:
            project = load_project(scratch)
            model = load_model(project)
            model.view  # noqa: B018 - building the view reads every payload element once
            if not generate:
                return {}
            from seams.generators.generate import generation

            result = generation(project, model)
        except SeamsError as exc:
            raise ProjectError(str(exc).replace(str(scratch), str(target))) from None
        if result.problems:
            return {}
        out = {project.relative(path): data for path, data in result.files.items()}
        lock = Lock(generated={rel: _sha256(data) for rel, data in out.items()})
        return {**out, "seams.lock": lock_bytes(lock)}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _sha256(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


_COUNTED = (("processes", "process"), ("tasks", "task"), ("gateways", "gateway"),
            ("decisions", "decision"), ("variables", "variable"))


def _summary(plan: Plan) -> str:
    """``1 process, 3 tasks, ...``: what the import made, zero counts left out."""
    parts = []
    for plural, singular in _COUNTED:
        count = plan.counts.get(plural, 0)
        if count:
            parts.append(f"{count} {singular if count == 1 else plural}")
    return ", ".join(parts) or "nothing new"


def _report_created(target: Path, base: str, plan: Plan, payloads, files: dict[str, bytes], *,
                    placeholder: bool, imported: bool) -> None:
    shown = _shown(target)
    print(f"created {shown}/{CONFIG_NAME}: base {base}"
          + (" (a placeholder: change it and the ex: prefix in model/model.trig to an IRI you own)"
             if placeholder else ""))
    print(f"created {shown}/{MODEL}: {_summary(plan)}")
    for name, _, _ in payloads:
        print(f"{'copied' if imported else 'created'} {shown}/model/{name}"
              + (" (byte for byte)" if imported else ": start -> end, with DI; draw your process here"))
    names = {name for name, _, _ in payloads}
    for rel in sorted(files):
        if rel.startswith("model/") and rel.endswith(".form") and rel[len("model/"):] not in names:
            print(f"copied {shown}/{rel} (byte for byte; the form linked from the BPMN)")
    for rel in sorted(files):
        if rel not in (CONFIG_NAME, MODEL) and not rel.startswith("model/"):
            print(f"created {shown}/{rel}")
    for note in plan.notes:
        print(f"note: {note}")
    for line in _service_task_todos(plan, base):
        print(line)
    cd = f"cd {shown} && " if shown != "." else ""
    print("next:")
    if imported:
        steps = [(f"{cd}seams check", "lists what to fill in: datatypes, reads and writes, examples"),
                 ("seams generate", "once the model is complete: stubs and decisions"),
                 ("pytest -q", "every gate, as CI runs them")]
    else:
        steps = [(f"{cd}seams check", "the new model is sound"),
                 ("seams init --update", "after drawing tasks in model/process.bpmn: add them"),
                 ("seams generate && pytest -q", "stubs and gates for what you added")]
    width = max(len(command) for command, _ in steps) + 2
    for command, why in steps:
        print(f"  {command:<{width}}# {why}")


def _service_task_todos(plan: Plan, base: str) -> list[str]:
    """What no Camunda model says and ``seams check`` does not ask for: a service task's examples
    (and its reads and writes where the BPMN maps none), which ``seams propose`` needs."""
    lines = []
    for subject in plan.subjects:
        predicates = {p for p, _ in subject.facts}
        if (V.RDF.type, V.ServiceTask) not in subject.facts:
            continue
        missing = [name for name, p in (("seam:reads", V.reads), ("seam:writes", V.writes)) if p not in predicates]
        handler = next(str(o) for p, o in subject.facts if p == V.handler)
        local = str(subject.iri)[len(base):] if str(subject.iri).startswith(base) else str(subject.iri)
        lines.append(f"to do: ex:{local} seam:example: examples (given, replies, expect)"
                     + (f", and {' and '.join(missing)}," if missing else "")
                     + f" before seams propose {handler}")
    return lines


def _shown(target: Path) -> str:
    try:
        rel = target.relative_to(Path.cwd().resolve())
        return rel.as_posix() if rel.parts else "."
    except ValueError:
        return str(target)


# ---------------------------------------------------------------------- update


def _update(target: Path, paths: list[Path]) -> int:
    from seams_edit import Patch, apply, apply_patch, undo_dir

    project = load_project(target)
    model = load_model(project)  # the loader keeps every payload path inside the model directory
    trig_text = _read_text(model.trig_bytes, project.model_path)
    dataset = model.dataset
    model_dir = project.model_path.parent
    notes: list[str] = []
    given, forms = _read_inputs(paths, notes) if paths else ([], {})
    by_name = {name: (name, path, data) for name, path, data in given}
    payloads = []
    for payload in sorted(model.payloads.values(), key=lambda p: p.relpath):
        rel = payload.relpath
        payloads.append(by_name.pop(rel) if rel in by_name else (rel, payload.path, payload.data))
    payloads.extend(by_name.values())  # new files, in --from order
    if not payloads:
        raise ProjectError(f"{project.relative(project.model_path)}: names no payload; "
                           "give the files to import with --from")
    forms = forms_beside([p for _, p, _ in payloads], forms, notes)
    sources: list[Source] = read_sources(payloads, forms)
    existing = existing_of(dataset)
    plan = build_import(project.config.base, sources, existing)
    plan.notes[:0] = notes
    patch = Patch(add=tuple(plan.quads(project.graphs)))
    new_text = apply_patch(trig_text, patch, source=project.relative(project.model_path))
    model_rel = project.relative(project.model_path)
    files = {model_rel: new_text.encode("utf-8")}
    for name, _, data in payloads:
        files[project.relative(model_dir / name)] = data
    for name, data in _linked_forms(sources, forms, payloads).items():
        files[project.relative(model_dir / name)] = data
    _validate_update(project.root, files)
    record = apply(project.root, {project.root / rel: data for rel, data in files.items()},
                   undo_dir=undo_dir(project.root))
    changed = {project.relative(p) for p in record.changed}
    for rel in sorted(changed):
        print(f"updated {rel}" if rel == model_rel else f"copied {rel} (byte for byte)")
    print(f"added {_summary(plan)}" if plan.subjects else "added nothing: "
          "every element is in the model already")
    for kind, file, element_id, iri in plan.removed:
        print(f"removed: {kind} \"{element_id}\" is no longer in {file}; {dataset.namespace_manager.normalizeUri(iri)} "
              "and its facts are kept: delete them, or put the element back")
    for note in plan.notes:
        print(f"note: {note}")
    if record.changed:
        print("next: seams check (seams undo takes this back)")
    return 0


def _read_text(data: bytes, path: Path) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ProjectError(f"{path}: not UTF-8 text") from None


def _validate_update(root: Path, files: dict[str, bytes]) -> None:
    """The updated model must load from a scratch copy before anything is written."""
    scratch = Path(tempfile.mkdtemp(prefix="seams-init-"))
    try:
        shutil.copy2(root / CONFIG_NAME, scratch / CONFIG_NAME)
        project = load_project(root)
        model_dir = project.model_path.parent
        shutil.copytree(model_dir, scratch / model_dir.relative_to(root), dirs_exist_ok=True)
        for rel, data in files.items():
            (scratch / rel).parent.mkdir(parents=True, exist_ok=True)
            (scratch / rel).write_bytes(data)
        try:
            load_model(load_project(scratch)).view  # noqa: B018
        except SeamsError as exc:
            raise ProjectError(str(exc).replace(str(scratch), str(root))) from None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
