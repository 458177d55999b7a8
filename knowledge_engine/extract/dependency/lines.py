"""Chat lines without a full clause: "Teaching assistant now.", "Rent: £950", "occupation:
engineer; employer: X", a name run after a job word.
"""

from __future__ import annotations

from spacy.tokens import Span, Token

from knowledge_engine.extract import places
from knowledge_engine.extract.dependency.context import _Ctx, _emit
from knowledge_engine.extract.dependency.names import MAX_PARTICLES, NAME_PARTICLES, _capitalised
from knowledge_engine.extract.dependency.nouns import (
    _amount,
    _big_enough,
    _is_date,
    _is_job,
    _is_kin_word,
    _is_title_word,
    _money_value,
)
from knowledge_engine.extract.dependency.work import _drop_new, _workplace_pred
from knowledge_engine.extract.lexicon import (
    FIRST_PERSON,
    FIRST_PERSON_POSS,
    FRAGMENT_IRREALIS,
    HOLIDAYS,
    HOME_NOUNS,
    JOB_NOUNS,
    LEAD_WORDS,
    STUDENT_NOUNS,
)

_NOT_A_TITLE_LINE = FRAGMENT_IRREALIS | {"not", "n't", "never", "if"}


def _i_am_title(sent: Span, ctx: _Ctx) -> None:
    """'im freelance translator since 2021', 'i am software engineer in TCS': typed chat the small
    model parses badly ("freelance" as the root). Read by the words, not the parse: I + am/'m,
    at most an article or 'now', then up to four words ending in an occupation noun."""
    lows = {t.lower_ for t in sent}
    if not lows & {"i", "im"} or lows & _NOT_A_TITLE_LINE or sent.text.rstrip().endswith("?"):
        return
    words = [t for t in sent if not t.is_space]
    for i, tok in enumerate(words):
        if tok.lower_ == "im":
            j = i + 1
        elif tok.lower_ == "i" and i + 1 < len(words) and words[i + 1].lower_ in {"m", "'m", "am"}:
            j = i + 2
        else:
            continue
        while j < len(words) and words[j].lower_ in {"a", "an", "now", "currently", "still", "just"}:
            j += 1
        end = j
        while end < len(words) and end - j < 6 and _title_part(words[end]):
            end += 1
        payroll = words[end - 1].lower_ in {"employee", "worker"}  # "I'm an NHS employee": where, no title
        if end > j and _is_job(words[end - 1]) and words[end - 1].tag_ != "NNS" and not payroll:
            title = sent.doc[words[j].i : words[end - 1].i + 1].text
            _emit(ctx, ctx.me, "has-role", _drop_new(title), 0.5, obj_tok=None)
            return


def _title_part(tok: Token) -> bool:
    """A word of a title typed after "I'm a": a noun or adjective, a school year's number ("year 6
    teacher"), or the parts of "self-employed"."""
    if tok.is_alpha:
        return tok.pos_ in {"NOUN", "ADJ", "PROPN"} or (tok.tag_ == "VBN" and tok.dep_ == "amod")
    return tok.text == "-" or (tok.like_num and tok.text.isdigit() and len(tok.text) <= 2)


# Words before a title that leave out the speaker's "I'm" ("officially a team lead now", "am a staff
# nurse"), and the chat words a title line may end with
_TITLE_OPENERS = frozenset({"still", "currently", "now", "officially", "finally", "am"})
_TITLE_TAILS = frozenset({"now", "tho", "though", "lol", "haha", "again", "yet", "officially", "too"})


