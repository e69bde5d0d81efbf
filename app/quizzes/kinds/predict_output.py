"""Predict the output: a snippet of code is shown, the student types what it prints. The
answer is compared with the expected output as a code exercise's output is (the grader's
comparison modes and device placeholders), and a wrong one is shown beside the expected
output, aligned line by line as a failed run is."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    Field,
    RootModel,
    StringConstraints,
    field_validator,
    model_validator,
)
from starlette.datastructures import FormData

from app.i18n import N_
from app.quizzes.kinds.base import (
    AnswerView,
    EmptyPart,
    Feedback,
    InvalidAnswer,
    OutputCheck,
    QuestionKind,
    QuestionOut,
    QuestionSource,
    SourceModel,
)
from app.submissions.diff import DiffRow, aligned_rows, expected_on
from grader import Comparison, ComparisonError, compare

MAX_ANSWER = 10_000
MAX_EXPECTED = 5_000
# Where the snippet may run: an answer that matches the expected output with its
# placeholders filled in for one of these is right (`{device}`: `cpu` or `cuda:0`).
DEVICES = ("cpu", "cuda")
PLACEHOLDERS = ("{device}", "{device_type}")
TYPE_IT = N_("Type what the code prints.")
TOO_LONG = N_("The answer is at most 10,000 characters.")
# Output keeps its spaces: only the blank lines at its end are left out.
Output = Annotated[str, StringConstraints(strip_whitespace=False)]


def _output(text: str) -> str:
    """Output as it is compared and shown: Unix line ends, no blank lines at the end."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines)


class OutputComparison(SourceModel, Comparison):
    """`comparison:` as an exercise has it: the grader's `Comparison`."""


class PredictOutput(QuestionSource):
    kind: Literal["predict_output"]
    code: str = Field(min_length=1)
    expected: Output = Field(min_length=1, max_length=MAX_EXPECTED)
    comparison: OutputComparison = OutputComparison()
    # Shown as the right answer; required with `patterns`, whose expected lines are regexes.
    answer: Output | None = Field(default=None, max_length=MAX_EXPECTED)

    @field_validator("code")
    @classmethod
    def _compiles(cls, code: str) -> str:
        try:
            compile(code, "<code>", "exec")
        except SyntaxError as exc:
            raise ValueError(f"not valid Python (line {exc.lineno}): {exc.msg}") from None
        return code

    @field_validator("expected", "answer")
    @classmethod
    def _some_output(cls, text: str | None) -> str | None:
        if text is None:
            return None
        if not _output(text):
            raise ValueError("must hold at least one line of output")
        return _output(text)

    @model_validator(mode="after")
    def _answer_is_right(self) -> PredictOutput:
        if self.answer is None and self.comparison.mode == "patterns":
            raise ValueError("with mode patterns, give the answer shown to students (answer)")
        shown = self.answer if self.answer is not None else expected_on(self.expected, "cpu")
        try:
            matched, _diff = compare(self.expected, shown, self.comparison, "cpu")
        except ComparisonError as exc:
            raise ValueError(f"expected: {exc}") from None
        if not matched:
            raise ValueError(
                f"answer does not match expected under the comparison ({self.comparison.mode})"
            )
        return self


class PredictPublic(BaseModel):
    code: str


class PredictKey(BaseModel):
    expected: str
    comparison: Comparison
    answer: str  # what is shown as the right answer


class Printed(RootModel[str]):
    """What the student says the code prints."""


class PredictOutputOut(QuestionOut):
    kind: Literal["predict_output"] = "predict_output"
    code: str


def _devices(expected: str) -> tuple[str, ...]:
    return DEVICES if any(p in expected for p in PLACEHOLDERS) else DEVICES[:1]


class PredictOutputKind(QuestionKind[PredictOutput, PredictPublic, PredictKey, Printed]):
    name = "predict_output"
    source = PredictOutput
    public_model = PredictPublic
    key_model = PredictKey
    answer_model = Printed
    out_model = PredictOutputOut
    # Code, translated only where its identifiers are, and its output where it prints words.
    optional_translated_fields = ("code", "expected", "answer")
    example: ClassVar[dict[str, Any]] = {
        "id": "example-predict-output",
        "kind": "predict_output",
        "prompt": "What does this print?",
        "code": (
            "import torch\nx = torch.arange(6).reshape(2, 3)\nprint(x.shape)\nprint(x.sum().item())"
        ),
        "expected": "torch.Size([2, 3])\n15\n",
        "explanation": "Six numbers, 0 to 5, in two rows of three; they add up to 15.",
    }

    def build(self, source: PredictOutput) -> tuple[PredictPublic, PredictKey]:
        shown = source.answer if source.answer is not None else expected_on(source.expected, "cpu")
        key = PredictKey(
            expected=source.expected,
            comparison=Comparison.model_validate(source.comparison.model_dump()),
            answer=shown,
        )
        return PredictPublic(code=source.code), key

    def read_answer(self, public: PredictPublic, given: object) -> Printed:
        if not isinstance(given, str):
            raise InvalidAnswer("This question takes a string: what the code prints.")
        if len(given) > MAX_ANSWER:
            raise InvalidAnswer(TOO_LONG)
        printed = _output(given)
        if not printed.strip():
            raise EmptyPart(TYPE_IT, None)
        return Printed(printed)

    def read_form(self, public: PredictPublic, form: FormData) -> Printed:
        printed = form.get("printed")
        return self.read_answer(public, printed if isinstance(printed, str) else "")

    def _matches_on(self, key: PredictKey, answer: Printed) -> str | None:
        """The device on which the answer is the output, if any."""
        for device in _devices(key.expected):
            if compare(key.expected, answer.root, key.comparison, device)[0]:
                return device
        return None

    def is_correct(self, key: PredictKey, answer: Printed) -> bool:
        return self._matches_on(key, answer) is not None

    def correct_answer(self, public: PredictPublic, key: PredictKey) -> Printed:
        return Printed(key.answer)

    def describe(self, public: PredictPublic, answer: Printed) -> AnswerView:
        """The output's lines."""
        return AnswerView(
            _output(answer.root).split("\n") if answer.root.strip() else ["(no output)"], []
        )

    def feedback(self, public: PredictPublic, key: PredictKey, answer: Printed) -> Feedback:
        """The expected output beside the answer, aligned as a failed run's, with the
        placeholders filled in for the device where they differ least (the student may
        have pictured either)."""
        shown = key.answer if key.comparison.mode == "patterns" else key.expected
        candidates = [aligned_rows(expected_on(shown, d), answer.root) for d in _devices(shown)]
        rows = min(candidates, key=_differing)
        # The answer's lines that differ (by index): what may be said before the expected
        # output is shown.
        wrong: list[int | str] = [
            row.actual.number - 1
            for row in rows
            if row.actual.differs and row.actual.number is not None
        ]
        return Feedback(rows=rows, wrong_parts=wrong)

    def describe_wrong(
        self, public: PredictPublic, answer: Printed, parts: list[int | str]
    ) -> list[str]:
        """The answer's lines that differ from the output, as typed."""
        lines = answer.root.split("\n")
        return [lines[part] for part in parts if isinstance(part, int) and 0 <= part < len(lines)]

    def output_checks(self, public: PredictPublic, key: PredictKey) -> list[OutputCheck]:
        """The snippet must print its expected output, on every device."""
        return [OutputCheck("code", public.code, key.expected, key.comparison)]


def _differing(rows: list[DiffRow]) -> int:
    return sum(row.differs for row in rows)


KIND = PredictOutputKind()
