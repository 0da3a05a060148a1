"""Which model a generator package's golden items render and judge against.

``SEAMS_MODEL`` when it is set; otherwise the model of the seams project the
package lies in (a ``seams.toml`` in its directory or above), so a plain
``pytest`` in a project runs its packages' golden items against the project's
own model with no setting (docs/generators.md).
"""

from __future__ import annotations

import os
from pathlib import Path

from seams.fs import MODEL_ENV


def model_for(package_root: Path) -> tuple[Path | None, str]:
    """The model a package renders in its golden test: ``SEAMS_MODEL``, else the model of
    the seams project the package lies in (so ``pytest`` in a project needs no setting)."""
    model = os.environ.get(MODEL_ENV)
    if model:
        trig = Path(model).resolve()
        return (trig, "") if trig.is_file() else (None, f"{MODEL_ENV}={model}: no such file")
    project = next((d for d in [package_root, *package_root.parents] if (d / "seams.toml").is_file()), None)
    if project is None:
        return None, (f"{MODEL_ENV} is not set and the package is in no seams project: "
                      "point SEAMS_MODEL at the model's TriG file")
    from seams.errors import SeamsError
    from seams.project.layout import load_project

    try:
        return load_project(project, env={}).model_path, ""
    except SeamsError as exc:
        return None, str(exc)