def _title_line(words: list[Token], ctx: _Ctx) -> None:
    """A verbless line opening with a job title and where or since when: 'staff nurse at the QEUH,
    ward 7B', 'charge nurse from 1st July!!', 'Still a cashier at Tesco.' -> the speaker's role (and
    employer)."""
    opened = bool(words) and words[0].lower_ in _TITLE_OPENERS  # the "I'm" chat left out: mine
    if opened:  # not a bare "A nurse at X.": whose?
        words = words[2:] if len(words) > 1 and words[1].lower_ in {"a", "an"} else words[1:]
    end = 0
    while (
        end < len(words)
        and end < 5
        and words[end].is_alpha
        and (words[end].pos_ in {"NOUN", "ADJ", "PROPN"} or (end == 0 and words[0].tag_ == "VBG"))
    ):
        end += 1
    if 0 < end < len(words) and words[end].lower_ in LEAD_WORDS:
        end += 1  # "QA Lead, start 1 august": a capitalised "Lead" parsed a verb
    led = end > 1 and words[end - 1].lower_ in LEAD_WORDS  # "QA lead", "team leader"
    if (
        end == 0
        or not (_is_job(words[end - 1]) or led or _head_of(words, end))
        or words[end - 1].tag_ == "NNS"
    ):
        return
    end = _head_of(words, end) or end
    if end >= len(words):
        words = [*words, words[-1]]  # a title with no full stop: the check below reads it as the end
    if all(t.is_punct for t in words[end:]) and _after_job_news(words[0]):
        # "Got the job at Arla!! Head of Design." / "Promotion came through. Team Lead."
        title = words[0].doc[words[0].i : words[end - 1].i + 1].text
        _emit(ctx, ctx.me, "has-role", _drop_new(title), 0.45, obj_tok=None)
        return
    nxt = words[end].lower_
    said = all(t.is_punct or t.lower_ in _TITLE_TAILS for t in words[end:])
    if opened and said and ctx.message.role == "user":  # "now a senior analyst!", "still a junior dev tho"
        title = words[0].doc[words[0].i : words[end - 1].i + 1].text
        _emit(ctx, ctx.me, "has-role", _drop_new(title), 0.45, obj_tok=None)
        ctx.titled = True
        return
    if nxt == "now" and all(t.is_punct for t in words[end + 1 :]):  # "Teaching assistant now."
        title = words[0].doc[words[0].i : words[end - 1].i + 1].text
        _emit(ctx, ctx.me, "has-role", _drop_new(title), 0.5, obj_tok=None)
        ctx.titled = True
        return
    rest = words[end + 1 :]
    if nxt == "," and rest and rest[0].lemma_.lower() == "start" and ctx.message.role == "user":
        title = words[0].doc[words[0].i : words[end - 1].i + 1].text  # "QA lead, start 1 august"
        _emit(ctx, ctx.me, "has-role", _drop_new(title), 0.5, obj_tok=None)
        return
    while rest and rest[0].lower_ in {"the", "a"}:
        rest = rest[1:]
    org = _name_run(rest) if nxt in {"at", "with"} else None
    dated = nxt in {"from", "since"} and bool(rest) and _is_date(rest[0], ctx)
    if not org and not dated:
        return
    title = words[0].doc[words[0].i : words[end - 1].i + 1].text
    _emit(ctx, ctx.me, "has-role", _drop_new(title), 0.5, obj_tok=None)
    if org:
        _emit(ctx, ctx.me, _workplace_pred(org, False), org, 0.5, obj_tok=None, obj_type="organization")


def _head_of(words: list[Token], end: int) -> int:
    """Where "Head of Science", "Director of Operations" ends when the title's words end at its head
    word (`end`), or 0 when they do not go on with "of" and a noun."""
    if not (0 < end < len(words) - 1 and words[end].lower_ == "of" and words[end - 1].lower_ in _HEADS_OF):
        return 0
    stop = end + 1
    while (
        stop < len(words)
        and stop < end + 4
        and words[stop].is_alpha
        and words[stop].pos_ in {"NOUN", "PROPN"}
    ):
        stop += 1
    return stop if stop > end + 1 else 0


_HEADS_OF = frozenset({"head", "director", "chief", "vp", "manager", "lead", "dean"})


def _workplace_line(words: list[Token], ctx: _Ctx) -> None:
    """After a line that was only the speaker's title, a line that is only a name is where:
    'Teaching assistant now. Larkrise Primary.'"""
    body = [t for t in words if not t.is_punct]
    name = _name_run(body)
    ent = ctx.ents.get(body[0].i) if body else None
    org = ent is None or ent.label_ not in {"PERSON", "DATE", "GPE"}
    if name and len(name.split()) == len(body) and org:
        _emit(ctx, ctx.me, "works-at", name, 0.5, obj_tok=None, obj_type="organization")


