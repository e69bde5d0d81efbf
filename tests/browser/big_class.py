"""A class of 120 as a teacher meets it (issue 16): real-looking names, three assigned
lessons (the first due ten days ago, the second two days ago, the third in five days),
about 900 answers and 600 graded submissions, and in it
- 15 students who never started anything;
- 8 who finished the first lesson after its due date;
- 4 who failed an exercise again and again, then gave up and saw its sample solution;
- 6 stuck on one question: three or four wrong answers, never right;
- the rest strong or weak at random, most of them behind on the third lesson.

Written straight into the server's database through the app's models and the quiz kinds'
own checks (one bulk insert a table), not through HTTP one request at a time: it takes
about a second. Deterministic (a fixed seed), so the screenshots are comparable.
"""

from __future__ import annotations

import asyncio
import random
import unicodedata
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import insert, select

from app import item_progress
from app.auth.security import hash_password
from app.classes import service
from app.db import Database
from app.models import (
    ClassAssignment,
    ClassMember,
    Exercise,
    Question,
    QuestionAttempt,
    SolutionReveal,
    Submission,
    User,
    utcnow,
)
from app.quizzes.kinds import kind_of

LESSONS = ("tensor-basics", "dtypes-and-promotion", "reshaping-and-broadcasting")
DUE_IN_DAYS = (-10, -2, 5)
STUDENTS = 120
NEVER_STARTED = 15
FINISHED_LATE = 8
GAVE_UP = 4
STUCK = 6
# The exercise the class finds hardest, the two wrong outputs most of its failures print
# and the error the rest of them raise.
HARD_EXERCISE = "tensor-basics-grid"
STUCK_QUESTION_KIND = "fill_in"  # of the second lesson
FIRST = [
    "Ayşe",
    "Mehmet",
    "Elif",
    "Can",
    "Zeynep",
    "Emre",
    "Deniz",
    "Ali",
    "Fatma",
    "Mustafa",
    "Selin",
    "Burak",
    "Ece",
    "Kerem",
    "Merve",
    "Oğuz",
    "İrem",
    "Hakan",
    "Derya",
    "Şükrü",
    "Gülşen",
    "Çağrı",
    "Ömer",
    "Iraz",
    "Anna",
    "Lukas",
    "Maria",
    "James",
    "Sofia",
    "Noah",
    "Lena",
    "Omar",
    "Yuki",
    "Priya",
]
LAST = [
    "Yılmaz",
    "Kaya",
    "Demir",
    "Şahin",
    "Çelik",
    "Öztürk",
    "Aydın",
    "Arslan",
    "Doğan",
    "Koç",
    "Kurt",
    "Özdemir",
    "Güneş",
    "Aksoy",
    "Schmidt",
    "Garcia",
    "Nguyen",
    "Smith",
    "Rossi",
    "Kowalski",
    "Tanaka",
    "Patel",
]


@dataclass
class BigClass:
    class_id: int
    teacher: str
    names: dict[int, str]  # student id -> the name the pages show
    never_started: list[int]
    finished_late: list[int]
    gave_up: list[int]
    stuck: list[int]
    stuck_question: str
    answers: int = 0
    submissions: int = 0
    wrong_outputs: dict[str, list[int]] = field(default_factory=dict)  # output -> students


def ascii_name(name: str) -> str:
    """'Şükrü Öztürk' -> 'sukru.ozturk' (a username: [a-z0-9_.-])."""
    folded = unicodedata.normalize("NFKD", name.replace("ı", "i").replace("İ", "I"))
    plain = "".join(c for c in folded if not unicodedata.combining(c)).lower()
    return ".".join(plain.split())


def username(name: str, suffix: str) -> str:
    return ascii_name(name)[: 32 - len(suffix)] + suffix


def build(database_url: str, teacher: str, *, suffix: str = "", seed: int = 16) -> BigClass:
    """Build the class in the database at `database_url` (the teacher must exist); each
    username ends in `suffix`, so that one server can hold two such classes. Runs its own
    event loop in a worker thread: Playwright's synchronous API holds this thread's."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, _build(database_url, teacher, suffix, seed)).result()


async def _build(database_url: str, teacher_name: str, suffix: str, seed: int) -> BigClass:
    database = Database.from_url(database_url)
    try:
        async with database.writer() as session, session.begin():
            return await _fill(session, teacher_name, suffix, random.Random(seed))
    finally:
        await database.dispose()


def _answer(question: Question, right: bool, rng: random.Random) -> tuple[Any, bool]:
    """(the answer as the API records it, whether it is right), by the kind's own check."""
    kind = kind_of(question.kind)
    correct = kind.correct_answer_stored(question.public, question.key)
    given: Any = correct
    if not right:
        if question.kind == "multiple_choice":
            options = len(question.public["options"])
            if isinstance(correct, list):
                given = [(int(str(correct[0])) + 1) % options] if correct else [0]
            else:
                given = (int(str(correct)) + rng.choice([1, 1, 2])) % options
        elif question.kind == "fill_in" and isinstance(correct, list):
            given = [rng.choice(["zeros", "float", "view"]), *correct[1:]]
        elif question.kind == "matching" and isinstance(correct, dict):
            keys = list(correct)
            given = dict(correct)
            given[keys[0]], given[keys[1]] = correct[keys[1]], correct[keys[0]]
        elif question.kind == "ordering" and isinstance(correct, list):
            given = correct[::-1]
        else:
            given = rng.choice(["tensor([1, 2])", "torch.Size([2])", "6"])
    checked = kind.check(question.public, question.key, given)
    return checked.recorded, checked.correct


