"""spaCy dependency-parse fact tier: zero-LLM subject-predicate-object triples.

Why rule-based: this tier runs on every message with no model beyond the spaCy pipeline that
already parsed it, so it must be fast and, above all, precise. Wrong facts are worse than
missing ones, so every construction we are unsure of (questions, conditionals, modals, hedges,
negation, unresolved pronouns, unnamed subjects) yields nothing. The rules and the predicate
vocabulary are documented in docs/extraction-facts.md.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field

from spacy.tokens import Doc, Span, Token

from knowledge_engine.extract.nlp import LABEL_TYPES
from knowledge_engine.model.extraction import FactCandidate
from knowledge_engine.model.records import EntityType, Message
from knowledge_engine.observe import counters, emit

# --------------------------------------------------------------------------- vocabulary

MODALS = {"would", "could", "should", "might", "may", "will", "'ll", "'d", "can", "must", "shall", "wo", "ca"}
HEDGES = {"maybe", "perhaps", "probably", "possibly", "hopefully", "apparently", "supposedly", "allegedly"}
CONDITIONAL_MARKS = {"if", "unless", "whether"}
MARKS = {"if", "unless", "whether", "that", "because", "since", "although", "though", "when", "while"}
# Roots that turn a preceding clause into an opinion or hearsay ("Tom works at X, I think").
HEDGE_VERBS = {
    "think",
    "guess",
    "suppose",
    "believe",
    "assume",
    "hope",
    "wish",
    "imagine",
    "bet",
    "feel",
    "reckon",
    "doubt",
    "say",
    "hear",
    "tell",
    "seem",
    "mean",
    "wonder",
}
# Verbs whose direct object is rarely a durable fact ("I need a break", "I have a meeting").
LIGHT_VERBS = {
    "have",
    "get",
    "do",
    "make",
    "take",
    "need",
    "want",
    "think",
    "know",
    "see",
    "say",
    "tell",
    "mean",
    "let",
    "try",
    "guess",
    "hope",
    "feel",
    "remember",
    "forget",
    "ask",
    "give",
    "put",
    "call",
    "check",
    "wonder",
    "find",
    "help",
    "send",
    "show",
    "read",
    "book",
    "summarise",
    "summarize",
    "keep",
    "use_to",
    "look",
    "sound",
    "seem",
    "miss",
    "wish",
    "plan",
    "expect",
    "imagine",
    "believe",
    "appreciate",
    "thank",
}
ASPECTUAL = {"start", "begin", "continue", "keep", "still"}
# Objects that carry no information on their own.
GENERIC_OBJECTS = {
    "thing",
    "things",
    "stuff",
    "lot",
    "time",
    "way",
    "one",
    "job",
    "idea",
    "day",
    "week",
    "bit",
    "something",
    "anything",
    "everything",
    "nothing",
    "someone",
    "anyone",
    "everyone",
    "all",
    "both",
}
QUANTITY_HEADS = {"bit", "lot", "kind", "sort", "couple", "type", "lots"}
EVALUATIVE = {
    "great",
    "good",
    "nice",
    "best",
    "bad",
    "terrible",
    "amazing",
    "awesome",
    "huge",
    "big",
    "real",
    "perfect",
    "wonderful",
    "beautiful",
    "lovely",
    "fun",
    "cool",
    "fantastic",
    "awful",
    "horrible",
    "better",
    "lively",
    "vibrant",
    "charming",
    "popular",
    "famous",
    "interesting",
    "busy",
    "quiet",
    "expensive",
    "cheap",
    "favorite",
    "favourite",
}
# Prepositions kept after a verb; "on" only with work ("works on the payments team").
VERB_PREPS = {"at", "in", "to", "from", "with", "for", "as", "into"}
# Verbs whose "for" names an employer or a goal ("works for", "trains for", "signed up for").
FOR_VERBS = {
    "work",
    "train",
    "volunteer",
    "play",
    "write",
    "sign",
    "apply",
    "vote",
    "design",
    "consult",
    "run",
}
STUDENT_NOUNS = {"student", "pupil", "undergraduate", "undergrad", "postdoc", "researcher", "fellow"}
DIET_ADJECTIVES = {"vegetarian", "vegan", "pescatarian"}
# Passive participles that read as states: "is obsessed with", "is based in".
PASSIVE_PREPS = {"with", "to", "in", "into", "about", "on", "at"}
SKIP_ENT_LABELS = {"DATE", "TIME", "CARDINAL", "ORDINAL", "QUANTITY", "PERCENT"}
# Verb-preposition pairs renamed to the shared vocabulary (come from = is from).
PREDICATE_ALIASES = {
    "comes-from": "is-from",
    "came-from": "is-from",
    "bears-in": "born-in",
    "was-born-in": "born-in",
}
IRREGULAR_PAST = {
    "be": "was",
    "have": "had",
    "go": "went",
    "grow": "grew",
    "teach": "taught",
    "buy": "bought",
    "speak": "spoke",
    "drive": "drove",
    "take": "took",
    "make": "made",
    "begin": "began",
    "run": "ran",
    "come": "came",
    "leave": "left",
    "get": "got",
    "do": "did",
    "write": "wrote",
    "sell": "sold",
    "build": "built",
    "meet": "met",
    "know": "knew",
    "fly": "flew",
    "swim": "swam",
    "sing": "sang",
    "lead": "led",
    "sit": "sat",
    "win": "won",
    "spend": "spent",
    "study": "studied",
}
IRREGULAR_PRESENT = {"be": "is", "have": "has", "do": "does", "go": "goes"}
FIRST_PERSON = {"i", "me", "myself"}
FIRST_PERSON_POSS = {"my", "mine"}
WH_TAGS = {"WP", "WRB", "WDT", "WP$"}


# A fact value: letters, digits and the punctuation of names, emails, URLs and amounts.
CLEAN_VALUE = re.compile(r"^[\w€$£¥][\w .,'’&@/:+%€$£¥-]*$")
MAX_VALUE_WORDS = 8
MAX_SENTENCE_TOKENS = 60  # longer "sentences" are usually pasted text whose parse is unreliable


@dataclass
class _Ctx:
    """Per-message state: who "I" is, and the entity spans of the doc."""

    message: Message
    ents: dict[int, Span]
    out: list[FactCandidate] = field(default_factory=list)

    @property
    def me(self) -> str:
        if self.message.speaker and self.message.speaker.strip():
            return self.message.speaker.strip()
        return "assistant" if self.message.role == "assistant" else "user"


# --------------------------------------------------------------------------- public API


def extract_triples(doc: Doc, message: Message) -> list[FactCandidate]:
    """Triples from one parsed message; the speaker resolves first-person subjects.

    A doc without a dependency parse (parser disabled) is a counted skip, not an error.
    """
    if not doc.has_annotation("DEP"):
        counters.inc("extract.spacy.facts_skipped_unparsed")
        return []
    try:
        return _extract(doc, message)
    except Exception as exc:  # a parse shape the rules did not foresee must not stop ingestion
        counters.inc("extract.spacy.facts_failed")
        emit("facts.spacy.failed", level=logging.WARNING, message_id=message.id, error=type(exc).__name__)
        return []


def _extract(doc: Doc, message: Message) -> list[FactCandidate]:
    ctx = _Ctx(message=message, ents={t.i: e for e in doc.ents for t in e})
    for sent in doc.sents:
        if _is_question(sent):
            continue
        if len(sent) > MAX_SENTENCE_TOKENS:
            counters.inc("extract.spacy.facts_skipped_long_sentence")
            continue
        for root in (t for t in sent if t.dep_ == "ROOT"):
            for clause_root in _clause_roots(root):
                for head, subjects, past in _clauses(clause_root, ctx):
                    _clause_facts(head, subjects, past, ctx)
    return _dedupe(ctx.out)


def _clause_roots(root: Token) -> list[Token]:
    """Independent clauses the parser hung below the root in chat-style run-on sentences.

    "I live in Berlin now, so I want to find a club" parses the first clause as a ccomp of
    "want"; "Update: I accepted the offer" parses it as an acl of "Update". Such a clause is
    kept when it comes before the root and the root is not a hedge or report ("..., I think").
    """
    roots = [root]
    if root.pos_ not in {"VERB", "AUX"}:
        roots += [c for c in root.children if c.dep_ in {"acl", "appos"} and _has_subject(c)]
        return roots
    if root.lemma_ in HEDGE_VERBS:
        return roots
    for child in root.children:
        if child.dep_ == "ccomp" and child.i < root.i and _has_subject(child) and not _has_mark(child, MARKS):
            roots.append(child)
    return roots


def _has_subject(verb: Token) -> bool:
    return verb.pos_ in {"VERB", "AUX"} and any(c.dep_ in {"nsubj", "nsubjpass"} for c in verb.children)


# --------------------------------------------------------------------------- sentence filters


def _is_question(sent: Span) -> bool:
    """Questions assert nothing: trailing '?', a leading wh-word, or aux-subject inversion."""
    words = [t for t in sent if not t.is_punct]
    if not words or sent.text.rstrip().endswith("?"):
        return True
    first = words[0]
    if first.tag_ in WH_TAGS:
        return True
    return first.dep_ == "aux" and len(words) > 1 and words[1].dep_ in {"nsubj", "nsubjpass"}


def _is_irrealis(verb: Token) -> bool:
    """Negated, modal, hedged or conditional clauses are not stored as facts."""
    for child in verb.children:
        low = child.lower_
        if child.dep_ == "neg" or low in {"never", "not", "n't"}:
            return True
        if child.dep_ == "aux" and (child.tag_ == "MD" or low in MODALS):
            return True
        if child.dep_ == "advmod" and (low in HEDGES or any(g.dep_ == "neg" for g in child.children)):
            return True
        if child.dep_ == "advcl" and child.i < verb.i and _has_mark(child, CONDITIONAL_MARKS):
            return True
        if child.dep_ == "xcomp" and child.lemma_ == "go" and verb.lemma_ == "be":
            return True
    return verb.lemma_ == "go" and any(c.dep_ == "xcomp" for c in verb.children)


def _has_mark(verb: Token, marks: set[str]) -> bool:
    return any(c.dep_ == "mark" and c.lower_ in marks for c in verb.children)


# --------------------------------------------------------------------------- clauses


def _clauses(root: Token, ctx: _Ctx) -> list[tuple[Token, list[str], bool]]:
    """Main clause and its verb conjuncts, each with resolved subjects and tense (past?)."""
    result: list[tuple[Token, list[str], bool]] = []
    subjects = _subjects(root, ctx)
    if root.pos_ not in {"VERB", "AUX"} or _is_irrealis(root):
        return result
    if not subjects and root.lemma_ == "be":
        subj_tok = next((c for c in root.children if c.dep_ == "nsubj"), None)
        if subj_tok is not None:
            _possessive_copular(root, subj_tok, ctx)
    _add_clause(root, subjects, result)
    for conj in _verb_conjuncts(root):
        if _is_irrealis(conj) or _inherits_negation(root, conj):
            continue
        own = _subjects(conj, ctx)
        has_own = any(c.dep_ in {"nsubj", "nsubjpass"} for c in conj.children)
        _add_clause(conj, own if has_own else subjects, result)
    return result


def _verb_conjuncts(verb: Token) -> list[Token]:
    found: list[Token] = []
    for child in verb.children:
        if child.dep_ == "conj" and child.pos_ in {"VERB", "AUX"}:
            found.append(child)
            found.extend(_verb_conjuncts(child))
    return found


def _inherits_negation(root: Token, conj: Token) -> bool:
    """'I don't live in X or work at Y': a conjunct with no own auxiliary shares the negation."""
    own_aux = any(c.dep_ in {"aux", "nsubj"} for c in conj.children)
    return not own_aux and any(c.dep_ == "neg" for c in root.children)


