"""The small, safe Markdown subset of an in-app message's body (docs/design/inbox.md, "In-app inbox";
docs/security/recipients.md, "In-app Markdown and links").

`**bold**`, `*italic*` (or `_italic_`), `` `code` ``, `[text](https://…)` links (http, https and
paths from the site's root only, `LINK_TARGET`, opening with rel="noopener nofollow"), blank
lines between paragraphs and single newlines as `<br>`. Everything else is text, escaped.

A tokenizer, linear in the text: one left-to-right scan (`_TOKEN`, whose every alternative
either matches or fails within the stretch it alone reads: a link's text holds no bracket, a
code span no backtick) and a stack for the emphasis marks, each mark pushed and popped at most
once. The regular expressions it replaced let every `*` or `[` scan the rest of its line again
(48 KB of ` *a` took 11 s, issue 43). A tag is only ever made from a whole token, so none lands
inside an `href`, and marks pair up like brackets, so tags always nest. It looks at the
render's deadline (workflows.render_budget.spend) on every line: a caller inside a render
budget gets RenderBudgetError past it.
"""

from __future__ import annotations

import html
import re

from workflows.render_budget import spend

# Never in a link's target: whitespace and control characters (a browser drops a tab or a newline
# inside a URL, so `/<tab>/evil.example` would be `//evil.example`) and the backslash (a browser
# reads `\` as `/` in an http(s) URL, so `/\evil.example` and `\/evil.example` are
# `//evil.example`: another site).
_NOT_IN_URL = r"\s\x00-\x1f\x7f\\"
# An http(s) URL, or a path from the site's root whose second character is not a second slash
# (`//evil.example` is another site). A scheme a browser would run (`javascript:`, `data:`,
# spelled with entities or not) is neither.
_LINK_TARGET = r"(?i:https?://)[^{chars}]+|/(?!/)[^{chars}]*"
LINK_TARGET = re.compile(rf"(?:{_LINK_TARGET.format(chars=_NOT_IN_URL)})\Z")
# In Markdown the target also ends at the first parenthesis (`[a](/b)`). It is matched in the
# escaped text, so its `&`, `"`, `<` are entities already: the `href` needs no more escaping.
_MARKDOWN_TARGET = _LINK_TARGET.format(chars=_NOT_IN_URL + "()")

_TOKEN = re.compile(
    r"`(?P<code>[^`\n]++)`"
    rf"|\[(?P<text>[^\[\]\n]++)\]\((?P<href>{_MARKDOWN_TARGET})\)"
    r"|(?P<mark>(?<!\*)\*\*?+(?!\*)|(?<!_)_(?!_))"
    r"|(?P<newline>\n)"
)
_TAGS = {"**": ("<strong>", "</strong>"), "*": ("<em>", "</em>"), "_": ("<em>", "</em>")}


def link_target_ok(url: str) -> bool:
    """Whether `url` may be a link's target in an in-app message (`LINK_TARGET`)."""
    return LINK_TARGET.match(url) is not None


def markdown_safe_html(text: str) -> str:
    """`text` as escaped HTML with the subset's marks as tags (one `<p>` per paragraph, `<br>`
    between its lines), in time linear in its length."""
    # Escaped whole first: what the text holds is text, and no mark (`*`, `_`, `` ` ``, `[`, `]`,
    # `(`, `)`) nor a character that decides one's pairing (a space, a letter) is changed by it.
    escaped = html.escape(text.strip().replace("\r\n", "\n"), quote=True)
    paragraphs: list[list[str]] = [[]]
    for line in escaped.split("\n"):
        if line.strip():
            paragraphs[-1].append(line)
        elif paragraphs[-1]:
            paragraphs.append([])
    blocks = ("\n".join(lines).strip() for lines in paragraphs if lines)
    return "".join(f"<p>{_inline(block)}</p>" for block in blocks)


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


def _inline(text: str) -> str:
    """One escaped paragraph (or a link's text): code spans, links and marks as tags, newlines
    as `<br>`. A mark opens before a non-space and closes after one (`*` and `_` not inside a
    word); it pairs with the nearest open mark of its kind on its line, and the marks left open
    between the two stay text."""
    spend()
    out: list[str] = []
    # The open marks, innermost last: their kinds, and their places in `out`; per kind, their
    # indices in those two lists.
    kinds: list[str] = []
    places: list[int] = []
    open_at: dict[str, list[int]] = {"**": [], "*": [], "_": []}
    at = 0
    for token in _TOKEN.finditer(text):
        start = token.start()
        out.append(text[at:start])
        at = token.end()
        kind = token.lastgroup
        if kind == "code":
            out.append(f"<code>{token[kind]}</code>")
        elif kind == "newline":  # marks pair up within a line
            out.append("<br>")
            if kinds:
                kinds.clear()
                places.clear()
                for opened in open_at.values():
                    opened.clear()
            spend()
        elif kind == "href":
            out.append(
                f'<a href="{token[kind]}" rel="noopener nofollow">{_inline(token["text"])}</a>'
            )
        else:
            mark = token[0]  # a mark is the whole token
            before = text[start - 1] if start else " "
            after = text[at] if at < len(text) else " "
            in_words = mark != "**"  # `*` and `_` inside a word are text (snake_case)
            if not before.isspace() and not (in_words and _is_word(after)) and open_at[mark]:
                opener = open_at[mark].pop()
                while len(kinds) > opener + 1:  # the marks left open inside stay text
                    open_at[kinds.pop()].pop()
                    places.pop()
                kinds.pop()
                out[places.pop()], closing = _TAGS[mark]
                out.append(closing)
            elif not after.isspace() and not (in_words and _is_word(before)):
                open_at[mark].append(len(kinds))
                kinds.append(mark)
                places.append(len(out))
                out.append(mark)
            else:
                out.append(mark)
    out.append(text[at:])
    return "".join(out)
