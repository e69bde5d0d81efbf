"""Answers and program output as a teacher reads them: each answer in words as its
question's kind writes it (app/quizzes/kinds/), and the error type of a failed run."""

from __future__ import annotations

import html
import json
import re
from typing import Any

from app.classes.clusters import normalised_output
from app.i18n import N_
from app.models import Question, RunVerdict
from app.quizzes.kinds import AnswerView, AnyKind, UnknownKind, kind_of

__all__ = ["AnswerView", "correct_answer", "describe", "describe_answer", "plain", "summarise"]
_TAG = re.compile(r"<[^>]+>")
_CODE = re.compile(r"</?code\b[^>]*>")
_INLINE = re.compile(r"</?(?:a|abbr|b|em|i|kbd|mark|q|s|small|span|strong|sub|sup|u|var)\b[^>]*>")
# The last line of a Python traceback: "RuntimeError: ...", "torch.cuda.OutOfMemoryError: ..."
_ERROR_LINE = re.compile(r"^([A-Za-z_][\w.]{0,79})(?::|$)")
# What differs between two runs of the same mistake: addresses, then other numbers.
_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:e[-+]?\d+)?")
MESSAGE_MAX = 160


def plain(html_text: str, limit: int = 90) -> str:
    """A prompt's HTML as one line of text, shortened to `limit` characters, its inline code
    kept as `code` (pages show it as code: the `code_spans` filter). Inline tags go without a
    trace ("`x`." stays "`x`.", not "x ."); other tags part words with a space."""
    text = _INLINE.sub("", _CODE.sub("`", html_text))
    text = " ".join(html.unescape(_TAG.sub(" ", text)).split())
    if len(text) <= limit:
        return text
    short = text[: limit - 1].rstrip()
    return short + ("`…" if short.count("`") % 2 else "…")  # never a code span left open


def _kind(name: str) -> AnyKind | None:
    """None for a kind this version no longer has (its old answers are shown as JSON)."""
    try:
        return kind_of(name)
    except UnknownKind:
        return None


def describe(kind: str, public: dict[str, Any], answer: Any) -> AnswerView:
    """An answer in words, by its question's kind; never raises: content edited since the
    answer was given shows what it can."""
    found = _kind(kind)
    if found is None:
        return AnswerView([json.dumps(answer, ensure_ascii=False)], [])
    return found.describe_recorded(public, answer)


def summarise(kind: str, public: dict[str, Any], answer: Any) -> str:
    """A wrong answer on one line, as the insight groups and counts them."""
    found = _kind(kind)
    if found is None:
        return json.dumps(answer, ensure_ascii=False)
    return found.summarise_recorded(public, answer)


def describe_answer(question: Question, answer: Any) -> AnswerView:
    return describe(question.kind, question.public, answer)


def correct_answer(question: Question) -> list[str]:
    """The right answer in words (the teacher may always see it), as students see it."""
    found = _kind(question.kind)
    return [] if found is None else found.correct_in_words(question.public, question.key)


def error_summary(stderr: str) -> str | None:
    """The last line of a traceback with what varies between runs replaced (addresses by
    0x…, numbers by N), so one mistake makes one group and two different mistakes of the
    same exception class do not: "RuntimeError: size of tensor a (N) must match ..."."""
    for line in reversed(stderr.splitlines()):
        line = line.strip()
        if not line:
            continue
        if not _ERROR_LINE.match(line):
            return None
        line = _NUMBER.sub("N", _ADDRESS.sub("0x…", line))
        return line if len(line) <= MESSAGE_MAX else line[: MESSAGE_MAX - 1].rstrip() + "…"
    return None


NOT_FAILURES = frozenset({RunVerdict.PASSED, RunVerdict.NOT_GRADED, RunVerdict.ERROR})
# English in the API; pages translate them (`| t`).
RUN_FAILURES = {
    "timeout": N_("Time limit exceeded"),
    "memory_limit": N_("Memory limit exceeded"),
    "output_limit": N_("Too much output"),
}
NO_OUTPUT = N_("(no output)")
NO_MESSAGE = N_("Error without a message")


def failure_label(run: dict[str, Any]) -> tuple[str, str] | None:
    """("output", the wrong output) or ("error", its normalised message) for a run that
    failed; None for one that passed or was never graded (no such device here, or a platform
    fault): those say nothing about the student's code."""
    verdict = run.get("verdict")
    if verdict is None or verdict in NOT_FAILURES:
        return None
    if verdict == RunVerdict.WRONG_OUTPUT:
        output = normalised_output(str(run.get("stdout") or ""))
        if len(output) > 400:
            output = output[:400] + "\n…"
        return "output", output or NO_OUTPUT
    if verdict in RUN_FAILURES:
        return "error", RUN_FAILURES[verdict]
    return "error", error_summary(str(run.get("stderr") or "")) or NO_MESSAGE
