"""A job's news said across messages: an offer named before the word ("the Stripe offer came through",
"GOT IT!!! freshworks offer came"), an offer turned down or not taken, a new job started without its
employer's name ("Two weeks into the new job now", "first day at the new job tomorrow"), and a firm
joined as chat says it ("signed with lumen", "2 weeks in at lumen").

Why: people tell an assistant about a job in steps, and the step that says they took it rarely names
the firm again; the offer named it weeks before. The dependency rules read "an offer from X"; these
wordings put the name before "offer" or leave it out, and the small model parses them unevenly
("got the monzo offer" makes "offer" a verb), so they are read from the words. The store joins the
steps (store/offers.py): a started job resolves to the speaker's newest offer not yet taken or
declined, and a declined offer ends.
"""

from __future__ import annotations

import re

from spacy.tokens import Span, Token

from knowledge_engine.extract.nlp import word_index

# Verbs that turn an offer down: "turned down", "declined", "said no to", "passed on".
_DECLINE = frozenset({"decline", "reject", "refuse"})
_DECLINE_PAIRS = frozenset({("turn", "down"), ("say", "no"), ("pass", "on"), ("walk", "away")})
# Verbs that say an offer arrived: "came (through)", "got", "received", "landed", "is in".
_RECEIVED = frozenset({"come", "arrive", "get", "receive", "land", "have", "be"})
# A contract or time "at" somewhere that is no job: a home, its agent, a club, a course.
_NOT_A_JOB = frozenset(
    {
        "flat", "house", "home", "lease", "tenancy", "landlord", "agent", "agency", "letting", "mortgage",
        "apartment", "gym", "club", "team", "label", "uni", "university", "school", "course", "we", "they",
        "he", "she",
    }
)  # fmt: skip
_MAKING = frozenset({"make", "give", "send", "extend"})
_DOUBT = frozenset({"if", "not", "n't", "no", "hope", "waiting"})
_DETS = frozenset({"the", "a", "an", "their", "that", "this"})
# Job nouns a started job is named by ("the new job", "the new position").
_JOBS = frozenset({"job", "role", "position", "post", "gig"})
_SPANS = frozenset({"day", "days", "week", "weeks", "month", "months", "shift", "shifts"})
_STARTS = frozenset({"start", "begin", "love", "enjoy"})
# Words that make a sentence about a job wished for, weighed or sought, not one held.
_UNREAL = frozenset(
    {
        "if", "would", "could", "might", "maybe", "should", "want", "need", "look", "looking", "search",
        "hunt", "apply", "applied", "interview", "offer", "offered", "hope", "considering", "thinking",
        "find", "get", "not", "n't", "never", "no",
    }
)  # fmt: skip


def named_offers(sent: Span) -> list[tuple[str, str]]:
    """("received" | "declined", the employer's name) of each "NAME offer" / "NAME's offer" /
    "NAME made me an offer" / "offer from NAME" the sentence turns down, and of each of the first
    three it says arrived."""
    words = [t.lower_ for t in sent]
    declined = _declines(sent)
    found: list[tuple[str, str]] = []
    for i, tok in enumerate(sent):
        if tok.lower_ not in {"offer", "offers"}:
            continue
        name = _name_before(sent, i) or _name_making(sent, i)
        name = name or (_name_after_from(sent, i) if declined else None)
        if name is None:
            continue
        if declined:
            found.append(("declined", name))
        elif _received(sent, words):
            found.append(("received", name))
    return found


def joined_firms(sent: Span) -> list[str]:
    """Firms the speaker's new job is at, said as chat says it: "signed with lumen", "signed w/ Stripe
    today" (a contract signed: no home, agent or lease in the sentence, no other subject), "2 weeks in at
    lumen", "I have now completed two weeks at St George's" (time served so far at a firm)."""
    words = [t.lower_ for t in sent]
    if sent.text.rstrip().endswith("?") or any(w in _DOUBT or w in _NOT_A_JOB for w in words):
        return []
    found: list[str] = []
    for i, word in enumerate(words[:-1]):
        signed = word == "signed" and words[i + 1] in {"with", "w/"} and _by_speaker(sent, i)
        served = word == "in" and words[i + 1] == "at" and i >= 1 and words[i - 1] in _SPANS
        served = served or (
            word in _SPANS and words[i + 1] == "at" and _span_done(words, i) and _by_speaker(sent, i)
        )
        if signed or served:
            name = _firm_after(sent, i + 2)
            if name:
                found.append(name)
    return found


# An interview at a firm: "an interview at Deloitte on Monday", "2nd final round w/ Ferncrest", "an
# interview Thursday at a practice in Harrogate – Valley Gardens Dental" (the firm set off by a dash).
_ROUNDS = frozenset({"final", "second", "2nd", "third", "3rd", "last", "first"})
_WORKPLACES = frozenset(
    {
        "practice", "firm", "company", "school", "hospital", "agency", "shop", "store", "bank", "studio",
        "restaurant", "hotel", "nursery", "clinic", "startup", "branch", "office", "surgery", "lab",
    }
)  # fmt: skip
_DASHES = frozenset({"-", "–", "—"})


