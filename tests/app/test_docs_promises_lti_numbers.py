"""The numbers docs/lti.md gives are the code's: change one and the other must follow."""

from __future__ import annotations

from datetime import timedelta

import pytest

from app.config import REPO_ROOT
from app.lti import background, deep_linking, handoff, keys, launch, outbox, service, tokens

LTI_MD = (REPO_ROOT / "docs" / "lti.md").read_text()


@pytest.mark.parametrize(
    ("in_the_docs", "seconds", "in_the_code"),
    [
        ("the old key stays published for 7 days", 7 * 24 * 3600, keys.RETIRED_KEY_PUBLISHED),
        ("**nonce** for 10 minutes", 600, service.LOGIN_EXPIRES),
        ("JWKS URL, cached for 10 minutes", 600, keys.PLATFORM_KEYS_TTL_S),
        ("(60 seconds of clock skew)", 60, launch.CLOCK_SKEW_S),
        ("signed handoff (5 minutes", 300, handoff.MAX_AGE_S),
        ("delivers it (`app/lti/outbox.py`), looking every 5 seconds", 5, background.POLL_S),
        ("roster by itself once a day", 24 * 3600, service.ROSTER_SYNC_EVERY),
        ("looking for rosters due every 10 minutes", 600, background.ROSTER_CHECK_S),
        ("tried again 10 seconds later", 10, outbox.FIRST_PAUSE),
        ("twice as long each time, at most 5 minutes", 300, outbox.LONGEST_PAUSE),
        ("each score is claimed for a minute", 60, outbox.CLAIM),
        ("signed and good for an hour", 3600, deep_linking.PICK_MAX_AGE_S),
        ("`aud` the token URL, 5 minutes", 300, tokens.ASSERTION_LIFETIME_S),
        ("kept until a minute before it expires", 60, tokens.EXPIRY_MARGIN_S),
    ],
)
def test_the_docs_say_what_the_code_does(
    in_the_docs: str, seconds: int, in_the_code: timedelta | float
) -> None:
    assert in_the_docs in " ".join(LTI_MD.split())
    if isinstance(in_the_code, timedelta):
        in_the_code = in_the_code.total_seconds()
    assert in_the_code == seconds