def _bracketed_title(words: list[Token], ctx: _Ctx) -> None:
    """A job title and workplace in brackets, in a line of the speaker's own work: 'I sell software for
    a living (account exec at Northwind)', 'I work in sales (account manager at Brightwave)'."""
    if not any(t.dep_ == "nsubj" and t.lower_ in FIRST_PERSON for t in words):
        return
    # the brackets describe the speaker's line of work, not a person just named ("I met Tom (engineer
    # at Arup)", "my sister (nurse at X)")
    opens = [
        k
        for k, t in enumerate(words)
        if t.text == "(" and k > 0 and words[k - 1].pos_ != "PROPN" and not _is_kin_word(words[k - 1])
    ]
    for k in opens:
        close = next((m for m in range(k + 1, len(words)) if words[m].text == ")"), None)
        inner = words[k + 1 : close] if close is not None else []
        if inner and not any(t.pos_ in {"VERB", "AUX"} for t in inner):
            _title_line([*inner, words[close]] if close is not None else inner, ctx)


def _after_job_news(first: Token) -> bool:
    """The sentence before this one (same message) tells of the speaker's job, in its words: a job,
    role, position, offer, promotion, hiring, work ("I work at Nando's. Shift manager.")."""
    sent = first.sent
    if sent.start == 0:
        return False
    before = first.doc[sent.start - 1].sent
    return any(
        t.lemma_.lower() in JOB_NOUNS or t.lemma_.lower() in {"promotion", "promote", "hire", "work"}
        for t in before
    ) and (
        any(t.lower_ in FIRST_PERSON or t.lower_ in FIRST_PERSON_POSS for t in before)
        or not any(t.dep_ in {"nsubj", "nsubjpass"} for t in before)  # "Got the job!!": the "I" left out
    )


def _rent_line(words: list[Token], ctx: _Ctx) -> None:
    """'£725 a month, 2 bed', '22k rent': an amount a verbless line gives a home for a month."""
    if words and words[0].is_currency:
        words = words[1:]  # "£725": the amount token, whose sign _money_value/_amount keep
    if not words:
        return
    value = _money_value(words[0], ctx) or _amount(words[0])
    if not value or not _big_enough(value):
        return
    low = [t.lower_ for t in words]
    monthly = "month" in low[1:4] or "pcm" in low[1:3] or "/month" in "".join(low[:4])
    home = any(t.lemma_.lower() in HOME_NOUNS | {"bed", "bedroom", "bhk", "rent"} for t in words)
    if (monthly and home) or (len(low) > 1 and low[1] == "rent"):
        _emit(ctx, ctx.me, "has-rent", value, 0.5, obj_tok=None)


def _name_run(words: list[Token]) -> str | None:
    """The proper name the words open with ('Harrow & Finch', 'Brightwell Labs', 'Bank of America')."""
    end = 0
    while end < len(words) and (
        words[end].pos_ == "PROPN"
        or (
            words[end].text in {"&", "and", "of"}
            and end + 1 < len(words)
            and words[end + 1].pos_ == "PROPN"
            and end > 0
        )
    ):
        end += 1
        end = _past_particles(words, end)
    if end == 0 or not words[0].text[:1].isupper():
        return None
    return words[0].doc[words[0].i : words[end - 1].i + 1].text


def _past_particles(words: list[Token], end: int) -> int:
    """Past the particles and the word after them ("Ruan du Plessis": both tagged adjectives), or `end`."""
    k = end
    while k < len(words) and k - end < MAX_PARTICLES and words[k].lower_ in NAME_PARTICLES:
        k += 1
    if k == end or k >= len(words) or not (words[k].is_alpha and words[k].text[:1].isupper()):
        return end
    return k + 1


