"""Form and data shape fields against the variables they constrain.

A field whose ``sh:datatype`` is not its variable's ``seam:datatype`` makes
the form ask for one thing and the process hold another; an ``sh:in`` value
or a bound of the wrong kind can never be met. Both pass SHACL (the shapes
only describe data), so this module compares them with the type table of
seams.checks.types.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seams.checks.types import BOUNDS, DATATYPES, describe_type, local_datatype, rule_contradicts, variable_types
from seams.findings import Finding
from seams.lang.field_values import datatype_problem, show

if TYPE_CHECKING:
    from seams.model.loading import Model

KIND = "shape"
_ATTRIBUTES = {"minInclusive": "min_inclusive", "maxInclusive": "max_inclusive",
               "minExclusive": "min_exclusive", "maxExclusive": "max_exclusive"}


def field_type_findings(model: Model) -> list[Finding]:
    """Fields whose datatype, sh:in values or bounds disagree with their variable's datatype."""
    types = variable_types(model)
    found: set[Finding] = set()
    for form in model.view.forms.values():
        for field in form.fields:
            vtype = types.get(field.path) if field.path is not None else None
            if vtype is None or vtype.datatype not in DATATYPES:
                continue  # not a variable, or one without a known datatype: the shapes report it
            datatype = local_datatype(field.datatype)
            problems = list(_problems(field, vtype, datatype))
            if not problems:
                continue
            where = f'field "{field.name}"' if field.name else "a field"
            where = f"{where} on {model.qname(vtype.iri)} ({describe_type(vtype)})"
            subject = model.qname(form.iri)
            found.update(Finding(KIND, subject, predicate, where + message)
                         for predicate, message in problems)
    return sorted(found)


def _problems(field, vtype, datatype: str | None):
    """(predicate, message after the field's name) for each way the field contradicts its variable;
    the names are looked up only for a finding (qnames cost on a large model)."""
    if datatype is not None and datatype != vtype.datatype:
        yield ("sh:datatype", f" has sh:datatype xsd:{datatype}; expected the variable's "
                              f"seam:datatype xsd:{vtype.datatype}")
        return
    for value in field.in_values or ():
        wrong = datatype_problem(value, vtype.datatype)
        if wrong:
            yield ("sh:in", f": sh:in value {wrong}")
    for bound in BOUNDS:
        value = getattr(field, _ATTRIBUTES[bound])
        if value is not None and rule_contradicts({bound: value}, vtype.datatype):
            yield (f"sh:{bound}", f": sh:{bound} {show(value)} is not a bound on xsd:{vtype.datatype} "
                                  "values, so no value meets it")
