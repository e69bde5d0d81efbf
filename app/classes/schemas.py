"""The classes part of the JSON API (see the API contract, "Classes (teachers)")."""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StringConstraints,
    model_validator,
)

from app.classes.due import State
from app.i18n import N_
from app.models.classroom import STUDENT_NUMBER_MAX
from app.models.output_hint import TEXT_MAX as HINT_TEXT_MAX
from app.submissions.diff import DiffRow
from app.submissions.schemas import OutputHintOut, SubmissionOut

ClassName = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100)]
# Strict: JSON's true is not the number 1, nor "5" the number 5 (a client's mistake
# refused, not guessed at).
Penalty = Annotated[StrictInt, Field(ge=0, le=100)]

EARLIEST_DUE = datetime(2000, 1, 1, tzinfo=UTC)
LATEST_DUE = datetime(2100, 1, 1, tzinfo=UTC)


class InvalidDueDate(ValueError):
    pass


def parse_due(value: Any) -> datetime | None:
    """A due date: null/empty for none, a date `YYYY-MM-DD` (due at the end of that day,
    UTC) or an ISO 8601 date-time with a timezone. Anything else is refused (422)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, datetime):
        parsed = value
    elif isinstance(value, date):
        parsed = datetime.combine(value, time(23, 59, 59), tzinfo=UTC)
    elif isinstance(value, str):
        text = value.strip()
        try:
            if len(text) == 10:
                parsed = datetime.combine(date.fromisoformat(text), time(23, 59, 59), tzinfo=UTC)
            else:
                parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            raise InvalidDueDate(
                N_("Give the due date as YYYY-MM-DD or an ISO 8601 date-time with a timezone.")
            ) from None
    else:
        raise InvalidDueDate(N_("The due date must be a string."))
    if parsed.tzinfo is None:
        raise InvalidDueDate(N_("Give the due date-time with a timezone, e.g. 2030-05-01T17:00Z."))
    parsed = parsed.astimezone(UTC)
    if not EARLIEST_DUE <= parsed < LATEST_DUE:
        raise InvalidDueDate(N_("The due date must fall between the years 2000 and 2099."))
    return parsed


DueDate = Annotated[datetime | None, BeforeValidator(parse_due)]


class ClassIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: ClassName


class ClassPatch(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: ClassName | None = None
    archived: StrictBool | None = None


class JoinIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    join_code: Annotated[str, StringConstraints(max_length=64)]


class JoinedOut(BaseModel):
    id: int
    name: str


class ClassOut(BaseModel):
    id: int
    name: str
    join_code: str
    join_url: str = Field(description="The link students open to join (the join code in it).")
    archived: bool
    created_at: datetime
    student_count: int = 0


class StudentRef(BaseModel):
    id: int
    username: str
    display_name: str = Field(
        default="", description="The name the student chose (any script); else the username."
    )
    student_number: str | None = Field(default=None, description="The school's number, if any.")

    @model_validator(mode="after")
    def _named(self) -> StudentRef:
        self.display_name = self.display_name or self.username
        return self


class RosterEntry(StudentRef):
    joined_at: datetime


class MemberPatch(BaseModel):
    """A student's number in the class (`null` or "" clears it)."""

    model_config = ConfigDict(extra="forbid")

    student_number: (
        Annotated[str, StringConstraints(strip_whitespace=True, max_length=STUDENT_NUMBER_MAX)]
        | None
    )


class AssignmentIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    due_at: DueDate = Field(
        default=None,
        description="null, YYYY-MM-DD (end of that day, UTC) or an ISO 8601 date-time "
        "with a timezone.",
    )
    late_work: StrictBool | None = Field(
        default=None,
        description="Whether work finished after the due date counts (left out: unchanged; "
        "a new assignment: true).",
    )
    late_penalty_percent: Penalty | None = Field(
        default=None,
        description="0-100: points of 100 that late work loses when it counts (left out: "
        "unchanged; a new assignment: 0).",
    )


class AssignmentOut(BaseModel):
    lesson_slug: str
    title: str
    due_at: datetime | None
    late_work: bool = True
    late_penalty_percent: int = 0


class ExtensionIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    due_at: Annotated[datetime, BeforeValidator(parse_due)] = Field(
        description="The student's own due date: YYYY-MM-DD (end of that day, UTC) or an "
        "ISO 8601 date-time with a timezone."
    )


class ExtensionOut(BaseModel):
    student_id: int
    lesson_slug: str
    due_at: datetime = Field(description="The student's due date on this assignment.")


class ClassDetailOut(ClassOut):
    students: list[RosterEntry]
    assignments: list[AssignmentOut]


class StudentAssignmentOut(AssignmentOut):
    state: State
    extended_to: datetime | None = Field(
        default=None, description="The caller's own due date, when the teacher extended it."
    )


class StudentClassOut(BaseModel):
    """A class as its student sees it: no join code, the assignments with their state."""

    id: int
    name: str
    teacher: str
    assignments: list[StudentAssignmentOut]


class LessonColumn(BaseModel):
    slug: str
    title: str
    due_at: datetime | None = None
    late_work: bool = True
    late_penalty_percent: int = 0


class CellOut(BaseModel):
    student_id: int
    lesson_slug: str
    questions_correct: int
    questions_total: int
    exercises_passed: int
    exercises_total: int
    attempts: int
    last_activity_at: datetime | None
    state: State
    exercises_given_up: int = Field(
        default=0,
        description="Exercises of the lesson whose sample solution the student asked to see"
        " before passing them (gave up); counted even if they passed afterwards.",
    )
    completed_at: datetime | None = Field(
        default=None,
        description="When the lesson became complete: the answer or graded submission that"
        " did its last item. null while not done.",
    )
    due_at: datetime | None = Field(
        default=None, description="The student's due date: their extension, else the lesson's."
    )
    extended_to: datetime | None = Field(
        default=None, description="The student's extension, when the teacher gave one."
    )
    late_by_hours: float | None = Field(
        default=None,
        description="done_late: finished this long after the due date; overdue_*: past it this"
        " long. null when not late.",
    )
    score_percent: float = Field(
        default=0.0,
        description="Items done, of 100; those done after the due date lose the late penalty,"
        " or count nothing when late work does not count.",
    )
    answers_requested: int = Field(
        default=0,
        description="Questions of the lesson whose answer the student asked to be shown (Show"
        " the answer) before answering them right or using their tries; counted even if they"
        " answered right afterwards.",
    )


class ProgressOut(BaseModel):
    students: list[StudentRef]
    lessons: list[LessonColumn]
    cells: list[CellOut]


class AnswerEvent(BaseModel):
    kind: Literal["answer"] = "answer"
    at: datetime
    question_id: str
    answer: Any
    answer_text: list[str]
    correct: bool


class SubmissionEvent(BaseModel):
    kind: Literal["submission"] = "submission"
    at: datetime
    submission: SubmissionOut


class HintOpenedOut(BaseModel):
    exercise_id: str
    number: int = Field(description="1 for the exercise's first hint.")
    opened_at: datetime


class GaveUpOut(BaseModel):
    exercise_id: str
    at: datetime = Field(description="When the student gave up and saw the sample solution.")


class AnswerRequestedOut(BaseModel):
    question_id: str
    at: datetime = Field(description="When the student asked to be shown the answer.")


class DrillDownOut(BaseModel):
    student: StudentRef
    lesson: LessonColumn
    cell: CellOut
    events: list[Annotated[AnswerEvent | SubmissionEvent, Field(discriminator="kind")]]
    hints: list[HintOpenedOut] = Field(
        default_factory=list, description="The hints the student opened, oldest first."
    )
    gave_up: list[GaveUpOut] = Field(
        default_factory=list,
        description="The exercises the student gave up on (and so saw their sample solution"
        " before passing them), oldest first.",
    )
    answers_requested: list[AnswerRequestedOut] = Field(
        default_factory=list,
        description="The questions whose answer the student asked to be shown (Show the"
        " answer) before answering them right or using their tries, oldest first.",
    )


