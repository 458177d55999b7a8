"""Fusion and ranking: every scoring formula of retrieval lives here, and only here.

Other modules (temporal boost, feedback, prompt cache, and retrieve/rank.py, which runs
them in the pipeline's order) call these helpers so a formula is never written twice.
Functions return new lists of copied items: the caller's lists are never mutated, so one
source result can feed several pipelines.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from datetime import datetime

from knowledge_engine.model.retrieval import RetrievedItem, as_utc

_WORD_RE = re.compile(r"\w+", re.UNICODE)

# --------------------------------------------------------------------------- primitives


def tokens(text: str) -> frozenset[str]:
    """Lower-cased word tokens (\\w+), the unit of every text-similarity here."""
    return frozenset(_WORD_RE.findall(text.lower()))


def jaccard(a: frozenset[str] | set[str], b: frozenset[str] | set[str]) -> float:
    """|a & b| / |a | b|; two empty sets are identical (1.0)."""
    if not a and not b:
        return 1.0
    inter = len(a & b)
    return inter / (len(a) + len(b) - inter)


def cosine(u: Sequence[float], v: Sequence[float]) -> float:
    """Cosine similarity; 0.0 when either vector is zero or the sizes differ."""
    if len(u) != len(v) or not u:
        return 0.0
    dot = sum(x * y for x, y in zip(u, v, strict=True))
    nu = math.sqrt(sum(x * x for x in u))
    nv = math.sqrt(sum(y * y for y in v))
    return dot / (nu * nv) if nu and nv else 0.0


def rrf_contribution(rank: int, k: int) -> float:
    """One list's reciprocal-rank contribution, rank counted from 1."""
    return 1.0 / (k + rank)


def rrf_max(n_lists: int, k: int) -> float:
    """Highest fused score possible: rank 1 in every list. Used to normalise RRF scores."""
    return n_lists * rrf_contribution(1, k)


def half_life_factor(age_hours: float, half_life_hours: float, floor: float = 0.0) -> float:
    """floor + (1 - floor) * 0.5 ** (age / half_life); future ages count as 0 (no boost)."""
    age = max(0.0, age_hours)
    return floor + (1.0 - floor) * 0.5 ** (age / half_life_hours)


def boost_factor(signal: float, weight: float) -> float:
    """Multiplier for a soft ranking signal in [-1, 1]: 1 + weight * signal (never below 0)."""
    return max(0.0, 1.0 + weight * max(-1.0, min(1.0, signal)))


def mmr_objective(relevance: float, max_similarity: float, lambda_: float) -> float:
    """Maximal marginal relevance: lambda * relevance - (1 - lambda) * redundancy."""
    return lambda_ * relevance - (1.0 - lambda_) * max_similarity


# --------------------------------------------------------------------------- helpers


def copy_item(item: RetrievedItem) -> RetrievedItem:
    """A copy whose `score` and `scores` can change without touching the original.

    Shallow otherwise (text, extra, message_ids are shared and never mutated here): deep
    copies of pydantic models cost most of the ranking time on a few hundred candidates."""
    return item.model_copy(update={"scores": dict(item.scores)})


def _rescored(item: RetrievedItem, score: float, **signals: float) -> RetrievedItem:
    return item.model_copy(update={"score": score, "scores": {**item.scores, **signals}})


def sort_items(items: Sequence[RetrievedItem]) -> list[RetrievedItem]:
    """Best first; Python's stable sort keeps the incoming order among ties."""
    return sorted(items, key=lambda it: -it.score)


# --------------------------------------------------------------------------- fusion


RrfVotes = tuple[dict[str, float], dict[str, dict[str, float]]]


