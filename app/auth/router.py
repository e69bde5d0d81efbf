from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request, Response, status
from fastapi.responses import JSONResponse

from app import limits
from app.auth import service, sessions, tokens
from app.auth.dependencies import CurrentUser, client_address, log_out
from app.auth.schemas import (
    Credentials,
    LoginRequest,
    ProfileUpdate,
    Registered,
    TokenCreated,
    TokenInfo,
    TokenOut,
    TokenRequest,
    UserOut,
)
from app.auth.throttle import LoginLimits
from app.config import Settings
from app.db import SessionDep, get_database
from app.errors import conflict, not_found, too_many
from app.i18n import N_
from app.ids import DbId
from app.models import User

router = APIRouter(tags=["accounts"])

BAD_LOGIN = N_("Incorrect username or password.")
DISABLED = N_("This account is disabled; ask your teacher or the site's administrator.")
TokenId = DbId


def settings_of(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def sign_up_caller(request: Request, session: SessionDep, credentials: Credentials) -> User:
    """The account the caller asks for, from the caller's address and under the site's
    limits on sign-ups: the API's and the sign-up form's."""
    return await service.sign_up(
        database=get_database(request),
        session=session,
        settings=settings_of(request),
        client=client_address(request),
        username=credentials.username,
        password=credentials.password,
        display_name=credentials.display_name,
    )


async def authenticate_caller(
    request: Request, session: SessionDep, *, username: str, password: str
) -> User:
    """The user whose password the caller gives, from the caller's address and under the
    site's limits on log-ins: the API's token and the log-in form's."""
    return await service.authenticate(
        database=get_database(request),
        session=session,
        username=username,
        password=password,
        client=client_address(request),
        limits=LoginLimits.from_settings(settings_of(request)),
    )


@router.post(
    "/api/auth/register",
    status_code=status.HTTP_201_CREATED,
    responses={
        409: {"description": "The username is taken"},
        429: {"description": "Too many sign-ups from this address"},
    },
)
async def register(body: Credentials, request: Request, session: SessionDep) -> Registered:
    try:
        user = await sign_up_caller(request, session, body)
    except limits.LimitReached as exc:
        raise too_many(str(exc), exc.retry_after_s) from None
    except service.UsernameTaken:
        raise conflict("That username is taken.") from None
    token = await tokens.issue_token(
        session=session, user=user, name="sign-up", days=settings_of(request).api_token_days
    )
    return Registered(user=UserOut.model_validate(user), token=token)


@router.post(
    "/api/auth/token",
    response_model=TokenOut,
    responses={
        401: {"description": BAD_LOGIN},
        403: {"description": "The account is disabled"},
        429: {"description": "Too many failures, or too many log-ins"},
    },
)
async def token(
    body: LoginRequest, request: Request, session: SessionDep
) -> TokenOut | JSONResponse:
    try:
        user = await authenticate_caller(
            request, session, username=body.username, password=body.password
        )
    except service.TooManyAttempts as exc:
        raise too_many(str(exc), exc.retry_after_s) from None
    except service.InvalidCredentials:
        # Returned, not raised, so the unit of work commits the recorded failure.
        return JSONResponse({"detail": BAD_LOGIN}, status.HTTP_401_UNAUTHORIZED)
    except service.AccountDisabled:
        raise HTTPException(status.HTTP_403_FORBIDDEN, DISABLED) from None
    return TokenOut(
        token=await tokens.issue_token(
            session=session, user=user, name="log-in", days=settings_of(request).api_token_days
        )
    )


@router.get("/api/me")
async def me(user: CurrentUser) -> UserOut:
    return UserOut.model_validate(user)


@router.patch("/api/me")
async def update_me(body: ProfileUpdate, user: CurrentUser, session: SessionDep) -> UserOut:
    """Change the caller's display name (1–80 characters of any script)."""
    await service.set_display_name(session=session, user=user, display_name=body.display_name)
    return UserOut.model_validate(user)


@router.get("/api/me/tokens")
async def list_tokens(user: CurrentUser, session: SessionDep) -> list[TokenInfo]:
    """The caller's live API tokens, newest first (never the tokens themselves)."""
    rows = await tokens.list_tokens(session=session, user_id=user.id)
    return [TokenInfo.model_validate(row) for row in rows]


@router.post("/api/me/tokens", status_code=status.HTTP_201_CREATED)
async def create_token(
    body: TokenRequest, request: Request, user: CurrentUser, session: SessionDep
) -> TokenCreated:
    """A new named token; `token` is in this answer only."""
    days = body.expires_in_days or settings_of(request).api_token_days
    row, token = await tokens.create_token(
        session=session, user_id=user.id, name=body.name, days=days
    )
    return TokenCreated.model_validate(
        TokenInfo.model_validate(row).model_dump() | {"token": token}
    )


@router.delete("/api/me/tokens/{token_id}", status_code=status.HTTP_204_NO_CONTENT)
async def revoke_token(token_id: TokenId, user: CurrentUser, session: SessionDep) -> Response:
    if not await tokens.revoke_token(session=session, user_id=user.id, token_id=token_id):
        raise not_found("Token")
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post("/api/me/logout-all", status_code=status.HTTP_204_NO_CONTENT)
async def logout_everywhere(request: Request, user: CurrentUser, session: SessionDep) -> Response:
    """End every browser session of the caller and revoke every API token, this one too."""
    await sessions.end_all_sessions(session=session, user_id=user.id)
    log_out(request)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
