"""Where a visitor sent to log in (or sign up) goes back to, and why they were sent.

`next` is where to return after logging in: a path of this site only (with its query and
#anchor), so a crafted link cannot bounce anyone elsewhere. `why` names what was pending
when they were sent, for the pages to say so: `answer` (a question's answer, kept in the
browser by frontend/pending.js, or without JavaScript on the server by app/quizzes/pending.py,
and filled in again on the way back). A join link needs no
`why`: its class is named from the `next` path itself."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlencode, urlsplit

from fastapi import Request

from app.auth.dependencies import client_address
from app.classes.guesses import class_for_visitor
from app.db import get_database
from app.i18n import gettext

NEXT_MAX = 500
WHY_ANSWER = "answer"
REASONS = frozenset({WHY_ANSWER})
JOIN_PATH = re.compile(r"/join/([A-Za-z0-9 _-]{1,64})")


def safe_next(target: str | None) -> str:
    """Only same-site paths, so a crafted link cannot bounce a student elsewhere."""
    if not target or len(target) > NEXT_MAX or not target.startswith("/"):
        return "/"
    # Browsers read `/\\host` as `//host`, and drop tabs and newlines from addresses.
    if "\\" in target or any(ord(ch) < 32 or ord(ch) == 127 for ch in target):
        return "/"
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or target.startswith("//"):
        return "/"
    return target


def safe_why(why: str | None) -> str:
    return why if why in REASONS else ""


@dataclass(frozen=True)
class Arrival:
    next: str
    why: str
    message: str | None

    @property
    def context(self) -> dict[str, object]:
        """What the log-in and sign-up templates take of it."""
        return {"next": self.next, "why": self.why, "arrival": self}

    @property
    def query(self) -> str:
        """`?next=...&why=...` for the link to the other page (log in <-> sign up)."""
        params = {"next": self.next} if self.next != "/" else {}
        if self.why:
            params["why"] = self.why
        return "?" + urlencode(params) if params else ""


async def arrival(request: Request, next: str | None, why: str | None) -> Arrival:
    """`next` and `why` made safe, and the sentence that says why the visitor is here."""
    target, reason = safe_next(next), safe_why(why)
    path = urlsplit(target).path
    if join := JOIN_PATH.fullmatch(path):
        name = await class_for_visitor(
            database=get_database(request),
            settings=request.app.state.settings,
            address=client_address(request),
            code=join.group(1),
        )
        message = (
            gettext(
                "Log in or create an account to join the class “%(name)s”. You will then "
                "be asked to confirm."
            )
            % {"name": name}
            if name
            else gettext("Log in or create an account to join a class.")
        )
    elif reason == WHY_ANSWER:
        message = gettext(
            "Log in or create an account to check your answer. It is kept and filled in "
            "again when you are back at the question."
        )
    elif target != "/":
        message = gettext(
            "Log in or create an account to go on; you will be brought back to where you were."
        )
    else:
        message = None
    return Arrival(target, reason, message)
