"""The rules of a drafted generator package as items of its golden file.

A package drafted by ``seams draft-generator`` names its reference in
``pyproject.toml`` (``[tool.seams.draft]``); its golden file then has three
more items beside the four of pytest_seams.golden:

* ``extract``: the extract step (the part of ``seams_<name>/__init__.py``
  between the scaffold's markers) is plain Python defining ``extract`` and
  redefines nothing of the scaffold's module;
* ``no-logic``: the template holds values and simple loops, no logic;
* ``restated-label``: the template's text restates no model label that the
  reference holds (the labels of the model at ``SEAMS_MODEL``, else of the
  project the package lies in).

The checks are seams.generators.package_rules'; none of them imports or
runs the package's code, so they judge even a package that cannot load.
The package's own ``pytest`` enforces them in its CI, and ``seams
draft-generator`` reads them from the scratch session's reports
(docs/architecture.md, D-every-gate-an-item).
"""

from __future__ import annotations

from pathlib import Path

from pytest_seams.golden_model import model_for
from pytest_seams.items import GateItem
from seams.checks.registry import DRAFT_RULE_NAMES

RULE_GATES = DRAFT_RULE_NAMES  # in the order their refusals are reported


def rule_items(parent, root: Path, package_dir: Path | None, subject: str) -> list[GateItem]:
    """The rule items of the golden file ``parent`` when its package is a drafted one."""
    from seams.generators.package import draft_reference

    pyproject = root / "pyproject.toml"
    try:
        reference = draft_reference(pyproject.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        reference = None
    if reference is None or package_dir is None:
        return []
    return [item.from_parent(parent, name=item.gate, subject=subject, package_dir=package_dir,
                             reference=reference)
            for item in (ExtractItem, NoLogicItem, RestatedLabelItem)]


class _RuleItem(GateItem):
    marker = "seams_golden"

    def __init__(self, *, package_dir: Path, reference: str, **kwargs):
        super().__init__(**kwargs)
        self.package_dir = package_dir
        self.reference = reference

    def reportinfo(self):
        return self.path, None, f"{self.gate}: {self.subject}"

    def runtest(self) -> None:
        from seams.errors import SeamsError
        from seams.findings import Finding

        try:
            self.check()
        except SeamsError as exc:
            self.fail_with([Finding(self.gate, self.subject, None, str(exc))])

    def template(self) -> str:
        return (self.package_dir / "templates" / Path(self.path).name).read_text(encoding="utf-8")

    def check(self) -> None:
        raise NotImplementedError


class ExtractItem(_RuleItem):
    gate = "extract"

    def check(self) -> None:
        from seams.errors import DraftGeneratorError
        from seams.generators.package import extract_section, package_module
        from seams.generators.package_rules import check_extract

        module = (self.package_dir / "__init__.py").read_text(encoding="utf-8")
        section = extract_section(module)
        if section is None:
            raise DraftGeneratorError(f"{self.package_dir.name}/__init__.py: the extract markers of the "
                                      "scaffold are gone")
        check_extract(section, package_module("package", Path(self.path).name))


class NoLogicItem(_RuleItem):
    gate = "no-logic"

    def check(self) -> None:
        from seams.generators.package_rules import check_no_logic

        check_no_logic(self.template())


class RestatedLabelItem(_RuleItem):
    gate = "restated-label"

    def check(self) -> None:
        from seams.errors import DraftGeneratorError
        from seams.generators.package_rules import check_no_restated_label, label_names
        from seams.model import parse_trig

        trig, problem = model_for(self.package_dir.parent)
        if trig is None:
            raise DraftGeneratorError(problem)
        try:
            data = trig.read_bytes()
        except OSError as exc:
            raise DraftGeneratorError(f"{trig}: {exc.strerror}") from None
        names = label_names(parse_trig(data, source=trig.name))
        check_no_restated_label(self.template(), self.reference, names)
