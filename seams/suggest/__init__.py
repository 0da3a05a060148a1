"""Model changes an LLM proposes and code builds (ADR-0028): ``seams suggest``.

One kind exists, ``condition-to-dmn``. The pieces, in the order the command
uses them: ``candidates`` (which gateways hold an inline rule), ``prompt``
(``suggest-v1.txt`` filled from the model), ``answer`` (the provider's JSON,
validated against the model), ``build`` (the Patch and payload texts),
``routing`` (both versions of the gateway run on sample inputs),
``scratch_check`` (the model gates in a scratch copy) and ``store`` (pending
suggestions, their ids and the provider cache).
"""
