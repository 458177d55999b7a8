"""Where the speaker is, said without a verb: "Nope, still at Sainsbury's", "At Aviva now, since
March", "In Leeds these days".

Why: chat answers and updates drop "I work" and "we live" and keep only the place and a word of
time; the parse then has no verb to hang a rule on. A clause counts only when it is nothing but an
optional reply word, "at" or "in", a name and a word that says the state holds now ("still", "now",
"currently", "these days", "part-time"): "At the gym" or "In Paris for the weekend" say nothing of
the kind. How long may come first ("5 years at Boots now") and a role after an employer ("Currently at
Google as a PM"). The
caller decides what the name is (an employer after "at", a home after "in").
"""

from __future__ import annotations

from spacy.tokens import Span, Token

# Words that say the state holds now; one must be in the clause.
_NOW = frozenset({"still", "now", "currently", "nowadays"})
_NOW_PAIRS = frozenset({("these", "days"), ("for", "now")})  # not "right now": "at Tesco right now"
# "Part-time at B&Q": hours worked say the job holds now (read as "part - time")
_HOURS = frozenset({("part", "-", "time"), ("full", "-", "time")})
# Reply words that may open the clause ("Nope, still at X", "Yep, at X now").
_REPLY = frozenset({"nope", "no", "yes", "yeah", "yep", "yup", "nah", "well", "so", "and", "but", "oh", "ok"})
_CUTS = frozenset({",", ";", ":", "(", ")", "-", "–", "—", ".", "!", "...", "…"})
_PREPS = frozenset({"at", "in"})


def state_places(sent: Span) -> list[tuple[str, Token]]:
    """(preposition, the name's head token) of each verbless "still at X" / "in X now" clause."""
    found: list[tuple[str, Token]] = []
    for clause in _clauses(sent):
        hit = _read(clause)
        if hit is not None:
            found.append(hit)
    return found


def _clauses(sent: Span) -> list[list[Token]]:
    out: list[list[Token]] = [[]]
    for tok in sent:
        joined = tok.text == "-" and not tok.nbor(-1).whitespace_ if tok.i > sent.start else False
        if (tok.text in _CUTS and not joined) or tok.is_space:  # "part-time" is one word
            out.append([])
        else:
            out[-1].append(tok)
    return [c for c in out if c]


def _read(clause: list[Token]) -> tuple[str, Token] | None:
    """The clause as [reply] NOW* (at|in) NAME+ NOW*, with at least one NOW: the preposition and the
    name's head, else None."""
    words = clause[1:] if clause[0].lower_ in _REPLY else clause
    i, now = _now_words(words, _how_long(words))
    if i >= len(words) or words[i].lower_ not in _PREPS:
        return None
    prep, i = words[i].lower_, i + 1
    start = i
    while i < len(words) and _name_word(words[i]):
        i += 1
    name = words[start:i]
    end, later = _now_words(words, i)
    if prep == "at" and end < len(words) and words[end].lower_ == "as":
        end = len(words)  # "Currently at Google as a PM": the role is the caller's to read
    if not name or end != len(words) or not (now or later):
        return None
    if prep == "in" and any(w.lower_ == "time" for w in words):
        return None  # "part-time in Leeds": hours say a job, not a home
    return prep, next((t for t in name if t.dep_ == "pobj"), name[-1])


_STAY_UNITS = frozenset({"year", "years", "yrs", "month", "months", "week", "weeks"})


def _how_long(words: list[Token]) -> int:
    """Past a leading "5 years" ("5 years at Boots now"): where the clause goes on (a word of time
    must still say that it holds now)."""
    if len(words) > 2 and words[0].like_num and words[1].lower_ in _STAY_UNITS:
        return 2
    return 0


def _now_words(words: list[Token], i: int) -> tuple[int, bool]:
    """Skip the words of time at `i` ("still", "these days"): where they end, and whether any."""
    start = i
    while i < len(words):
        if words[i].lower_ in _NOW:
            i += 1
        elif i + 1 < len(words) and (words[i].lower_, words[i + 1].lower_) in _NOW_PAIRS:
            i += 2
        elif i + 2 < len(words) and tuple(w.lower_ for w in words[i : i + 3]) in _HOURS:
            i += 3
        else:
            break
    return i, i > start


def _name_word(tok: Token) -> bool:
    """A word of a name: capitalised (the small model tags shops anything), or its "'s"."""
    return tok.dep_ == "case" or (tok.text[:1].isupper() and tok.lower_ not in _NOW)
