"""Password hashing and API tokens (CSRF tokens: app/web/csrf.py)."""

from __future__ import annotations

import asyncio
import hashlib
import os
import secrets
from concurrent.futures import ThreadPoolExecutor

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

_hasher = PasswordHasher()
# Verified against when the user does not exist, so both failures take the same time. Made
# on first use, not at import: every process and command that imports the app would
# otherwise pay for a hash (a tenth of a second of CPU) that most of them never need.
_DUMMY_HASH: str | None = None
# Argon2 runs here, off the event loop, a few hashes at a time: a burst of log-ins waits its
# turn in this queue instead of taking every core (and asyncio's default pool) from the rest.
HASH_THREADS = max(1, min(4, os.cpu_count() or 1))
_pool = ThreadPoolExecutor(max_workers=HASH_THREADS, thread_name_prefix="argon2")


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def _dummy_hash() -> str:
    global _DUMMY_HASH
    if _DUMMY_HASH is None:
        _DUMMY_HASH = _hasher.hash("not-a-real-password")
    return _DUMMY_HASH


def verify_password(password: str, password_hash: str | None) -> bool:
    try:
        return (
            _hasher.verify(password_hash or _dummy_hash(), password) and password_hash is not None
        )
    except (VerificationError, InvalidHashError):
        return False


async def hash_password_off_loop(password: str) -> str:
    return await asyncio.get_running_loop().run_in_executor(_pool, hash_password, password)


async def verify_password_off_loop(password: str, password_hash: str | None) -> bool:
    return await asyncio.get_running_loop().run_in_executor(
        _pool, verify_password, password, password_hash
    )


def new_token() -> str:
    return secrets.token_urlsafe(32)


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
