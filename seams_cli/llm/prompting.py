"""Building prompts: versioned templates, and model text quoted as data.

Labels, comments and payload fragments are written by people we do not
control, and a prompt is read by a model that follows instructions it
finds anywhere. So every piece of model text goes into a DATA block whose
fence no text inside it can close: the fence is longer than any backtick
run in the data, and tagged with a token from the data's own hash, which a
writer cannot know while still choosing the text. Templates are files named
with their version (``draft-v1.txt``), so changing a prompt changes its name
and with it every cache key built from that name.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from importlib import resources
from string import Template

from seams.errors import ProjectError

_LABEL = re.compile(r"^[a-z][a-z0-9 _.-]*$")
_BACKTICKS = re.compile(r"`+")


def quote(text: str, *, label: str) -> str:
    """``text`` as a fenced DATA block: ``<fence>DATA-<token> <label>`` ... ``<fence>DATA-<token>``.

    The fence is at least three backticks and longer than any backtick run in
    ``text``; the token is the first 8 hex digits of sha256(text).
    """
    if not _LABEL.match(label):
        raise ValueError(f"a DATA block label must be lower-case words, not {label!r}")
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    token = hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]
    body = text if text.endswith("\n") else text + "\n"
    return f"{fence}DATA-{token} {label}\n{body}{fence}DATA-{token}"


def load_template(name: str) -> str:
    """The text of ``prompts/<name>`` as shipped with seams."""
    try:
        return resources.files("seams_cli.prompts").joinpath(name).read_text(encoding="utf-8")
    except (FileNotFoundError, OSError):
        raise ProjectError(f"prompts/{name}: prompt template not found in the seams installation") from None


def fill(template: str, values: Mapping[str, str]) -> str:
    """Fill ``$name`` placeholders; inserted text is never scanned again, so data holding
    ``$x`` stays as written."""
    return Template(template).substitute(values)
