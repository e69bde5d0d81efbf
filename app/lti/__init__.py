"""LTI 1.3: Tensorcamp as a tool inside a school's learning platform (Moodle, Canvas...).

docs/lti.md says what an administrator registers and why the pieces are as they are."""

from __future__ import annotations

from fastapi import FastAPI

from app.lti import pages, router
from app.lti.cookies import LtiSessionCookie


def install(app: FastAPI) -> None:
    """The LTI routes, without the CSRF check: a launch is a cross-site form post that
    carries a signed id_token and a single-use state instead; and the session cookie an
    LTI launch starts works inside the platform's iframe (app/lti/cookies.py)."""
    app.include_router(router.router)
    app.include_router(pages.router)
    app.add_middleware(LtiSessionCookie)
