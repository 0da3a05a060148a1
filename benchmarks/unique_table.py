"""A copy of examples/leave whose UNIQUE table has N rules, and ``seams check`` timed on it.

The rules split ``days`` into N/4 disjoint ranges, crossed with four leave
types (``"annual"``, ``"sick"``, ``"unpaid"`` and ``not(...)`` of them), so
no two rules overlap and ``seams check`` must find the table clean.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "leave"
_TYPES = ('"annual"', '"sick"', '"unpaid"', 'not("annual", "sick", "unpaid")')


def _rule(n: int) -> str:
    low, kind = (n // 4) * 2, _TYPES[n % 4]
    return (f'      <rule id="Rule_{n}">\n'
            f'        <inputEntry id="In_{n}_a"><text>[{low}..{low + 2}[</text></inputEntry>\n'
            f'        <inputEntry id="In_{n}_b"><text>{kind.replace(chr(34), "&quot;")}</text></inputEntry>\n'
            f'        <outputEntry id="Out_{n}"><text>"manager"</text></outputEntry>\n'
            f'      </rule>\n')


def build_table_project(target: Path, rules: int) -> Path:
    """The example at ``target`` with ``rules`` disjoint rules in Decision_ApprovalLevel."""
    shutil.copytree(EXAMPLE, target, ignore=shutil.ignore_patterns("__pycache__", ".seams"))
    dmn = target / "model" / "leave.dmn"
    text = dmn.read_text(encoding="utf-8")
    body = "".join(_rule(n) for n in range(rules))
    text = re.sub(r"      <rule id=.*</rule>\n", lambda _: body, text, flags=re.S)
    dmn.write_text(text, encoding="utf-8")
    # the rules changed, so must the generated decision module: regenerate, then check
    return target
