"""Who a token names: a clause's subjects (the speaker for I and we, a dropped subject in chat, a he or
she resolved to the only person before it), names cased or written in lower case, set off by commas or
in apposition to a kin word, and the object phrase a rule reports.
"""

from __future__ import annotations

import calendar
import re

from spacy.tokens import Token

from knowledge_engine.extract import places
from knowledge_engine.extract.dependency.context import _Ctx, _emit, _strip_det
from knowledge_engine.extract.dependency.grammar import (
    _has_subject,
    _hyphen_glued,
    _is_manager_noun,
    _is_school,
    _pobjs,
    _quit_said_present,
)
from knowledge_engine.extract.dependency.nouns import (
    _KIN_OPENERS,
    _a_city,
    _children_word,
    _is_date,
    _is_kin,
    _is_kin_word,
    _kin_type,
    _name_before_date,
    _other_half,
    _place_tagged_a_date,
    _relation_predicate,
    _relation_word,
)
from knowledge_engine.extract.lexicon import (
    ADJECTIVE_ENDINGS,
    CAR_NAMES,
    CHAT_VERBS_OPENING,
    DEGREE_NOUNS,
    DISEASE_HEADS,
    EVALUATIVE,
    FAMILY_NOUNS,
    FEMALE_KIN,
    FIRM_NOUNS,
    FIRST_NAME_MARK,
    FIRST_PERSON,
    FIRST_PERSON_POSS,
    GENERIC_OBJECTS,
    HOME_FIND_VERBS,
    HOME_NOUNS,
    JOB_NOUNS,
    JOB_TITLE_NOUNS,
    KIN_PREFIX,
    LIGHT_VERBS,
    MALE_KIN,
    MULTIPLE_BIRTHS,
    NAME_BREAKS,
    NOT_NAMES,
    NOTE_KEY_WORDS,
    PET_NOUNS,
    PLAIN_ADJECTIVES,
    PRONOUN,
    QUANTITY_HEADS,
    RAISE_NOUNS,
    RELATION_PREDICATES,
    SKIP_ENT_LABELS,
    SPEAKER_SUBJECTS,
    TRAINEESHIPS,
    VALUE_NOUNS,
    WH_TAGS,
)
from knowledge_engine.extract.line_breaks import BULLETS
from knowledge_engine.extract.nlp import listed, word_index
from knowledge_engine.extract.truecase import gender_of
from knowledge_engine.extract.truecase import names as first_names

# Particles between a first name and a surname ("du Plessis", "van der Merwe", "de Souza", "bin Salman").
NAME_PARTICLES = frozenset(
    {"du", "van", "von", "der", "den", "de", "da", "di", "dos", "das", "del", "della", "le", "la", "bin",
     "ibn", "al", "el", "ten", "ter"}
)  # fmt: skip
MAX_PARTICLES = 2  # "van der"


def _named_subject(poss: Token, job: Token, ctx: _Ctx) -> str | None:
    """'Shona loves her job at the Guardian', 'Tom is commuting back to his job at X': his/her is the
    named subject of the job's clause."""
    if poss.lower_ not in {"his", "her"}:
        return None
    verb = next((a for a in job.ancestors if a.pos_ in {"VERB", "AUX"}), None)
    subj = next((c for c in verb.children if c.dep_ == "nsubj"), None) if verb is not None else None
    if subj is None or subj.tag_ == "PRP":
        return None
    return _name_of(subj, ctx, person=True) or _name_of(
        next((c for c in subj.children if c.dep_ == "appos"), subj), ctx, person=True
    )


def _cased_entity(tok: Token, ctx: _Ctx) -> str | None:
    """The entity a capitalised word the parse took for no name begins ('Atlassian' as an adjective)."""
    ent = ctx.ents.get(tok.i)
    if ent is None or ent.label_ in SKIP_ENT_LABELS or not tok.text[:1].isupper():
        return None
    return _strip_det(ent, keep_possessive=False) or None


def _speakers_clause(verb: Token, ctx: _Ctx) -> bool:
    """Whether the verb's clause is the speaker's: its own subject, or the one of the clause a
    subjectless one joins ("I live in X and make 54k as a ...", "Left my job as a ..., now I'm ...");
    not a subordinate clause with no subject of its own ("I want to work as a ...")."""
    clause = verb
    while clause.dep_ in {"conj", "acomp", "advcl"} and not _has_subject(clause):
        clause = clause.head
    return _by_me(clause, ctx) and (_has_subject(clause) or clause.dep_ == "ROOT")


def _by_me(verb: Token, ctx: _Ctx) -> bool:
    """The clause's subject is the speaker ("I", "we"), or chat left it out."""
    subjects = [c for c in verb.children if c.dep_ in {"nsubj", "nsubjpass"}]
    return ctx.message.role == "user" and all(s.lower_ in SPEAKER_SUBJECTS for s in subjects)


def _subjects(verb: Token, ctx: _Ctx) -> list[str]:
    """Resolved subject names of a verb; unresolvable subjects (he, it, 'my sister') are dropped."""
    names: list[str] = []
    for child in verb.children:
        if child.dep_ not in {"nsubj", "nsubjpass"} or _addressed(child, verb):
            continue
        for tok in [child, *_conjuncts(child)]:
            name = _resolve_subject(tok, ctx)
            if name:
                names.append(name)
                names += _listed_in_apposition(tok, name, ctx)
    if not names and not any(c.dep_ in {"nsubj", "nsubjpass", "expl"} for c in verb.children):
        lead = _opening_name_mistagged(verb)
        names += [lead.text] if lead is not None else []
    return names


def _opening_name_mistagged(verb: Token) -> Token | None:
    """'Raj has been my manager for six years', 'Raj works at Tesco': a name opening the sentence that
    the small model tagged an adverb or a modifier of the verb, which then has no subject; it is the
    subject."""
    first = verb.sent[0]
    if first.head != verb or first.i >= verb.i or first.dep_ not in {"advmod", "npadvmod", "dep", "nmod"}:
        return None
    if not (first.is_title and first.is_alpha) or first.is_stop or _english_non_noun(first):
        return None  # "Honestly is the best policy", "Still is ..."
    # a first name, or a word tagged an adverb that no English adverb is
    return first if first.lower_ in first_names() or first.pos_ == "ADV" else None


