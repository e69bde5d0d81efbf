from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import (
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


def fold_username(name: str) -> str:
    """Usernames are stored in lowercase; log-in and the sign-up form read capitals as
    lowercase, so "Alice" signs up, and logs in, as "alice" (the API's sign-up takes only
    lowercase, as its contract says). Only ASCII is folded (str.lower() maps the Kelvin sign
    to "k"): any other letter is still refused by the pattern, never made a look-alike."""
    name = name.strip()
    return name.lower() if name.isascii() else name


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
    role: Role


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
