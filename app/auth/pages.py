from __future__ import annotations

import re
from typing import Annotated, Any

from fastapi import APIRouter, Form, HTTPException, Request, status
from fastapi.responses import Response
from pydantic import ValidationError
from pydantic_core import ErrorDetails

from app import limits
from app.auth import password_links, passwords, service, sessions, tokens
from app.auth.arrival import NEXT_MAX, arrival, safe_next
from app.auth.dependencies import OptionalUser, log_in, log_out, session_key
from app.auth.router import (
    BAD_LOGIN,
    DISABLED,
    authenticate_caller,
    settings_of,
    sign_up_caller,
)
from app.auth.schemas import (
    USERNAME_MAX,
    USERNAME_PATTERN,
    Credentials,
    ProfileUpdate,
    TokenRequest,
    fold_username,
)
from app.auth.throttle import Refusal
from app.db import SessionDep
from app.i18n import N_, gettext
from app.ids import DbId
from app.lessons.progress import lesson_progress
from app.models import User
from app.web import forms
from app.web.flash import flash, take_flash
from app.web.login import LoginRequired
from app.web.redirects import see_other
from app.web.templating import render

router = APIRouter(include_in_schema=False)

USERNAME_CHARACTERS = N_(
    "%(field)s: use only lowercase letters a–z, digits and _ . - (not %(found)s)."
)
TOKEN_DAYS = (7, 30, 90, 365)
TOKEN_DAYS_RULE = N_("%(field)s: pick one of the listed durations.")
# Where the log-in and sign-up forms send the visitor after, and why they came
# (app/auth/arrival.py): hidden fields both forms carry.
NextField = Annotated[str, Form(max_length=NEXT_MAX)]
WhyField = Annotated[str, Form(max_length=20)]


def credentials_error(error: ErrorDetails) -> str:
    """One field's error on a form that makes an account (sign-up, the administrator's new
    teacher), naming the field and the rule."""
    field = error["loc"][0]
    if field == "display_name":
        return display_name_error(error)
    if field == "username":
        label = gettext("Username")
        given = error.get("input")
        if error["type"] == "string_pattern_mismatch" and isinstance(given, str):
            odd = dict.fromkeys(ch for ch in given if not re.fullmatch(USERNAME_PATTERN, ch))
            found = ", ".join(f"“{ch}”" for ch in list(odd)[:5])
            return gettext(USERNAME_CHARACTERS) % {"field": label, "found": found}
        return forms.describe(label, error)
    problem = next((p for p in passwords.PasswordProblem if p.value == error["type"]), None)
    if problem is not None:
        return gettext(passwords.MESSAGES[problem])
    return forms.describe(gettext("Password"), error)


def display_name_error(error: ErrorDetails) -> str:
    label = gettext("Display name")
    if error["type"] == "display_name_control":
        return gettext("%(field)s: use letters, not control characters.") % {"field": label}
    return forms.describe(label, error)


def read_credentials(
    username: str, password: str, display_name: str = ""
) -> tuple[Credentials | None, dict[str, str]]:
    """A new account's credentials as a form gives them (sign-up, the administrator's new
    teacher): capitals folded ("Alice" is "alice", as at log-in; the API takes only
    lowercase, as its contract says) and an empty display name none (the username is
    shown). Else None, and each field's first error in words."""
    try:
        credentials = Credentials(
            username=fold_username(username),
            password=password,
            display_name=display_name if display_name.strip() else None,
        )
    except ValidationError as exc:
        errors: dict[str, str] = {}
        for error in exc.errors():
            errors.setdefault(str(error["loc"][0]), credentials_error(error))
        return None, errors
    return credentials, {}


async def start_browser_session(request: Request, session: SessionDep, user: User) -> None:
    """This browser is logged in as `user`, in a new session (app/auth/sessions.py)."""
    key = await sessions.start_session(
        session=session, user=user, max_age_s=settings_of(request).session_max_age_s
    )
    log_in(request, user, key)


@router.get("/signup")
async def signup_form(
    request: Request, user: OptionalUser, next: str | None = None, why: str | None = None
) -> Response:
    if user:
        return see_other(safe_next(next))
    arrived = await arrival(request, next, why)
    return render(request, "auth/signup.html", arrived.context | {"errors": {}})