class Count(BaseModel):
    label: str
    students: int


class ClusterHintIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: Annotated[
        str, StringConstraints(strip_whitespace=True, min_length=1, max_length=HINT_TEXT_MAX)
    ] = Field(description="What the students whose output is in this group read.")


class ClusterHintOut(OutputHintOut):
    """A class's hint on one wrong-output group of an exercise."""

    exercise_id: str
    cluster: str
    sample_output: str = Field(description="The start of the group's output (normalised).")


class Group(Count):
    """A wrong output or an error of an exercise, with what a teacher needs to act on it."""

    student_ids: list[int] = Field(default_factory=list, description="The students behind it.")
    sample_code: str | None = Field(
        default=None, description="One of their submissions' code (the first given)."
    )
    sample_message: str | None = Field(
        default=None, description="Errors: that submission's full error output (its end)."
    )
    rows: list[DiffRow] | None = Field(
        default=None,
        description="Wrong outputs: expected beside that output, as the student sees it.",
    )
    cluster: str | None = Field(
        default=None,
        description="Wrong outputs: the group's key, to write a hint on it (outputs that differ"
        " only in trailing spaces, trailing blank lines or line ends share one).",
    )
    hint: ClusterHintOut | None = Field(
        default=None, description="Wrong outputs: the class's hint on this group, if any."
    )


class ItemInsight(BaseModel):
    id: str
    kind: str
    title: str
    students_tried: int
    students_right: int
    share_right: float = Field(description="Students right at least once / students in class.")
    share_right_of_tried: float = Field(
        description="Students right at least once / students who tried: the share the pages"
        " show and `hardest` is ranked by."
    )
    attempts_to_success_mean: float | None
    attempts_to_success_median: float | None
    wrong: list[Group] = Field(
        description="Most common wrong answers (or outputs), by students; outputs carry the"
        " students, one code sample and the side-by-side rows."
    )
    errors: list[Group] = Field(
        default_factory=list,
        description="Errors by exception and message, numbers and addresses normalised (code"
        " only), with the students, one code sample and one full error output.",
    )
    correct: list[str] = Field(
        default_factory=list, description="Questions: the right answer in words."
    )
    verdicts: list[Count] = Field(default_factory=list, description="Verdicts (code only).")
    students_gave_up: int = Field(
        default=0,
        description="Students who gave up and saw the sample solution before passing (code only).",
    )
    students_requested_answer: int = Field(
        default=0,
        description="Students who asked to be shown the answer (Show the answer) before"
        " answering right or using their tries (questions only).",
    )


class LessonInsight(BaseModel):
    slug: str
    title: str
    students: int
    done: int
    in_progress: int
    not_started: int
    late: int
    share_done: float
    attempts_mean: float | None = Field(description="Mean attempts of the students who began.")


class InsightOut(BaseModel):
    students: int
    lessons: list[LessonInsight]
    lesson: str | None = Field(description="The lesson the items below belong to.")
    items: list[ItemInsight]
    hardest: list[ItemInsight] = Field(
        description="Across all lessons: the items with the lowest share of students right "
        "among those who tried (no answer lists)."
    )


class StuckOut(BaseModel):
    lesson_slug: str
    item_id: str
    kind: Literal["question", "exercise"]
    title: str
    failed_attempts: int = Field(description="Wrong answers or failed graded submissions.")
    last_attempt_at: datetime | None


class IdleOut(BaseModel):
    days: int | None = Field(description="Days since the last activity; null: never active.")
    lesson_slug: str = Field(description="The not-done lesson due first (soon or overdue).")
    due_at: datetime
    overdue: bool


class AttentionStudent(BaseModel):
    student: StudentRef
    last_activity_at: datetime | None
    stuck: list[StuckOut] = Field(description="Items failed often enough and never right.")
    idle: IdleOut | None = Field(description="Idle while a lesson is due soon or overdue.")


class AttentionOut(BaseModel):
    failed_attempts: int
    idle_days: int
    due_within_days: int
    students: list[AttentionStudent] = Field(
        description="Students who need attention: overdue first, then most items stuck on."
    )
