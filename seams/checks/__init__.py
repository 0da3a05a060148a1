"""What ``seams check`` and the plugin's gate items report: the seam shapes
(``shapes``), the decision and flow checks (``decisions``, ``flow``), the
type-aware checks (``types`` holds the datatype table and variable types;
``examples`` and ``field_types`` report under ``shape``, ``decision_types``
and ``condition_types`` under ``decision``), accepted handler drafts against
the lock (``handler_drafts``), and the order they are reported in
(``registry``).

Each check is a function from a loaded model to findings; none of them writes.
"""
