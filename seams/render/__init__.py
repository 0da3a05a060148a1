"""Pictures a person reviews instead of XML: a BPMN diagram as SVG from its DI, a DMN decision
table as an HTML table, and the one self-contained HTML page the CLI and the plugin write
(``seams suggest --show``, ``seams run --html``, ``pytest --seams-coverage-html``; docs/cli.md).

Pure Python over lxml: no browser is needed to produce a picture. Every text taken from a model
is untrusted: it is cleaned (``text.clean``) and escaped wherever it is written.
"""

from seams.render.bpmn_svg import MARKS, render_bpmn
from seams.render.dmn_html import render_decision_table
from seams.render.page import Section, html_page

__all__ = ["MARKS", "Section", "html_page", "render_bpmn", "render_decision_table"]
