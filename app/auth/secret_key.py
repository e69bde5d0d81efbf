"""The key that signs session cookies: SECRET_KEY when set, else one made on first start
and kept in DATA_DIR, so that no install ever signs with a published key."""

from __future__ import annotations

import logging
import os
import secrets
import stat
import tempfile
from pathlib import Path

from app.config import Settings

log = logging.getLogger("app")

FILE_NAME = "secret_key"
MIN_LENGTH = 32


class SecretKeyError(RuntimeError):
    pass


def session_secret(settings: Settings) -> str:
    if settings.secret_key:
        return settings.secret_key
    path = settings.data_dir.resolve() / FILE_NAME
    created = _create_once(path)
    key = _read(path)
    log.warning(
        "SECRET_KEY is not set: session cookies are signed with the key %s %s (mode 0600). "
        "Keep it secret and with your backups; set SECRET_KEY when several hosts serve the site.",
        "made now and kept in" if created else "kept in",
        path,
    )
    return key


def _create_once(path: Path) -> bool:
    """Write a new random key unless one is there. Atomic: the key is written in full to a
    private temporary file and then hard-linked into place, which fails if another process
    got there first (its key wins), so no process ever reads a half-written key."""
    if path.exists():
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(prefix=f".{FILE_NAME}.", dir=path.parent)
    try:
        os.fchmod(descriptor, 0o600)
        with os.fdopen(descriptor, "w") as handle:
            handle.write(secrets.token_urlsafe(48) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(temporary, path)
        except FileExistsError:
            return False
        return True
    finally:
        os.unlink(temporary)


def _read(path: Path) -> str:
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise SecretKeyError(
            f"{path} can be read by other users (mode {mode:04o}); run `chmod 600 {path}`"
        )
    key = path.read_text().strip()
    if len(key) < MIN_LENGTH:
        raise SecretKeyError(
            f"{path} holds no usable key (fewer than {MIN_LENGTH} characters); delete it to "
            "have a new one made (everyone logs in again) or set SECRET_KEY"
        )
    return key