# Words that open a line addressed to someone: "Hi Maria, ...", "Yep Jon, ..."
_GREETINGS = frozenset(
    {"hi", "hey", "hello", "hiya", "yep", "yeah", "yes", "ok", "okay", "thanks", "oh", "wow", "aww", "dear"}
)


def _addressed(subj: Token, verb: Token) -> bool:
    """'Hi Maria, I'm volunteering as a mentor', 'Yep Jon, staying focused is key': a name that opens
    the sentence, set off by a comma, is the one spoken to (the parser may make it a subject) when a
    greeting precedes it or the verb has a subject of its own besides it."""
    after = subj.i + 1
    if subj.pos_ != "PROPN" or after >= len(subj.doc) or subj.doc[after].text != ",":
        return False
    if any(c.dep_ in {"conj", "cc"} for c in subj.children):
        return False  # "Sam, Leo and I went to Paris": a list of subjects
    lead = [t for t in subj.sent if t.i < subj.i]
    greeting = [t for t in lead if t.lower_ in _GREETINGS or t.pos_ == "INTJ"]
    if any(t not in greeting and not (t.head == subj and t.pos_ == "PROPN") for t in lead):
        return False  # "Since Maria, ..." or "My friend Maria, ...": not a name spoken to
    other = any(c.dep_ in {"nsubj", "nsubjpass", "csubj"} and c != subj for c in verb.children)
    return bool(greeting) or other


def _stranded_pair(verb: Token, ctx: _Ctx) -> list[str]:
    """'Ahmed and I got married': the parser may hang the first of the pair off the verb as a
    modifier, with its "and"; that name is the other subject."""
    for tok in verb.children:
        paired = any(c.dep_ == "cc" and c.lower_ == "and" for c in tok.children)
        if tok.dep_ in {"npadvmod", "dep", "nmod"} and tok.pos_ == "PROPN" and paired and tok.i < verb.i:
            name = _name_of(tok, ctx, person=True)
            return [name] if name else []
    return []


def _listed_in_apposition(tok: Token, first: str, ctx: _Ctx) -> list[str]:
    """'Our twins, Ada and Ezra, have both got places': Ezra is a subject too."""
    appos = next((c for c in tok.children if c.dep_ == "appos"), None)
    if appos is None or tok.pos_ == "PROPN":
        return []
    others = (_name_of(c, ctx, person=True) for c in _conjuncts(appos))
    return [n for n in others if n and n != first]


_YEAR = re.compile(r"(?:19|20)\d\d(?:[-–](?:(?:19|20)?\d\d|now|present))?")


_BEFORE_A_DROPPED_I = frozenset({"ADV", "INTJ", "PUNCT", "CCONJ", "SPACE"})


def _year_word(tok: Token) -> bool:
    """A year or a span of years as written in notes: '2018', '2019-2022', '2022-now'."""
    return bool(_YEAR.fullmatch(tok.text))


def _dropped_subject(verb: Token, ctx: _Ctx) -> list[str]:
    """Chat drops the "I": "Started at Quillon today!", "Living in Wash Park now", "Moved to Leeds".

    Only in a user message, for a clause that opens the sentence with a past or -ing verb and has
    no subject, auxiliary or object clause of its own (imperatives use the base form: no fact).
    """
    training = verb.lemma_ == "do" and any(
        c.dep_ == "dobj" and (c.lower_ in DEGREE_NOUNS or c.lower_ in TRAINEESHIPS) for c in verb.children
    )  # "currently doing an internship at Deloitte"
    home = verb.lemma_ in HOME_FIND_VERBS and any(
        c.dep_ == "dobj" and c.lemma_.lower() in HOME_NOUNS for c in verb.children
    )  # "found a place in Caboolture"
    kin = verb.lower_ == "got" and any(
        c.dep_ == "dobj" and _is_kin(c) and any(k.pos_ == "PROPN" for k in c.children) for c in verb.children
    )  # "got 2 boys, Sam and Ollie"
    # "Got the job at Ocado!!", "Got a raise to 48k!": "got" said, though the model may tag it the base form
    jobs = [c for c in verb.children if c.dep_ == "dobj" and c.lemma_.lower() in JOB_NOUNS | RAISE_NOUNS]
    job = verb.lower_ == "got" and bool(jobs)
    # "Quit Deliveroo, starting at Octopus" (not "Quit smoking!": an imperative names no firm)
    quit = _quit_said_present(verb) and any(c.dep_ == "dobj" and c.pos_ == "PROPN" for c in verb.children)
    # "Live in Cardiff, work in Newport", "Work for Leeds City Council": a base form that opens the
    # line with a named place is a statement (no one is told to live in Cardiff)
    stated = (
        verb.lemma_ in {"live", "work"}
        and verb.tag_ in {"VB", "VBP"}
        and verb.i == verb.sent.start
        and any(
            p.pos_ == "PROPN"
            for prep in verb.children
            if prep.lower_ in {"in", "at", "for"}
            for p in prep.children
        )
    )
    if (
        ctx.message.role != "user"
        or (verb.tag_ not in {"VBD", "VBG", "VBN"} and not quit and not job and not stated)
        or (verb.lemma_ in LIGHT_VERBS and not training and not home and not kin and not job)
    ):
        return []
    # "Been living in Newcastle ten years": the perfect's "been" left of a dropped "I've"
    been = {c.i for c in verb.children if c.dep_ == "aux" and c.lower_ == "been" and verb.tag_ == "VBG"}
    # "Got hired by Shopify!", "got promoted to lead": the passive's "got" left of a dropped "I"
    # (a capitalised "Got" may be tagged a name, its lemma left "got")
    got = {c.i for c in verb.children if c.dep_ == "auxpass" and (c.lemma_ == "get" or c.lower_ == "got")}
    been |= got if verb.tag_ == "VBN" else set()
    # "2018 started at UiPath", "- 2015 moved from Cluj to Bucharest": a timeline's year opens the
    # line and the model made it the subject
    years = {t.i for t in verb.sent[: verb.i - verb.sent.start] if _year_word(t)}
    kids = [c for c in verb.children if c.i not in been | years]
    if any(c.dep_ in {"nsubj", "nsubjpass", "expl", "aux", "auxpass", "csubj"} for c in kids):
        return []
    sent = verb.sent
    lead = {t.i for c in verb.children if c.dep_ == "advcl" and _leading_clause(c) for t in c.subtree}
    before = [t for t in sent[: verb.i - sent.start] if t.i not in lead | been | years]
    # a bullet before it ("- moved to Leeds in May") the model may tag a symbol
    if any(t.pos_ not in _BEFORE_A_DROPPED_I and t.text not in BULLETS for t in before):
        owner = _line_owner(verb, ctx)  # "- Lucía: married Tom last spring": the key's person
        return [owner] if owner and owner != ctx.me and _keyed(before) else []
    return [ctx.me]


