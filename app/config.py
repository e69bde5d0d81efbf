"""Settings, read from the environment (and `.env`), validated once at start-up."""

from __future__ import annotations

import re
from functools import cached_property
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit, urlunsplit

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

REPO_ROOT = Path(__file__).resolve().parent.parent
DEV_SECRET = "dev-only-secret-change-me"  # the published default of older versions: refused
# Keys that appear in docs and examples everywhere: refused in every environment.
KNOWN_DEFAULT_SECRETS = frozenset(
    {
        DEV_SECRET,
        "change-me",
        "changeme",
        "change_me",
        "change-this",
        "replace-me",
        "secret",
        "secret-key",
        "secret_key",
        "your-secret-key",
        "your-secret-key-here",
        "development",
        "dev",
        "test",
        "password",
    }
)

TRUSTED_HOST = re.compile(r"\*|(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*")
# What a Content-Security-Policy source may be here: an origin, or a host with an optional
# scheme, `*.` and port; never a keyword or anything that could end the directive.
FRAME_ANCESTOR = re.compile(r"(https?://)?(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(:(\d{1,5}|\*))?")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    environment: Literal["development", "test", "production"] = "development"
    # Unset: a random key made on first start and kept in DATA_DIR (app/auth/secret_key.py).
    secret_key: str = ""
    data_dir: Path = REPO_ROOT / "data"
    database_url: str = ""
    redis_url: str = ""
    content_dir: Path = REPO_ROOT / "exercises"
    port: int = 8000

    max_body_bytes: int = 256 * 1024
    max_code_bytes: int = 64 * 1024
    # Log-in throttling (docs/security.md): failures of one username from one address
    # before each further try waits, the wait doubling from the base up to the cap.
    login_failure_limit: int = Field(default=5, ge=1)
    login_backoff_base_s: int = Field(default=30, ge=1)
    login_backoff_max_s: int = Field(default=900, ge=1)
    login_failure_window_s: int = Field(default=3600, ge=60)  # a failure is forgotten then
    # Usernames one address may fail for within the window (password spraying).
    login_address_failure_limit: int = Field(default=100, ge=1)
    login_successes_per_user_per_minute: int = Field(default=10, ge=1)
    login_successes_per_address_per_minute: int = Field(default=60, ge=1)
    login_concurrency_per_user: int = Field(default=2, ge=1)  # per process
    session_max_age_s: int = 14 * 24 * 3600
    api_token_days: int = Field(default=90, ge=1, le=3660)
    cookie_secure: bool = False
    # Where users reach the site (scheme, host, any path prefix). Absolute links, such as a
    # class's join link, are made from it and never from a request's Host header. Unset:
    # http://127.0.0.1:PORT outside production; production refuses to start without it.
    public_base_url: str = ""
    # Host names the app answers to, space-separated (`*.school.example` allowed); a request
    # for any other host is refused with 400. Unset: any host is served (links never come
    # from it).
    trusted_hosts: str = ""
    # Origins that may show the pages in a frame (an LMS, for LTI launches), space-separated.
    # Unset: none may.
    frame_ancestors: str = ""
    # /metrics answers a request with `Authorization: Bearer <METRICS_TOKEN>`; unset, only a
    # request from this host's loopback that no proxy forwarded.
    metrics_token: str = ""

    grading_namespace: str = "tensorcamp"  # Redis key prefix shared with the workers
    queued_lease_s: float = Field(default=120.0, gt=0)  # re-sent if no worker started it
    running_lease_s: float = Field(default=10.0, gt=0)  # re-sent if its worker went silent
    reap_every_s: float = Field(default=2.0, gt=0)
    no_worker_grace_s: float = Field(default=60.0, ge=0)  # no cpu worker this long: give up
    claim_idle_ms: int = Field(default=30_000, ge=100)  # events a dead web process left unacked
    max_deliveries: int = Field(default=3, ge=1)
    submissions_per_minute: int = Field(default=20, ge=1)
    runs_per_minute: int = Field(default=10, ge=1)  # the ungraded Run button
    # Submissions (graded and try-outs together) of one student handed to the graders at
    # once; the student's others wait their turn, so one student cannot hold up the rest.
    grading_in_flight_per_student: int = Field(default=1, ge=1)
    grader_workers: int = Field(default=2, ge=1)  # sandboxed runs at the same time
    # Submissions the embedded queue handles at once: more than the sandbox runs, so the
    # database work around a run overlaps with other runs.
    grading_concurrency: int = Field(default=8, ge=1)
    grader_queue_limit: int = Field(default=500, ge=1)
    grader_unsafe_dev_mode: bool = False
    # A cgroup per run (one memory budget for everything a run holds): `required` refuses to
    # grade without one; unset means required outside development and optional in it, so
    # `make run` as an ordinary user still grades (with a warning in the log).
    grader_cgroups: Literal["required", "optional", "off"] | None = None
    grading_enabled: bool = True

    # Limits (docs/security.md, "Limits"), counted in the database so that they hold across
    # web processes; each refusal is a 429 with Retry-After.
    max_queued_per_user: int = Field(default=10, ge=1)  # unfinished submissions of a user
    # Sign-ups from one address: a class behind one school address must fit in a window.
    signups_per_address: int = Field(default=30, ge=1)
    signup_window_s: int = Field(default=600, ge=1)
    answers_per_minute: int = Field(default=60, ge=1)  # question answers of a user
    # Join codes that are not right (a right one is not counted).
    join_guesses_per_user: int = Field(default=10, ge=1)
    join_guesses_per_address: int = Field(default=50, ge=1)
    join_guess_window_s: int = Field(default=600, ge=1)
    # `?wait=` long polls one user holds at once in a web process; a newer one ends the
    # oldest at once (it answers with the submission as it stands).
    long_polls_per_user: int = Field(default=4, ge=1)

    @property
    def effective_grader_cgroups(self) -> Literal["required", "optional", "off"]:
        if self.grader_cgroups is not None:
            return self.grader_cgroups
        return "optional" if self.environment == "development" else "required"

    @model_validator(mode="after")
    def _refuse_default_secret(self) -> Settings:
        given = self.secret_key.strip().lower()
        if given in KNOWN_DEFAULT_SECRETS or (self.secret_key and not given):
            raise ValueError(
                "SECRET_KEY is a published default: set a long random string, or leave it "
                "unset to have one made and kept in DATA_DIR"
            )
        if self.environment == "production" and 0 < len(self.secret_key) < 32:
            raise ValueError("SECRET_KEY must be at least 32 characters in production")
        return self

    @field_validator("public_base_url")
    @classmethod
    def _site_address(cls, url: str) -> str:
        if not url.strip():
            return ""
        parts = urlsplit(url.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("not a site address such as https://tensorcamp.school.example")
        if parts.query or parts.fragment:
            raise ValueError("a site address has no query or fragment")
        return urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/"), "", ""))

    @field_validator("trusted_hosts")
    @classmethod
    def _host_names(cls, hosts: str) -> str:
        for host in hosts.split():
            if not TRUSTED_HOST.fullmatch(host):
                raise ValueError(f"{host!r} is not a host name (give no scheme and no port)")
        return hosts

    @field_validator("frame_ancestors")
    @classmethod
    def _origins(cls, origins: str) -> str:
        for origin in origins.split():
            if not FRAME_ANCESTOR.fullmatch(origin):
                raise ValueError(f"{origin!r} is not an origin such as https://lms.example")
        return origins

    @field_validator("metrics_token")
    @classmethod
    def _long_enough(cls, token: str) -> str:
        if token and len(token) < 16:
            raise ValueError("at least 16 characters: make it long and random")
        return token

    @model_validator(mode="after")
    def _require_public_base_url(self) -> Settings:
        if self.environment == "production" and not self.public_base_url:
            raise ValueError(
                "PUBLIC_BASE_URL must be set in production: the address users reach the site "
                "at, such as https://tensorcamp.school.example (links are made from it)"
            )
        return self

    @property
    def effective_public_base_url(self) -> str:
        return self.public_base_url or f"http://127.0.0.1:{self.port}"

    @property
    def trusted_host_list(self) -> list[str]:
        return self.trusted_hosts.split()

    @property
    def frame_ancestor_list(self) -> list[str]:
        return self.frame_ancestors.split()

    @cached_property
    def effective_database_url(self) -> str:
        return async_database_url(
            self.database_url or f"sqlite:///{self.data_dir.resolve() / 'tensorcamp.db'}"
        )


def async_database_url(url: str) -> str:
    """Accept the usual URL spellings and pick the async driver we ship."""
    for prefix, replacement in (
        ("postgres://", "postgresql+asyncpg://"),
        ("postgresql://", "postgresql+asyncpg://"),
        ("postgresql+psycopg://", "postgresql+asyncpg://"),
        ("sqlite://", "sqlite+aiosqlite://"),
    ):
        if url.startswith(prefix):
            return replacement + url[len(prefix) :]
    return url


def get_settings() -> Settings:
    return Settings()
