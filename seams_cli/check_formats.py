"""The output formats of ``seams check``: where a team reads findings (docs/cli.md, "seams check").

* ``text``: one line per finding (D-finding-line), then the advice; unchanged for terminals and greps.
* ``json``: ``{"findings": [...], "advice": [...]}``, each finding with its kind, subject,
  predicate, message, and the file and line at fault (seams.finding_locations), or null.
* ``sarif``: SARIF 2.1.0, one rule per finding kind, one result per finding, for code-scanning
  tools (GitHub code scanning, SARIF viewers); paths relative to ``%SRCROOT%``.
* ``github``: GitHub Actions workflow commands, ``::error file=…,line=…,title=…::<line>``, which
  the runner turns into annotations on the pull request's lines.

Paths are relative to the directory the command runs in when the file is inside it (a
repository's root in CI and in pre-commit), else to the project root; always with ``/``.
Every format carries the same findings, in the same order, as the text lines.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from seams.finding_locations import Location
from seams.findings import Finding

FORMATS = ("text", "json", "sarif", "github")
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
KIND_HELP = {
    "shape": "the model breaks a seam shape (SHACL)",
    "decision": "a decision, gateway condition or flow is unsound",
    "generate": "a generator cannot render the model",
    "generated-stale": "a generated file no longer matches the model",
    "generated-hand-edited": "a generated file was edited by hand",
    "draft-stale": "an accepted handler draft was made for another context",
    "draft-hand-edited": "an accepted handler draft was edited after acceptance",
}


def shown_path(path: Path, cwd: Path, root: Path) -> str:
    """``path`` relative to ``cwd`` when inside it, else to the project ``root``, with ``/``."""
    resolved = path.resolve()
    for base in (cwd.resolve(), root.resolve()):
        if resolved.is_relative_to(base):
            return resolved.relative_to(base).as_posix()
    return resolved.as_posix()


def finding_records(findings: Sequence[Finding], locations: Sequence[Location | None], cwd: Path,
                    root: Path) -> list[dict[str, object]]:
    """The JSON findings: the finding's own fields plus ``file`` and ``line`` (null when unknown)."""
    records: list[dict[str, object]] = []
    for finding, location in zip(findings, locations, strict=True):
        records.append({**finding.as_dict(),
                        "file": shown_path(location.path, cwd, root) if location else None,
                        "line": location.line if location else None})
    return records


def render(fmt: str, findings: Sequence[Finding], locations: Sequence[Location | None], notes: Sequence[str], *,
           cwd: Path, root: Path, clean: str) -> str:
    """The whole output of ``seams check`` in ``fmt`` (ends with a newline)."""
    records = finding_records(findings, locations, cwd, root)
    if fmt == "json":
        return json.dumps({"findings": records, "advice": list(notes)}, indent=2, ensure_ascii=False) + "\n"
    if fmt == "sarif":
        return json.dumps(sarif(findings, records), indent=2, ensure_ascii=False) + "\n"
    if fmt == "github":
        lines = [github_line(finding, record) for finding, record in zip(findings, records, strict=True)]
        lines += [f"::notice::{_data(note)}" for note in notes]
        return "".join(line + "\n" for line in lines)
    lines = [finding.line() for finding in findings] or [clean]
    return "".join(line + "\n" for line in [*lines, *notes])


def sarif(findings: Sequence[Finding], records: Sequence[dict[str, object]]) -> dict[str, object]:
    """A SARIF 2.1.0 log of one run."""
    kinds = sorted({finding.kind for finding in findings})
    rules = [{"id": kind, "name": kind,
              "shortDescription": {"text": KIND_HELP.get(kind, f"seams check finding of kind {kind}")}}
             for kind in kinds]
    results = []
    for finding, record in zip(findings, records, strict=True):
        result: dict[str, object] = {"ruleId": finding.kind, "ruleIndex": kinds.index(finding.kind), "level": "error",
                                     "message": {"text": finding.line()}}
        if record["file"] is not None:
            physical: dict[str, object] = {"artifactLocation": {"uri": record["file"], "uriBaseId": "%SRCROOT%"}}
            if record["line"] is not None:
                physical["region"] = {"startLine": record["line"]}
            result["locations"] = [{"physicalLocation": physical}]
        result["partialFingerprints"] = {"seamsFinding/v1": finding.line()}
        results.append(result)
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0",
            "runs": [{"tool": {"driver": {"name": "seams", "rules": rules}},
                      "columnKind": "unicodeCodePoints", "results": results}]}


def github_line(finding: Finding, record: dict[str, object]) -> str:
    """One ``::error`` workflow command; properties and message escaped as the runner expects."""
    properties = []
    if record["file"] is not None:
        properties.append(f"file={_property(str(record['file']))}")
        if record["line"] is not None:
            properties.append(f"line={record['line']}")
    properties.append(f"title={_property('seams ' + finding.kind)}")
    return f"::error {','.join(properties)}::{_data(finding.line())}"


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")
