"""Tests on the parse that decide whether a clause asserts anything, and what kind of clause it is.

Questions, conditionals, modals, hedges, negation, tense and passives: pure functions of spaCy tokens,
with no message state, so that every rule asks them the same way.
"""

from __future__ import annotations

from spacy.tokens import Doc, Span, Token

from knowledge_engine.extract.lexicon import (
    ANNOUNCE_VERBS,
    CLINICIANS,
    CONDITIONAL_MARKS,
    EMOTIVE_ADJECTIVES,
    FACTIVE_VERBS,
    FIRST_PERSON_POSS,
    HEADED_ROLES,
    HEDGES,
    JOB_TITLE_NOUNS,
    LEAD_WORDS,
    MANAGER_NOUNS,
    MARKS,
    MODALS,
    MOVE_VERBS,
    SCHEDULED_MODALS,
    SCHEDULED_VERBS,
    SCHOOL_WORDS,
    SPEAKER_SUBJECTS,
    STAY_UNITS,
    VALUE_NOUNS,
    WH_TAGS,
)


def _negated(verb: Token) -> bool:
    return any(c.dep_ == "neg" or c.lower_ in {"never", "not", "n't"} for c in verb.children)


def _announced(root: Token) -> list[Token]:
    """'Please note that ...', 'I should inform you that ...', 'just to let you know that ...', 'I must
    tell you that ...': what the speaker tells is asserted (the modal is politeness, not doubt)."""
    verb = root
    if verb.lemma_ in {"want", "like", "need"}:  # "I wanted to let you know", "I'd like to inform you"
        verb = next((c for c in verb.children if c.dep_ == "xcomp"), verb)
    if verb.lemma_ == "let":
        verb = next((c for c in verb.children if c.dep_ == "ccomp" and c.lemma_ == "know"), verb)
    if verb.lemma_ not in ANNOUNCE_VERBS and not (verb.lemma_ == "know" and verb.head.lemma_ == "let"):
        return []
    subjects = [c for c in root.children if c.dep_ == "nsubj"]
    if any(s.lower_ not in SPEAKER_SUBJECTS for s in subjects) or _is_question(root.sent):
        return []  # "Tom told me that ...": his word; "can you note that ...?"
    if any(c.dep_ == "neg" for v in {root, verb} for c in v.children):
        return []
    return [c for c in verb.children if c.dep_ == "ccomp" and c.i > verb.i and _has_subject(c)]


def _felt_clauses(root: Token) -> list[Token]:
    """'I'm so relieved we finally moved to Vancouver', 'so glad Dan got the job': the clause a
    feeling is about happened (EMOTIVE_ADJECTIVES); a hedged or negated feeling asserts nothing."""
    if _is_irrealis(root) or any(n.dep_ == "neg" for n in root.children):
        return []
    return [
        c
        for a in root.children
        if a.dep_ == "acomp" and a.lower_ in EMOTIVE_ADJECTIVES
        for c in a.children
        if c.dep_ == "ccomp" and _has_subject(c) and not _has_mark(c, MARKS - {"that"})
    ]


def _factive(root: Token) -> bool:
    """A verb of learning whose clause states a fact ('found out', 'learned', 'turns out'); asked,
    negated or hedged it states nothing."""
    out = any(c.dep_ == "prt" and c.lower_ == "out" for c in root.children)
    learned = root.lemma_ in FACTIVE_VERBS or (root.lemma_ in {"find", "turn"} and out)
    return learned and not _is_irrealis(root)


def _past_of_time(clause: Token) -> bool:
    """'before we bought the house', 'after she left Tesco', "it's been a year since we moved from
    Bangalore": a clause of time in the simple past happened (one in the present is a plan: 'before
    we move')."""
    # "since I was a kid" dates a state, asserts nothing worth a fact; "back when I was at Nokia" a
    # place one was at does
    when = any(c.dep_ == "advmod" and c.lower_ == "when" and c.i < clause.i for c in clause.children)
    since = (_has_mark(clause, {"since", "when"}) or when) and (clause.lemma_ != "be" or _at_a_name(clause))
    marked = _has_mark(clause, {"before", "after"}) or since
    return clause.tag_ == "VBD" and marked and not _is_irrealis(clause)


