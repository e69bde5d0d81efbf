from __future__ import annotations

import unicodedata
from datetime import datetime
from typing import Annotated

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
    StringConstraints,
    ValidationInfo,
    field_validator,
)
from pydantic_core import PydanticCustomError

from app.auth import passwords
from app.models import Role
from app.models.user import DISPLAY_NAME_MAX


def fold_username(name: str) -> str:
    """Usernames are stored in lowercase; log-in and the sign-up form read capitals as
    lowercase, so "Alice" signs up, and logs in, as "alice" (the API's sign-up takes only
    lowercase, as its contract says). Only ASCII is folded (str.lower() maps the Kelvin sign
    to "k"): any other letter is still refused by the pattern, never made a look-alike."""
    name = name.strip()
    return name.lower() if name.isascii() else name


# Turkish's dotless ı has no decomposition: it is an i without its dot, as İ (which NFKD
# splits into I and a combining dot) is an I with one.
_SEARCH_LETTERS = str.maketrans({"ı": "i", "ø": "o", "đ": "d", "ł": "l", "æ": "ae", "œ": "oe"})


def fold_for_search(text: str) -> str:
    """Text as search compares it: without accents, in lowercase, with Turkish's four i's
    (i, I, İ, ı) one letter, so "sahin" finds "Şahin" and "isik" finds "IŞIK" and "ışık".
    Every search of people (the progress grid, the roster) folds both sides with this."""
    decomposed = unicodedata.normalize("NFKD", text.translate(_SEARCH_LETTERS))
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return bare.casefold().translate(_SEARCH_LETTERS).strip()


# Direction overrides and isolates: they would turn the text after a name around.
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _display_name(name: str) -> str:
    """Composed (NFC: "Ş" is one character however it was typed), white space collapsed to
    single spaces; control characters are refused (a name is shown on one line in every
    teacher's table), joiners are kept (Persian and Indic names need them)."""
    name = " ".join(unicodedata.normalize("NFC", name).split())
    if any(
        unicodedata.category(ch) in ("Cc", "Cs", "Co", "Cn") or ch in _BIDI_CONTROLS for ch in name
    ):
        raise PydanticCustomError("display_name_control", "Use letters, not control characters.")
    return name


# 1-80 characters of any script ("Şükrü Öztürk", "李小龙"); it defaults to the username.
DisplayName = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=DISPLAY_NAME_MAX),
    AfterValidator(_display_name),
]

USERNAME_PATTERN = r"^[a-z0-9_.-]+$"
USERNAME_MAX = 32
Username = Annotated[
    str, StringConstraints(min_length=3, max_length=USERNAME_MAX, pattern=USERNAME_PATTERN)
]
Password = Annotated[str, Field(min_length=passwords.MIN_LENGTH, max_length=passwords.MAX_LENGTH)]


class Credentials(BaseModel):
    model_config = ConfigDict(extra="forbid")

    username: Username
    password: Password
    display_name: DisplayName | None = None

    @field_validator("password")
    @classmethod
    def _not_guessable(cls, password: str, info: ValidationInfo) -> str:
        # The username, when it was valid itself (it is checked first).
        problem = passwords.problem(password, username=info.data.get("username"))
        if problem is not None:
            raise PydanticCustomError(problem.value, passwords.MESSAGES[problem])
        return password


class LoginRequest(BaseModel):
    # Any string is accepted here: a bad username is just a failed log-in (401), not a hint.
    username: Annotated[str, Field(max_length=200)]
    password: Annotated[str, Field(max_length=passwords.MAX_LENGTH)]


class UserOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    username: str
    display_name: str
    role: Role


class ProfileUpdate(BaseModel):
    """What an account's owner may change of their profile (`PATCH /api/me`)."""

    model_config = ConfigDict(extra="forbid")

    display_name: DisplayName


class Registered(BaseModel):
    user: UserOut
    token: str


class TokenOut(BaseModel):
    token: str


class TokenRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100)]
    # Unset: the server's default (API_TOKEN_DAYS, 90 days unless configured).
    expires_in_days: Annotated[StrictInt, Field(ge=1, le=366)] | None = None


class TokenInfo(BaseModel):
    """A token as its owner sees it later: never the token itself (only its digest is kept)."""

    model_config = ConfigDict(from_attributes=True)

    id: int
    name: str
    created_at: datetime
    last_used_at: datetime | None
    expires_at: datetime | None


class TokenCreated(TokenInfo):
    token: str  # shown this once
