"""The model side of ``seams suggest``'s kinds of change (``kinds``): for
``condition-to-dmn``, which gateways hold an inline rule (``candidates``),
what a well-formed answer is (``answer``) and whether the new decision routes
every sample as the old conditions did (``routing``); for ``merge-shapes``,
which node shapes are alike and what a merge answer is (``merge_shapes``) and
whether every merged form accepts what it did (``form_acceptance``); for
``gist-anchor``, which classes have no way up to gist and what an anchor
answer is (``gist_anchor``, with the gist table in ``gist``).

No provider, no prompt, no file written: those are the workflow's, in
``seams_cli.workflows.suggest``.
"""
