"""Decision requirements graphs: which decisions run before a decision, and what it then reads.

A DMN decision may require others (``informationRequirement/requiredDecision``,
read into ``Decision.requires`` by the view): Camunda evaluates the required
decisions first, and their outputs feed the inputs of the same name. So a
business-rule task reads the inputs of every decision of its graph, less the
ones a required decision supplies (docs/model.md, "DMN decisions"). The
flow check, the type checks and the engine all ask this module.
"""

from __future__ import annotations

from rdflib import URIRef

from seams.model.view import Decision, View


def _required(view: View, decision: Decision, element_id: str) -> Decision | None:
    """The decision a DMN id names in ``decision``'s graph: one of its own payload first, else the
    first by IRI (one look-up: collecting every decision per call grew with the square of the model)."""
    candidates = view.decisions_with_id(element_id)
    return next((d for d in candidates if d.payload == decision.payload), candidates[0] if candidates else None)


def evaluation_order(view: View, decision: Decision) -> list[Decision]:
    """The decision's graph in the order Camunda evaluates it: each required decision before the
    decisions that require it, the decision itself last; a cycle is cut where it closes."""
    order: list[Decision] = []
    visiting: set[URIRef] = set()

    def visit(current: Decision) -> None:
        if current.iri in visiting or current in order:
            return
        visiting.add(current.iri)
        for required in current.requires:
            found = _required(view, decision, required)
            if found is not None:
                visit(found)
        order.append(current)

    visit(decision)
    return order


def supplied_inputs(view: View, decision: Decision) -> set[str]:
    """Input expressions of the graph's decisions that a required decision's output supplies."""
    order = evaluation_order(view, decision)
    return {o.variable for d in order[:-1] for o in d.outputs if o.variable}


def graph_inputs(view: View, decision: Decision) -> list[tuple[Decision, URIRef]]:
    """(decision, variable) for every input of the graph the process must set: each ``dec:fromPath``
    of every decision of the graph whose input no required decision supplies."""
    supplied = supplied_inputs(view, decision)
    out: list[tuple[Decision, URIRef]] = []
    for each in evaluation_order(view, decision):
        for given in each.inputs:
            if given.variable not in supplied and isinstance(given.from_path, URIRef):
                out.append((each, given.from_path))
    return out


def fed_parameters(view: View, decision: Decision, output: str) -> list[str]:
    """The names under which the decisions of ``decision``'s graph read a required decision's
    output ``output``: each input whose expression is that name, as the variable it reads (else the
    name itself)."""
    names = []
    for each in evaluation_order(view, decision):
        for given in each.inputs:
            if given.variable == output:
                name = view.variable_name(given.from_path) if isinstance(given.from_path, URIRef) else None
                names.append(name or output)
    return list(dict.fromkeys(names))