def _add_clause(verb: Token, subjects: list[str], out: list[tuple[Token, list[str], bool]]) -> None:
    """Follow 'used to' (past) and aspectual verbs ('started working at') to the content verb."""
    if not subjects:
        return
    past = _is_past(verb)
    xcomp = next((c for c in verb.children if c.dep_ == "xcomp" and c.pos_ in {"VERB", "AUX"}), None)
    if xcomp is not None and verb.lemma_ == "use" and verb.tag_ == "VBD":
        if not _is_irrealis(xcomp):
            out.append((xcomp, subjects, True))
        return
    if xcomp is not None and verb.lemma_ in ASPECTUAL and not any(c.dep_ == "dobj" for c in verb.children):
        if not _is_irrealis(xcomp):  # "I started working at Acme": works there now
            out.append((xcomp, subjects, False))
        return
    out.append((verb, subjects, past))


def _is_past(verb: Token) -> bool:
    if verb.tag_ == "VBD":
        return True
    return any(
        c.dep_ in {"aux", "auxpass"} and c.tag_ == "VBD" and c.lemma_ != "do" for c in verb.children
    ) or any(c.dep_ == "aux" and c.lower_ == "did" for c in verb.children)


# --------------------------------------------------------------------------- subjects and noun phrases


def _subjects(verb: Token, ctx: _Ctx) -> list[str]:
    """Resolved subject names of a verb; unresolvable subjects (he, it, 'my sister') are dropped."""
    names: list[str] = []
    for child in verb.children:
        if child.dep_ not in {"nsubj", "nsubjpass"}:
            continue
        for tok in [child, *_conjuncts(child)]:
            name = _resolve_subject(tok, ctx)
            if name:
                names.append(name)
    return names


