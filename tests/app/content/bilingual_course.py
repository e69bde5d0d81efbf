"""A small course of its own in English and Turkish, for the translation and hint tests: one
track, one lesson with a translated body, a question of each built-in kind, and an exercise
with three hints and its own Turkish starter and solution. Written unstamped, as an author
leaves it before `content translations --stamp`."""

from __future__ import annotations

from pathlib import Path

LESSON = "iki-dil"
LESSON_DIR = Path("lessons") / LESSON
EXERCISE = "iki-dil-double"
EXERCISE_DIR = LESSON_DIR / "exercises" / EXERCISE
CHOICE, FILL_IN, MATCHING = "iki-dil-choice", "iki-dil-fill-in", "iki-dil-matching"
HINTS_AFTER = 2
HINTS = ("Multiply by two.", "Use `2 * value`.", "Print `2 * value`.")
TURKISH_HINTS = ("İki ile çarpın.", "`2 * deger` kullanın.", "`2 * deger` yazdırın.")

TRACKS_YAML = f"""\
# The course in both languages.
languages: [en, tr]
tracks:
  - slug: start
    title: Start
    level: beginner
    translations:
      tr:
        title: Başlangıç
    lessons: [{LESSON}]
"""

LESSON_YAML = f"""\
slug: {LESSON}
title: Two languages
level: beginner
summary: A lesson in English and Turkish.
check_yourself:
  - question: What is two times three?
    answer: Six.
translations:
  tr:
    title: İki dil
    summary: İngilizce ve Türkçe bir ders.
    check_yourself:
      - question: İki kere üç kaçtır?
        answer: Altı.
"""

BODY = "## Two languages\n\nEvery text exists twice.\n"
BODY_TR = "## İki dil\n\nHer metin iki kez vardır.\n"

QUESTIONS_YAML = f"""\
questions:
  - id: {CHOICE}
    kind: multiple_choice
    prompt: Which number is even?
    options: ["one", "three", "eight"]
    correct: [2]
    explanation: Eight is two fours.
    translations:
      tr:
        prompt: Hangi sayı çifttir?
        options: ["bir", "üç", "sekiz"]
        explanation: Sekiz, iki dörttür.
  - id: {FILL_IN}
    kind: fill_in
    prompt: Move the tensor to the device.
    template: "x = x.____(device)"
    blanks:
      - accepted: ["to"]
    explanation: "`.to` returns a copy on the device."
    translations:
      tr:
        prompt: Tensörü aygıta taşıyın.
        template: "x = x.to(____)"
        blanks:
          - accepted: ["cihaz"]
        explanation: "`.to`, tensörün aygıttaki kopyasını döndürür."
  - id: {MATCHING}
    kind: matching
    prompt: Match each word with its opposite.
    pairs:
      - left: up
        right: down
      - left: hot
        right: cold
      - left: early
        right: late
    explanation: Opposites.
    translations:
      tr:
        prompt: Her kelimeyi zıttıyla eşleştirin.
        pairs:
          - left: yukarı
            right: aşağı
          - left: sıcak
            right: soğuk
          - left: erken
            right: geç
        explanation: Zıt anlamlılar.
"""

EXERCISE_YAML = f"""\
id: {EXERCISE}
title: Double it
prompt: Print twice `value`.
setup: value = 21
hints_after: {HINTS_AFTER}
hints:
{"".join(f'  - "{hint}"' + chr(10) for hint in HINTS)}\
translations:
  tr:
    title: İkiye katla
    prompt: "`deger` değerinin iki katını yazdırın."
    hints:
{"".join(f'      - "{hint}"' + chr(10) for hint in TURKISH_HINTS)}\
"""
STARTER = "# value is set before your code runs\nprint(value)\n"
SOLUTION = "print(2 * value)\n"
STARTER_TR = "# deger, kodunuzdan önce tanımlanır\ndeger = value\nprint(deger)\n"
SOLUTION_TR = "deger = value\nprint(2 * deger)\n"


def write_course(root: Path) -> Path:
    """The course under `root/exercises`; returns that folder."""
    tree = root / "exercises"
    lesson = tree / LESSON_DIR
    exercise = tree / EXERCISE_DIR
    exercise.mkdir(parents=True)
    (tree / "tracks.yaml").write_text(TRACKS_YAML)
    (lesson / "lesson.yaml").write_text(LESSON_YAML)
    (lesson / "body.md").write_text(BODY)
    (lesson / "body.tr.md").write_text(BODY_TR)
    (lesson / "questions.yaml").write_text(QUESTIONS_YAML)
    (exercise / "exercise.yaml").write_text(EXERCISE_YAML)
    (exercise / "starter.py").write_text(STARTER)
    (exercise / "solution.py").write_text(SOLUTION)
    (exercise / "starter.tr.py").write_text(STARTER_TR)
    (exercise / "solution.tr.py").write_text(SOLUTION_TR)
    (exercise / "expected.txt").write_text("42\n")
    return tree
