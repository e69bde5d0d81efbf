"""The administrator's pages: /setup, where the first administrator of a fresh install
enters the setup token printed in the server's log (app/auth/setup.py), and /admin, where
an administrator makes teachers: a new teacher account, or an existing account promoted.
Plain forms that redirect (303) back, like every other page."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, HTTPException, Request, status
from fastapi.responses import Response
from sqlalchemy import select

from app.auth import service, setup
from app.auth.dependencies import OptionalUser
from app.auth.pages import read_credentials, start_browser_session
from app.auth.schemas import fold_username
from app.db import SessionDep
from app.i18n import N_, gettext
from app.models import Role, User
from app.web.flash import flash, take_flash
from app.web.login import LoginRequired
from app.web.redirects import see_other
from app.web.templating import render

router = APIRouter(include_in_schema=False)

ADMINS_ONLY = N_("Only the site's administrator may do this.")


def require_admin(user: User) -> None:
    if user.role != Role.ADMIN:
        raise HTTPException(status.HTTP_403_FORBIDDEN, ADMINS_ONLY)


# --- /setup: the first administrator ----------------------------------------------------


@router.get("/setup")
async def setup_page(request: Request, session: SessionDep, user: OptionalUser) -> Response:
    if user is not None and user.role == Role.ADMIN:
        return see_other("/admin")
    return render(request, "auth/setup.html", {"set_up": await setup.admin_exists(session=session)})


@router.post("/setup")
async def setup_form(
    request: Request,
    session: SessionDep,
    user: OptionalUser,
    token: Annotated[str, Form(max_length=200)] = "",
) -> Response:
    if user is None:
        raise LoginRequired("/setup")
    user = await session.get_one(User, user.id)  # in this request's unit of work
    try:
        await setup.become_admin(session=session, user=user, token=token)
    except setup.AlreadySetUp:
        return render(
            request,
            "auth/setup.html",
            {"set_up": True},
            status_code=status.HTTP_409_CONFLICT,
        )
    except setup.WrongToken:
        return render(
            request,
            "auth/setup.html",
            {
                "set_up": False,
                "error": gettext(
                    "That is not a live setup token. Copy it from the server's log (the "
                    "newest one, if the server started more than once), or restart the "
                    "server for a new one."
                ),
            },
            status_code=status.HTTP_422_UNPROCESSABLE_CONTENT,
        )
    # A new role ends every session of the account: this browser starts a new one.
    await start_browser_session(request, session, user)
    flash(
        request,
        gettext(
            "You are the administrator of this site now. Make teacher accounts here; the "
            "setup token no longer works."
        ),
    )
    return see_other("/admin")


# --- /admin: making teachers ------------------------------------------------------------


async def _admin_page(
    request: Request,
    session: SessionDep,
    *,
    errors: dict[str, str] | None = None,
    values: dict[str, str] | None = None,
    status_code: int = status.HTTP_200_OK,
) -> Response:
    staff = (
        await session.scalars(
            select(User)
            .where(User.role.in_([Role.TEACHER, Role.ADMIN]))
            .order_by(User.role, User.username)
        )
    ).all()
    context: dict[str, Any] = {
        "teachers": [u for u in staff if u.role == Role.TEACHER],
        "admins": [u for u in staff if u.role == Role.ADMIN],
        "errors": errors or {},
        "values": values or {},
        "flash": take_flash(request),
    }
    return render(request, "auth/admin.html", context, status_code=status_code)


async def _admin(request: Request, user: User | None) -> Response | None:
    """The log-in page for a visitor, 403 for anyone but an administrator, else None."""
    if user is None:
        raise LoginRequired(request.url.path)
    require_admin(user)
    return None


@router.get("/admin")
async def admin_page(request: Request, session: SessionDep, user: OptionalUser) -> Response:
    if (refused := await _admin(request, user)) is not None:
        return refused
    return await _admin_page(request, session)


@router.post("/admin/teachers")
async def create_teacher(
    request: Request,
    session: SessionDep,
    user: OptionalUser,
    username: Annotated[str, Form()] = "",
    password: Annotated[str, Form()] = "",
) -> Response:
    """A new teacher account with a password the administrator hands over."""
    if (refused := await _admin(request, user)) is not None:
        return refused
    # Read as sign-up reads it ("Alice" is "alice"), with the same messages.
    credentials, errors = read_credentials(username, password)
    taken = False
    if credentials is not None:
        try:
            await service.create_user(
                session=session,
                username=credentials.username,
                password=credentials.password,
                role=Role.TEACHER,
            )
        except service.UsernameTaken:
            errors["username"] = gettext(
                "That username is taken. To make that account a teacher, use the form below."
            )
            taken = True
        else:
            flash(
                request,
                gettext(
                    "Teacher account “%(name)s” made. Give them the username and the password; "
                    "they log in at /login."
                )
                % {"name": credentials.username},
            )
            return see_other("/admin")
    return await _admin_page(
        request,
        session,
        errors=errors,
        values={"username": username[:200]},
        status_code=status.HTTP_409_CONFLICT if taken else status.HTTP_422_UNPROCESSABLE_CONTENT,
    )


@router.post("/admin/teachers/promote")
async def promote_teacher(
    request: Request,
    session: SessionDep,
    user: OptionalUser,
    username: Annotated[str, Form()] = "",
) -> Response:
    """An existing student account becomes a teacher account (it logs in again)."""
    if (refused := await _admin(request, user)) is not None:
        return refused
    name = fold_username(username)[:64]
    found = await service.get_user_by_username(session=session, username=name)
    if found is None or found.role == Role.ADMIN:
        return await _admin_page(
            request,
            session,
            errors={
                "promote": gettext("No account has the username “%(name)s”.") % {"name": name}
                if found is None
                else gettext("“%(name)s” is an administrator's account.") % {"name": name}
            },
            values={"promote": username[:200]},
            status_code=status.HTTP_404_NOT_FOUND if found is None else status.HTTP_409_CONFLICT,
        )
    if found.role == Role.TEACHER:
        flash(request, gettext("“%(name)s” is a teacher already.") % {"name": name})
        return see_other("/admin")
    await service.set_role(session=session, user=found, role=Role.TEACHER)
    flash(
        request,
        gettext(
            "“%(name)s” is a teacher now. They log in again (their sessions and API tokens "
            "ended) and find Classes in the menu."
        )
        % {"name": name},
    )
    return see_other("/admin")
