"""The layout-keeping TriG editor: ``patching.apply_patch`` scans the text
(``scan``), parses only the statements a patch touches (``statement``), and
splices removals, rewrites and new subjects (``layout``, ``rewrite``,
``place``) written in the style of their neighbours (``style``, ``mimic``,
``terms``, ``writing``).
"""