def _conjuncts(tok: Token) -> list[Token]:
    found: list[Token] = []
    for child in tok.children:
        if child.dep_ == "conj":
            found.append(child)
            found.extend(_conjuncts(child))
    return found


def _resolve_subject(tok: Token, ctx: _Ctx) -> str | None:
    low = tok.lower_
    if tok.tag_ == "PRP":
        if low in FIRST_PERSON:
            return ctx.me
        if low == "we" and ctx.message.role == "user":
            return ctx.me
        return None  # you, he, she, they, it: unresolved
    name = _name_of(tok, ctx)
    if name:
        _appos_relation(tok, name, ctx)
        return name
    appos = next((c for c in tok.children if c.dep_ == "appos" and _name_of(c, ctx)), None)
    if appos is not None:
        name = _name_of(appos, ctx)
        if name:
            _possessive_relation(tok, name, ctx)
            return name
    return None


def _appos_relation(tok: Token, name: str, ctx: _Ctx) -> None:
    """'Carlos, my dad, ...' -> speaker has-dad Carlos."""
    for child in tok.children:
        if child.dep_ == "appos" and child.pos_ == "NOUN":
            _possessive_relation(child, name, ctx)


def _possessive_relation(noun: Token, name: str, ctx: _Ctx) -> None:
    """'my sister Maria' / "Alex's manager, Sam" -> owner has-sister/has-manager name."""
    poss = next((c for c in noun.children if c.dep_ == "poss"), None)
    if poss is None:
        return
    owner = _owner(poss, ctx)
    if owner and owner != name:
        _emit(ctx, owner, "has-" + _relation_noun(noun), name, 0.6, obj_tok=None, obj_type="person")


