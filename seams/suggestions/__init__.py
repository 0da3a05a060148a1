"""The model side of ``seams suggest``'s one kind of change, ``condition-to-dmn``:
which gateways hold an inline rule (``candidates``), what a well-formed answer
is (``answer``) and whether the new decision routes every sample as the old
conditions did (``routing``).

No provider, no prompt, no file written: those are the workflow's, in
``seams_cli.workflows.suggest``.
"""
