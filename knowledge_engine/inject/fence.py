"""Neutralising stored text before it enters the prompt.

Stored messages and documents are attacker-controllable: anyone who once chatted with
the agent, or wrote a document it indexed, can plant text that tries to close the
injected block and speak as the system. Two defences, one per format:

* markdown: the block is delimited by lines carrying a per-render random nonce, and
  item text is rewritten so it cannot contain a delimiter, a code fence, a heading, a
  chat-template token or a tag at all; every item line is also indented under a gutter.
* xml: text and attributes are escaped so stored text can never open or close a tag.

Both strip characters that hide or reorder text (NUL and other controls, zero-width
and bidi formatting characters) and normalise every line separator to "\\n".
"""

from __future__ import annotations

import re
import secrets

DELIMITER_PREFIX = "<<<knowledge-engine:"

# Controls (except \t \n), zero-width and bidi formatting characters, BOM, XML-invalid chars.
_INVISIBLE_RE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2064"
    "\u2066-\u2069\u061c\ufeff\ufffe\uffff\ud800-\udfff]"
)
_LINE_BREAK_RE = re.compile("\r\n|[\r\x85\u2028\u2029\x0b\x0c]")
_ANGLE_RUN_RE = re.compile(r"<{3,}|>{3,}")
_FENCE_RE = re.compile(r"`{3,}|~{3,}")
_TAG_OPEN_RE = re.compile(r"<(?=\s*[/!?|A-Za-z_])")
_SPECIAL_TOKEN_RE = re.compile(r"\[(/?(?:INST|SYS|SYSTEM|USER|ASSISTANT))\]", re.IGNORECASE)
# Leading blanks of one line only ([^\S\n]): `\s*` spanning blank lines was quadratic on "\n" * N.
_LINE_START_RE = re.compile(r"^([^\S\n]*)([#=]|-{3,}|\*{3,}|_{3,}|>)", re.MULTILINE)

# XML 1.0 forbids most control characters; anything above is escaped, never dropped.
_XML_TEXT = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
_XML_ATTR = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;"})


def new_nonce() -> str:
    """16 hex characters from the OS CSPRNG: stored text cannot predict it."""
    return secrets.token_hex(8)


def begin_line(nonce: str) -> str:
    return f"{DELIMITER_PREFIX}BEGIN nonce={nonce}>>>"


def end_line(nonce: str) -> str:
    return f"{DELIMITER_PREFIX}END nonce={nonce}>>>"


def clean(text: str) -> str:
    """Drop invisible/control characters and normalise line breaks (both formats)."""
    return _INVISIBLE_RE.sub("", _LINE_BREAK_RE.sub("\n", text))


def neutralize_markdown(text: str) -> str:
    """Text that cannot forge the block: no delimiter runs (<<< >>>), no fences, no tags or
    chat-template tokens, and no structural markdown at line start. Lossy by design, but
    every character stays readable (look-alike substitutes, or a backslash escape)."""
    t = clean(text)
    t = _ANGLE_RUN_RE.sub(lambda m: ("\u2039" if m.group()[0] == "<" else "\u203a") * len(m.group()), t)
    t = _FENCE_RE.sub(lambda m: ("\u02cb" if m.group()[0] == "`" else "\u02dc") * len(m.group()), t)
    t = _TAG_OPEN_RE.sub("\u2039", t)
    t = neutralize_tokens(t)
    return _LINE_START_RE.sub(lambda m: f"{m.group(1)}\\{m.group(2)}", t)


def neutralize_tokens(text: str) -> str:
    """Only the chat-template bracket tokens ([INST], [/SYS], ...): applied to whole rendered
    lines, since a label and the renderer's own brackets could compose one."""
    return _SPECIAL_TOKEN_RE.sub(lambda m: f"\uff3b{m.group(1)}\uff3d", text)


def indent(text: str, gutter: str) -> str:
    """Prefix every line with `gutter`, so no stored line starts at column 0."""
    return "\n".join(gutter + line for line in text.split("\n"))


def one_line(text: str) -> str:
    """Collapse whitespace (for labels such as speaker or file name)."""
    return " ".join(text.split())


def xml_text(text: str) -> str:
    """Escape element text (& < >) after removing XML-invalid characters."""
    return clean(text).translate(_XML_TEXT)


def xml_attr(text: str) -> str:
    """Escape an attribute value (& " < > ') on one line."""
    return one_line(clean(text)).translate(_XML_ATTR)