def _owner(poss: Token, ctx: _Ctx) -> str | None:
    if poss.lower_ in FIRST_PERSON_POSS:
        return ctx.me
    if poss.lower_ == "our" and ctx.message.role == "user":
        return None
    return _name_of(poss, ctx)


def _relation_noun(noun: Token) -> str:
    """'my new manager' -> manager, 'my best friend' -> best-friend, 'my former boss' -> former-boss."""
    mods = [
        c.lower_
        for c in noun.children
        if c.dep_ in {"amod", "compound"} and c.i < noun.i and c.lower_ not in {"new", "current"}
    ]
    return _kebab(" ".join([*mods, noun.lemma_.lower()]))


def _name_of(tok: Token, ctx: _Ctx) -> str | None:
    """The proper name a token stands for: its entity span, or its PROPN compound chain."""
    ent = ctx.ents.get(tok.i)
    if ent is not None and ent.label_ in SKIP_ENT_LABELS:
        return None
    if tok.pos_ != "PROPN":
        return None
    # Union of the entity span and the compound/number chain: NER often splits "2015 Honda Civic".
    chain = [c.i for c in tok.children if c.dep_ in {"compound", "nummod"} and c.pos_ in {"PROPN", "NUM"}]
    start = min([tok.i, *chain, *([ent.start] if ent is not None else [])])
    end = max([tok.i, *(c.i for c in tok.rights if c.dep_ == "nummod")])  # "iPhone 15"
    if ent is not None:
        end = max(end, ent.end - 1)
    return _strip_det(tok.doc[start : end + 1])


