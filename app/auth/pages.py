from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import urlsplit

from fastapi import APIRouter, Form, HTTPException, Request, status
from fastapi.responses import RedirectResponse, Response
from pydantic import ValidationError

from app import limits
from app.auth import passwords, service, sessions, tokens
from app.auth.dependencies import OptionalUser, client_address, log_in, log_out, session_key
from app.auth.router import BAD_LOGIN, DISABLED
from app.auth.schemas import Credentials, TokenRequest
from app.auth.throttle import LoginLimits, Refusal
from app.config import Settings
from app.db import SessionDep, get_database
from app.i18n import N_, gettext
from app.ids import DbId
from app.lessons.progress import lesson_progress
from app.models import User
from app.templating import render

router = APIRouter(include_in_schema=False)

USERNAME_RULE = N_("Use 3 to 32 characters: lowercase letters, digits, _ . or -.")
TOO_SHORT = N_("Use at least 8 characters.")
TOO_LONG = N_("Use at most %(max)s characters.")
TOKEN_DAYS = (7, 30, 90, 365)


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


def _settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def _password_error(error_type: str) -> str:
    if error_type == "string_too_short":
        return gettext(TOO_SHORT)
    if error_type == "string_too_long":
        return gettext(TOO_LONG) % {"max": passwords.MAX_LENGTH}
    try:
        return gettext(passwords.MESSAGES[passwords.PasswordProblem(error_type)])
    except ValueError:
        return gettext(TOO_SHORT)


async def _start(request: Request, session: SessionDep, user: User) -> None:
    key = await sessions.start_session(
        session=session, user=user, max_age_s=_settings(request).session_max_age_s
    )
    log_in(request, user, key)


@router.get("/signup")
async def signup_form(request: Request, user: OptionalUser, next: str | None = None) -> Response:
    if user:
        return _redirect(safe_next(next))
    return render(request, "auth/signup.html", {"next": safe_next(next), "errors": {}})


@router.post("/signup")
async def signup(
    request: Request,
    session: SessionDep,
    # No length caps here: the schema names the rule (the body limit bounds the rest).
    username: Annotated[str, Form()] = "",
    password: Annotated[str, Form()] = "",
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
                gettext(USERNAME_RULE) if field == "username" else _password_error(error["type"])
            )
    else:
        try:
            user = await service.sign_up(
                database=get_database(request),
                session=session,
                settings=_settings(request),
                client=client_address(request),
                username=credentials.username,
                password=credentials.password,
            )
        except limits.LimitReached as exc:
            # The form again with what was typed (but the password), and when to try again.
            refused = render(
                request,
                "auth/signup.html",
                {
                    "next": safe_next(next),
                    "errors": {},
                    "error": gettext(exc.limit.message) % {"seconds": exc.retry_after_s},
                    "username": username[:200],
                },
                status_code=status.HTTP_429_TOO_MANY_REQUESTS,
            )
            refused.headers["Retry-After"] = str(exc.retry_after_s)
            return refused
        except service.UsernameTaken:
            errors["username"] = gettext("That username is taken; pick another.")
            taken = True
        else:
            await _start(request, session, user)
            return _redirect(safe_next(next))
    return render(
        request,
        "auth/signup.html",
        # What was typed comes back, except the password.
        {"next": safe_next(next), "errors": errors, "username": username[:200]},
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
    password: Annotated[str, Form()] = "",
    next: Annotated[str, Form(max_length=500)] = "/",
) -> Response:
    context: dict[str, Any] = {"next": safe_next(next), "username": username}

    def refused(message: str, status_code: int) -> Response:
        return render(
            request, "auth/login.html", context | {"error": message}, status_code=status_code
        )

    if len(password) > passwords.MAX_LENGTH:
        return refused(
            gettext(TOO_LONG) % {"max": passwords.MAX_LENGTH},
            status.HTTP_422_UNPROCESSABLE_CONTENT,
        )
    try:
        user = await service.authenticate(
            database=get_database(request),
            session=session,
            username=username,
            password=password,
            client=client_address(request),
            limits=LoginLimits.from_settings(_settings(request)),
        )
    except service.TooManyAttempts as exc:
        message = (
            gettext("Too many failed log-ins; try again in %(seconds)s seconds.")
            if exc.reason is Refusal.FAILURES
            else gettext("Too many log-ins at once; try again in %(seconds)s seconds.")
        )
        response = refused(
            message % {"seconds": exc.retry_after_s}, status.HTTP_429_TOO_MANY_REQUESTS
        )
        response.headers["Retry-After"] = str(exc.retry_after_s)
        return response
    except service.InvalidCredentials:
        return refused(gettext(BAD_LOGIN), status.HTTP_401_UNAUTHORIZED)
    except service.AccountDisabled:
        return refused(gettext(DISABLED), status.HTTP_403_FORBIDDEN)
    await _start(request, session, user)
    return _redirect(safe_next(next))


