"""Character budgets: whole items only, best first, per section and in total.

A cut-off half item is worse than none (a fact without its object, a message without its
date), so budgets drop whole items. Free text (LightRAG context) is cut at a sentence.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import TypeVar

T = TypeVar("T")


def fit(items: Sequence[T], max_chars: int, render: Callable[[T], str], separator_chars: int = 0) -> list[T]:
    """The longest prefix of `items` whose renderings fit in `max_chars`.

    Items are assumed best first; the first item that would exceed the budget stops the
    walk (a smaller, worse item after it is not squeezed in, so the order stays honest).
    `separator_chars` is added between consecutive items.
    """
    out: list[T] = []
    used = 0
    for item in items:
        cost = len(render(item)) + (separator_chars if out else 0)
        if used + cost > max_chars:
            break
        out.append(item)
        used += cost
    return out


def truncate_text(text: str, max_chars: int) -> str:
    """Cut free text at the last sentence end ('.', '!', '?', newline) past half the budget,
    else at the last space, else hard."""
    text = text.strip()
    if len(text) <= max_chars:
        return text
    if max_chars <= 0:
        return ""
    head = text[:max_chars]
    cut = max(head.rfind(". "), head.rfind("! "), head.rfind("? "), head.rfind("\n"))
    if head.endswith((".", "!", "?")):
        cut = max(cut, len(head) - 1)
    if cut >= max_chars // 2:
        return head[: cut + 1].rstrip()
    space = head.rfind(" ")
    if space >= max_chars // 2:
        return head[:space].rstrip()
    return head


def fit_sections(
    sections: Mapping[str, Sequence[T]],
    total_chars: int,
    render: Callable[[str, T], str],
    section_chars: Mapping[str, int] | None = None,
    section_overhead: Callable[[str], int] | None = None,
) -> dict[str, list[T]]:
    """Apply per-section budgets, then one total budget across sections in mapping order.

    Earlier sections have priority for the total. A section's overhead (its header) is
    charged only when at least one of its items fits. Empty sections are left out.
    """
    out: dict[str, list[T]] = {}
    remaining = total_chars
    for name, items in sections.items():
        limit = (section_chars or {}).get(name)
        overhead = section_overhead(name) if section_overhead else 0
        budget = remaining - overhead
        if limit is not None:
            budget = min(budget, limit)
        if budget <= 0:
            continue
        kept = fit(items, budget, partial(render, name))
        if kept:
            out[name] = kept
            remaining -= overhead + sum(len(render(name, it)) for it in kept)
    return out


_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|\n+")


def sentences(text: str) -> list[str]:
    """Sentences of `text` (split after . ! ? … and at line breaks), blanks dropped."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]


def focus_text(text: str, max_chars: int, weigh: Callable[[str], float]) -> str:
    """`text` cut to at most `max_chars` by keeping its best-weighted sentences, in their own order,
    with "…" where sentences were left out: a long turn keeps what matches instead of being
    dropped whole. Only sentences weighing more than 0 are kept when there are any (no padding),
    else the earliest ones; a best sentence longer than the budget is cut at a word."""
    text = text.strip()
    if len(text) <= max_chars:
        return text
    parts = sentences(text)
    weights = [weigh(p) for p in parts]
    order = sorted(range(len(parts)), key=lambda i: (-weights[i], i))
    if weights[order[0]] > 0:  # sentences that match nothing are not padding
        order = [i for i in order if weights[i] > 0]
    kept: set[int] = set()
    for i in order:
        trial = kept | {i}
        if len(_join(parts, trial)) <= max_chars:
            kept = trial
        elif not kept:
            return _window(parts[i], max_chars, weigh)
    return _join(parts, kept)


def _window(sentence: str, max_chars: int, weigh: Callable[[str], float]) -> str:
    """The run of whole words of a too-long sentence, within `max_chars` with its "…" marks, holding
    the most words that weigh more than 0 (the earliest such run): the cut keeps what matched, not
    the sentence's opening, and starts just before the first match. Linear in the words."""
    words = sentence.split()
    n = len(words)
    cum = [0]
    for w in words:
        cum.append(cum[-1] + len(w))
    hits = [0]
    for w in words:
        hits.append(hits[-1] + (1 if weigh(w) > 0 else 0))

    def length(a: int, b: int) -> int:  # words[a:b] joined, with the marks it needs
        return cum[b] - cum[a] + (b - a - 1) + (2 if a else 0) + (2 if b < n else 0)

    best: tuple[int, int, int] = (-1, 0, 0)  # (matching words, -start, end)
    end = 0
    for a in range(n):
        end = max(end, a)
        while end < n and length(a, end + 1) <= max_chars:
            end += 1
        if end > a:
            best = max(best, (hits[end] - hits[a], -a, end))
    if best[0] < 0:
        return truncate_text(sentence, max(1, max_chars - 2)) + " …"
    a, b = -best[1], best[2]
    if best[0] > 0:  # start two words before the first match: what follows a match is often the answer
        first = next(i for i in range(a, b) if hits[i + 1] > hits[i])
        a = max(a, first - 2)
        while b < n and length(a, b + 1) <= max_chars:
            b += 1
    return ("… " if a else "") + " ".join(words[a:b]) + (" …" if b < n else "")


def _join(parts: Sequence[str], kept: set[int]) -> str:
    """The kept sentences in order, with "…" wherever sentences were left out (start, middle, end)."""
    out: list[str] = []
    prev = -1
    for i in sorted(kept):
        if i != prev + 1:
            out.append("…")
        out.append(parts[i])
        prev = i
    if prev < len(parts) - 1:
        out.append("…")
    return " ".join(out)
