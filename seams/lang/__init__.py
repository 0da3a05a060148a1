"""The expression languages seams reads: gateway conditions (``condition``, in seams'
own language, Camunda 7 JUEL (``juel``) and Camunda 8 FEEL (``feel_expression``),
one tree in ``condition_tree``) and
FEEL unary tests of DMN tables (``feel``, ``feel_parse``, with exact value sets in
``feel_sets`` and boundary samples in ``feel_samples``), over the value kinds of
``values``.

Nothing is ever evaluated with ``eval``: every language is parsed into a small
tree that the checks analyse and the generators turn into code.
"""