def _at_a_name(be: Token) -> bool:
    """'was at Nokia', 'was in Espoo': a "be" with a named place after "at" or "in"."""
    return any(p.pos_ == "PROPN" for c in be.children if c.lower_ in {"at", "in"} for p in _pobjs(c))


def _asserted_reason(clause: Token) -> bool:
    """A clause of consequence or cause ('so we're moving', 'because I work at X') states a fact;
    one of condition or time ('if', 'when') does not."""
    so = any(c.dep_ == "advmod" and c.lower_ == "so" and c.i < clause.i for c in clause.children)
    return (so and not _has_mark(clause, MARKS)) or _has_mark(clause, {"because", "cos", "coz", "cause"})


def _clinician_subject(root: Token) -> bool:
    """'doctor says ...' (the parser may hang a run-on line's first noun beside it: "small question -
    doctor says ...")."""
    subjects = [c for c in root.children if c.dep_ == "nsubj"]
    return any(c.lemma_.lower() in CLINICIANS for c in subjects) and not _is_irrealis(root)


def _judges_someone(root: Token) -> bool:
    """'..., she seems nice': a remark on a named or third person, not a hedge on what came before
    (as 'I think', 'it seems', 'they say' are)."""
    subj = next((c for c in root.children if c.dep_ == "nsubj"), None)
    return root.lemma_ == "seem" and subj is not None and subj.lower_ in {"he", "she"}


def _has_subject(verb: Token) -> bool:
    return verb.pos_ in {"VERB", "AUX"} and any(c.dep_ in {"nsubj", "nsubjpass"} for c in verb.children)


def _before_here(sent: Span) -> list[Token]:
    """The word before each "here" that introduces the speaker ("Nurse here", "Type 1 diabetic here"):
    not the sentence's first word, and no verb after it ("doctor here say ..." is a subject)."""
    doc = sent.doc
    heres = (t for t in sent if t.lower_ == "here" and t.i > sent.start)
    return [doc[h.i - 1] for h in heres if h.i + 1 >= sent.end or doc[h.i + 1].pos_ not in {"VERB", "AUX"}]


def _is_question(sent: Span) -> bool:
    """Questions assert nothing: trailing '?', a leading wh-word, or aux-subject inversion."""
    words = [t for t in sent if not t.is_punct]
    if not words or sent.text.rstrip().endswith("?"):
        return True
    first = words[0]
    if first.tag_ in WH_TAGS:
        # "When I worked at Tesco, I hated Mondays": a wh-word that opens a clause below the root
        # subordinates it, and asks nothing
        return not (first.head.dep_ in {"advcl", "csubj"} and first.head.head.dep_ == "ROOT")
    return first.dep_ == "aux" and len(words) > 1 and words[1].dep_ in {"nsubj", "nsubjpass"}


def _is_irrealis(verb: Token) -> bool:
    """Negated, modal, hedged or conditional clauses are not stored as facts."""
    for child in verb.children:
        low = child.lower_
        if child.dep_ == "neg" or low in {"never", "not", "n't"}:
            return True
        if child.dep_ == "aux" and (child.tag_ == "MD" or low in MODALS):
            if low in SCHEDULED_MODALS and verb.lemma_ in SCHEDULED_VERBS:
                continue  # "I'll start at Acme on June 8": a date set, not a plan
            if low in SCHEDULED_MODALS and verb.lemma_ == "be" and _manager_subject(verb):
                continue  # "my teamlead will be Birgit": who one reports to from the start
            if low in SCHEDULED_MODALS and verb.lemma_ == "go" and _to_school(verb):
                continue  # "Ollie will be going to Westfield Juniors after half term": a school place
            if low in SCHEDULED_MODALS and verb.lemma_ in MOVE_VERBS and verb.tag_ == "VBG":
                continue  # "we shall be moving to Bath in March": an arrangement, as "we're moving"
            if low in SCHEDULED_MODALS and verb.lemma_ == "be" and (_dated_title(verb) or _dated_value(verb)):
                continue  # "From Monday I'll be a charge nurse", "rent will be 1,300 from May": dated
            return True
        negated = low in HEDGES or any(g.dep_ == "neg" for g in child.children)
        if child.dep_ == "advmod" and negated and not _detached(child, verb):
            return True
        if child.dep_ == "advcl" and child.i < verb.i and _has_mark(child, CONDITIONAL_MARKS):
            return True
        if child.dep_ == "mark" and low in CONDITIONAL_MARKS:  # "if i got the job at X, ..." as the root
            return True
        if child.dep_ == "xcomp" and child.lemma_ == "go" and verb.lemma_ == "be":
            return True
    return verb.lemma_ == "go" and any(c.dep_ == "xcomp" for c in verb.children)


