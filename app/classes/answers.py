"""Answers and program output as a teacher reads them: option texts instead of indices,
the fill-in template with the student's words in it, matched pairs as "left → right",
and the error type of a failed run."""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from typing import Any

from app.models import Question

BLANK = "____"
_TAG = re.compile(r"<[^>]+>")
# The last line of a Python traceback: "RuntimeError: ...", "torch.cuda.OutOfMemoryError: ..."
_ERROR_LINE = re.compile(r"^([A-Za-z_][\w.]{0,79})(?::|$)")


def plain(html_text: str, limit: int = 90) -> str:
    """A prompt's HTML as one line of text, shortened to `limit` characters."""
    text = " ".join(html.unescape(_TAG.sub(" ", html_text)).split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


@dataclass
class AnswerView:
    """`lines`: the answer in words; `parts` (fill-in only): (text, is_blank) to render the
    template with the student's words marked."""

    lines: list[str]
    parts: list[tuple[str, bool]]


def _option(options: list[str], index: Any) -> str:
    if isinstance(index, int) and not isinstance(index, bool) and 0 <= index < len(options):
        return f"{chr(ord('A') + index) if index < 26 else index + 1}. {options[index]}"
    return f"(option {index!r})"


def describe(kind: str, public: dict[str, Any], answer: Any) -> AnswerView:
    """Never raises: content edited since the answer was given shows what it can."""
    try:
        if kind == "multiple_choice":
            options = list(public.get("options", []))
            chosen = answer if isinstance(answer, list) else [answer]
            return AnswerView([_option(options, i) for i in chosen] or ["(nothing chosen)"], [])
        if kind == "fill_in":
            given = [str(a) for a in answer] if isinstance(answer, list) else [str(answer)]
            pieces = str(public.get("template", "")).split(BLANK)
            parts: list[tuple[str, bool]] = []
            for index, piece in enumerate(pieces):
                parts.append((piece, False))
                if index < len(pieces) - 1:
                    parts.append((given[index] if index < len(given) else "", True))
            text = "".join(f"[{p}]" if blank else p for p, blank in parts)
            return AnswerView([text], parts)
        if kind == "matching" and isinstance(answer, dict):
            left = {item["id"]: item["text"] for item in public.get("left", [])}
            right = {item["id"]: item["text"] for item in public.get("right", [])}
            return AnswerView(
                [f"{left.get(lid, lid)} → {right.get(rid, rid)}" for lid, rid in answer.items()],
                [],
            )
    except (TypeError, KeyError, AttributeError):
        pass
    return AnswerView([json.dumps(answer, ensure_ascii=False)], [])


def describe_answer(question: Question, answer: Any) -> AnswerView:
    return describe(question.kind, question.public, answer)


def correct_answer(question: Question) -> list[str]:
    """The right answer in words (the teacher may always see it)."""
    public, key = question.public, question.key
    try:
        if question.kind == "multiple_choice":
            return [_option(public["options"], i) for i in key["correct"]]
        if question.kind == "fill_in":
            shown = [b.get("answer") or b["accepted"][0] for b in key["blanks"]]
            return describe("fill_in", public, shown).lines
        return describe("matching", public, key["pairs"]).lines
    except (TypeError, KeyError, IndexError):
        return []


def error_type(stderr: str) -> str | None:
    """The exception named on the last non-empty line of stderr, e.g. "RuntimeError"."""
    for line in reversed(stderr.splitlines()):
        line = line.strip()
        if not line:
            continue
        match = _ERROR_LINE.match(line)
        return match.group(1) if match else None
    return None


RUN_FAILURES = {
    "timeout": "Time limit exceeded",
    "memory_limit": "Memory limit exceeded",
    "output_limit": "Too much output",
}


def failure_label(run: dict[str, Any]) -> tuple[str, str] | None:
    """("output", the wrong output) or ("error", its type) for a run that did not pass."""
    verdict = run.get("verdict")
    if verdict in (None, "passed"):
        return None
    if verdict == "wrong_output":
        output = str(run.get("stdout") or "").rstrip()
        if len(output) > 400:
            output = output[:400] + "\n…"
        return "output", output or "(no output)"
    if verdict in RUN_FAILURES:
        return "error", RUN_FAILURES[verdict]
    return "error", error_type(str(run.get("stderr") or "")) or "Error without a message"
