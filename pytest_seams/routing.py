"""``seams.toml::routing`` and ``seams.toml::forms``: the gate of a pending suggestion, as an item.

Collected only with ``--seams-suggestion=PATH`` (PATH: the suggestion's
record, ``suggestion.json``), in a project the suggestion has already
changed: ``seams suggest`` and ``seams suggest --accept`` run it in the
scratch copy beside the model gates, so every verdict on a model change
comes from item reports (docs/architecture.md, D-every-gate-an-item). The
item compares the gateway's original conditions, kept in the record, with
the changed model's own routing (seams.suggestions.routing.routing_of_record)
and reports the number of samples it ran as the fact ``samples``. A
``merge-shapes`` record gets the forms item instead (each old shape's
verdicts on sample records, kept in the record, against the merged shape's
in the changed model: seams.suggestions.form_acceptance), a ``gist-anchor``
record no item: the kind's gate comes from seams.checks.registry.SUGGESTION_GATES.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any, Protocol, cast

from pytest_seams.items import GateItem
from seams.checks.registry import FORMS, ROUTING, SUGGESTION_GATES

MAX_RECORD = 1_000_000  # bytes of a suggestion record read; a real one is a few kilobytes


class _ModelOwner(Protocol):
    """The collector of the item (collect.SeamsFile): the changed model, loaded once."""

    model: Any


class RoutingItem(GateItem):
    """The routing of the record's gateway, before and after the change."""

    gate = ROUTING.name

    def __init__(self, *, record: Path, **kwargs):
        super().__init__(**kwargs)
        self.record = record

    def reportinfo(self):
        return self.path, None, f"{self.gate}: {self.subject}"

    def runtest(self) -> None:
        from seams.errors import SeamsError
        from seams.findings import Finding
        from seams.suggestions.routing import routing_of_record

        try:
            record = _read_record(self.record)
            gateway = (record.get("suggestion") or {}).get("gateway") if isinstance(record, dict) else None
            self.subject = gateway if isinstance(gateway, str) and gateway else self.subject
            result = routing_of_record(cast(_ModelOwner, self.parent).model, record)
        except SeamsError as exc:
            self.fail_with([Finding(self.gate, self.subject, None, str(exc))])
        self.facts = {"samples": result.samples}
        if result.findings:
            self.fail_with(result.findings)


class FormsItem(RoutingItem):
    """What each merged form accepts, before and after the change."""

    gate = FORMS.name

    def runtest(self) -> None:
        from seams.errors import SeamsError
        from seams.findings import Finding
        from seams.suggestions.form_acceptance import forms_of_record

        try:
            record = _read_record(self.record)
            result = forms_of_record(cast(_ModelOwner, self.parent).model, record)
        except SeamsError as exc:
            self.fail_with([Finding(self.gate, self.subject, None, str(exc))])
        self.facts = {"samples": result.samples}
        if result.findings:
            self.fail_with(result.findings)


_ITEMS = {ROUTING.name: RoutingItem, FORMS.name: FormsItem}


def _read_record(path: Path) -> dict:
    from seams.errors import SeamsError

    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_RECORD + 1)
        if len(data) > MAX_RECORD:
            raise SeamsError(f"{path.name}: larger than {MAX_RECORD} bytes")
        record = json.loads(data.decode("utf-8"), parse_float=Decimal)
    except OSError as exc:
        raise SeamsError(f"{path.name}: cannot read the suggestion record: {exc.strerror}") from None
    except ValueError as exc:
        raise SeamsError(f"{path.name}: not a suggestion record: {exc}") from None
    if not isinstance(record, dict):
        raise SeamsError(f"{path.name}: not a suggestion record (not a JSON object)")
    return record


def suggestion_items(parent, option: str) -> list[RoutingItem]:
    """The item of ``--seams-suggestion=option`` (a path relative to the invocation directory):
    the gate of the record's kind, none for a kind without one. A record that cannot be read
    gets the routing item, which fails naming why."""
    from seams.errors import SeamsError

    record = Path(option)
    if not record.is_absolute():
        record = Path(parent.config.invocation_params.dir) / record
    try:
        kind = _read_record(record).get("kind")
    except SeamsError:
        kind = None
    gate = SUGGESTION_GATES.get(kind, ROUTING) if isinstance(kind, str) else ROUTING
    if isinstance(kind, str) and kind not in SUGGESTION_GATES and _known_kind(kind):
        return []
    return [_ITEMS[gate.name].from_parent(parent, name=gate.name, record=record, subject=record.name)]


def _known_kind(kind: str) -> bool:
    from seams.suggestions.kinds import KIND_NAMES

    return kind in KIND_NAMES
