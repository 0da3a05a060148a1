"""The model as data: TriG and native payloads read into an rdflib Dataset
(``loading``, ``payloads``), the typed view every later part reads (``view``),
task names resolved from what users type (``resolve``) and the facts a task's
draft depends on (``context``).

Everything here reads; nothing writes. Edits go through ``seams_edit``.
"""

from seams.model.loading import Model, load_model, model_hash, parse_trig

# ``model_hash`` and ``parse_trig`` are what generator packages import
# (their extract hashes the model), so they stay importable from here.
__all__ = ["Model", "load_model", "model_hash", "parse_trig"]
