"""Chat interjections blanked before the parse: "Zanele is my gf btw" reads as "Zanele is my gf".

Why: the small English model takes a trailing "btw", "lol" or "tbh" as part of the phrase before it
("has-gf-btw", "Zanele is-a lol", a partner named "Btw"). These words carry no fact, so each is
replaced by as many spaces before the parse: the text keeps its length and every offset stays valid.
Words that do carry meaning ("idk", "jk") are left as written.
"""

from __future__ import annotations

import re

from knowledge_engine.observe import counters

_INTERJECTIONS = re.compile(
    r"(?<![\w'’-])(?:btw|lol+|lmf?ao+|rofl|ha(?:ha)+h?|he(?:he)+|tbh|ngl|fyi|imo|imho|omg+|smh|ikr|xd+)"
    r"(?![\w'’-])",
    re.IGNORECASE,
)


def blank(text: str) -> str:
    """`text` with its chat interjections replaced by spaces (same length)."""
    return _INTERJECTIONS.sub(lambda m: " " * len(m.group()), text)


def blank_all(texts: list[str]) -> list[str]:
    """The texts blanked; counts the texts it changed."""
    out = [blank(t) for t in texts]
    changed = sum(1 for a, b in zip(texts, out, strict=True) if a != b)
    if changed:
        counters.inc("extract.spacy.chatter_blanked", changed)
    return out
