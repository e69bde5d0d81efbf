"""LTI 1.3: Tensorcamp as a tool inside a school's learning platform (Moodle, Canvas...).

docs/lti.md says what an administrator registers and why the pieces are as they are."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import Depends, FastAPI


def install(app: FastAPI) -> None:
    """The LTI routes, without the CSRF check: a launch is a cross-site form post that
    carries a signed id_token and a single-use state instead; and the session cookie an
    LTI launch starts works inside the platform's iframe (app/lti/cookies.py). Imported
    here rather than above: other domains import app.lti.grades where a score changes,
    and need none of the pages."""
    from app.lti import admin, class_pages, pages, router
    from app.lti.cookies import LtiSessionCookie
    from app.web.csrf import require_csrf

    app.include_router(router.router)
    app.include_router(pages.router)
    # Signed-in teachers' and administrators' forms and API calls: CSRF-checked.
    csrf = [Depends(require_csrf)]
    app.include_router(class_pages.router, dependencies=csrf)
    app.include_router(admin.router, dependencies=csrf)
    app.add_middleware(LtiSessionCookie)
    _with_background(app)


def _with_background(app: FastAPI) -> None:
    """Scores delivered and rosters synced while the app runs (app/lti/background.py):
    started once the app's own start-up has opened the database, stopped before it closes
    it."""
    from app.lti.background import Background

    started_app = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[Any]:
        async with started_app(app) as state:
            work = Background(app.state.database)
            work.start()
            try:
                yield state
            finally:
                await work.stop()

    app.router.lifespan_context = lifespan
