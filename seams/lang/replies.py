"""The two forms of a binding's reply in an example's ``seam:replies`` (docs/model.md, "Examples").

One reply (any JSON value: every call gets it), or a list of entries
``{"args": [...], "kwargs": {...}, "reply": ...}`` (a call gets the reply of
the entry its arguments match). The acceptance items' binding fakes and
``seams check`` read the forms with these functions, so the two never
disagree about which form an example uses. The plugin copies their source
into the acceptance module it renders for the propose prompt, hence:
standard library only, no name beyond ``Mapping``.
"""

from __future__ import annotations

from collections.abc import Mapping


def reply_entries(reply):
    """The entries of a binding's reply in the list form, or None for the one-reply form: a
    non-empty list of objects, each with ``reply`` and nothing but ``args``/``kwargs`` besides."""
    if not isinstance(reply, list) or not reply:
        return None
    if all(isinstance(e, Mapping) and "reply" in e and set(e) <= {"args", "kwargs", "reply"} for e in reply):
        return reply
    return None


def bind_arguments(names, args, kwargs):
    """``{parameter: value}`` of a call against the declared parameter names (positional in
    order, then by keyword), or None when it passes too many or unknown or repeated ones."""
    if len(args) > len(names):
        return None
    named = dict(zip(names, args))
    for key, value in kwargs.items():
        if key not in names or key in named:
            return None
        named[key] = value
    return named