def _strip_det(span: Span) -> str:
    toks = list(span)
    while toks and toks[0].pos_ == "DET":
        toks = toks[1:]
    while toks and toks[-1].tag_ == "POS":
        toks = toks[:-1]
    return span.doc[toks[0].i : toks[-1].i + 1].text if toks else span.text


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
    if tok.pos_ == "PROPN":
        text = _name_of(tok, ctx) or tok.text
    elif tok.lower_ in GENERIC_OBJECTS or any(c.dep_ == "poss" for c in tok.children):
        return None
    else:
        mods = [c for c in tok.subtree if c.i <= tok.i and _is_modifier_of(c, tok)]
        start = min([tok.i, *(m.i for m in mods)])
        end = max([tok.i, *(c.i for c in tok.rights if c.dep_ == "nummod")])  # "iPhone 15"
        text = tok.doc[start : end + 1].text
    inner = _of_object(tok) if with_of else None
    if inner is not None:
        tail = _object_phrase(inner, ctx)
        if tail and not text.endswith(tail):  # the entity span may already hold "of X"
            text = f"{text} of {tail}"
    return text


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
    """'a band called The Lumens', 'a cat named Pixel', 'kids, Lily and Ben' -> the name."""
    for acl in tok.children:
        if acl.dep_ == "acl" and acl.lemma_ in {"call", "name"}:
            oprd = next((c for c in acl.children if c.dep_ in {"oprd", "attr", "dobj"}), None)
            if oprd is not None:
                return _name_of(oprd, ctx) or (oprd.text if oprd.pos_ == "PROPN" else None)
    return None


# --------------------------------------------------------------------------- constructions


def _clause_facts(verb: Token, subjects: list[str], past: bool, ctx: _Ctx) -> None:
    if verb.lemma_ == "be" and not any(c.dep_ == "auxpass" for c in verb.children):
        subj_tok = next((c for c in verb.children if c.dep_ == "nsubj"), None)
        _copular(verb, subj_tok, subjects, past, ctx)
        return
    if verb.lemma_ in {"bear"} and any(c.dep_ == "auxpass" for c in verb.children):
        for subject in subjects:
            _prep_objects(verb, subject, "born", ctx)
        return
    if any(c.dep_ == "auxpass" for c in verb.children):
        for subject in subjects:
            _passive_state(verb, subject, past, ctx)
        return
    base = _verb_form(verb, past)
    prt = [c.lower_ for c in verb.children if c.dep_ == "prt"]
    pred = _kebab(" ".join([base, *prt]))
    for subject in subjects:
        _named_possessions(verb, subject, ctx)
        if verb.lemma_ in LIGHT_VERBS:
            continue  # "I found a flat in Kreuzberg": the place belongs to the flat, not to me
        _direct_objects(verb, subject, pred, ctx)
        _prep_objects(verb, subject, pred, ctx)


