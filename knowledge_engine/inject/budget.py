"""Character budgets: whole items only, best first, per section and in total.

A cut-off half item is worse than none (a fact without its object, a message without its
date), so budgets drop whole items. Free text (LightRAG context) is cut at a sentence.
"""

from __future__ import annotations

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
