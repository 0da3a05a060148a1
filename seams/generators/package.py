"""The text of a generator package's files, as ``seams new-generator`` writes them.

The package module is assembled from fixed parts and one replaceable part,
the extract step (imports plus ``def extract(trig, out) -> dict``):
``seams draft-generator`` (docs/draft-generator.md) puts an LLM-drafted extract in its
place and keeps everything else, so the render environment, ``sources`` and
the plugin registration are never the answer's to change. The default
extract returns only the model hash, which leaves the template free of
``[[ ]]`` and the golden test passing as written.
"""

from __future__ import annotations

import json

from seams.generators.pysource import docstring

OPENING_DELIMITERS = ("[[", "[%", "[#")
"""What Jinja would read as a tag in a template; a closing delimiter alone is plain text to it."""

DEFAULT_EXTRACT = '''from seams.model import model_hash


def extract(trig: Path, out: Path) -> dict:
    """The view model the template is rendered with.

    So far only the model hash. Make the generator yours one literal at a
    time: read a value the model holds here, put [[ its_name ]] in its place
    in the template, and mark its golden line [graph: <subject> <predicate>].
    """
    payloads = {rel: path.read_bytes() for rel, path in payload_files(trig).items()}
    return {"model_hash": model_hash(trig, trig.read_bytes(), payloads)}
'''

_HEAD = '''from __future__ import annotations

from pathlib import Path

import jinja2
from rdflib import Dataset

from seams import vocab
from seams.generators import hookimpl
from seams.model import parse_trig

NAME = {name}
TEMPLATE = {template}
TEMPLATES = Path(__file__).resolve().parent / "templates"


def load(trig: Path) -> Dataset:
    """The model's dataset (rdflib, union of its named graphs), read from the TriG file."""
    return parse_trig(trig.read_bytes(), source=trig.name)


def payload_files(trig: Path) -> dict[str, Path]:
    """Every payload the model names: its seam:path (relative to the TriG file's directory) -> file."""
    dataset = load(trig)
    found = {{}}
    for payload in dataset.subjects(vocab.RDF.type, vocab.Payload):
        rel = dataset.value(payload, vocab.path)
        if rel is not None:
            found[str(rel)] = (trig.parent / str(rel)).resolve()
    return dict(sorted(found.items()))


def sources(trig: Path) -> list[Path]:
    """The model files extract reads: the TriG file and every payload it names."""
    return [trig.resolve(), *payload_files(trig).values()]


# --- extract: the view model (seams draft-generator replaces this part) ---
'''

_TAIL = '''

# --- render and register: the template holds text, extract holds the facts ---
def environment() -> jinja2.Environment:
    """[[ value ]], [% block %], [# comment #]; undefined names fail; the trailing newline stays."""
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        variable_start_string="[[",
        variable_end_string="]]",
        block_start_string="[%",
        block_end_string="%]",
        comment_start_string="[#",
        comment_end_string="#]",
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=jinja2.select_autoescape(("html", "xml", "bpmn", "dmn"), default_for_string=False),
    )


def render(view: dict) -> str:
    """The output: the template filled with the view model."""
    return environment().get_template(TEMPLATE).render(view)


class Generator:
    """The seams plugin: `seams generate` writes TEMPLATE into the project's generated directory."""

    @hookimpl
    def seams_generate(self, trig: Path, out_dir: Path) -> dict[str, bytes]:
        return {TEMPLATE: render(extract(trig, out_dir)).encode("utf-8")}


generator = Generator()
'''


def package_name(name: str) -> str:
    """The import name of generator ``name``: ``"leave-report"`` -> ``seams_leave_report``."""
    return "seams_" + name.replace("-", "_")


def package_module(name: str, template_name: str, extract_source: str = DEFAULT_EXTRACT) -> str:
    """``seams_<name>/__init__.py``; ``extract_source`` replaces the extract step.

    ``from __future__`` imports of the extract step move to the top, where
    Python requires them.
    """
    future = [line for line in extract_source.splitlines() if line.startswith("from __future__ import")]
    # a moved line leaves a blank one, so the extract step keeps its line numbers in the module
    extract = "\n".join("" if line in future else line for line in extract_source.splitlines()).rstrip("\n")
    about = (
        f"seams generator {name}: renders templates/{template_name} from a seams model.\n\n"
        "Scaffolded by `seams new-generator`. extract reads the view model from the\n"
        "model's TriG file, render fills the template with it, sources names the\n"
        "model files extract reads, and generator registers it with seams (entry\n"
        "point group seams.generators, see pyproject.toml)."
    )
    head = _HEAD.format(name=json.dumps(name), template=json.dumps(template_name))
    extra_future = "".join(f"{line}\n" for line in sorted(set(future)) if line != "from __future__ import annotations")
    return f"{docstring(about)}\n\n{extra_future}{head}{extract}\n{_TAIL}"


EXTRACT_START = "# --- extract: the view model (seams draft-generator replaces this part) ---\n"


def extract_section(module_text: str) -> str | None:
    """The extract step as :func:`package_module` embedded it (line for line), or None
    when the module is not laid out as the scaffold writes it."""
    start = module_text.find(EXTRACT_START)
    end = module_text.rfind("\n" + _TAIL)
    if start < 0 or end < start + len(EXTRACT_START) - 1:
        return None
    return module_text[start + len(EXTRACT_START):end] + "\n"


DRAFT_TABLE = "[tool.seams.draft]"
"""The pyproject.toml table of a drafted package: the reference it was drafted from, so the
package's own golden session can run the restated-label check (pytest_seams.golden_rules)."""


def draft_table(reference: str) -> str:
    """``[tool.seams.draft]`` with ``reference`` as one TOML basic string (JSON escapes are TOML's)."""
    text = json.dumps(reference, ensure_ascii=False).replace("\x7f", "\\u007f")
    return f"\n{DRAFT_TABLE}\nreference = {text}\n"


def draft_reference(pyproject_text: str) -> str | None:
    """The reference a drafted package names in pyproject.toml, or None (not drafted, or unreadable)."""
    import tomllib

    try:
        data = tomllib.loads(pyproject_text)
    except tomllib.TOMLDecodeError:
        return None
    reference = data.get("tool", {}).get("seams", {}).get("draft", {}).get("reference")
    return reference if isinstance(reference, str) else None


def pyproject(name: str) -> str:
    """``pyproject.toml``: the distribution, its entry point, the template as package data."""
    package = package_name(name)
    return f'''[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "seams-{name}"
version = "0.1.0"
description = "seams generator {name}"
requires-python = ">=3.11"
dependencies = ["seams", "jinja2>=3.1", "rdflib>=7"]

[project.entry-points."seams.generators"]
{name} = "{package}:generator"

[tool.setuptools]
packages = ["{package}"]

[tool.setuptools.package-data]
{package} = ["templates/*"]

[tool.pytest.ini_options]
testpaths = ["tests"]
'''