def _passive_state(verb: Token, subject: str, past: bool, ctx: _Ctx) -> None:
    """'Ben is obsessed with dinosaurs' -> is-obsessed-with; 'got promoted to VP of X' -> is-a."""
    be = "was" if past else "is"
    for prep in (c for c in verb.children if c.dep_ == "prep" and c.lower_ in PASSIVE_PREPS):
        for pobj in (c for c in prep.children if c.dep_ == "pobj"):
            if verb.lemma_ == "promote" and prep.lower_ == "to":
                obj = _object_phrase(pobj, ctx, with_of=True)
                if obj:
                    _emit(ctx, subject, "is-a", obj, 0.55, obj_tok=None)
                continue
            obj = _name_of(pobj, ctx) or _object_phrase(pobj, ctx)
            if obj:
                _emit(ctx, subject, _kebab(f"{be} {verb.lower_} {prep.lower_}"), obj, 0.55, obj_tok=pobj)


def _direct_objects(verb: Token, subject: str, pred: str, ctx: _Ctx) -> None:
    for dobj in (c for c in verb.children if c.dep_ == "dobj"):
        for tok in [dobj, *_conjuncts(dobj)]:
            obj = _object_phrase(tok, ctx, prefer_name=False)
            if obj:
                _emit(ctx, subject, pred, obj, 0.55, obj_tok=tok)


def _named_possessions(verb: Token, subject: str, ctx: _Ctx) -> None:
    """'I adopted a cat named Pixel' / 'I have a sister called Maria' -> has-cat Pixel."""
    if verb.lemma_ not in {"have", "adopt", "get", "own"}:
        return
    for dobj in (c for c in verb.children if c.dep_ == "dobj"):
        names = [_called_name(dobj, ctx)]
        for appos in (c for c in dobj.children if c.dep_ == "appos"):  # "two kids, Lily and Ben"
            names += [_name_of(t, ctx) for t in [appos, *_conjuncts(appos)]]
        for name in names:
            if name:
                _emit(ctx, subject, "has-" + _relation_noun(dobj), name, 0.6, obj_tok=None, obj_type="person")


def _prep_objects(verb: Token, subject: str, pred: str, ctx: _Ctx) -> None:
    has_dobj = any(c.dep_ == "dobj" for c in verb.children)
    for prep in (c for c in verb.children if c.dep_ == "prep"):
        p = prep.lower_
        if p not in VERB_PREPS and not (p == "on" and verb.lemma_ == "work"):
            continue
        if has_dobj and p in {"to", "into", "from"}:
            continue  # "migrating our pipeline to Snowflake": the object moves, not the subject
        if p == "for" and verb.lemma_ not in FOR_VERBS:
            continue  # "flying to Tokyo for a conference": purpose, not a relation
        for pobj in (c for c in prep.children if c.dep_ == "pobj"):
            for tok in [pobj, *_conjuncts(pobj)]:
                _prep_object(verb, subject, f"{pred}-{p}", tok, ctx)


def _prep_object(verb: Token, subject: str, pred: str, tok: Token, ctx: _Ctx) -> None:
    name = _name_of(tok, ctx)
    appos = next((c for c in tok.children if c.dep_ == "appos"), None)
    if name is None and appos is not None:
        name = _name_of(appos, ctx)
        if name:
            _possessive_relation(tok, name, ctx)
    obj = name or _object_phrase(tok, ctx)
    if obj:
        conf = 0.65 if name else 0.55
        _emit(ctx, subject, PREDICATE_ALIASES.get(pred, pred), obj, conf, obj_tok=tok)


def _copular(verb: Token, subj_tok: Token | None, subjects: list[str], past: bool, ctx: _Ctx) -> None:
    """'X is a designer', 'My sister is Maria', 'Maria is my sister', 'X is from Y', 'X is married to Y'."""
    be = "was" if past else "is"
    if subj_tok is not None and not subjects:
        _possessive_copular(verb, subj_tok, ctx)
        return
    for subject in subjects:
        for child in verb.children:
            if child.dep_ == "attr":
                _attr_fact(child, subject, be, past, ctx)
            elif child.dep_ == "acomp":
                if child.lower_ in DIET_ADJECTIVES and not past:
                    _emit(ctx, subject, "is-a", child.lower_, 0.6, obj_tok=None)
                for prep in (c for c in child.children if c.dep_ == "prep"):
                    for pobj in (c for c in prep.children if c.dep_ == "pobj"):
                        obj = _name_of(pobj, ctx) or _object_phrase(pobj, ctx)
                        if obj:
                            pred = _kebab(f"{be} {child.lemma_} {prep.lower_}")
                            _emit(ctx, subject, pred, obj, 0.6, obj_tok=pobj)
            elif child.dep_ == "prep" and child.lower_ in {"from", "in", "at"}:
                _be_prep(child, subject, be, ctx)