def _job_fragment(
    words: list[Token], role_key: bool, ctx: _Ctx, who: str | None = None, past: bool = False
) -> None:
    """'Brightwell Labs!' (an employer), 'Deloitte (audit associate)' (and its title in brackets),
    or 'barista at Grindhouse' / 'Senior analyst, Westpac' / 'senior buyer' (a title); `who`'s
    (the speaker's by default), and what was with `past`."""
    who = who or ctx.me
    name = _name_run(words)
    if name is not None and not role_key and not _title_first(words):
        if not _no_employer(words[0], ctx):
            _emit(ctx, who, _workplace_pred(name, past), name, 0.55, obj_tok=None, obj_type="organization")
            _title_in_brackets(words[len(name.split()) :], who, past, ctx)
        return
    end = 0
    while (
        end < len(words) and end < 6 and words[end].is_alpha and words[end].pos_ in {"NOUN", "ADJ", "PROPN"}
    ):
        end += 1
    if 0 < end < len(words) - 1 and _is_title_word(words[end - 1]) and words[end].lower_ == "of":
        end = _of_tail(words, end)  # "Director of Operations", "Head of Sales at Sky"
    elif end == 0 or not _is_title_word(words[end - 1]):
        at = next((k for k, t in enumerate(words[:5]) if t.lower_ in {"at", "@", "with"}), None)
        after = words[at + 1 :] if at is not None else []
        org = _name_run(after) if after and not _no_employer(after[0], ctx) else None
        if org:  # "new job: casual at Bunnings Caloundra"
            _emit(ctx, who, _workplace_pred(org, past), org, 0.55, obj_tok=None, obj_type="organization")
        return
    title = words[0].doc[words[0].i : words[end - 1].i + 1].text
    _emit(ctx, who, "worked-as" if past else "has-role", _drop_new(title), 0.55, obj_tok=None, ends=past)
    # "barista at Grindhouse", "Senior analyst, Westpac (since 2021)": the employer after the title
    if end + 1 < len(words) and words[end].lower_ in {"at", "@", "with", "for", ","}:
        org = _name_run(words[end + 1 :])
        if org and not _no_employer(words[end + 1], ctx):
            # a teacher at a school works there; a student attends it
            pred = _workplace_pred(org, past) if words[end - 1].lower_ in STUDENT_NOUNS else _works_pred(past)
            _emit(ctx, who, pred, org, 0.55, obj_tok=None, obj_type="organization")


def _title_first(words: list[Token]) -> bool:
    """The value opens with a title, its words up to an "at", "@" or comma ("Junior dev @ Kinetiq",
    "Senior Analyst, Westpac"), or is one ("Lead Designer", "Director of Operations")."""
    end = next(
        (k for k, t in enumerate(words[:7]) if t.lower_ in {"at", "@", "of"} or t.is_punct), len(words)
    )
    return end > 0 and _is_title_word(words[end - 1])


def _of_tail(words: list[Token], of: int) -> int:
    """The end of a title's "of" part: the nouns and names after the "of" ("of Operations")."""
    end = of + 1
    while end < len(words) and end < of + 4 and words[end].is_alpha and words[end].pos_ in {"NOUN", "PROPN"}:
        end += 1
    return end if end > of + 1 else of


def _works_pred(past: bool) -> str:
    return "worked-at" if past else "works-at"


def _title_in_brackets(words: list[Token], who: str, past: bool, ctx: _Ctx) -> None:
    """'(audit associate)' right after an employer's name: the title held there."""
    if len(words) < 3 or words[0].text != "(":
        return
    close = next((k for k, t in enumerate(words) if t.text == ")"), None)
    inner = words[1:close] if close is not None else []
    if inner and all(t.is_alpha for t in inner) and _is_title_word(inner[-1]):
        title = inner[0].doc[inner[0].i : inner[-1].i + 1].text
        _emit(ctx, who, "worked-as" if past else "has-role", title, 0.55, obj_tok=None, ends=past)


def _no_employer(first: Token, ctx: _Ctx) -> bool:
    """'my job at Christmas', 'my role at Sarah's wedding': a feast or a person's event."""
    ent = ctx.ents.get(first.i)
    owner = (
        ent is not None
        and ent.label_ == "PERSON"
        and ent.end < len(first.doc)
        and first.doc[ent.end].tag_ == "POS"
    )
    return owner or _is_date(first, ctx) or first.lower_ in HOLIDAYS


def _moved_to(words: list[Token], mover: str, ctx: _Ctx) -> None:
    """After 'we moved!!': a line that is only a place ('hamburg altona.', 'now in Leeds')."""
    while words and words[0].lower_ in {"now", "finally", "currently", "in", "to"}:
        words = words[1:]
    body = [t for t in words if not t.is_punct]
    while body and body[-1].lower_ in {"now", "finally", "then"}:  # "Moved. Bath now."
        body = body[:-1]
        words = [t for t in words if t.i <= body[-1].i or t.is_punct] if body else []
    if not body or len(body) > 3 or len(words) - len(body) > 1:
        return
    if not all(t.is_alpha and t.pos_ in {"PROPN", "NOUN"} and not t.is_stop for t in body):
        return
    place = _capitalised(body[0].doc[body[0].i : body[-1].i + 1].text)
    known = places.fold(place) in places.places()  # "Moved. Bath now.": the model's common noun "bath"
    if not known and not any(t.pos_ == "PROPN" or ctx.ents.get(t.i) is not None for t in body):
        return
    _emit(ctx, mover, "lives-in", place, 0.55, obj_tok=None, obj_type="location")