def rrf_votes(
    arms: Sequence[Iterable[tuple[str, float]]],
    names: Sequence[str],
    k: int = 60,
    weights: Sequence[float] | None = None,
    keep: Container[str] | None = None,
) -> RrfVotes:
    """The one reciprocal rank fusion: score(d) = sum over arms of weight * 1 / (k + rank_in_arm(d)).

    Each arm is (id, the arm's own score) pairs, best first, ranks counted from 1; `weights`
    (1.0 each by default) let a weaker arm vote less. A duplicate inside one arm counts once, at
    its best rank; an id not in `keep` (when given) is passed over but keeps its rank. Returns the
    fused score per id (in order of first appearance) and each id's own score in each arm, by name.
    """
    arm_weights = list(weights) if weights is not None else [1.0] * len(arms)
    if len(names) != len(arms) or len(arm_weights) != len(arms):
        raise ValueError("names and weights must have one entry per list")
    totals: dict[str, float] = {}
    arm_scores: dict[str, dict[str, float]] = {}
    for arm, name, weight in zip(arms, names, arm_weights, strict=True):
        seen: set[str] = set()
        for rank, (item_id, score) in enumerate(arm, start=1):
            if item_id in seen or (keep is not None and item_id not in keep):
                continue
            seen.add(item_id)
            arm_scores.setdefault(item_id, {})[name] = score
            totals[item_id] = totals.get(item_id, 0.0) + weight * rrf_contribution(rank, k)
    return totals, arm_scores


def rrf(
    lists: Sequence[Sequence[RetrievedItem]],
    k: int = 60,
    names: Sequence[str] | None = None,
    weights: Sequence[float] | None = None,
) -> list[RetrievedItem]:
    """Reciprocal rank fusion of item lists (`rrf_votes`), best first.

    Items are identified by `id`; the first occurrence supplies the fields. Each arm's
    original score lands in `scores[name]` (names default to arm0, arm1, ...), the fused
    score in `score` and `scores["rrf"]`. Ties keep the order of first appearance; with
    `weights`, the plain (unweighted) vote breaks them first (a fact and a turn at one
    weighted score: the better ranked one first).
    """
    arm_names = list(names) if names is not None else [f"arm{i}" for i in range(len(lists))]
    pairs = [[(it.id, it.score) for it in ranked] for ranked in lists]
    totals, arm_scores = rrf_votes(pairs, arm_names, k, weights)
    first: dict[str, RetrievedItem] = {}
    for ranked in lists:
        for it in ranked:
            first.setdefault(it.id, it)
    out = []
    for item_id, total in totals.items():
        item = copy_item(first[item_id])
        item.scores.update(arm_scores[item_id])
        item.scores["rrf"] = total
        item.score = total
        out.append(item)
    if weights is None:
        return sort_items(out)
    plain = rrf_votes(pairs, arm_names, k)[0]
    return sorted(out, key=lambda it: (-it.score, -plain[it.id]))


def recency_decay(
    items: Sequence[RetrievedItem],
    half_life_hours: float,
    reference_time: datetime,
    *,
    floor: float = 0.0,
    kinds: Sequence[str] | None = None,
) -> list[RetrievedItem]:
    """Multiply scores by a true half-life factor of the item's age at `reference_time`.

    Age is measured against the event/reference time, never the wall clock, so a replay of
    old conversations ranks as it did live. Items without a timestamp, or of a kind not in
    `kinds` (when given), keep their score. The factor is recorded in `scores["recency"]`.
    """
    if half_life_hours <= 0:
        raise ValueError("half_life_hours must be > 0")
    ref = as_utc(reference_time)
    out = []
    for item in items:
        if item.timestamp is None or (kinds is not None and item.kind not in kinds):
            out.append(copy_item(item))
            continue
        age_h = (ref - as_utc(item.timestamp)).total_seconds() / 3600.0
        f = half_life_factor(age_h, half_life_hours, floor)
        out.append(_rescored(item, item.score * f, recency=f))
    return sort_items(out)


def apply_boost(
    items: Sequence[RetrievedItem], signals: Mapping[str, float], weight: float, name: str
) -> list[RetrievedItem]:
    """Soft re-rank: score *= boost_factor(signal, weight) for items with a signal (by id)."""
    out = []
    for item in items:
        if item.id not in signals:
            out.append(copy_item(item))
            continue
        f = boost_factor(signals[item.id], weight)
        out.append(_rescored(item, item.score * f, **{name: signals[item.id]}))
    return sort_items(out)