def _be_prep(prep: Token, subject: str, be: str, ctx: _Ctx) -> None:
    """'is from Porto' always; 'is in/at X' only for named places and organisations."""
    for pobj in (c for c in prep.children if c.dep_ == "pobj"):
        obj = _name_of(pobj, ctx)
        if obj is None and prep.lower_ == "from":
            obj = _object_phrase(pobj, ctx)
        if obj:
            _emit(ctx, subject, f"{be}-{prep.lower_}", obj, 0.6, obj_tok=pobj)


def _attr_fact(attr: Token, subject: str, be: str, past: bool, ctx: _Ctx) -> None:
    if any(c.dep_ == "poss" for c in attr.children):
        owner = _owner(next(c for c in attr.children if c.dep_ == "poss"), ctx)
        if owner and owner != subject:  # "Jordan is my best friend"
            _emit(ctx, owner, "has-" + _relation_noun(attr), subject, 0.6, obj_tok=None, obj_type="person")
        return
    if attr.lemma_ == "fan":  # "I'm a huge fan of X" -> likes X
        inner = _of_object(attr)
        obj = (_name_of(inner, ctx) or _object_phrase(inner, ctx)) if inner is not None else None
        if obj and not past:
            _emit(ctx, subject, "likes", obj, 0.55, obj_tok=inner)
        return
    has_det = any(c.dep_ == "det" for c in attr.children)
    if attr.pos_ not in {"NOUN", "PROPN"} or (attr.pos_ == "PROPN" and not has_det):
        return  # "X is Y" identity, numbers, pronouns: skip
    if any(c.dep_ == "amod" and (c.lower_ in EVALUATIVE or _intensified(c)) for c in attr.children):
        return  # "Lisbon is a great city", "Jonas is a very calm manager": opinions, not facts
    det = next((c.lower_ for c in attr.children if c.dep_ == "det"), None)
    has_of = _of_object(attr) is not None
    if det in {"the"} and not has_of and not _at_org(attr, ctx):
        return
    if det not in {None, "a", "an", "the"}:
        return
    obj = _object_phrase(attr, ctx, with_of=True)
    if obj:
        _emit(ctx, subject, f"{be}-a", _drop_new(obj), 0.6, obj_tok=None)
    org = _at_org(attr, ctx)
    if org is not None:
        verb = "studies-at" if attr.lemma_.lower() in STUDENT_NOUNS else "works-at"
        if past:
            verb = "studied-at" if verb == "studies-at" else "worked-at"
        _emit(ctx, subject, verb, org, 0.5, obj_tok=None, obj_type="organization")


def _intensified(adj: Token) -> bool:
    return any(c.dep_ == "advmod" for c in adj.children)


def _at_org(attr: Token, ctx: _Ctx) -> str | None:
    """'a designer at Figma' -> Figma (a role at a named organisation implies works-at)."""
    for prep in attr.children:
        if prep.dep_ == "prep" and prep.lower_ == "at":
            pobj = next((c for c in prep.children if c.dep_ == "pobj"), None)
            if pobj is not None and pobj.pos_ == "PROPN":
                return _name_of(pobj, ctx)
    return None


def _drop_new(text: str) -> str:
    return re.sub(r"^(new|current|former)\s+", "", text, flags=re.IGNORECASE)


def _possessive_copular(verb: Token, subj_tok: Token, ctx: _Ctx) -> None:
    """'My sister is Maria', "Alex's manager is Sam", 'My email is x@y.z' -> owner has-<noun> value."""
    poss = next((c for c in subj_tok.children if c.dep_ == "poss"), None)
    attr = next((c for c in verb.children if c.dep_ == "attr"), None)
    if poss is None or attr is None or subj_tok.pos_ != "NOUN":
        return
    owner = _owner(poss, ctx)
    value = _value_of(attr, ctx)
    if owner and value and owner != value:
        _emit(ctx, owner, "has-" + _relation_noun(subj_tok), value, 0.6, obj_tok=attr)