@router.post("/signup")
async def signup(
    request: Request,
    session: SessionDep,
    # No length caps here: the schema names the rule (the body limit bounds the rest).
    username: Annotated[str, Form()] = "",
    password: Annotated[str, Form()] = "",
    display_name: Annotated[str, Form()] = "",
    next: NextField = "/",
    why: WhyField = "",
) -> Response:
    arrived = await arrival(request, next, why)
    credentials, errors = read_credentials(username, password, display_name)
    taken = False
    if credentials is not None:
        try:
            user = await sign_up_caller(request, session, credentials)
        except limits.LimitReached as exc:
            # The form again with what was typed (but the password), and when to try again.
            refused = render(
                request,
                "auth/signup.html",
                {
                    **arrived.context,
                    "errors": {},
                    "error": gettext(exc.limit.message) % {"seconds": exc.retry_after_s},
                    "username": username,
                    "display_name": display_name,
                },
                status_code=status.HTTP_429_TOO_MANY_REQUESTS,
            )
            refused.headers["Retry-After"] = str(exc.retry_after_s)
            return refused
        except service.UsernameTaken:
            errors["username"] = gettext("That username is taken; pick another.")
            taken = True
        else:
            await start_browser_session(request, session, user)
            return see_other(safe_next(next))
    return render(
        request,
        "auth/signup.html",
        # What was typed comes back, except the password.
        {**arrived.context, "errors": errors, "username": username, "display_name": display_name},
        status_code=status.HTTP_409_CONFLICT if taken else status.HTTP_422_UNPROCESSABLE_CONTENT,
    )


@router.get("/set-password/{token}")
async def set_password_form(token: str, request: Request, session: SessionDep) -> Response:
    """A one-time link a teacher's roster import made: the account's first password."""
    owner = await password_links.link_owner(session=session, token=token[:100])
    return _set_password_page(request, owner, token)


def _set_password_page(
    request: Request,
    owner: User | None,
    token: str,
    error: str = "",
    status_code: int = status.HTTP_200_OK,
) -> Response:
    if owner is None:
        status_code = status.HTTP_404_NOT_FOUND
    return render(
        request,
        "auth/set_password.html",
        {"owner": owner, "token": token, "error": error},
        status_code=status_code,
    )


@router.post("/set-password/{token}")
async def set_password_with_link(
    token: str,
    request: Request,
    session: SessionDep,
    password: Annotated[str, Form()] = "",
) -> Response:
    owner = await password_links.link_owner(session=session, token=token[:100])
    if owner is None:
        return _set_password_page(request, None, token)
    error = forms.length_error(
        gettext("Password"),
        password,
        min_length=passwords.MIN_LENGTH,
        max_length=passwords.MAX_LENGTH,
    )
    if not error and (problem := passwords.problem(password, username=owner.username)):
        error = gettext(passwords.MESSAGES[problem])
    if error:
        return _set_password_page(
            request, owner, token, error, status.HTTP_422_UNPROCESSABLE_CONTENT
        )
    user = await password_links.use_link(session=session, token=token[:100], password=password)
    if user is None:  # used by another request meanwhile
        return _set_password_page(request, None, token)
    await start_browser_session(request, session, user)
    return see_other("/")


@router.get("/login")
async def login_form(
    request: Request, user: OptionalUser, next: str | None = None, why: str | None = None
) -> Response:
    if user:
        return see_other(safe_next(next))
    return render(request, "auth/login.html", (await arrival(request, next, why)).context)


@router.post("/login")
async def login(
    request: Request,
    session: SessionDep,
    # No length caps: an overlong field is answered on the form, naming it.
    username: Annotated[str, Form()] = "",
    password: Annotated[str, Form()] = "",
    next: NextField = "/",
    why: WhyField = "",
) -> Response:
    arrived = await arrival(request, next, why)
    context: dict[str, Any] = {**arrived.context, "username": username, "errors": {}}

    def refused(message: str, status_code: int) -> Response:
        return render(
            request, "auth/login.html", context | {"error": message}, status_code=status_code
        )

    errors = {
        field: message
        for field, message in (
            (
                "username",
                forms.length_error(gettext("Username"), username.strip(), max_length=USERNAME_MAX),
            ),
            (
                "password",
                forms.length_error(gettext("Password"), password, max_length=passwords.MAX_LENGTH),
            ),
        )
        if message
    }
    if errors:
        return render(
            request,
            "auth/login.html",
            context | {"errors": errors},
            status_code=status.HTTP_422_UNPROCESSABLE_CONTENT,
        )
    try:
        user = await authenticate_caller(request, session, username=username, password=password)
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
    await start_browser_session(request, session, user)
    return see_other(safe_next(next))