# Words a start date hangs on ("from Monday", "starting next week", "as of June"); "in a few years"
# and "one day" are hopes, not dates.
_START_PREPS = frozenset({"from", "starting", "of", "on"})


def _dated_title(verb: Token) -> bool:
    """'I'll be a charge nurse from Monday': a title after "be" with a start date in its clause."""
    attr = next((c for c in verb.children if c.dep_ == "attr"), None)
    if attr is None or attr.lower_ not in JOB_TITLE_NOUNS | LEAD_WORDS:
        return False
    return _start_dated(verb)


def _dated_value(verb: Token) -> bool:
    """'rent will be 1,300 from May', 'my salary will be 52k from April': an amount set from a date
    (not 'rent will be crazy', no amount; not 'it will be 1,300 if we stay', no date)."""
    subj = next((c for c in verb.children if c.dep_ == "nsubj"), None)
    attr = next((c for c in verb.children if c.dep_ == "attr"), None)
    if subj is None or subj.lower_ not in VALUE_NOUNS or attr is None:
        return False
    return any(t.like_num for t in attr.subtree) and _start_dated(verb)


def _start_dated(verb: Token) -> bool:
    """A start date in the verb's clause: 'from Monday', 'starting next week', 'as of June'."""
    dates = [t for t in verb.subtree if t.ent_type_ == "DATE"]
    return any(t.lower_ == "next" or (t.dep_ == "pobj" and t.head.lower_ in _START_PREPS) for t in dates)


def _to_school(verb: Token) -> bool:
    """'going to Westfield Juniors': a named school after the verb's 'to'."""
    return any(
        p.pos_ == "PROPN" and _is_school(p.doc[p.left_edge.i : p.i + 1].text)
        for prep in verb.children
        if prep.dep_ == "prep" and prep.lower_ == "to"
        for p in _pobjs(prep)
    )


def _detached(mod: Token, verb: Token) -> bool:
    """'not sure, I'm 66' / 'not really, I work at X': a negated word opening the line and closed
    by a comma answers the last question; it does not negate the clause after it."""
    right = mod.right_edge.i + 1
    doc = verb.doc
    return (
        mod.i < verb.i
        and mod.left_edge.i == verb.sent.start
        and right < len(doc)
        and doc[right].text == ","
        and any(c.dep_ == "nsubj" and c.i > right for c in verb.children)
    )


def _has_mark(verb: Token, marks: set[str]) -> bool:
    return any(c.dep_ == "mark" and c.lower_ in marks for c in verb.children)


def _is_past(verb: Token) -> bool:
    if verb.tag_ == "VBD":
        return True
    if (
        verb.tag_ == "VBN"
        and verb.dep_ == "ROOT"
        and not any(c.dep_ in {"aux", "auxpass"} for c in verb.children)
    ):
        return not _lasting(verb)  # "Settled in Leeds now": a participle opening a chat line
    if _quit_said_present(verb):
        return True
    return any(
        c.dep_ in {"aux", "auxpass"} and c.tag_ == "VBD" and c.lemma_ != "do" for c in verb.children
    ) or any(c.dep_ == "aux" and c.lower_ == "did" for c in verb.children)


def _quit_said_present(verb: Token) -> bool:
    """'Quit Deliveroo', 'I quit Tesco': "quit" is its own past, tagged a present (no "to", no modal)."""
    bare = not any(c.dep_ == "aux" for c in verb.children)
    return verb.lower_ == "quit" and verb.tag_ in {"VB", "VBP"} and bare