def _value_of(attr: Token, ctx: _Ctx) -> str | None:
    """A named value: a proper name, an email/URL, or a money amount."""
    if attr.like_email or attr.like_url:
        return attr.text
    ent = ctx.ents.get(attr.i)
    if ent is not None and ent.label_ == "MONEY":
        return _strip_det(ent)
    amount = [c for c in attr.children if c.dep_ == "nummod" and c.i < attr.i]
    if attr.pos_ == "NOUN" and amount:  # "1,450 euros" when NER misses the money span
        return attr.doc[amount[0].i : attr.i + 1].text
    return _name_of(attr, ctx)


# --------------------------------------------------------------------------- output


def _emit(
    ctx: _Ctx,
    subject: str,
    predicate: str,
    obj: str,
    conf: float,
    obj_tok: Token | None,
    obj_type: EntityType | None = None,
) -> None:
    subject, obj = subject.strip(), obj.strip()
    if subject.lower() == obj.lower() or not predicate or not _clean(subject) or not _clean(obj):
        return
    ctx.out.append(
        FactCandidate(
            subject=subject,
            predicate=predicate,
            object=obj,
            tier="spacy",
            confidence=max(0.5, min(0.7, conf)),
            subject_type=_type_of_text(subject, ctx),
            object_type=_token_type(obj_tok, ctx) or obj_type or _type_of_text(obj, ctx),
        )
    )


def _clean(text: str) -> bool:
    """Names and noun phrases only: markup, code and table debris are parse accidents."""
    return bool(CLEAN_VALUE.match(text)) and len(text.split()) <= MAX_VALUE_WORDS


def _token_type(tok: Token | None, ctx: _Ctx) -> EntityType | None:
    if tok is None:
        return None
    if tok.like_email:
        return "email"
    if tok.like_url:
        return "url"
    ent = ctx.ents.get(tok.i)
    return LABEL_TYPES.get(ent.label_) if ent is not None else None


def _type_of_text(text: str, ctx: _Ctx) -> EntityType | None:
    if text == ctx.me:  # the speaker; an assistant is not typed as a person
        return None if ctx.message.role == "assistant" else "person"
    for ent in set(ctx.ents.values()):
        if _strip_det(ent) == text:
            return LABEL_TYPES.get(ent.label_)
    return None


def _dedupe(facts: list[FactCandidate]) -> list[FactCandidate]:
    seen: set[tuple[str, str, str]] = set()
    result = []
    for fact in facts:
        key = (fact.subject.lower(), fact.predicate, fact.object.lower())
        if key not in seen:
            seen.add(key)
            result.append(fact)
    return result


# --------------------------------------------------------------------------- word forms


def _verb_form(verb: Token, past: bool) -> str:
    lemma = verb.lemma_.lower()
    if past:
        return verb.lower_ if verb.tag_ == "VBD" else _past(lemma)
    if verb.tag_ == "VBZ" and verb.lower_.isalpha():
        return verb.lower_  # already third person; the lemmatizer can be wrong ("hates" -> "hat")
    return _third_person(lemma)


def _past(lemma: str) -> str:
    if lemma in IRREGULAR_PAST:
        return IRREGULAR_PAST[lemma]
    if lemma.endswith("e"):
        return lemma + "d"
    if re.search(r"[^aeiou]y$", lemma):
        return lemma[:-1] + "ied"
    return lemma + "ed"


def _third_person(lemma: str) -> str:
    if lemma in IRREGULAR_PRESENT:
        return IRREGULAR_PRESENT[lemma]
    if re.search(r"(s|sh|ch|x|z|o)$", lemma):
        return lemma + "es"
    if re.search(r"[^aeiou]y$", lemma):
        return lemma[:-1] + "ies"
    return lemma + "s"


def _kebab(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