@router.post("/logout")
async def logout(request: Request, session: SessionDep) -> Response:
    if key := session_key(request):
        await sessions.end_session(session=session, key=key)
    log_out(request)
    return see_other("/")


async def _account(
    request: Request,
    session: SessionDep,
    user: User,
    *,
    new_token: str | None = None,
    errors: dict[str, str] | None = None,
    values: dict[str, str] | None = None,
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
            "errors": errors or {},
            "values": values or {},
            "tokens": await tokens.list_tokens(session=session, user_id=user.id),
            "token_days": sorted({*TOKEN_DAYS, settings_of(request).api_token_days}),
            "default_days": settings_of(request).api_token_days,
            "flash": take_flash(request),
        },
        status_code=status_code,
    )


@router.get("/account")
async def account(request: Request, session: SessionDep, user: OptionalUser) -> Response:
    if user is None:
        raise LoginRequired(request.url.path)
    return await _account(request, session, user)


@router.post("/account/name")
async def display_name_form(
    request: Request,
    session: SessionDep,
    user: OptionalUser,
    display_name: Annotated[str, Form()] = "",
) -> Response:
    if user is None:
        raise LoginRequired(request.url.path)
    try:
        wanted = ProfileUpdate(display_name=display_name)
    except ValidationError as exc:
        return await _account(
            request,
            session,
            user,
            errors={"display_name": display_name_error(exc.errors()[0])},
            values={"display_name": display_name},
            status_code=status.HTTP_422_UNPROCESSABLE_CONTENT,
        )
    await service.set_display_name(session=session, user=user, display_name=wanted.display_name)
    flash(request, gettext("Display name saved."))
    return see_other("/account")


@router.post("/account/tokens")
async def create_token(
    request: Request,
    session: SessionDep,
    user: OptionalUser,
    name: Annotated[str, Form()] = "",
    expires_in_days: Annotated[str, Form()] = "",
) -> Response:
    if user is None:
        raise LoginRequired(request.url.path)
    errors: dict[str, str] = {}
    # A form sends text; the API's number is strict (JSON's "30" is refused), so the
    # form's digits are read as the number here and anything else is refused below.
    days = expires_in_days.strip()
    try:
        wanted = TokenRequest.model_validate(
            {
                "name": name.strip() or "API token",
                "expires_in_days": int(days) if days.isascii() and days.isdigit() else days or None,
            }
        )
    except ValidationError as exc:
        for error in exc.errors():
            if error["loc"][0] == "name":
                errors["name"] = forms.describe(gettext("Token name"), error)
            else:
                errors["expires_in_days"] = gettext(TOKEN_DAYS_RULE) % {
                    "field": gettext("Expires after")
                }
        return await _account(
            request,
            session,
            user,
            errors=errors,
            values={"name": name, "expires_in_days": expires_in_days},
            status_code=status.HTTP_422_UNPROCESSABLE_CONTENT,
        )
    _, token = await tokens.create_token(
        session=session,
        user_id=user.id,
        name=wanted.name,
        days=wanted.expires_in_days or settings_of(request).api_token_days,
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
        raise LoginRequired(request.url.path)
    if not await tokens.revoke_token(session=session, user_id=user.id, token_id=token_id):
        raise HTTPException(status.HTTP_404_NOT_FOUND, gettext("Token not found."))
    return see_other("/account")


@router.post("/account/logout-all")
async def logout_everywhere(request: Request, session: SessionDep, user: OptionalUser) -> Response:
    if user is None:
        raise LoginRequired(request.url.path)
    await sessions.end_all_sessions(session=session, user_id=user.id)
    log_out(request)
    return see_other("/login")
