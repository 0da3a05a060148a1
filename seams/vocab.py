"""The one place that names ``seam:`` and ``dec:`` terms.

Every other module imports terms from here, so a renamed term is a one-line
change and a typo is an AttributeError at import rather than a silent miss.
"""

from __future__ import annotations

from typing import NamedTuple

from rdflib import Namespace
from rdflib.namespace import OWL, RDF, RDFS, SH, XSD

SEAM = Namespace("https://w3id.org/seams/seam#")
DEC = Namespace("https://w3id.org/seams/dec#")
GIST = Namespace("https://w3id.org/semanticarts/ns/ontology/gist/")

# classes
Payload = SEAM.Payload
Process = SEAM.Process
UserTask = SEAM.UserTask
ServiceTask = SEAM.ServiceTask
BusinessRuleTask = SEAM.BusinessRuleTask
Gateway = SEAM.Gateway
Variable = SEAM.Variable
Binding = SEAM.Binding
Example = SEAM.Example
Decision = DEC.Decision

FLOW_ELEMENT_CLASSES = (UserTask, ServiceTask, BusinessRuleTask, Gateway)

# seam: properties
path = SEAM.path
format = SEAM["format"]  # noqa: A001 - attribute access would give str.format
payload = SEAM.payload
payloadElement = SEAM.payloadElement
inProcess = SEAM.inProcess
form = SEAM.form
handler = SEAM.handler
reads = SEAM.reads
writes = SEAM.writes
uses = SEAM.uses
name = SEAM.name
example = SEAM.example
given = SEAM.given
replies = SEAM.replies
expect = SEAM.expect
heldOut = SEAM.heldOut
parameters = SEAM.parameters
result = SEAM.result
field = SEAM.field
datatype = SEAM.datatype
decidedBy = SEAM.decidedBy
# a service task's job settings for the generated engine workers (docs/generators.md, "Job settings")
jobTimeout = SEAM.jobTimeout
maxJobs = SEAM.maxJobs
retries = SEAM.retries
retryBackoff = SEAM.retryBackoff
retryBackoffMax = SEAM.retryBackoffMax
tenantId = SEAM.tenantId
# scenarios of a process (docs/scenarios.md); seam:given, seam:replies and seam:expect as examples have them
scenario = SEAM.scenario
submits = SEAM.submits
task = SEAM.task
values = SEAM["values"]  # noqa: A001 - attribute access would give Namespace.values
expectEnd = SEAM.expectEnd
expectFlows = SEAM.expectFlows

# dec: properties
dec_payloadElement = DEC.payloadElement
dec_input = DEC.input
dec_output = DEC.output
dec_variable = DEC.variable
dec_fromPath = DEC.fromPath
dec_processVariable = DEC.processVariable

# the datatypes a variable may have, and the Python types a value of each may take
DATATYPES = (XSD.string, XSD.integer, XSD.decimal, XSD.boolean, XSD.date)

# XML namespaces of the payloads
BPMN_NS = "http://www.omg.org/spec/BPMN/20100524/MODEL"
BPMNDI_NS = "http://www.omg.org/spec/BPMN/20100524/DI"
DC_NS = "http://www.omg.org/spec/DD/20100524/DC"
DI_NS = "http://www.omg.org/spec/DD/20100524/DI"
DMN_NS = "https://www.omg.org/spec/DMN/20191111/MODEL/"
DMNDI_NS = "https://www.omg.org/spec/DMN/20191111/DMNDI/"
DMN_DC_NS = "http://www.omg.org/spec/DMN/20180521/DC/"  # DMN's own DC, not BPMN's DC_NS


class DmnNamespaces(NamedTuple):
    """The XML namespaces of one DMN version; DMN 1.1 has no diagram interchange (None)."""

    version: str
    model: str
    dmndi: str | None
    dc: str | None
    di: str | None


_DMN_DD_1_2 = "http://www.omg.org/spec/DMN/20180521/"
DMN_VERSIONS = {
    "1.1": DmnNamespaces("1.1", "http://www.omg.org/spec/DMN/20151101/dmn.xsd", None, None, None),
    "1.2": DmnNamespaces("1.2", "http://www.omg.org/spec/DMN/20180521/MODEL/",
                         "http://www.omg.org/spec/DMN/20180521/DMNDI/", _DMN_DD_1_2 + "DC/", _DMN_DD_1_2 + "DI/"),
    "1.3": DmnNamespaces("1.3", DMN_NS, DMNDI_NS, DMN_DC_NS, _DMN_DD_1_2 + "DI/"),
    "1.4": DmnNamespaces("1.4", "https://www.omg.org/spec/DMN/20211108/MODEL/", DMNDI_NS, DMN_DC_NS,
                         _DMN_DD_1_2 + "DI/"),
    "1.5": DmnNamespaces("1.5", "https://www.omg.org/spec/DMN/20230324/MODEL/",
                         "https://www.omg.org/spec/DMN/20230324/DMNDI/", DMN_DC_NS, _DMN_DD_1_2 + "DI/"),
}
"""Every DMN version seams reads, by version; 1.4 keeps 1.3's DMNDI (its schema imports it)."""
DMN_DEFAULT_VERSION = "1.3"
DMN_MODEL_NAMESPACES = {spaces.model: spaces for spaces in DMN_VERSIONS.values()}
"""The namespaces of a DMN document, by the namespace of its root ``definitions``."""
DMNDI_NAMESPACES = frozenset(spaces.dmndi for spaces in DMN_VERSIONS.values() if spaces.dmndi)

XSI_NS = "http://www.w3.org/2001/XMLSchema-instance"
CAMUNDA_NS = "http://camunda.org/schema/1.0/bpmn"
ZEEBE_NS = "http://camunda.org/schema/zeebe/1.0"

# BPMN element kind expected for each flow element class
BPMN_KIND = {
    UserTask: "userTask",
    ServiceTask: "serviceTask",
    BusinessRuleTask: "businessRuleTask",
    Gateway: "exclusiveGateway",
}

__all__ = [n for n in dir() if not n.startswith("_")] + ["OWL", "RDF", "RDFS", "SH", "XSD"]
