from __future__ import annotations

from fastapi import APIRouter, Request, status
from fastapi.responses import JSONResponse

from app.auth import service
from app.auth.dependencies import CurrentUser, client_address
from app.auth.schemas import Credentials, LoginRequest, Registered, TokenOut, UserOut
from app.config import Settings
from app.db import SessionDep
from app.errors import conflict, too_many
from app.i18n import N_

router = APIRouter(tags=["accounts"])

BAD_LOGIN = N_("Incorrect username or password.")


@router.post(
    "/api/auth/register",
    status_code=status.HTTP_201_CREATED,
    responses={409: {"description": "The username is taken"}},
)
async def register(body: Credentials, session: SessionDep) -> Registered:
    try:
        user = await service.create_user(
            session=session, username=body.username, password=body.password
        )
    except service.UsernameTaken:
        raise conflict("That username is taken.") from None
    token = await service.issue_token(session=session, user=user)
    return Registered(user=UserOut.model_validate(user), token=token)


@router.post(
    "/api/auth/token",
    response_model=TokenOut,
    responses={401: {"description": BAD_LOGIN}, 429: {"description": "Too many failures"}},
)
async def token(
    body: LoginRequest, request: Request, session: SessionDep
) -> TokenOut | JSONResponse:
    settings: Settings = request.app.state.settings
    try:
        user = await service.authenticate(
            session=session,
            username=body.username,
            password=body.password,
            client=client_address(request),
            limit=settings.login_failure_limit,
            window_s=settings.login_failure_window_s,
        )
    except service.TooManyAttempts as exc:
        raise too_many(str(exc), exc.retry_after_s) from None
    except service.InvalidCredentials:
        # Returned, not raised, so the unit of work commits the recorded failure.
        return JSONResponse({"detail": BAD_LOGIN}, status.HTTP_401_UNAUTHORIZED)
    return TokenOut(token=await service.issue_token(session=session, user=user))


@router.get("/api/me")
async def me(user: CurrentUser) -> UserOut:
    return UserOut.model_validate(user)
