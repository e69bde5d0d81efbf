"""Password hashes and tokens as stored."""

from __future__ import annotations

import httpx
from argon2 import PasswordHasher
from sqlalchemy import select

from app.auth import security
from app.db import Database
from app.models import ApiToken, User
from tests.helpers import register


def test_passwords_are_hashed_with_argon2id_at_the_library_defaults(
    real_password_hashing: None,
) -> None:
    hashed = security.hash_password("correct horse")
    defaults = PasswordHasher()
    assert hashed.startswith("$argon2id$")
    assert f"m={defaults.memory_cost},t={defaults.time_cost},p={defaults.parallelism}" in hashed
    assert security.verify_password("correct horse", hashed)
    assert not security.verify_password("correct horsE", hashed)
    assert hashed != security.hash_password("correct horse")  # salted


def test_verify_refuses_a_missing_or_malformed_hash() -> None:
    assert not security.verify_password("not-a-real-password", None)
    assert not security.verify_password("anything", "")
    assert not security.verify_password("anything", "not a hash")


async def test_the_database_keeps_neither_password_nor_token(
    client: httpx.AsyncClient, db: Database
) -> None:
    name, token = await register(client)
    async with db.sessionmaker() as session:
        user = await session.scalar(select(User).where(User.username == name))
        assert user is not None
        tokens = (await session.scalars(select(ApiToken).where(ApiToken.user_id == user.id))).all()
    assert "correct horse" not in user.password_hash
    assert user.password_hash.startswith("$argon2id$")
    assert [t.token_hash for t in tokens] == [security.token_digest(token)]
    assert token not in tokens[0].token_hash
