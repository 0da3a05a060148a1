"""``seams suggest``'s workflow: the prompt (``prompt``), the change built as
file bytes (``build``), the gates in a scratch copy (``scratch_check``) and the
pending suggestions with their ids and provider cache (``store``).
"""
