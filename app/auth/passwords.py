"""Which passwords are refused, after NIST SP 800-63B: at least 8 characters and long
passphrases welcome; no composition rules; never the username, a commonly used password,
or one made only of a repeated or consecutive run of characters."""

from __future__ import annotations

from enum import StrEnum
from functools import cache
from itertools import pairwise

from app.i18n import N_

MIN_LENGTH = 8
MAX_LENGTH = 1024  # a passphrase of 150 words fits; Argon2 pre-hashes it, so length costs nothing
# Context-specific words NIST asks to refuse besides the common list.
SITE_WORDS = frozenset({"tensorcamp", "tensorcamp1", "pytorch", "pytorch1"})


class PasswordProblem(StrEnum):
    USERNAME = "password_is_username"
    COMMON = "password_common"
    PATTERN = "password_pattern"


MESSAGES = {
    PasswordProblem.USERNAME: N_("The password must not be the username."),
    PasswordProblem.COMMON: N_(
        "This password is among the most commonly used ones; choose another."
    ),
    PasswordProblem.PATTERN: N_(
        "This password is only a repeated or consecutive run of characters; choose another."
    ),
}


@cache
def common_passwords() -> frozenset[str]:
    """The 30,000 most common passwords (from leaked lists) that zxcvbn ships, lowercase.
    Loaded on first use: the module is a few megabytes."""
    from zxcvbn.frequency_lists import FREQUENCY_LISTS

    return frozenset(FREQUENCY_LISTS["passwords"]) | SITE_WORDS


def problem(password: str, *, username: str | None) -> PasswordProblem | None:
    """Why this password is refused, or None. Length is checked by the schemas."""
    folded = password.casefold()
    if username and folded == username.strip().casefold():
        return PasswordProblem.USERNAME
    if folded in common_passwords():
        return PasswordProblem.COMMON
    if _repeated(folded) or _consecutive(folded):
        return PasswordProblem.PATTERN
    return None


def _repeated(text: str) -> bool:
    """`aaaaaaaa`, `abababab`, `12341234`: the text is one shorter piece over and over."""
    return len(text) > 1 and text in (text + text)[1:-1]


def _consecutive(text: str) -> bool:
    """`abcdefgh`, `23456789`, `87654321`: each character one after (or before) the last."""
    steps = {ord(b) - ord(a) for a, b in pairwise(text)}
    return steps in ({1}, {-1})