def interviews(sent: Span) -> list[str]:
    """Firms the speaker says they have an interview at (not one wished for, asked about or doubted)."""
    words = [t.lower_ for t in sent]
    if sent.text.rstrip().endswith("?") or any(w in _DOUBT for w in words):
        return []
    found: list[str] = []
    for i, word in enumerate(words):
        rounds = word == "round" and i >= 1 and words[i - 1] in _ROUNDS
        if not (word in {"interview", "interviews"} or rounds) or not _by_speaker(sent, i):
            continue
        at = next((k for k in range(i + 1, min(i + 5, len(words))) if words[k] in {"at", "with", "w/"}), None)
        if at is None:
            continue
        name = _firm_after(sent, at + 1)
        if name is None and at + 2 < len(words) and words[at + 1] in _DETS and words[at + 2] in _WORKPLACES:
            dash = next((k for k in range(at + 3, len(words)) if words[k] in _DASHES), None)
            name = _firm_after(sent, dash + 1) if dash is not None else None
        if name:
            found.append(_no_trailing_lower(name))
    return found


def _no_trailing_lower(name: str) -> str:
    """'Ferncrest Analytics thurs' -> 'Ferncrest Analytics': lower-case words after a capitalised name."""
    words = name.split()
    while len(words) > 1 and words[-1].islower() and words[0][:1].isupper():
        words.pop()
    return " ".join(words)


# "I GOT IT!!!", "got the job!!", "We got it": a job won, its employer unnamed (the interview or offer
# said before names it). Only in a message that speaks of a job.
_WON = re.compile(
    r"^\W*(?:(?:i|we)\s+)?(?:just\s+)?(?:got|landed|bagged)\s+(?:it|the\s+(?:job|role|position|post))(?=\s*(?:[!.]|$))",
    re.I,
)
_JOB_TALK = frozenset({"start", "starting", "job", "role", "position", "resignation", "notice", "contract"})


def job_won(sent: Span) -> bool:
    """Whether the sentence says the speaker got the job they were going for, naming no employer; not
    in a message about an offer ("GOT IT!!! freshworks offer came": the offer is what came)."""
    if _WON.match(sent.text) is None or any(t.lemma_.lower() == "offer" for t in sent.doc):
        return False
    return any(t.lower_ in _JOB_TALK for t in sent.doc)


# "I have now completed two weeks at St George's", "done my first month at Monzo": time served at a firm
_SERVED = frozenset({"completed", "done", "finished", "survived"})
_COUNTED = frozenset({"first", "1st", "two", "three", "four", "five", "six", "a", "one"})


def _span_done(words: list[str], i: int) -> bool:
    """Whether the span at `i` is one the speaker has served: counted ("two weeks", "my first month")
    and a serving verb up to three words before it ("completed two weeks", "done my first month"; not
    "I did shifts at Lidl years ago")."""
    counted = i >= 1 and (words[i - 1] in _COUNTED or words[i - 1].isdigit())
    return counted and any(w in _SERVED for w in words[max(0, i - 4) : i])


def _ends_name(sent: Span, k: int) -> bool:
    """Nothing the name owns follows at `k` (the sentence's end, punctuation, a time word)."""
    if k >= len(sent) or sent[k].is_punct or sent[k].lower_ in {"today", "now", "yesterday", "tomorrow"}:
        return True
    return sent[k].pos_ not in {"NOUN", "PROPN"}


def _by_speaker(sent: Span, i: int) -> bool:
    """No subject before word `i` but "I" (chat drops it: "signed with lumen")."""
    return all(t.lower_ == "i" or t.dep_ not in {"nsubj", "nsubjpass"} for t in sent[:i])


def _firm_after(sent: Span, k: int) -> str | None:
    """The name starting at `k`: a run of name words, or one lower-case noun that ends the clause
    ("signed with lumen.")."""
    end = k
    while end < len(sent) and _name_word(sent[end]):
        end += 1
    if end > k and end < len(sent) and sent[end].lower_ in {"'s", "’s"} and _ends_name(sent, end + 1):
        return sent[k : end + 1].text  # "St George's", "Sainsbury's": the possessive is the name's
    if end > k:
        return " ".join(t.text for t in sent[k:end])
    if k >= len(sent):
        return None
    tok = sent[k]
    closing = (
        k + 1 == len(sent) or sent[k + 1].is_punct or sent[k + 1].lower_ in {"today", "now", "yesterday"}
    )
    lower_noun = tok.is_alpha and tok.is_lower and not tok.is_stop and tok.pos_ in {"NOUN", "PROPN"}
    return tok.text if lower_noun and closing and tok.lower_ not in _NOT_A_JOB | _JOBS else None