def _is_manager_noun(noun: Token) -> bool:
    """'manager', 'boss', 'team lead', 'my lead' (a team's), 'my head nurse' (a ward's)."""
    lemma = noun.lemma_.lower()
    if lemma in MANAGER_NOUNS:
        return True
    kids = list(noun.children)
    if lemma == "lead":
        return any(c.lower_ == "team" or (c.dep_ == "poss" and c.lower_ in {"my", "our"}) for c in kids)
    return lemma in HEADED_ROLES and any(c.lower_ == "head" and c.dep_ in {"compound", "amod"} for c in kids)


def _manager_subject(verb: Token) -> bool:
    """'my teamlead will be Birgit', and 'Tom will be my manager': a manager noun either side of "be"
    ("I'll be a manager" is a plan: only someone's manager, "my"/"our", is who one will report to)."""
    return any(
        _is_manager_noun(c)
        and (c.dep_ == "nsubj" or (c.dep_ == "attr" and any(p.lower_ in {"my", "our"} for p in c.children)))
        for c in verb.children
    )


def _passive(verb: Token) -> bool:
    """A passive clause; not "she's got a place" / "he's got a new job", which the parser reads as a
    passive of "get" with an object ("has got": active)."""
    if not any(c.dep_ == "auxpass" for c in verb.children):
        return False
    has_got = verb.lower_ == "got" and any(
        c.dep_ == "auxpass" and c.lower_ in {"'s", "’s"} for c in verb.children
    )
    return not (has_got and any(c.dep_ == "dobj" for c in verb.children))


def _is_be(verb: Token) -> bool:
    """'be', and the 'm' of chat's "im"/"i m" (the tokenizer splits it off and loses the lemma)."""
    return verb.lemma_ == "be" or (verb.lower_ == "m" and verb.i > 0 and verb.doc[verb.i - 1].lower_ == "i")


def _used_to(verb: Token) -> bool:
    """'I used to work at X': the state held and holds no more."""
    return verb.dep_ == "xcomp" and verb.head.lemma_ == "use" and verb.head.tag_ == "VBD"


def _perfect(verb: Token) -> bool:
    """'have moved', "we've moved": a present perfect (a past "had moved" is _is_past's)."""
    return verb.tag_ == "VBN" and any(c.dep_ == "aux" and c.lemma_ == "have" for c in verb.children)


def _lasting(verb: Token) -> bool:
    """ "(I've) been a paramedic for 12 years", "been a teacher 20 years now": "been" with how long,
    its "I've" dropped, is a state up to now."""
    # "Been a plumber for 20 years": the parse may hang the "for" on the title (a time, not "a carer
    # for my mum")
    held = [c for a in verb.children if a.dep_ == "attr" for c in a.children if c.lower_ in {"for", "since"}]
    timed = any(c.lower_ == "since" or any(p.ent_type_ == "DATE" for p in _pobjs(c)) for c in held)
    return verb.lower_ == "been" and (
        _bare_years(verb) or any(c.lower_ in {"for", "since"} for c in verb.children) or timed
    )


def _bare_years(verb: Token) -> bool:
    """'3 years', 'six months' said without "for" (an adverbial noun phrase) in the verb's clause."""
    spans = (t for t in verb.subtree if t.dep_ in {"npadvmod", "appos"} and t.lemma_.lower() in STAY_UNITS)
    return any(any(c.like_num for c in t.children) for t in spans)


def _perfect_or_dropped(verb: Token) -> bool:
    """A present perfect, said whole or with its "I've" dropped at the start of a sentence."""
    if _perfect(verb):
        return True
    bare = not any(c.dep_ in {"aux", "auxpass", "nsubj", "nsubjpass"} for c in verb.children)
    return bare and verb.i == verb.sent.start


def _intensified(adj: Token) -> bool:
    return any(c.dep_ == "advmod" for c in adj.children)


def _has_particle(verb: Token, word: str) -> bool:
    return any(c.dep_ == "prt" and c.lower_ == word for c in verb.children)


