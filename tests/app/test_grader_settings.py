"""The README's promise about GRADER_CGROUPS: a cgroup per run is required outside development
(the grader then refuses to grade where the host gives none) and optional in it, unless set."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.config import Settings

KEY = "a-test-secret-key-that-is-long-enough-0123456789"


@pytest.mark.parametrize(
    ("environment", "given", "effective"),
    [
        ("development", None, "optional"),
        ("test", None, "required"),
        ("production", None, "required"),
        ("development", "required", "required"),
        ("production", "optional", "optional"),
        ("production", "off", "off"),
    ],
)
def test_a_cgroup_per_run_is_required_outside_development(
    tmp_path: Path, environment: str, given: str | None, effective: str
) -> None:
    settings = Settings(
        environment=environment,
        secret_key=KEY,
        data_dir=tmp_path,
        public_base_url="https://camp.example",
        grader_cgroups=given,
    )
    assert settings.effective_grader_cgroups == effective


def test_an_unknown_policy_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="grader_cgroups"):
        Settings(secret_key=KEY, data_dir=tmp_path, grader_cgroups="sometimes")
