"""Translations of the content and whether they are current.

Each translated place of the content is a `Block`: a `translations.<language>` mapping in a
YAML file (a track, a lesson, a question, an exercise) or a whole `body.<language>.md`. A
block carries `translated_from`, the fingerprint of the English it translates: the first 12
hex digits of the SHA-256 of those English fields as canonical JSON (sorted keys). When the
English changes, the fingerprint no longer matches and `content check` calls the block stale
until a translator has updated it and run `python -m app content translations --stamp`,
which writes the current fingerprints (`stamp`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from app.quizzes.kinds.base import TRANSLATED_FROM

STAMP = "python -m app content translations --stamp"
# The first line of a translated body, e.g. `<!-- translated_from: 0123456789ab -->`.
BODY_STAMP = re.compile(r"\A<!--\s*translated_from:\s*([0-9a-f]*)\s*-->[ \t]*(?:\r?\n|\Z)")


def fingerprint(english: Any) -> str:
    canonical = json.dumps(english, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:12]


@dataclass(frozen=True)
class Block:
    """One translation of one place in the content.

    `where`: the block's fields in its file (`questions.0.translations.tr`; "" for a body),
    `keys`: the same as YAML keys, to find it when stamping. `english`: the English fields it
    translates, fingerprinted. `given`: the translated fields it has, None when there is no
    block at all. `required`: the fields it must have."""

    path: Path
    where: str
    keys: tuple[str | int, ...]
    language: str
    english: Mapping[str, Any]
    given: Mapping[str, Any] | None
    required: tuple[str, ...]
    translated_from: str | None

    @property
    def current(self) -> str:
        return fingerprint(dict(self.english))

    def problems(self, *, required_language: bool) -> list[tuple[str, str]]:
        """(field, message) for what `content check` refuses in a language the course is
        written in (`required_language`): a block missing, a required field left out, a
        block never stamped or stamped from other English. Translations into other
        languages are served as they are, unchecked."""
        if not required_language:
            return []
        if self.given is None:
            if not self.where:
                return [("", f"file is missing: the {self.language} translation of the body")]
            return [(self.where, f"missing: translate {', '.join(self.required)}")]
        found = [
            (self._field(name), "missing: translate it")
            for name in self.required
            if self.given.get(name) is None
        ]
        if self.translated_from is None:
            found.append(
                (
                    self._field(TRANSLATED_FROM),
                    f"missing: once the translation is done, run `{STAMP}`",
                )
            )
        elif self.translated_from != self.current:
            found.append(
                (
                    self._field(TRANSLATED_FROM),
                    "stale: the English changed since this was translated; update the "
                    f"translation, then run `{STAMP}`",
                )
            )
        return found

    def _field(self, name: str) -> str:
        return f"{self.where}.{name}" if self.where else name


def body_stamp(text: str) -> tuple[str | None, str]:
    """A translated body's fingerprint (None if it has none) and its Markdown without it."""
    match = BODY_STAMP.match(text)
    if match is None:
        return None, text
    return match.group(1) or None, text[match.end() :]


def stamp(blocks: Sequence[Block]) -> list[Path]:
    """Write the current fingerprint into every block that exists and lacks it; returns the
    files changed. YAML files are edited in place, so comments and layout stay."""
    by_file: dict[Path, list[Block]] = {}
    for block in blocks:
        if block.given is not None and block.translated_from != block.current:
            by_file.setdefault(block.path, []).append(block)
    for path, stale in by_file.items():
        text = path.read_text(encoding="utf-8")
        if stale[0].where == "":
            _fingerprint, body = body_stamp(text)
            text = f"<!-- {TRANSLATED_FROM}: {stale[0].current} -->\n{body}"
        else:
            text = _stamp_yaml(text, stale)
        path.write_text(text, encoding="utf-8")
    return sorted(by_file)


def _stamp_yaml(text: str, blocks: Sequence[Block]) -> str:
    root = yaml.compose(text)
    edits: list[tuple[int, int, str]] = []  # (start, end, replacement)
    for block in blocks:
        node = _find(root, block.keys)
        if not isinstance(node, MappingNode):
            raise ValueError(f"{block.path}: {block.where} is not a mapping")
        edits.append(_stamp_edit(node, block.current))
    for start, end, replacement in sorted(edits, reverse=True):
        text = text[:start] + replacement + text[end:]
    return text


def _stamp_edit(mapping: MappingNode, value: str) -> tuple[int, int, str]:
    for key, existing in mapping.value:
        if isinstance(key, ScalarNode) and key.value == TRANSLATED_FROM:
            return existing.start_mark.index, existing.end_mark.index, value
    line = f"{TRANSLATED_FROM}: {value}"
    if not mapping.value:  # `tr: {}`
        inside = mapping.start_mark.index + 1
        return inside, inside, line
    first = mapping.value[0][0].start_mark
    if mapping.flow_style:
        return first.index, first.index, f"{line}, "
    return first.index, first.index, f"{line}\n{' ' * first.column}"


def _find(node: Node | None, keys: tuple[str | int, ...]) -> Node | None:
    """The node at `keys`; a file that is a bare list stands for its one top-level key
    (`questions.yaml` may be a list of questions)."""
    if keys and isinstance(keys[0], str) and isinstance(node, SequenceNode):
        keys = keys[1:]
    for key in keys:
        if isinstance(node, MappingNode) and isinstance(key, str):
            node = next((v for k, v in node.value if getattr(k, "value", None) == key), None)
        elif isinstance(node, SequenceNode) and isinstance(key, int) and key < len(node.value):
            node = node.value[key]
        else:
            return None
    return node
