"""pytest_seams: every seams gate as a pytest item, and the session runner the CLI uses.

Importing the package costs nothing: pytest loads ``pytest_seams.plugin`` in
every session on the machine, and the plugin imports the collectors (and
rdflib, pyshacl, lxml, seams) only when it meets a seams project.
"""

from seams.fs import CONFIG_NAME  # the file collected as the project's gates

__all__ = ["CONFIG_NAME", "MODEL_ONLY"]
MODEL_ONLY = "model"  # the selection of only the model gates (shapes, decisions, generate)
