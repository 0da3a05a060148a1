"""The gist classes seams knows, for ``gist-anchor`` suggestions (docs/suggest.md).

A seams model anchors every ontology class in gist, Semantic Arts'
upper ontology. The prompt of a ``gist-anchor`` suggestion lists these core
classes so the provider picks one of them, and an answer naming any other
superclass is refused. The labels are gist's; the definitions are written
here, in this project's words, to say when a modeler would choose the class.

The table is versioned: its version joins the cache key of a
``gist-anchor`` answer, so a changed table never reuses an answer made from
the old one. Change a row, change ``GIST_TABLE_VERSION``.
"""

from __future__ import annotations

from dataclasses import dataclass

from rdflib import URIRef

from seams import vocab as V

GIST_TABLE_VERSION = "gist-core-v1"


@dataclass(frozen=True)
class GistClass:
    name: str  # local name in the gist namespace
    label: str
    definition: str

    @property
    def iri(self) -> URIRef:
        return V.GIST[self.name]


GIST_CLASSES: tuple[GistClass, ...] = (
    GistClass("Account", "account", "A running record kept between parties, such as a balance of money or days."),
    GistClass("Address", "address", "Where something or someone can be reached: a postal, e-mail or web location."),
    GistClass("Agreement", "agreement", "Something two or more parties have both consented to, such as a "
              "request that was accepted or terms that were signed."),
    GistClass("Building", "building", "A structure with walls and a roof that stands in one place."),
    GistClass("Category", "category", "A label used to sort things into kinds, such as a leave type or a "
              "priority; it says what kind a thing is, not what it is."),
    GistClass("Collection", "collection", "A group of things considered together, such as a batch or a list."),
    GistClass("Commitment", "commitment", "A promise by one party to do something, whether or not another party "
              "has agreed to it."),
    GistClass("Content", "content", "Information meant to be read, seen or heard, apart from its carrier: a "
              "note, a message body, a report."),
    GistClass("Contract", "contract", "An agreement that is binding and can be enforced."),
    GistClass("Duration", "duration", "An amount of time, such as three days, not tied to a start or an end."),
    GistClass("Equipment", "equipment", "A physical thing built to be used for a purpose: a tool, a device, a "
              "vehicle."),
    GistClass("Event", "event", "Something that happens at a time or over a span of time: a review, a "
              "booking, a payment."),
    GistClass("Identifier", "identifier", "A string or code that picks out one thing, such as a booking "
              "reference or an order number."),
    GistClass("Intention", "intention", "What someone wants or means to achieve: a goal, a plan, a request "
              "before anyone has agreed to it."),
    GistClass("Magnitude", "magnitude", "A measured amount of something, with a unit: a weight, a sum of "
              "money, a count of days."),
    GistClass("Message", "message", "Content sent from one party to another: a notice, a letter, an e-mail."),
    GistClass("Obligation", "obligation", "Something a party must do because of an agreement or a rule."),
    GistClass("Offer", "offer", "A proposal by one party that another may accept to make an agreement."),
    GistClass("Organization", "organization", "A group of people with a purpose and an identity of its own: a "
              "company, a team, a department."),
    GistClass("Person", "person", "A human being."),
    GistClass("Place", "place", "A location or area on Earth, with or without a building on it."),
    GistClass("Requirement", "requirement", "Something that must hold or be done for a thing to be "
              "acceptable."),
    GistClass("ScheduledEvent", "scheduled event", "An event planned for a given time before it happens, such "
              "as a booked absence or a meeting."),
    GistClass("Specification", "specification", "A description of what something should be, against which "
              "actual things are checked."),
    GistClass("Task", "task", "A piece of work someone is to do, usually as a step of a larger process."),
)
"""gist's core classes, by local name."""


def gist_class(iri: URIRef) -> GistClass | None:
    """The row for ``iri``, or None when it is not one of the table's classes."""
    return next((row for row in GIST_CLASSES if row.iri == iri), None)


def is_gist(iri: object) -> bool:
    """Whether ``iri`` is in gist's namespace (any gist class anchors a class, not only the table's)."""
    return isinstance(iri, URIRef) and str(iri).startswith(str(V.GIST))
