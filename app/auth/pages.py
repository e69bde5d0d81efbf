from __future__ import annotations

from typing import Annotated
from urllib.parse import urlsplit

from fastapi import APIRouter, Form, Request, status
from fastapi.responses import RedirectResponse, Response
from pydantic import ValidationError

from app.auth import service
from app.auth.dependencies import OptionalUser, client_address, log_in, log_out
from app.auth.router import BAD_LOGIN
from app.auth.schemas import Credentials
from app.config import Settings
from app.db import SessionDep
from app.i18n import gettext
from app.lessons.progress import lesson_progress
from app.models import User
from app.templating import render

router = APIRouter(include_in_schema=False)


def safe_next(target: str | None) -> str:
    """Only same-site paths, so a crafted link cannot bounce a student elsewhere."""
    if not target:
        return "/"
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//"):
        return "/"
    return target


def _redirect(target: str) -> RedirectResponse:
    return RedirectResponse(target, status_code=status.HTTP_303_SEE_OTHER)


@router.get("/signup")
async def signup_form(request: Request, user: OptionalUser, next: str | None = None) -> Response:
    if user:
        return _redirect(safe_next(next))
    return render(request, "auth/signup.html", {"next": safe_next(next), "errors": {}})


@router.post("/signup")
async def signup(
    request: Request,
    session: SessionDep,
    username: Annotated[str, Form(max_length=200)] = "",
    password: Annotated[str, Form(max_length=1024)] = "",
    next: Annotated[str, Form(max_length=500)] = "/",
) -> Response:
    errors: dict[str, str] = {}
    taken = False
    try:
        credentials = Credentials(username=username.strip(), password=password)
    except ValidationError as exc:
        for error in exc.errors():
            field = str(error["loc"][0])
            errors[field] = (
                gettext("Use 3 to 32 characters: lowercase letters, digits, _ . or -.")
                if field == "username"
                else gettext("Use at least 8 characters.")
            )
    else:
        try:
            user = await service.create_user(
                session=session, username=credentials.username, password=credentials.password
            )
        except service.UsernameTaken:
            errors["username"] = gettext("That username is taken; pick another.")
            taken = True
        else:
            log_in(request, user)
            return _redirect(safe_next(next))
    return render(
        request,
        "auth/signup.html",
        {"next": safe_next(next), "errors": errors, "username": username},
        status_code=status.HTTP_409_CONFLICT if taken else status.HTTP_422_UNPROCESSABLE_CONTENT,
    )


@router.get("/login")
async def login_form(request: Request, user: OptionalUser, next: str | None = None) -> Response:
    if user:
        return _redirect(safe_next(next))
    return render(request, "auth/login.html", {"next": safe_next(next)})


@router.post("/login")
async def login(
    request: Request,
    session: SessionDep,
    username: Annotated[str, Form(max_length=200)] = "",
    password: Annotated[str, Form(max_length=1024)] = "",
    next: Annotated[str, Form(max_length=500)] = "/",
) -> Response:
    settings: Settings = request.app.state.settings
    context = {"next": safe_next(next), "username": username}
    try:
        user = await service.authenticate(
            session=session,
            username=username,
            password=password,
            client=client_address(request),
            limit=settings.login_failure_limit,
            window_s=settings.login_failure_window_s,
        )
    except service.TooManyAttempts as exc:
        response = render(
            request,
            "auth/login.html",
            context
            | {
                "error": gettext("Too many failed log-ins; try again in %(seconds)s seconds.")
                % {"seconds": exc.retry_after_s}
            },
            status_code=status.HTTP_429_TOO_MANY_REQUESTS,
        )
        response.headers["Retry-After"] = str(exc.retry_after_s)
        return response
    except service.InvalidCredentials:
        return render(
            request,
            "auth/login.html",
            context | {"error": gettext(BAD_LOGIN)},
            status_code=status.HTTP_401_UNAUTHORIZED,
        )
    log_in(request, user)
    return _redirect(safe_next(next))


@router.post("/logout")
async def logout(request: Request) -> Response:
    log_out(request)
    return _redirect("/")


def _login_redirect(request: Request) -> RedirectResponse:
    return _redirect(f"/login?next={request.url.path}")


async def _account(
    request: Request, session: SessionDep, user: User, token: str | None
) -> Response:
    lessons = await lesson_progress(session=session, user_id=user.id)
    return render(
        request,
        "auth/account.html",
        {
            "completed": sum(1 for p in lessons if p.completed),
            "total": len(lessons),
            "new_token": token,
        },
    )


@router.get("/account")
async def account(request: Request, session: SessionDep, user: OptionalUser) -> Response:
    if user is None:
        return _login_redirect(request)
    return await _account(request, session, user, None)


@router.post("/account/tokens")
async def create_token(request: Request, session: SessionDep, user: OptionalUser) -> Response:
    if user is None:
        return _login_redirect(request)
    token = await service.issue_token(session=session, user=user)
    return await _account(request, session, user, token)
