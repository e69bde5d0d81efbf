"""The application factory: one process serving pages and the JSON API."""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import APIRouter, Depends, FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from sqlalchemy import text
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.sessions import SessionMiddleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.routing import BaseRoute

from app import apidocs, errors, lti, migrations, operations
from app.auth import admin as auth_admin
from app.auth import pages as auth_pages
from app.auth import router as auth_router
from app.auth.secret_key import session_secret
from app.auth.setup import announce_setup_token
from app.classes import (
    output_hint_pages,
    output_hint_router,
    regrade_pages,
    report_pages,
    roster_pages,
)
from app.classes import pages as class_pages
from app.classes import router as class_router
from app.config import REPO_ROOT, Settings, get_settings
from app.content import ContentError, load_catalog, sync_catalog
from app.db import Database
from app.grading.backend import start_grading
from app.grading.waiting import end_waits_on_stop
from app.i18n import LanguageMiddleware, gettext
from app.lessons import dashboard, workbench
from app.lessons import pages as lesson_pages
from app.lessons import router as lesson_router
from app.middleware import BodySizeLimit, RequestMetrics, SecurityHeaders
from app.quizzes import pages as quiz_pages
from app.quizzes import router as quiz_router
from app.submissions import pages as submission_pages
from app.submissions import present, regrade_router
from app.submissions import router as submission_router
from app.text_input import refuse_invalid_text
from app.web import login
from app.web.credentials import SESSION_COOKIE
from app.web.csrf import require_csrf
from app.web.templating import add_globals, render

log = logging.getLogger("app")


CONTENT_LOCK = 0x7C0_C0DE  # a PostgreSQL advisory lock key: "content sync in progress"


async def load_content(settings: Settings, database: Database) -> None:
    """Sync `exercises/` into the database; broken content is reported and never loaded."""
    try:
        catalog = await asyncio.to_thread(load_catalog, settings.content_dir)
    except ContentError as exc:
        log.error("content in %s not loaded:\n%s", settings.content_dir, exc)
        return
    async with database.writer() as session, session.begin():
        if session.get_bind().dialect.name == "postgresql":
            # Web processes starting together on an empty database would insert the same
            # rows: one would fail its start-up, and uvicorn's supervisor then stops all of
            # them (`--workers`: "connection refused"). One syncs at a time; the next finds
            # the rows there. (SQLite's writer is one at a time already.)
            await session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": CONTENT_LOCK})
        await sync_catalog(session=session, catalog=catalog)


def _wants_html(request: Request) -> bool:
    return not request.url.path.startswith("/api/") and "text/html" in request.headers.get(
        "accept", ""
    )


def _install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        headers = getattr(exc, "headers", None)
        if exc.status_code == 400 and exc.detail == errors.UNREADABLE_BODY:
            return JSONResponse({"detail": errors.unreadable_body()}, 422)
        if exc.status_code == 405:
            headers = {"Allow": errors.allowed_methods(request.app, request.url.path)}
        if _wants_html(request):
            return render(
                request,
                "error.html",
                {"status": exc.status_code, "message": exc.detail},
                status_code=exc.status_code,
            )
        return JSONResponse({"detail": exc.detail}, exc.status_code, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> Response:
        if _wants_html(request):
            return render(
                request,
                "error.html",
                {"status": 422, "message": gettext("The form was not filled in as expected.")},
                status_code=422,
            )
        return JSONResponse({"detail": jsonable_encoder(exc.errors())}, 422)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> Response:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return JSONResponse({"detail": "Something went wrong on our side; try again."}, 500)


def create_app(settings: Settings | None = None, database: Database | None = None) -> FastAPI:
    """`database` given (tests): use it as is; otherwise migrate and load content at start."""
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        owned = database is None
        db = database or Database.from_url(settings.effective_database_url)
        if owned:
            if settings.effective_database_url.startswith("sqlite"):
                settings.data_dir.mkdir(parents=True, exist_ok=True)
            await asyncio.to_thread(migrations.upgrade, settings.effective_database_url)
            await load_content(settings, db)
            # While no administrator exists: a one-time setup token in the log.
            await announce_setup_token(db, settings)
        app.state.database = db
        grading = await start_grading(settings, db)
        app.state.grading = grading
        try:
            with end_waits_on_stop(app):  # a stopping process answers its long polls at once
                yield
        finally:
            if grading is not None:
                await grading.stop()
            if owned:
                await db.dispose()

    app = FastAPI(
        title="Tensorcamp",
        version="1",
        description="Learn PyTorch by doing. The reference in words: docs/api.md.",
        lifespan=lifespan,
        docs_url=None,  # served by apidocs, from our own static files
        redoc_url=None,
        # Text that is not valid Unicode never reaches an endpoint (see app/text_input.py).
        dependencies=[Depends(refuse_invalid_text)],
    )
    app.state.settings = settings
    if database is not None:
        app.state.database = database

    app.add_middleware(
        SessionMiddleware,
        secret_key=session_secret(settings),
        session_cookie=SESSION_COOKIE,
        max_age=settings.session_max_age_s,
        same_site="lax",
        https_only=settings.cookie_secure,
    )
    app.add_middleware(BodySizeLimit, max_bytes=settings.max_body_bytes)
    app.add_middleware(LanguageMiddleware)
    if settings.trusted_host_list:  # a request for another host is answered 400
        app.add_middleware(
            TrustedHostMiddleware, allowed_hosts=settings.trusted_host_list, www_redirect=False
        )
    app.add_middleware(SecurityHeaders, settings=settings)
    app.add_middleware(RequestMetrics)  # outermost: times everything, refusals included
    _install_error_handlers(app)
    login.install(app)  # a page raising LoginRequired sends the visitor to log in
    # The domains' helpers their templates call by name (app/web imports no domain).
    add_globals(workbench.TEMPLATE_HELPERS)
    add_globals(present.TEMPLATE_HELPERS)

    # The same route objects in every app of this process (see _domain_routes).
    app.router.routes.extend(_domain_routes())
    app.mount("/static", StaticFiles(directory=REPO_ROOT / "app" / "static"), name="static")

    app.include_router(operations.router)
    lti.install(app)  # without the CSRF check: see app/lti/__init__.py
    apidocs.install(app)
    return app


@functools.cache
def _domain_routes() -> tuple[BaseRoute, ...]:
    """The domains' pages and JSON API, behind the CSRF check, built once per process.

    FastAPI builds an included router's handlers (dependencies, validators) lazily, per app,
    on the first request. Every app of a process shares these, so that cost is paid once,
    not once per app (the test suite makes an app per test). They carry the app-wide text
    check themselves because they are not included through an app's router, and, having no
    app of their own, they ignore `app.dependency_overrides` (nothing here uses it)."""
    domains = APIRouter(dependencies=[Depends(refuse_invalid_text)])
    csrf = [Depends(require_csrf)]
    for module in (
        auth_router,
        lesson_router,
        quiz_router,
        submission_router,
        class_router,
        regrade_router,
        regrade_pages,
        output_hint_router,
        output_hint_pages,
        roster_pages,
        report_pages,
        auth_pages,
        auth_admin,
        class_pages,
        lesson_pages,
        dashboard,
        quiz_pages,
        submission_pages,
    ):
        domains.include_router(module.router, dependencies=csrf)
    return tuple(domains.routes)
