"""`python -m app lti add-platform | list | remove | rotate-key`, as an administrator runs
them, on a database of their own (SQLite in DATA_DIR)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from app.config import REPO_ROOT


def _lti(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = os.environ | {
        "DATA_DIR": str(data_dir),
        "PUBLIC_BASE_URL": "https://camp.example.org",
        "SECRET_KEY": "test-secret-key-that-is-long-enough-0123456789",
    }
    env.pop("DATABASE_URL", None)
    return subprocess.run(
        [sys.executable, "-m", "app", "lti", *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_an_administrator_registers_lists_and_removes_a_platform(tmp_path: Path) -> None:
    moodle = [
        "--issuer",
        "https://moodle.example.edu",
        "--client-id",
        "abc123",
        "--auth-url",
        "https://moodle.example.edu/mod/lti/auth.php",
        "--token-url",
        "https://moodle.example.edu/mod/lti/token.php",
        "--jwks-url",
        "https://moodle.example.edu/mod/lti/certs.php",
    ]
    added = _lti(tmp_path, "add-platform", *moodle, "--deployment-id", "1", "--deployment-id", "2")
    assert added.returncode == 0, added.stderr
    assert "https://camp.example.org/lti/login" in added.stdout
    assert "https://camp.example.org/lti/launch" in added.stdout
    assert "https://camp.example.org/lti/jwks.json" in added.stdout

    again = _lti(tmp_path, "add-platform", *moodle, "--deployment-id", "1")
    assert again.returncode == 1
    assert "already registered" in again.stderr

    listed = _lti(tmp_path, "list")
    assert listed.returncode == 0, listed.stderr
    assert "https://moodle.example.edu  client id abc123  deployments 1, 2" in listed.stdout

    rotated = _lti(tmp_path, "rotate-key")
    assert rotated.returncode == 0 and "new tool key" in rotated.stdout

    removed = _lti(
        tmp_path, "remove", "--issuer", "https://moodle.example.edu", "--client-id", "abc123"
    )
    assert removed.returncode == 0, removed.stderr
    assert "no LTI platform is registered" in _lti(tmp_path, "list").stdout
    gone = _lti(
        tmp_path, "remove", "--issuer", "https://moodle.example.edu", "--client-id", "abc123"
    )
    assert gone.returncode == 1
