"""pytest_seams: every seams gate as a pytest item, and the session runner the CLI uses.

Importing the package costs nothing: pytest loads ``pytest_seams.plugin`` in
every session on the machine, and the plugin imports the collectors (and
rdflib, pyshacl, lxml, seams) only when it meets a seams project.
"""

CONFIG_NAME = "seams.toml"  # the file collected as the project's gates
MODEL_ONLY = "model"  # the selection of only the model gates (shapes, decisions, generate)
