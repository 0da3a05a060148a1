"""Each kind of ``seams suggest`` change as one row: its template, candidates, answer, change and gate.

The loop is the same for every kind (docs/suggest.md): find candidates, fill
the kind's versioned template, read the answer against the model, build the
change by code, check it in a scratch copy (the model gates of the gate
registry plus the kind's own gate, seams.checks.registry.SUGGESTION_GATES),
keep it pending, accept it through seams_edit. A row says only what differs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from seams.checks.registry import SUGGESTION_GATES, Gate
from seams.model.loading import Model
from seams.suggestions import answer as c2d
from seams.suggestions import gist_anchor as anchor
from seams.suggestions import merge_shapes as merge
from seams.suggestions.candidates import candidate_for, find_candidates
from seams.suggestions.form_acceptance import FORMS_BEFORE, forms_before
from seams.suggestions.gist import GIST_TABLE_VERSION
from seams.suggestions.kinds import KIND_NAMES
from seams.suggestions.routing import ORIGINAL_CONDITIONS, original_conditions
from seams_cli.workflows.suggest import prompt as c2d_prompt
from seams_cli.workflows.suggest import prompt_classes
from seams_cli.workflows.suggest.build import Change, build_change
from seams_cli.workflows.suggest.build_shapes import build_gist_anchor, build_merge_shapes


@dataclass(frozen=True)
class KindFlow:
    name: str
    template: str
    no_candidates: str  # said when the model offers none
    find: Callable[[Model], list]
    prompt: Callable[[Model, list], str]
    parse: Callable[[Any, Model, list], Any]  # the decoded answer (or a stored one) -> a suggestion
    build: Callable[[Model, Any], Change]
    subject: Callable[[Model, Any], str]  # one word for --list
    said: Callable[[Model, Any], list[str]]  # what is printed once the answer is read
    record: Callable[[Model, list, Any], dict[str, Any]]  # the record's keys the kind's gate reads
    key_extra: tuple[str, ...] = ()  # joins the cache key and id after the provider (a table version)
    kept: str = ""  # the kind gate's verdict: "<kept> kept (N samples)" / "<kept> changed (N samples)"

    @property
    def gate(self) -> Gate | None:
        return SUGGESTION_GATES.get(self.name)


def _c2d_record(model: Model, candidates: list, suggestion: c2d.Suggestion) -> dict[str, Any]:
    return {ORIGINAL_CONDITIONS: original_conditions(candidate_for(candidates, model, suggestion.gateway))}


def _shapes_said(model: Model, s: merge.MergeShapes) -> list[str]:
    cls = model.qname(s.cls)
    if s.new_class is not None:
        cls += f" (new: {s.new_class.label!r}, rdfs:subClassOf {model.qname(s.new_class.superclass)})"
    return [f"shapes {' '.join(model.qname(x) for x in s.shapes)}", f"merged shape {model.qname(s.shape)}",
            f"class {cls}"]


def _anchor_said(model: Model, s: anchor.GistAnchor) -> list[str]:
    return [f"class {model.qname(s.cls)}", f"superclass {model.qname(s.superclass)}", f"reason {s.reason}"]


FLOWS: dict[str, KindFlow] = {flow.name: flow for flow in (
    KindFlow(c2d.KIND, c2d_prompt.TEMPLATE, "no candidates: every gateway condition reads decision outputs",
             find_candidates, c2d_prompt.build_prompt, c2d.parse_object, build_change,
             subject=lambda model, s: s.gateway, said=lambda model, s: [f"gateway {s.gateway}"],
             record=_c2d_record, kept="routing"),
    KindFlow(merge.KIND, prompt_classes.MERGE_SHAPES_TEMPLATE,
             "no candidates: no two node shapes constrain the same properties",
             merge.find_shape_candidates, prompt_classes.merge_shapes_prompt, merge.parse_merge_shapes,
             build_merge_shapes, subject=lambda model, s: "+".join(model.qname(x) for x in s.shapes),
             said=_shapes_said, record=lambda model, candidates, s: {FORMS_BEFORE: forms_before(model, s.shapes)},
             kept="forms"),
    KindFlow(anchor.KIND, prompt_classes.GIST_ANCHOR_TEMPLATE,
             "no candidates: every ontology class has a gist superclass",
             anchor.find_class_candidates, prompt_classes.gist_anchor_prompt, anchor.parse_gist_anchor,
             build_gist_anchor, subject=lambda model, s: model.qname(s.cls), said=_anchor_said,
             record=lambda model, candidates, s: {}, key_extra=(GIST_TABLE_VERSION,)),
)}
assert tuple(FLOWS) == KIND_NAMES
