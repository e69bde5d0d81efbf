from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

Username = Annotated[str, StringConstraints(min_length=3, max_length=32, pattern=r"^[a-z0-9_.-]+$")]
Password = Annotated[str, Field(min_length=8, max_length=1024)]


class Credentials(BaseModel):
    model_config = ConfigDict(extra="forbid")

    username: Username
    password: Password


class LoginRequest(BaseModel):
    # Any string is accepted here: a bad username is just a failed log-in (401), not a hint.
    username: Annotated[str, Field(max_length=200)]
    password: Annotated[str, Field(max_length=1024)]


class UserOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    username: str
    role: Literal["student", "teacher"]


class Registered(BaseModel):
    user: UserOut
    token: str


class TokenOut(BaseModel):
    token: str