def _bare_or_mine(noun: Token) -> bool:
    """No determiner, or the speaker's own ("my eczema"): not "her asthma", "the migraine"."""
    dets = [c for c in noun.children if c.dep_ in {"det", "poss"}]
    return all(d.lower_ in FIRST_PERSON_POSS for d in dets)


def _asserted_clause(head: Token) -> bool:
    """A clause said as true: a statement's own root, or what a clinician said or one found out
    ("the GP says I have ...") - not a question and not "I think I have ..."."""
    if head.dep_ == "ROOT":
        return not _is_question(head.sent)
    root = head.head
    return head.dep_ == "ccomp" and (
        (root.lemma_ in {"say", "tell"} and _clinician_subject(root)) or _factive(root)
    )


def _is_school(name: str) -> bool:
    return any(w in SCHOOL_WORDS for w in name.lower().split())


def _pobjs(prep: Token) -> list[Token]:
    """The objects of a preposition; a word the tokenizer split at a hyphen ("at the Co-op": "Co", "-",
    "op", each parsed an object) is one object, its first part (names widen over the hyphen)."""
    objs = [c for c in prep.children if c.dep_ == "pobj" and not _idiom(prep, c)]
    return [c for c in objs if not any(o.i < c.i <= _hyphen_glued(o.doc, o.i, o.i)[1] for o in objs)]


# "at last", "at least", "at first", "at all", "at once", "at most", "at best": a phrase, not a place
_AT_IDIOMS = frozenset({"last", "least", "first", "all", "once", "most", "best"})


def _idiom(prep: Token, pobj: Token) -> bool:
    """'Got rid of the Astra at last': the object of "at" in a set phrase names nothing."""
    return prep.lower_ == "at" and pobj.lower_ in _AT_IDIOMS and not any(pobj.children)


def _hyphen_glued(doc: Doc, start: int, end: int) -> tuple[int, int]:
    """The name widened over words a hyphen glues to it ("Côte-des-Neiges", "Stoke-on-Trent"): the
    tokenizer splits them and the model tags a part."""

    def glued(k: int) -> bool:  # doc[k] "-" joins doc[k - 1] and doc[k + 1], no space either side
        return (
            0 < k < len(doc) - 1
            and doc[k].text == "-"
            and not doc[k - 1].whitespace_
            and not doc[k].whitespace_
            and doc[k - 1].is_alpha
            and doc[k + 1].is_alpha
        )

    while glued(start - 1):
        start -= 2
    while glued(end + 1):
        end += 2
    return start, end


def _said_of_mine(sent: Span, lemma: str) -> list[Token]:
    """The gerunds of `lemma` that are the subject of a clause about how it has been, or how it is
    for the speaker ("Living in Brighton has been great for us", "Working for Fernhill has been
    great"): the speaker's own. "Living in London is expensive" alone may be anyone's; "was" may be
    one left."""
    out = []
    for gerund in (t for t in sent if t.dep_ == "csubj" and t.lemma_ == lemma and t.tag_ == "VBG"):
        clause = gerund.head
        if _is_irrealis(clause) or (_is_past(clause) and not _perfect(clause)):
            continue
        mine = any(
            p.lower_ in {"us", "me"}
            for prep in (c for c in clause.subtree if c.lower_ == "for")
            for p in _pobjs(prep)
        )
        if _perfect(clause) or mine or _up_to_now(clause):
            out.append(gerund)
    return out


# Words that put a clause in the speaker's present ("Working at Zoho is fine for now", "lately"), and
# the word before that makes one of a pair ("so far", "these days", "the moment")
_NOW_WORDS = frozenset({"now", "lately", "currently", "atm"})
_NOW_PAIRS = frozenset({("so", "far"), ("these", "days"), ("the", "moment")})


def _up_to_now(clause: Token) -> bool:
    """'for now', 'so far', 'these days', 'at the moment', 'lately': how it is for the speaker now, not
    what it is for anyone ("Living in London is expensive")."""
    doc = clause.doc
    return any(
        t.lower_ in _NOW_WORDS or (t.i > 0 and (doc[t.i - 1].lower_, t.lower_) in _NOW_PAIRS)
        for t in clause.subtree
    )