@router.post("/logout")
async def logout(request: Request, session: SessionDep) -> Response:
    if key := session_key(request):
        await sessions.end_session(session=session, key=key)
    log_out(request)
    return _redirect("/")


def _login_redirect(request: Request) -> RedirectResponse:
    return _redirect(f"/login?next={request.url.path}")


async def _account(
    request: Request,
    session: SessionDep,
    user: User,
    *,
    new_token: str | None = None,
    token_error: str | None = None,
    status_code: int = status.HTTP_200_OK,
) -> Response:
    lessons = await lesson_progress(session=session, user_id=user.id)
    return render(
        request,
        "auth/account.html",
        {
            "completed": sum(1 for p in lessons if p.completed),
            "total": len(lessons),
            "new_token": new_token,
            "token_error": token_error,
            "tokens": await tokens.list_tokens(session=session, user_id=user.id),
            "token_days": sorted({*TOKEN_DAYS, _settings(request).api_token_days}),
            "default_days": _settings(request).api_token_days,
        },
        status_code=status_code,
    )


@router.get("/account")
async def account(request: Request, session: SessionDep, user: OptionalUser) -> Response:
    if user is None:
        return _login_redirect(request)
    return await _account(request, session, user)


@router.post("/account/tokens")
async def create_token(
    request: Request,
    session: SessionDep,
    user: OptionalUser,
    name: Annotated[str, Form()] = "",
    expires_in_days: Annotated[str, Form()] = "",
) -> Response:
    if user is None:
        return _login_redirect(request)
    try:
        wanted = TokenRequest(
            name=name.strip() or "API token",
            expires_in_days=int(expires_in_days) if expires_in_days.strip() else None,
        )
    except (ValidationError, ValueError):
        return await _account(
            request,
            session,
            user,
            token_error=gettext(
                "Name the token (at most 100 characters) and pick how long it lasts."
            ),
            status_code=status.HTTP_422_UNPROCESSABLE_CONTENT,
        )
    _, token = await tokens.create_token(
        session=session,
        user_id=user.id,
        name=wanted.name,
        days=wanted.expires_in_days or _settings(request).api_token_days,
    )
    return await _account(request, session, user, new_token=token)


@router.post("/account/tokens/{token_id}/revoke")
async def revoke_token(
    request: Request,
    session: SessionDep,
    user: OptionalUser,
    token_id: DbId,
) -> Response:
    if user is None:
        return _login_redirect(request)
    if not await tokens.revoke_token(session=session, user_id=user.id, token_id=token_id):
        raise HTTPException(status.HTTP_404_NOT_FOUND, gettext("Token not found."))
    return _redirect("/account")


@router.post("/account/logout-all")
async def logout_everywhere(request: Request, session: SessionDep, user: OptionalUser) -> Response:
    if user is None:
        return _login_redirect(request)
    await sessions.end_all_sessions(session=session, user_id=user.id)
    log_out(request)
    return _redirect("/login")