_KEY_MARKS = frozenset({":", "–", "—", "-"})


def _unbulleted(tokens: list[Token]) -> list[Token]:
    """The words of a line's start without spaces and the bullet that opens it (not the dash after a
    key: "- Hana – in Osaka")."""
    words = [t for t in tokens if not t.is_space]
    while words and words[0].text in BULLETS:
        words = words[1:]
    return words


def _keyed(before: list[Token]) -> bool:
    """Words before a verb that are only a note line's key: a bullet, a few words, a separator."""
    words = _unbulleted(before)
    sep = next((k for k, t in enumerate(words) if t.text in _KEY_MARKS), None)
    return sep is not None and sep == len(words) - 1


def _line_start(tok: Token) -> int:
    """Where the line `tok` is on starts (after the last line break before it)."""
    return next((t.i + 1 for t in reversed(tok.doc[: tok.i]) if t.is_space and "\n" in t.text), 0)


def _line_key(tok: Token) -> list[Token] | None:
    """The key of the note line `tok` is on, when the line opens with one ("- Hana: ...", "Ravi – ..."):
    its words before the separator, within the line's first six words."""
    words = _unbulleted(list(tok.doc[_line_start(tok) : tok.i]))
    sep = next((k for k, t in enumerate(words[:6]) if t.text in _KEY_MARKS), None)
    return words[:sep] if sep else None


def _line_owner(tok: Token, ctx: _Ctx) -> str | None:
    """Whom a note line's value is about ("- Hana: in Osaka now", "Dmitri – still at Gazprom Neft",
    "Tomás (my brother): moved to Lyon"): the person its key names; the speaker when no key names
    someone ("Home: Leeds", "update: ..."); None when the key is someone unnamed ("Dad: in Galway")."""
    return _key_owner(_line_key(tok), ctx)


def _key_owner(key: list[Token] | None, ctx: _Ctx) -> str | None:
    """Whom a line with this key is about: the speaker when there is no key, else `_key_person`."""
    return ctx.me if key is None else _key_person(key, ctx)


def _key_person(key: list[Token], ctx: _Ctx) -> str | None:
    """The person a note's key names ("Hana", "Tomás (my brother)", "Me"); the speaker for a key that
    names no one ("Home", "update"); None for someone unnamed ("Dad") or a name not sure to be one."""
    if any(t.text == "(" for t in key):
        key = key[: next(k for k, t in enumerate(key) if t.text == "(")]  # "Tomás (my brother)"
    if len(key) == 1 and key[0].lower_ in {"me", "myself"}:
        return ctx.me
    if any(_is_kin_word(t) or t.lower_ in FAMILY_NOUNS for t in key):
        return None
    named = key and len(key) <= 3 and all(t.is_title and t.is_alpha for t in key)
    if len(key) == 1 and key[0].lower_ in NOTE_KEY_WORDS:
        return ctx.me  # "Job: designer at Figma", "Work: still at Aviva": a word for what follows
    if named and (key[0].lower_ in first_names() or key[0].ent_type_ == "PERSON"):
        return " ".join(t.text for t in key)  # "Rosa", "Tom": names English also spells
    if len(key) == 1 and listed(key[0].lower_, key[0].vocab):
        return ctx.me  # "Car: ...", "Update: ...": an English word
    if named and key[0].pos_ == "PROPN":  # a name the model tags a place or a firm ("Dmitri"): not mine
        return " ".join(t.text for t in key) if not places.big_place(key[0].text) else None
    return ctx.me


def _leading_clause(advcl: Token) -> bool:
    """A subjectless clause the parser hung below the next one: "Living in Wash Park now, renting ...",
    or one opening the sentence in the past: "Taught maths at X for 31 years, finished up last June"."""
    if advcl.tag_ == "VBG":
        return True
    return (
        advcl.tag_ in {"VBD", "VBN"}
        and advcl.i == advcl.sent.start
        and not any(c.dep_ in {"nsubj", "nsubjpass", "mark", "aux", "auxpass"} for c in advcl.children)
    )


def _bare_name(tok: Token) -> bool:
    """A listed name with no owner or noun of its own: "my sons Leo and Max" lists Max, "my fiancé Théo
    and our dog Bear" does not list Bear (the dog has its own relation)."""
    return not any(c.dep_ in {"poss", "compound"} and c.pos_ in {"PRON", "NOUN"} for c in tok.children)


def _conjuncts(tok: Token) -> list[Token]:
    found: list[Token] = []
    for child in tok.children:
        if child.dep_ == "conj":
            found.append(child)
            found.extend(_conjuncts(child))
    return found