# --------------------------------------------------------------------------- selection


def mmr(
    items: Sequence[RetrievedItem],
    lambda_: float,
    limit: int,
    similarity: Callable[[RetrievedItem, RetrievedItem], float] | None = None,
    vectors: Mapping[str, Sequence[float]] | None = None,
    pool_factor: int | None = 5,
) -> list[RetrievedItem]:
    """Greedy maximal-marginal-relevance selection of up to `limit` items.

    Relevance is the score divided by the best score (so it is in [0, 1] whatever the
    scale, like the similarities it is traded against). Similarity is, in order of
    preference: the given function, cosine of `vectors[id]` when both items have one,
    else token Jaccard of the texts. The first pick is always the best item. Only the best
    `pool_factor * limit` candidates are considered (None = all): far-down items almost
    never win at useful lambdas, and the cost is O(pool * limit) similarities.
    """
    if limit <= 0 or not items:
        return []
    pool = sort_items(items)
    if pool_factor is not None:
        pool = pool[: max(limit, pool_factor * limit)]
    top = pool[0].score
    rel = {id(it): (it.score / top if top > 0 else 0.0) for it in pool}
    toks = {id(it): tokens(it.text) for it in pool}

    def sim(a: RetrievedItem, b: RetrievedItem) -> float:
        if similarity is not None:
            return similarity(a, b)
        if vectors is not None and a.id in vectors and b.id in vectors:
            return cosine(vectors[a.id], vectors[b.id])
        return jaccard(toks[id(a)], toks[id(b)])

    chosen = [pool.pop(0)]
    # running max similarity of each candidate to the chosen set: O(n * limit) comparisons
    redundancy = [sim(cand, chosen[0]) for cand in pool]
    while pool and len(chosen) < limit:
        best_i, best_v = 0, -math.inf
        for i, cand in enumerate(pool):
            v = mmr_objective(rel[id(cand)], redundancy[i], lambda_)
            if v > best_v:
                best_i, best_v = i, v
        picked = pool.pop(best_i)
        redundancy.pop(best_i)
        chosen.append(picked)
        redundancy = [max(r, sim(cand, picked)) for r, cand in zip(redundancy, pool, strict=True)]
    return [copy_item(it) for it in chosen]


def adaptive_count(
    items: Sequence[RetrievedItem],
    max_count: int,
    *,
    scale: float | None = None,
    floor: float = 0.15,
    full: float = 0.5,
    min_count: int = 1,
    key: Callable[[RetrievedItem], float] | None = None,
) -> int:
    """How many items to keep, from how strong the best one is (HookClaw's idea, softened).

    The top score is normalised to t = top / scale in [0, 1] (`scale` = the best score
    attainable, e.g. `rrf_max(n_lists, k)`; without it the score is taken as already in
    [0, 1]). Then: t < floor -> 0 (nothing is relevant enough); t >= full -> max_count;
    in between the count ramps linearly from min_count to max_count. A weak best match
    thus injects fewer items instead of padding the prompt with noise. `key` picks another
    score to judge by (e.g. the vector arm's cosine, `lambda it: it.scores.get("vector", 0)`).
    """
    if not items or max_count <= 0:
        return 0
    top = max((key(it) if key else it.score) for it in items)
    t = top / scale if scale else top
    t = max(0.0, min(1.0, t))
    if t < floor:
        return 0
    if t >= full or full <= floor:
        n = max_count
    else:
        ramp = (t - floor) / (full - floor)
        n = min_count + math.floor(ramp * (max_count - min_count) + 1e-9)
    return max(0, min(len(items), max_count, n))


def apply_threshold(
    items: Sequence[RetrievedItem], min_score: float, *, relative: float | None = None
) -> list[RetrievedItem]:
    """Drop items scoring below `min_score`, and (optionally) below `relative` * the best score."""
    kept = [it for it in items if it.score >= min_score]
    if relative is not None and kept:
        top = max(it.score for it in kept)
        kept = [it for it in kept if it.score >= relative * top]
    return [copy_item(it) for it in kept]