def _runs(exercise: Exercise, stdout: str, verdict: str, stderr: str = "") -> list[dict[str, Any]]:
    runs = [
        {
            "device": "cpu",
            "verdict": verdict,
            "stdout": stdout,
            "stderr": stderr,
            "exit_code": 1 if verdict == "runtime_error" else 0,
            "duration_ms": 180,
        }
    ]
    if "cuda" in exercise.devices:  # this server has no GPU: never graded, never a failure
        runs.append({"device": "cuda", "verdict": "not_graded", "stdout": "", "stderr": ""})
    return runs


WRONG_GRID = (
    "torch.Size([5, 4])\n[10, 11, 12, 13, 14]\n[4, 9, 14, 19]\n190\n",  # the shape transposed
    "torch.Size([4, 5])\n[11, 12, 13, 14, 15]\n[4, 9, 14, 19]\n190\n",  # a row off by one
)
GRID_ERROR = (
    "Traceback (most recent call last):\n"
    '  File "main.py", line 3, in <module>\n'
    "    grid = torch.arange(21).reshape(4, 5)\n"
    "RuntimeError: shape '[4, 5]' is invalid for input of size 21\n"
)


async def _fill(session: Any, teacher_name: str, suffix: str, rng: random.Random) -> BigClass:
    now = utcnow()
    teacher_id = await session.scalar(select(User.id).where(User.username == teacher_name))
    assert teacher_id is not None, f"no teacher {teacher_name}"
    classroom = await service.create_class(
        session=session, teacher_id=teacher_id, name="Deep learning 101 (120)"
    )
    dues = {slug: now + timedelta(days=d) for slug, d in zip(LESSONS, DUE_IN_DAYS, strict=True)}
    await session.execute(
        insert(ClassAssignment),
        [
            {"class_id": classroom.id, "lesson_slug": slug, "due_at": due, "created_at": now}
            for slug, due in dues.items()
        ],
    )
    questions = {
        slug: list(
            await session.scalars(
                select(Question)
                .where(Question.lesson_slug == slug, ~Question.retired)
                .order_by(Question.position)
            )
        )
        for slug in LESSONS
    }
    exercises = {
        slug: list(
            await session.scalars(
                select(Exercise)
                .where(Exercise.lesson_slug == slug, ~Exercise.retired)
                .order_by(Exercise.position)
            )
        )
        for slug in LESSONS
    }

    # People: unique real-looking names, usernames folded from them.
    names: list[str] = []
    while len(names) < STUDENTS:
        name = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
        if name not in names:
            names.append(name)
    names.sort()
    password_hash = hash_password("not used: nobody logs in as these")
    named = "display_name" in User.__table__.c  # accounts with a display name (issue 16.6)
    await session.execute(
        insert(User),
        [
            {
                "username": username(name, suffix),
                "password_hash": password_hash,
                "role": "student",
                "created_at": now - timedelta(days=30),
                **({"display_name": name} if named else {}),
            }
            for name in names
        ],
    )
    by_username = {username(n, suffix): n for n in names}
    rows = await session.execute(
        select(User.id, User.username).where(User.username.in_(list(by_username)))
    )
    ids = {username: user_id for user_id, username in rows}
    student_ids = [ids[username(n, suffix)] for n in names]
    shown = {ids[u]: (n if named else u) for u, n in by_username.items()}
    await session.execute(
        insert(ClassMember),
        [
            {"class_id": classroom.id, "student_id": s, "joined_at": now - timedelta(days=25)}
            for s in student_ids
        ],
    )

    order = student_ids[:]
    rng.shuffle(order)
    never = sorted(order[:NEVER_STARTED])
    late = sorted(order[NEVER_STARTED : NEVER_STARTED + FINISHED_LATE])
    gave_up = sorted(order[NEVER_STARTED + FINISHED_LATE : NEVER_STARTED + FINISHED_LATE + GAVE_UP])
    start = NEVER_STARTED + FINISHED_LATE + GAVE_UP
    stuck = sorted(order[start : start + STUCK])
    stuck_question = next(q for q in questions[LESSONS[1]] if q.kind == STUCK_QUESTION_KIND)
    big = BigClass(
        classroom.id, teacher_name, shown, never, late, gave_up, stuck, stuck_question.id
    )
    big.wrong_outputs = {output: [] for output in WRONG_GRID}

    answers: list[dict[str, Any]] = []
    submissions: list[dict[str, Any]] = []
    reveals: list[dict[str, Any]] = []

    def answer(student: int, question: Question, right: bool, at: datetime) -> bool:
        given, correct = _answer(question, right, rng)
        answers.append(
            {
                "user_id": student,
                "question_id": question.id,
                "answer": given,
                "correct": correct,
                "created_at": at,
            }
        )
        return correct

    def submit(student: int, exercise: Exercise, outcome: str, at: datetime) -> None:
        if outcome == "passed":
            runs = _runs(exercise, exercise.expected_output, "passed")
        elif outcome == "error":
            runs = _runs(exercise, "", "runtime_error", GRID_ERROR)
        else:
            stdout = outcome if exercise.id == HARD_EXERCISE else "0\n"
            runs = _runs(exercise, stdout, "wrong_output")
            if exercise.id == HARD_EXERCISE and student not in big.wrong_outputs[outcome]:
                big.wrong_outputs[outcome].append(student)
        verdict = runs[0]["verdict"]
        submissions.append(
            {
                "user_id": student,
                "exercise_id": exercise.id,
                "code": "import torch\n\ngrid = torch.arange(20).reshape(4, 5)\nprint(grid.shape)\n"
                if exercise.id == HARD_EXERCISE
                else "import torch\n",
                "mode": "grade",
                "status": "done",
                "verdict": verdict,
                "devices": list(exercise.devices),
                "runs": runs,
                "attempts": 1,
                "created_at": at,
                "finished_at": at + timedelta(seconds=3),
            }
        )

    def work_lesson(
        student: int, slug: str, skill: float, at: datetime, *, finish: bool
    ) -> datetime:
        """The student works through a lesson from `at`; `finish`: until every item is done."""
        for question in questions[slug]:
            for _ in range(4):
                at += timedelta(minutes=rng.randint(2, 25))
                if answer(student, question, finish or rng.random() < skill + 0.3, at):
                    break
        for exercise in exercises[slug]:
            for attempt in range(6):
                at += timedelta(minutes=rng.randint(3, 40))
                passes = (finish and attempt >= 1) or rng.random() < skill * 0.45
                if passes:
                    submit(student, exercise, "passed", at)
                    break
                wrong = rng.choice([*WRONG_GRID[:1] * 3, WRONG_GRID[1], "error"])
                submit(student, exercise, wrong, at)
        return at

    first, second, third = LESSONS
    for student in student_ids:
        if student in never:
            continue
        skill = rng.uniform(0.45, 0.95)
        at = now - timedelta(days=22, minutes=rng.randint(0, 2000))
        if student in late:
            # Started late, finished the first lesson 1 to 4 days after its due date.
            at = dues[first] + timedelta(days=rng.randint(1, 3), minutes=rng.randint(0, 600))
            work_lesson(student, first, skill, at, finish=True)
            continue
        if student in gave_up:
            grid = next(e for e in exercises[first] if e.id == HARD_EXERCISE)
            for question in questions[first]:
                at += timedelta(minutes=rng.randint(2, 20))
                answer(student, question, True, at)
            for outcome in (WRONG_GRID[0], "error", WRONG_GRID[0], WRONG_GRID[1]):
                at += timedelta(minutes=rng.randint(3, 15))
                submit(student, grid, outcome, at)
            reveals.append(
                {
                    "user_id": student,
                    "exercise_id": grid.id,
                    "reason": "gave_up",
                    "created_at": at + timedelta(minutes=5),
                }
            )
            continue
        # The first lesson: done on time by most.
        at = work_lesson(student, first, skill, at, finish=rng.random() < 0.8)
        if student in stuck:
            at = now - timedelta(days=rng.randint(1, 3), hours=rng.randint(1, 9))
            for _ in range(rng.choice([3, 4])):
                at += timedelta(minutes=rng.randint(2, 12))
                answer(student, stuck_question, False, at)
            continue
        # The second: about half done by its due date, the rest somewhere on the way.
        if rng.random() < 0.85:
            at = max(at, dues[second] - timedelta(days=6)) + timedelta(hours=rng.randint(1, 30))
            work_lesson(student, second, skill, at, finish=rng.random() < 0.55)
        # The third, due in five days: a few have begun.
        if rng.random() < 0.3:
            at = now - timedelta(days=1, hours=rng.randint(0, 20))
            work_lesson(student, third, skill, at, finish=False)

    await session.execute(insert(QuestionAttempt), answers)
    await session.execute(insert(Submission), submissions)
    # Inserted in bulk, not recorded one by one: the students' records made from them, as
    # migration 0021 fills them (app/item_progress.py).
    await item_progress.rebuild(session=session, users=student_ids)
    if reveals:
        await session.execute(insert(SolutionReveal), reveals)
    big.answers, big.submissions = len(answers), len(submissions)
    return big