def _resolve_subject(tok: Token, ctx: _Ctx) -> str | None:
    low = tok.lower_
    if low in VALUE_NOUNS:
        return None  # "Salary is £61,000": a capitalised common noun, not a name
    if tok.tag_ == "PRP":
        if low in FIRST_PERSON:
            return ctx.me
        if low == "we" and ctx.message.role == "user":
            return ctx.me
        if low in {"he", "she"}:
            return _name_right_before(tok, ctx) or _only_person_before(tok, ctx)
        return None  # you, they, it: unresolved
    if _bare_parent(tok, ctx):
        return KIN_PREFIX + low  # "Mum works at Tesco": the model tags "Mum" a person's name
    name = _name_of(tok, ctx) or _opening_name(tok)
    if name:
        _appos_relation(tok, name, ctx)
        return name
    appos = next((c for c in tok.children if c.dep_ == "appos" and _name_of(c, ctx)), None)
    appos = appos if appos is not None else _name_by_commas(tok, ctx)
    if appos is not None:
        name = _name_of(appos, ctx, person=True)  # "Our twins, Ava and Noah": one at a time
        if name:
            _possessive_relation(tok, name, ctx)
            for other in filter(None, (_name_of(c, ctx, person=True) for c in _conjuncts(appos))):
                _possessive_relation(tok, other, ctx)  # ... and Noah
            return name
    return _my_kin(tok, ctx)


# Parents a speaker calls by the word alone, capitalised like a name ("Mum works at Tesco").
_PARENT_WORDS = frozenset({"mum", "mom", "mam", "mummy", "mommy", "dad", "daddy", "papa"})


def _bare_parent(tok: Token, ctx: _Ctx) -> bool:
    return (
        ctx.message.role == "user"
        and tok.lower_ in _PARENT_WORDS
        and tok.text[:1].isupper()
        and not any(c.dep_ in {"poss", "det", "compound"} for c in tok.children)
    )


def _my_kin(tok: Token, ctx: _Ctx) -> str | None:
    """'My husband is a chef', 'my mum has dementia': the speaker's kin by its word, whom the session
    names from an earlier "my husband Tom" (kin.KinNames; the fact is dropped if it cannot)."""
    if (
        ctx.message.role != "user"
        or tok.lower_ not in FEMALE_KIN | MALE_KIN
        or tok.pos_ not in {"NOUN", "PROPN"}
    ):
        return None
    if not any(c.dep_ == "poss" and c.lower_ in {"my", "our"} for c in tok.children):
        return None
    nxt = tok.doc[tok.i + 1] if tok.i + 1 < len(tok.doc) else None
    if nxt is not None and (nxt.pos_ == "PROPN" or nxt.lower_ in first_names()):
        return None  # "My mum Joan is 91", "my dad frank turned 80": the name beside it is the subject
    clause = tok.head
    if clause.lemma_ == "be" and any(c.dep_ == "attr" and c.pos_ == "PROPN" for c in clause.children):
        return None  # "My husband is Tom": the copula's rule names him
    if any(t.lower_ in {"called", "named"} for t in clause.subtree):
        return None  # "My husband is a chef called Tom"
    return KIN_PREFIX + tok.lower_


def _name_by_commas(noun: Token, ctx: _Ctx) -> Token | None:
    """'Tom, my husband of ten years, is ...', 'My partner of six years, Sam, got ...': a name set off
    by commas beside a possessed kin noun whose "of" phrase made the parser hang the two apart."""
    if not _is_kin(noun) or not _my_or_our(noun):
        return None
    doc, first, last = noun.doc, noun.left_edge.i, noun.right_edge.i
    if not any(c.dep_ == "prep" for c in noun.children):
        return None
    before = doc[first - 2] if first >= 2 and doc[first - 1].text == "," else None
    after = doc[last + 2] if last + 3 < len(doc) and doc[last + 1].text == "," else None
    if before is not None and (before.i == before.sent.start) and doc[last + 1].text == ",":
        named = before  # "Tom, my husband of ten years, is a plumber"
    elif after is not None and doc[after.i + 1].text == "," and noun.i == noun.sent.start + 1:
        named = after  # "My partner of six years, Sam, got a new job"
    else:  # "My boss at Tesco, Karen, is leaving": the name hung on the place, no person itself
        placed = (p for prep in noun.children if prep.dep_ == "prep" for p in _pobjs(prep) if p.ent_type_)
        hung = (a for p in placed if p.ent_type_ != "PERSON" for a in p.children if a.dep_ == "appos")
        found = next(hung, None)
        if found is None or found.i != found.head.i + 2 or doc[found.i - 1].text != ",":
            return None
        named = found
    ent = ctx.ents.get(named.i)
    return named if named.pos_ == "PROPN" and ent is not None and ent.label_ == "PERSON" else None


def _my_or_our(noun: Token) -> bool:
    """Said with "my" or "our" (the speaker's, or their household's)."""
    return any(c.dep_ == "poss" and c.lower_ in {"my", "our"} for c in noun.children)


def _no_one_elses(noun: Token) -> bool:
    """Owned by nobody but the speaker: "my"/"our" or no owner said ("the pension"), not "her salary"."""
    return all(c.lower_ in {"my", "our"} for c in noun.children if c.dep_ == "poss")


def _opening_name(tok: Token) -> str | None:
    """'Theo goes to Clapham Terrace': a first name opening a sentence that the small model tagged a
    common noun; a known first name, or one the message also writes as a name elsewhere, that is no
    relation word and no English adverb, adjective or verb."""
    if tok.pos_ != "NOUN" or not (tok.is_title and tok.is_alpha) or tok.i != tok.sent.start:
        return None
    if _is_kin_word(tok):
        return None
    named = any(t.text == tok.text and t.pos_ == "PROPN" for t in tok.doc if t.i != tok.i)
    if not named and tok.lower_ not in first_names():
        return None
    return None if _english_non_noun(tok) else tok.text


def _english_non_noun(tok: Token) -> bool:
    """Listed by the parser's word index as an English adverb, adjective or verb ("Recently", "Will"):
    a capitalised word that may be no name. A noun may be one ("Raj", "Theo" are listed as nouns)."""
    index = word_index(tok.vocab) or {}
    return any(tok.lower_ in index.get(pos, ()) for pos in ("adv", "adj", "verb"))


def _appos_relation(tok: Token, name: str, ctx: _Ctx) -> None:
    """'Carlos, my dad, ...' -> speaker has-dad Carlos."""
    for child in tok.children:
        if child.dep_ == "appos" and child.pos_ == "NOUN":
            _possessive_relation(child, name, ctx)


