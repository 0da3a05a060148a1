"""Where a project's files are: ``seams.toml`` (``config``), the project root and
model path (``layout``), and ``seams.lock`` (``lock``).

Nothing here reads the model: a project is found and configured before any
TriG is parsed, so a bad config fails fast with one line.
"""
