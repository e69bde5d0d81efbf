"""A message for the next page, after a form's redirect ("Class renamed.", "Not an answer
this question takes"), in one shape whichever page sets or shows it. It rides in the signed
session cookie until the next page shows it, so it stays short: a sentence, never a draft."""

from __future__ import annotations

from typing import Literal, TypedDict

from fastapi import Request

FlashKind = Literal["success", "error", "note"]
_SESSION_KEY = "flash"


class Flash(TypedDict):
    kind: FlashKind  # note: neither a success nor an error (an answer filled in again)
    message: str
    undo: str  # where its "Undo" button posts; "" for none
    about: str  # the id of what it is said beside (a question); "" for the page's top


def flash(
    request: Request,
    message: str,
    *,
    kind: FlashKind = "success",
    undo: str = "",
    about: str = "",
) -> None:
    request.session[_SESSION_KEY] = Flash(kind=kind, message=message, undo=undo, about=about)


def take_flash(request: Request) -> Flash | None:
    """The message for this page, taken out of the session (shown once)."""
    found = request.session.pop(_SESSION_KEY, None)
    if not isinstance(found, dict) or not isinstance(found.get("message"), str):
        return None  # none, or a shape this version does not write
    return Flash(
        kind=found.get("kind", "success"),
        message=found["message"],
        undo=str(found.get("undo", "")),
        about=str(found.get("about", "")),
    )