def _possessive_relation(noun: Token, name: str, ctx: _Ctx) -> None:
    """'my sister Maria' / "Alex's manager, Sam" -> owner has-sister/has-manager name."""
    poss = next((c for c in noun.children if c.dep_ == "poss"), None)
    if noun.like_num or (poss is None and not _the_spouse(noun, ctx)):  # "Maddie's 8": an age (kids.py)
        return
    if noun.lemma_.lower() in VALUE_NOUNS and not any(ch.isdigit() for ch in name):
        return  # "Mate, my salary at Tesco is £24k": the parse made the vocative the salary's name
    owner = _owner(poss, ctx, noun) if poss is not None else ctx.me
    if noun.text.islower() and name.startswith(noun.text + " "):
        name = name[len(noun.text) + 1 :]  # "our pup Ziggy" tagged one person: the name is Ziggy
    if owner and owner != name:
        _emit(ctx, owner, _relation_predicate(noun), name, 0.6, obj_tok=None, obj_type=_kin_type(noun))


def _named(tok: Token, ctx: _Ctx) -> bool:
    """A proper noun, or a word the model tagged a person's name whatever its part of speech."""
    ent = ctx.ents.get(tok.i)
    return tok.pos_ == "PROPN" or (ent is not None and ent.label_ == "PERSON")


def _the_spouse(noun: Token, ctx: _Ctx, named: Token | None = None) -> bool:
    """'the hubby Craig', 'the other half, Dev', 'the missus': said with 'the', a spouse word is the
    speaker's own (British chat); 'the manager' or 'the son' is nobody's in particular. The 'the' may
    hang on the name the spouse word is a compound of (`named`). So is a pet named beside "the dog"
    ("The dog, Moss, is loving the beach")."""
    the = any(c.dep_ == "det" and c.lower_ == "the" for c in (named or noun).children)
    # "husband ryan drives for uber": chat drops the "my" of a spouse word opening the sentence
    bare = noun.i == noun.sent.start and not any(c.dep_ in {"det", "poss"} for c in (named or noun).children)
    spouse = RELATION_PREDICATES.get(noun.lemma_.lower()) == "is-married-to" or _other_half(noun)
    pet = the and noun.lemma_.lower() in PET_NOUNS and named is None  # "The dog, Moss, loves the beach"
    return (((the or bare) and spouse) or pet) and ctx.message.role == "user"


def _owner(poss: Token, ctx: _Ctx, noun: Token | None = None) -> str | None:
    if poss.lower_ in FIRST_PERSON_POSS:
        return ctx.me
    if poss.lower_ == "our":  # "our son Leo": the speaker's family; "our team": not the speaker's
        # "Graham, our ward manager": the boss of a group the speaker is in is the speaker's boss
        family = noun is not None and (
            noun.lemma_.lower() in FAMILY_NOUNS
            or noun.lower_ in MULTIPLE_BIRTHS
            or _children_word(noun)
            or _is_manager_noun(noun)
            or noun.lemma_.lower() in PET_NOUNS  # "our labrador Max", "our tortoise Sheldon"
        )
        return ctx.me if family and ctx.message.role == "user" else None
    return _name_of(poss, ctx)


_NEVER_IN_A_NAME = frozenset({"as", "at", "to", "into", "onto", "from"})


def _name_of(tok: Token, ctx: _Ctx, person: bool = False, with_of: bool = False) -> str | None:
    """The proper name a token stands for: its entity span, or its PROPN compound chain.

    With `person`, an entity span joining names ("Noah and Ella", typed as one organisation by
    the small model) is cut at the conjunction around `tok`: people are named one at a time.
    With `with_of`, a name "of" a name is one name ("Port of Rotterdam").
    """
    if tok.i in ctx.names:
        return ctx.names[tok.i]
    ent = ctx.ents.get(tok.i)
    if ent is not None and (_name_before_date(tok, ent) or _place_tagged_a_date(tok, ent)):
        ent = None  # "at Lidl last week" tagged one date: the name is Lidl
    elif ent is not None and ent.label_ in SKIP_ENT_LABELS:
        return None
    particled = _particle_name(tok)
    if particled is not None:
        return particled  # "ruan du plessis": the model tags the particle and the surname common words
    if tok.pos_ != "PROPN" or _is_kin_word(tok):
        return None  # "Mum had a fall", "Hubby's name is Dev": a relation, not a name
    if tok.is_sent_start and tok.lower_ in CHAT_VERBS_OPENING:
        return None  # "Got offered a job at X": chat's dropped "I", not someone called Got
    # Union of the entity span and the compound/number chain: NER often splits "2015 Honda Civic".
    chain = [
        c.i
        for c in tok.children
        if c.dep_ in {"compound", "nummod"} and c.pos_ in {"PROPN", "NUM"} and not _relation_word(c)
    ]  # "my gf priya": the tagger may call a lower-case "gf" a name
    start = min([tok.i, *chain, *([ent.start] if ent is not None else [])])
    if start <= tok.head.i < tok.i and tok.head.pos_ == "VERB":
        start = tok.head.i + 1  # "Left Walmart last year": the opening verb the model ran into the name
    if start < tok.i and tok.doc[start].is_sent_start and tok.doc[start].lower_ in CHAT_VERBS_OPENING:
        start += 1  # "Meet Pickle, our new kitten!": tagged one name
    end = max([tok.i, *(c.i for c in tok.rights if c.dep_ == "nummod")])  # "iPhone 15"
    if ent is not None:
        end = max(end, ent.end - 1)
    # the small model runs a name into what follows ("Brightwave on the 3rd of March")
    end = min([end, *(t.i - 1 for t in tok.doc[tok.i + 1 : end + 1] if t.lower_ in NAME_BREAKS)])
    # ... or runs the name and a role into one ("Wipro as Technical Lead", "Head of Design at Helix"),
    # or two places into one ("moved from Cluj to Bucharest"): no name holds a lower-case "as", "at",
    # "to" or "from"
    start = max([start, *(t.i + 1 for t in tok.doc[start : tok.i] if t.text in _NEVER_IN_A_NAME)])
    end = min([end, *(t.i - 1 for t in tok.doc[tok.i + 1 : end + 1] if t.text in _NEVER_IN_A_NAME)])
    while (
        ent is not None
        and ent.label_ == "PERSON"
        and start < tok.i
        and (tok.doc[start].lower_ in _KIN_OPENERS or tok.doc[start].tag_ == "PRP$")
    ):
        start += 1  # "Hubby Manoj got transfer ...", "My stepson Kai": the model ran the kin word into a name
    if person:
        while end > tok.i and tok.doc[end].text.isdigit() and len(tok.doc[end].text) <= 2:
            end -= 1  # "my kids are Lily 8 and Max 5": the number after a person's name is an age
        cuts = [t.i for t in tok.doc[start : end + 1] if t.dep_ == "cc" or t.text == ","]
        start = max([start, *(c + 1 for c in cuts if c < tok.i)])
        end = min([end, *(c - 1 for c in cuts if c > tok.i)])
    inner = _of_object(tok) if with_of else None
    if inner is not None and inner.pos_ == "PROPN" and inner.i > end:
        end = inner.i
    if end + 1 < len(tok.doc) and tok.doc[end + 1].tag_ == "POS" and tok.dep_ in {"pobj", "dobj", "attr"}:
        end += 1  # "at St Anne's", "at McDonald's": the possessive is part of the name
    start, end = _hyphen_glued(tok.doc, start, end)
    # a date the small model runs into the name ("my brother tom yesterday") is no part of it
    end = min([end, *(t.i - 1 for t in tok.doc[tok.i + 1 : end + 1] if _is_date(t, ctx))])
    while end > tok.i and tok.doc[end].is_punct and tok.doc[end].text in ".,!?;:":
        end -= 1  # an entity span that swallowed the full stop ("is Gethin.")
    name = _strip_det(tok.doc[start : end + 1], keep_possessive=tok.dep_ in {"pobj", "dobj", "attr"})
    return _capitalised(name)


