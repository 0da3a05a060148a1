"""One module per ``seams`` command, each with ``add_arguments(parser)`` and
``run(args) -> int``; ``seams_cli.main`` imports only the one it dispatches to.
"""