def job_started(sent: Span) -> bool:
    """Whether the sentence says the speaker's new job has started (or starts): "two weeks into the
    new job", "first day at the new job tomorrow", "started my new job on Monday", "since the new
    job". Never in a sentence that wishes for, weighs or looks for a job."""
    words = [t.lower_ for t in sent]
    if any(w in _UNREAL for w in words) or sent.text.rstrip().endswith("?"):
        return False
    for i, word in enumerate(words):
        if word not in _JOBS:
            continue
        j = i - 1
        new = j >= 0 and words[j] == "new"
        j -= new
        owned = j >= 0 and words[j] in {"the", "my"}
        j -= owned
        before = words[j] if j >= 0 else ""
        if before == "into" and j >= 1 and words[j - 1] in _SPANS:
            return True  # "two weeks into the new job", "2 weeks into job"
        if not (new and owned):
            continue
        if before == "since" or (before in {"at", "in"} and _first_span(words, j)):
            return True  # "migraines since the new job", "first day at the new job"
        if j >= 0 and sent[j].lemma_.lower() in _STARTS:
            return True  # "started my new job", "loving the new job"
    return False


def _first_span(words: list[str], at: int) -> bool:
    """'first day' / 'first week' right before `at`."""
    return at >= 2 and words[at - 2] == "first" and words[at - 1] in _SPANS


def _declines(sent: Span) -> bool:
    """A verb that turns an offer down, or an acceptance denied ("I didn't end up taking the Barclays
    offer", "never accepted it")."""
    denied = False
    for tok in sent:
        lemma = tok.lemma_.lower()
        if lemma in _DECLINE or (denied and lemma in {"take", "accept"}):
            return True
        denied = denied or tok.lower_ in {"not", "n't", "never", "didnt"}
        nxt = tok.nbor(1).lower_ if tok.i + 1 < sent.end else ""
        if (lemma, nxt) in _DECLINE_PAIRS:
            return True
    return False


def _received(sent: Span, words: list[str]) -> bool:
    """An arrival verb in the sentence, and no doubt: "offer came", "got the X offer", "X offer is in"."""
    if sent.text.rstrip().endswith("?") or any(w in _DOUBT for w in words):
        return False
    return any(t.lemma_.lower() in _RECEIVED | _MAKING and t.pos_ in {"VERB", "AUX"} for t in sent)


def _name_before(sent: Span, i: int) -> str | None:
    """The name right before "offer" ("the Stripe offer", "freshworks offer", "Amazon's offer")."""
    j = i - 1
    if j >= 0 and sent[j].lower_ in {"'s", "’s"}:
        j -= 1
    end = j
    while j >= 0 and _name_word(sent[j]):
        j -= 1
    if j == end:
        return None
    if j >= 0 and not (sent[j].lower_ in _DETS or sent[j].is_punct or sent[j].pos_ in {"VERB", "ADP", "AUX"}):
        return None  # "the job offer", "a good salary offer": no name
    return " ".join(t.text for t in sent[j + 1 : end + 1])


def _name_making(sent: Span, i: int) -> str | None:
    """'sensoria labs made me an offer', 'Monzo sent me an offer': the name before the verb."""
    j = i - 1 if i >= 1 and sent[i - 1].lower_ in {"a", "an", "the"} else i
    if j < 3 or sent[j - 1].lower_ != "me" or sent[j - 2].lemma_.lower() not in _MAKING:
        return None
    end = k = j - 3
    while k >= 0 and _name_word(sent[k]):
        k -= 1
    return " ".join(t.text for t in sent[k + 1 : end + 1]) or None


def _name_after_from(sent: Span, i: int) -> str | None:
    """'the offer from Flipkart' (for a decline; an offer received this way is the parse rules')."""
    if i + 2 >= len(sent) or sent[i + 1].lower_ != "from":
        return None
    k = i + 2
    while k < len(sent) and _name_word(sent[k]):
        k += 1
    return " ".join(t.text for t in sent[i + 2 : k]) or None


def _name_word(tok: Token) -> bool:
    """A word of a firm's name: capitalised (opening the sentence only when tagged a name and, if an
    English word, an entity: "Amazon's offer"), or a lower-case word no English part of speech lists
    ("freshworks", "monzo")."""
    if not tok.is_alpha and not (tok.text[:1].isupper() and tok.text.replace("&", "").isalnum()):
        return False
    index = word_index(tok.vocab) or {}
    english = tok.lower_ in _JOBS or any(tok.lower_ in w or tok.lemma_.lower() in w for w in index.values())
    if tok.text[:1].isupper():
        if tok.lower_ == "i" or not tok.is_sent_start:
            return tok.lower_ != "i"
        return tok.pos_ == "PROPN" and (not english or bool(tok.ent_type_))
    return not english and not tok.is_stop and tok.pos_ in {"NOUN", "PROPN", "ADJ", "X"}
