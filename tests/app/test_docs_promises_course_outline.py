"""docs/course.md is scripts/course-outline's output (docs/content.md, the script's own
docstring): the outline the docs show is the course the content files hold."""

from __future__ import annotations

import subprocess
import sys

from app.config import REPO_ROOT


def test_docs_course_md_is_the_outline_of_the_content_files() -> None:
    outline = subprocess.run(
        [sys.executable, str(REPO_ROOT / "scripts" / "course-outline")],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert outline == (REPO_ROOT / "docs" / "course.md").read_text(), (
        "docs/course.md is out of date: .venv/bin/python scripts/course-outline > docs/course.md"
    )
