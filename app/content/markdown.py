"""Lesson Markdown to HTML: CommonMark without raw HTML, highlighted code, output blocks,
predict-then-reveal blocks and the interactive race widget."""

from __future__ import annotations

import html
import shlex
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

_FORMATTER = HtmlFormatter(nowrap=True)


def _highlight(code: str, language: str) -> str:
    try:
        lexer = get_lexer_by_name(language)
    except ClassNotFound:
        return html.escape(code)
    return highlight(code, lexer, _FORMATTER)


def _parse_info(info: str) -> tuple[str, set[str], dict[str, str]]:
    try:
        words = shlex.split(info) if info.strip() else [""]
    except ValueError:  # unbalanced quotes: treat the info string as plain words
        words = info.split()
    language, flags, attrs = words[0], set(), {}
    for word in words[1:]:
        if "=" in word:
            key, _, value = word.partition("=")
            attrs[key] = value
        else:
            flags.add(word)
    return language, flags, attrs


def _render_fence(_self: Any, tokens: list[Token], idx: int, _options: Any, _env: Any) -> str:
    token = tokens[idx]
    language, flags, attrs = _parse_info(token.info)
    if language == "race":
        return (
            '<div class="race" data-widget="race"><noscript>'
            "<p>The interactive race needs JavaScript.</p></noscript></div>\n"
        )
    if language == "output":
        escaped = html.escape(token.content)
        block = f'<pre class="output" aria-label="Output"><code>{escaped}</code></pre>'
        if "predict" in flags:
            return (
                '<details class="predict"><summary>Predict the output, then reveal it'
                f"</summary>{block}</details>\n"
            )
        return f'<div class="output-block"><span class="label">Output</span>{block}</div>\n'
    code = _highlight(token.content, language or "text")
    caption = ""
    if title := attrs.get("title"):
        caption = f'<figcaption class="filename">{html.escape(title)}</figcaption>'
    lang_class = f' class="language-{html.escape(language)}"' if language else ""
    pre = f'<pre class="highlight"><code{lang_class}>{code}</code></pre>'
    return f'<figure class="code">{caption}{pre}</figure>\n'


def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable("table")
    md.add_render_rule("fence", _render_fence)
    return md


_MD = _markdown()


def render(text: str) -> str:
    return _MD.render(text)


def render_inline(text: str) -> str:
    """For short prompts: no wrapping paragraph when the text is one paragraph."""
    rendered = _MD.render(text).strip()
    if rendered.startswith("<p>") and rendered.endswith("</p>") and rendered.count("<p>") == 1:
        return rendered[3:-4]
    return rendered


def highlight_css() -> str:
    return _FORMATTER.get_style_defs(".highlight")