def _particle_name(tok: Token) -> str | None:
    """'Ruan du Plessis', 'jan van der merwe', 'Ana de Souza': a surname with a particle before it,
    ending at `tok`, written as such names are (the particle lower-case). The first word must be
    a name: no stop or relation word, no English word unless a known first name."""
    doc = tok.doc
    start = tok.i
    while start > 0 and tok.i - start < MAX_PARTICLES and doc[start - 1].lower_ in NAME_PARTICLES:
        start -= 1
    if start == tok.i or start == 0 or tok.lower_ in NAME_PARTICLES:
        return None
    words = doc[start - 1 : tok.i + 1]
    first = words[0]
    if any(t.head.i not in range(words.start, words.end) for t in words if t.i != tok.i):
        return None  # the words hang together: "met her in la paz" is no name "her la Paz"
    if not (first.is_alpha and tok.is_alpha) or first.is_stop or _is_kin_word(first):
        return None
    if any(_common_word(t) for t in (first, tok)):
        return None  # "the cafe de flore", "a tour de force"
    return " ".join(t.text if t.lower_ in NAME_PARTICLES else _capitalised(t.text) for t in words)


def _common_word(tok: Token) -> bool:
    """A lower-case word the word index lists (and no known first name), or an English non-noun."""
    if tok.is_lower and tok.lower_ not in first_names():
        return bool(listed(tok.lower_, tok.vocab))
    return _english_non_noun(tok)


def _unkinned(name: str) -> str:
    """A person's name without the kin word the model ran into it ("Hubby Manoj" -> "Manoj")."""
    words = name.split()
    while len(words) > 1 and words[0].lower() in _KIN_OPENERS:
        words = words[1:]
    return " ".join(words)


def _capitalised(name: str) -> str:
    """Chat writes names in lower case ("katrin", "hamburg"): a name is stored capitalised."""
    return " ".join(w[:1].upper() + w[1:] for w in name.split(" ")) if name.islower() else name


def _person_cased(name: str) -> str:
    """A person's name as written in full ("Jan van der merwe" -> "Jan van der Merwe"): each word
    capitalised but the particles."""
    return " ".join(
        w if w in NAME_PARTICLES or not w.islower() else w[:1].upper() + w[1:] for w in name.split(" ")
    )


def _object_phrase(tok: Token, ctx: _Ctx, with_of: bool = False, prefer_name: bool = True) -> str | None:
    """Noun phrase of an object without determiners: compounds, adjectives, numbers, names."""
    if tok.tag_ in {"PRP", "PRP$", "EX"} or tok.tag_ in WH_TAGS or tok.pos_ in {"PRON", "NUM"}:
        return None
    ent = ctx.ents.get(tok.i)
    if ent is not None and ent.label_ in SKIP_ENT_LABELS:
        return None
    named = _called_name(tok, ctx) if prefer_name else None
    if named:
        return named
    if tok.lemma_.lower() in QUANTITY_HEADS:
        inner = _of_object(tok)
        return _object_phrase(inner, ctx) if inner is not None else None
    eponym = _eponym(tok)
    if eponym is not None:
        return eponym
    if tok.pos_ == "PROPN":
        text = _name_of(tok, ctx) or tok.text
    elif tok.lower_ in GENERIC_OBJECTS or any(c.dep_ == "poss" for c in tok.children):
        return None
    else:
        mods = [c for c in tok.subtree if c.i <= tok.i and _is_modifier_of(c, tok)]
        start = min([tok.i, *(m.i for m in mods)])
        end = max([tok.i, *(c.i for c in tok.rights if c.dep_ == "nummod")])  # "iPhone 15"
        start, end = _hyphen_glued(tok.doc, start, end)  # "the co-op": split at the hyphen, one word
        text = tok.doc[start : end + 1].text
    inner = _of_object(tok) if with_of else None
    if inner is not None:
        tail = _object_phrase(inner, ctx)
        if tail and not text.endswith(tail):  # the entity span may already hold "of X"
            text = f"{text} of {tail}"
    return text


