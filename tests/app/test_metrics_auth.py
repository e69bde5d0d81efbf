"""/metrics is not public: with METRICS_TOKEN it answers that bearer only; without one it
answers a scraper on the web process's own host (loopback) that no proxy forwarded."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi import FastAPI
from pydantic import ValidationError

from app.config import Settings
from app.db import Database
from app.main import create_app
from tests.app.auth.conftest import client_for
from tests.conftest import test_settings
from tests.helpers import bearer, register

TOKEN = "scrape-7f3a9c1e5b2d4f60a8e1"
OUTSIDE = "203.0.113.9"
PROXIED = {"x-forwarded-for": "198.51.100.4"}


def app_with(tmp_path: Path, db: Database, **settings: object) -> FastAPI:
    return create_app(test_settings(tmp_path, **settings), database=db)


async def test_without_a_token_only_this_host_may_scrape(tmp_path: Path, db: Database) -> None:
    app = app_with(tmp_path, db)
    for address in ("127.0.0.1", "::1"):
        async with client_for(app, address) as here:
            scraped = await here.get("/metrics")
            assert scraped.status_code == 200, address
            assert "tensorcamp_http_requests_in_progress" in scraped.text
            # The same host, but through a reverse proxy there: someone else's request.
            assert (await here.get("/metrics", headers=PROXIED)).status_code == 403
            assert (
                await here.get("/metrics", headers={"forwarded": "for=1.2.3.4"})
            ).status_code == 403
    async with client_for(app, OUTSIDE) as outside:
        refused = await outside.get("/metrics")
        assert refused.status_code == 403
        assert "METRICS_TOKEN" in refused.json()["detail"]
        assert "tensorcamp_" not in refused.text
        # Neither a user's token nor the absent setting's empty bearer opens it.
        _, token = await register(outside)
        assert (await outside.get("/metrics", headers=bearer(token))).status_code == 403
        assert (
            await outside.get("/metrics", headers={"authorization": "Bearer "})
        ).status_code == 403


async def test_with_a_token_only_its_bearer_may_scrape(tmp_path: Path, db: Database) -> None:
    app = app_with(tmp_path, db, metrics_token=TOKEN)
    for address in (OUTSIDE, "127.0.0.1"):
        async with client_for(app, address) as client:
            for headers in ({}, bearer(TOKEN[:-1]), bearer(TOKEN + "x"), {"authorization": TOKEN}):
                refused = await client.get("/metrics", headers=headers)
                assert refused.status_code == 401, (address, headers)
                assert refused.headers["www-authenticate"] == "Bearer"
                assert "tensorcamp_" not in refused.text
            scraped = await client.get("/metrics", headers=bearer(TOKEN) | PROXIED)
            assert scraped.status_code == 200, address
            assert "tensorcamp_http_requests_in_progress" in scraped.text


async def test_health_checks_stay_open(tmp_path: Path, db: Database) -> None:
    async with client_for(app_with(tmp_path, db, metrics_token=TOKEN), OUTSIDE) as client:
        assert (await client.get("/healthz")).status_code == 200
        assert (await client.get("/readyz")).status_code == 200


def test_a_short_token_is_refused() -> None:
    with pytest.raises(ValidationError, match="metrics_token"):
        Settings(metrics_token="prometheus")
