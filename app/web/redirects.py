"""How a page answers a form it has handled: 303 See Other, so that the browser fetches the
next page with GET and reloading it never posts the form again."""

from __future__ import annotations

from fastapi import status
from fastapi.responses import RedirectResponse


def see_other(target: str) -> RedirectResponse:
    return RedirectResponse(target, status_code=status.HTTP_303_SEE_OTHER)