def _eponym(tok: Token) -> str | None:
    """ "Parkinson's disease", "Crohn's disease", "Bell's palsy": a condition named after a person
    (the parse makes the name its owner)."""
    if tok.lemma_.lower() not in DISEASE_HEADS | {"palsy", "lymphoma"}:
        return None
    owner = next((c for c in tok.children if c.dep_ == "poss" and c.pos_ == "PROPN"), None)
    if owner is None or owner.i + 2 != tok.i or tok.doc[owner.i + 1].tag_ != "POS":
        return None
    return tok.doc[owner.i : tok.i + 1].text


def _is_modifier_of(tok: Token, head: Token) -> bool:
    """True if tok is inside head's compound/amod/nummod chain (left side only)."""
    cur = tok
    while cur.i != head.i:
        if cur.dep_ not in {"compound", "amod", "nummod", "nmod", "punct", "quantmod", "npadvmod"}:
            return False
        if cur.dep_ == "amod" and cur.lower_ in EVALUATIVE:
            return False
        cur = cur.head
    return True


def _of_object(tok: Token) -> Token | None:
    for prep in tok.children:
        if prep.dep_ == "prep" and prep.lower_ == "of":
            return next((c for c in prep.children if c.dep_ == "pobj"), None)
    return None


def _called_name(tok: Token, ctx: _Ctx) -> str | None:
    """'a band called The Lumens', 'a cat named Pixel', 'kids, Lily and Ben' -> the name. Not past a
    firm the parse hung it over: "an assistant at a small firm called Heywood & Co" names the firm."""
    for acl in tok.children:
        if any(t.lemma_.lower() in FIRM_NOUNS for t in tok.doc[tok.i + 1 : acl.i]) and tok.i < acl.i:
            continue
        if acl.dep_ == "acl" and acl.lemma_ in {"call", "name"}:
            oprd = next((c for c in acl.children if c.dep_ in {"oprd", "attr", "dobj"}), None)
            after = acl.doc[acl.i + 1] if acl.i + 1 < len(acl.doc) else None
            if oprd is None and after is not None and after.head == acl and after.is_title and after.is_alpha:
                oprd = after  # "a firm called Ledgerly": tagged an adverb
            if oprd is not None:
                named = oprd.pos_ == "PROPN" or (oprd.is_title and oprd.is_alpha)  # "Bramble": an adjective
                return _name_of(oprd, ctx) or (oprd.text if named else None)
    return None


def _kin_or_pet_key(tok: Token) -> bool:
    """A line's key that names whom or what the speaker has: a spouse, child or pet word."""
    lemma = tok.lemma_.lower()
    spouse_or_child = RELATION_PREDICATES.get(lemma) in {"is-married-to", "has-partner", "has-child"}
    return tok.pos_ in {"NOUN", "PROPN"} and (spouse_or_child or lemma in PET_NOUNS)


def _person_word(tok: Token, ctx: _Ctx) -> bool:
    """A word the model tags a person's name, or a known first name whatever its tag."""
    ent = ctx.ents.get(tok.i)
    return (ent is not None and ent.label_ == "PERSON") or tok.lower_ in first_names()


def _lower_first_name(tok: Token) -> str | None:
    """A first name typed in lower case ("proposing to jess", "separated from dan (husband)"), capitalised."""
    return tok.text.capitalize() if tok.lower_ in first_names() and tok.is_lower else None


def _lowercase_name_run(tok: Token) -> str | None:
    """'sandeep', 'kavya reddy' as a whole value (a line ends there): the name, capitalised."""
    doc = tok.doc
    end = tok.i + 1
    while end < len(doc) and end - tok.i < 3 and doc[end].is_alpha and not doc[end].is_stop:
        end += 1
    if end < len(doc) and not doc[end].is_punct:
        return None
    words = doc[tok.i : end]
    if any(
        t.is_stop
        or t.lower_ in NOT_NAMES
        or t.lower_ in JOB_TITLE_NOUNS
        or t.pos_ not in {"NOUN", "PROPN", "ADJ"}
        or (t.pos_ == "ADJ" and (t.lower_ in PLAIN_ADJECTIVES or t.lower_.endswith(ADJECTIVE_ENDINGS)))
        for t in words
    ):
        return None  # "manager will be happy": an adjective the small model cannot tell from "sandeep"
    return _capitalised(words.text)


def _only_person_before(pron: Token, ctx: _Ctx) -> str | None:
    """He/she is the one person the message named before it ("my daughter Isla needs a costume,
    she's six"); with two or more candidates (or none) the pronoun stays unresolved."""
    names = {
        _unkinned(_strip_det(ent))
        for ent in set(ctx.ents.values())
        if ent.label_ == "PERSON"
        and ent.end <= pron.i
        and ent.text.strip()
        and not _a_city(ent.text)
        and not _is_school(ent.text)  # "Lucas hates Kingswood Prep. He's 10": a school tagged a person
    }
    related = (f for f in ctx.out if f.object_type == "person" and f.predicate.startswith(("has-", "is-")))
    names |= {f.object for f in related}
    names = {
        n
        for n in names
        if n != ctx.me
        and n.lower() not in RELATION_PREDICATES
        and n.lower() not in FAMILY_NOUNS
        and not all(w in CAR_NAMES for w in n.split())  # "a used Renault Clio"
    }
    folded = {n.casefold() for n in names}
    # "Dana" and "Dana Reyes" are one person
    distinct = {n for n in folded if not any(o != n and o.startswith(n + " ") for o in folded)}
    if (
        not distinct
        and ctx.message.role == "user"
        and (not any(_named_thing(t, ctx) for t in pron.doc[: pron.i]) or _same_pronoun_before(pron))
    ):
        # the message opens with he/she ("he said yes to airbus"): an earlier one's
        return f"{PRONOUN}:{_gender(pron)}"
    if not distinct and ctx.message.role == "user" and (hints := _names_before(pron, ctx)):
        # "Big news from Ciarán. He's leaving Intel": a name the model did not tag a person; the
        # session knows whether one of them is (spacy_ner.SessionPeople)
        return f"{PRONOUN}:{_gender(pron)}|" + "|".join(hints)
    if len(distinct) != 1 or _kin_between(pron):
        return None
    # the longest spelling, a capitalised one before another ("Zanele" the relation gave, "zanele" the
    # text): a set's order would make the choice differ between processes (hash seeds)
    return max(names, key=lambda n: (len(n), n[:1].isupper(), n))


