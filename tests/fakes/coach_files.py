"""The files a test gives Coach: its config (at COACH_CONFIG, which tests/conftest.py sets
per test) and note files written by hand, as a learner's editor would."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import yaml


def write_config(settings: dict[str, Any]) -> Path:
    """Write `settings` as this test's coach.config.json; returns its path."""
    path = Path(os.environ["COACH_CONFIG"])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings), encoding="utf-8")
    return path


def write_note(folder: Path, name: str, front: dict[str, Any], body: str) -> Path:
    """A note file `<name>.md` with YAML front matter `front` and Markdown `body`."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.md"
    path.write_text("---\n" + yaml.safe_dump(front) + "---\n" + body, encoding="utf-8")
    return path
