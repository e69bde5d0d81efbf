"""Where README.md or docs/*.md give a setting's default as "`NAME` (value)", the value is
Settings' default: a default changed in app/config.py must be changed in the docs too."""

from __future__ import annotations

import re

from app.config import REPO_ROOT, Settings

MENTION = re.compile(r"`([A-Z][A-Z0-9_]+)` \(([0-9][0-9_]*)(?: (s|minutes|hours?|days))?\)")
SECONDS = {"": 1, "s": 1, "minutes": 60, "hour": 3600, "hours": 3600, "days": 24 * 3600}


def test_the_defaults_the_docs_give_are_the_settings_defaults() -> None:
    found, wrong = [], []
    for path in [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]:
        text = " ".join(path.read_text().split())  # a mention may break across lines
        for name, number, unit in MENTION.findall(text):
            field = Settings.model_fields.get(name.lower())
            if field is None:
                continue  # a constant of the grader's, not a setting
            said = int(number) * SECONDS[unit]
            found.append(name)
            if field.default != said:
                wrong.append(
                    f"{path.name}: {name} ({number} {unit}) but the default is {field.default}"
                )
    assert not wrong, wrong
    assert len(set(found)) >= 25, sorted(set(found))  # the pattern still finds them