def _gender(pron: Token) -> str:
    """'f' for she/her, 'm' for he/him."""
    return "f" if pron.lower_ in {"she", "her"} else "m"


def _kin_between(pron: Token) -> bool:
    """'Maddie's 8. honestly mom is getting too old for this she has COPD': a kin word of the pronoun's
    gender, the subject of a clause after the last name before it, is whom it means, not the name."""
    doc = pron.doc
    last = max((t.i for t in doc[: pron.i] if t.pos_ == "PROPN"), default=-1)
    kin = FEMALE_KIN if _gender(pron) == "f" else MALE_KIN
    # a subject of its own ("mom is getting ..."), not the name's relation ("Sam's my husband. he's ...")
    return any(t.lower_ in kin and t.dep_ in {"nsubj", "nsubjpass"} for t in doc[last + 1 : pron.i])


MAX_HINTS = 4  # names before a he/she the session may know as people
# "3 in Jan. she's at ...": a month or a day before a he/she names nobody it could mean
_CALENDAR = frozenset(
    w.lower().rstrip(".")
    for w in (*calendar.month_name, *calendar.month_abbr, *calendar.day_name, *calendar.day_abbr, "sept")
    if w
)


def _named_thing(tok: Token, ctx: _Ctx) -> bool:
    """A noun or name a he/she after it might mean: not a date ("3 in Jan.", "on Monday")."""
    dated = _is_date(tok, ctx) or tok.lower_.rstrip(".") in _CALENDAR
    return tok.pos_ in {"NOUN", "PROPN"} and not dated


def _names_before(pron: Token, ctx: _Ctx) -> list[str]:
    """The proper names the message writes before `pron`, not the speaker's nor a relation word; the
    one first name that may be the he/she, if only one may, marked (`_first_name_for`)."""
    found: dict[str, Token] = {}
    for tok in pron.doc[: pron.i]:
        if tok.pos_ != "PROPN" or (tok.dep_ == "compound" and tok.head.pos_ == "PROPN") or _is_kin_word(tok):
            continue  # a name's last word stands for it; "Arjun news": a name before a common noun
        if not _named_thing(tok, ctx):
            continue  # "3 in Jan."
        name = _name_of(tok, ctx, person=True)
        if name and name != ctx.me and "|" not in name:
            found.setdefault(name, tok)
    names = list(found)[-MAX_HINTS:]
    maybe = [n for n in names if _may_be(found[n], pron)]
    return [FIRST_NAME_MARK + n if maybe == [n] and _first_name_for(found[n], pron) else n for n in names]


def _may_be(tok: Token, pron: Token) -> bool:
    """A first name Faker gives the pronoun's gender, or both ("Sofia", though a capital too)."""
    return tok.lower_ in first_names() and gender_of(tok.lower_) in {None, _gender(pron)}


def _first_name_for(tok: Token, pron: Token) -> bool:
    """'Maya left Tesco. She's at Aldi now': a first name the he/she may mean though neither the model
    nor the session knows it as a person: one of the pronoun's gender (`_may_be`), no English adverb,
    adjective or verb ("Will") and no big place ("Paris")."""
    return _may_be(tok, pron) and not _english_non_noun(tok) and not places.big_place(tok.text)


def _same_pronoun_before(pron: Token) -> bool:
    """'She's a pharmacist. She's been at Boots for six years': every sentence before this one is about
    the same he/she, and no name came between, so this one is still that person."""
    doc = pron.doc
    before = [s for s in doc.sents if s.end <= pron.sent.start]
    if not before or any(t.pos_ == "PROPN" for t in doc[: pron.i]):
        return False
    return all(
        any(t.dep_ in {"nsubj", "nsubjpass"} and t.lower_ == pron.lower_ for t in s)
        and not any(t.dep_ in {"nsubj", "nsubjpass"} and t.lower_ != pron.lower_ for t in s)
        and s[0].lower_ == pron.lower_
        for s in before
    )


def _name_right_before(pron: Token, ctx: _Ctx) -> str | None:
    """'Étienne he has more night shifts', 'Mathis he is 3': a person's name right before a he/she is
    the one it repeats (a topic named, then its pronoun, as learners of English and quick typists write)."""
    if pron.i == 0:
        return None
    prev = pron.doc[pron.i - 1]
    if prev.dep_ == "compound" or not (
        prev.pos_ == "PROPN" or (prev.is_title and prev.lower_ in first_names())
    ):
        return None
    ent = ctx.ents.get(prev.i)
    tagged = ent.label_ == "PERSON" if ent is not None else prev.lower_ in first_names()
    return _name_of(prev, ctx, person=True) if tagged else None


def _pronoun_name(pron: Token, ctx: _Ctx) -> str | None:
    """'... Leo, he's four': a he/she right after 'Name,' is that name; so is one right after a
    person's name (`_name_right_before`)."""
    doc = pron.doc
    if (named := _name_right_before(pron, ctx)) is not None:
        return named
    if pron.i < 2 or doc[pron.i - 1].text != ",":
        return None
    prev = doc[pron.i - 2]
    ent = ctx.ents.get(prev.i)
    if prev.pos_ != "PROPN" or (ent is not None and ent.label_ not in {"PERSON", "ORG", "GPE"}):
        return None
    return _name_of(prev, ctx, person=True)


def _employer_named(tok: Token, name: str, ctx: _Ctx) -> bool:
    """A name that can be an employer where the clause says it is one: untagged, an organisation, or
    a place or person tag the small model gives a firm ("Costa", "Arcadia", "Argos") unless it is a
    known city or country."""
    ent = ctx.ents.get(tok.i)
    if ent is None or ent.label_ not in {"PERSON", "GPE", "LOC", "DATE", "TIME"}:
        return True
    return ent.label_ in {"PERSON", "GPE", "LOC"} and not places.big_place(name)
