"""Chat interjections blanked before the parse: "Zanele is my gf btw" reads as "Zanele is my gf".

Why: the small English model takes a trailing "btw", "lol" or "tbh" as part of the phrase before it
("has-gf-btw", "Zanele is-a lol", a partner named "Btw"). These words carry no fact, so each is
replaced by as many spaces before the parse: the text keeps its length and every offset stays valid.
So are the hesitations a dictated message keeps ("I'm on um thirty two thousand", "at um Zenkai").
Words that do carry meaning ("idk", "jk") are left as written. "Side by side" is blanked too: after a
name ("internship at zoho side by side") the model reads "zoho side" as one noun.

A chat line also often ends with no full stop ("my new boss is Raj", "im 34"), and the small model,
trained on edited text, then reads the last word as anything but a name or a number ("Raj" an
adverb, "34" a modifier of nothing). Such a text gets " ." after it for the parse: every offset in
the text stays valid, and the added token is past its end.

Chat runs a statement and its question into one sentence ("I'm 29 and have never done a budget,
where do I even start?"); the question mark made the whole a question, which asserts nothing. The
comma before a question that follows a first-person statement becomes a full stop for the parse
(same length).

Indian English's "myself Ramesh, working with Wipro" (an introduction) is read as "I am Ramesh".

A value set right by denying another ("I live in Leeds, not York", "I'm 58, not 68") made the parse
hang the denied value on the right one and the rules took it (lives-in York). The ", not Y" before a
stop or a comma, Y a name of up to three words or a number, is blanked for the parse, and so is a
", no longer a team lead" after a new value; the correction it may be is read from the text as written
(extract/corrections.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from knowledge_engine.extract.lexicon import RUN_ON_GLUE, RUN_ON_OPENERS
from knowledge_engine.extract.regex import shouted
from knowledge_engine.observe import counters

_INTERJECTIONS = re.compile(
    r"(?<![\w'’-])(?:btw|lol+|lmf?ao+|rofl|ha(?:ha)+h?|he(?:he)+|tbh|ngl|fyi|imo|imho|omg+|smh|ikr|xd+)"
    r"(?![\w'’-])",
    re.IGNORECASE,
)


# A spoken hesitation a dictated message keeps ("I'm on um thirty two thousand", "a developer at um
# Zenkai"): the model reads "um" as a noun or a name and hangs the words after it on it. Lower case or
# capitalised only ("UM" may be a university).
_HESITATIONS = re.compile(r"(?<![\w'’-])(?:[Uu]m+|[Uu]h+m*|[Ee]rm+|[Hh]mm+)(?![\w'’-])")


# An adverb of manner chat puts after a name ("doing internship at zoho side by side"): the small model
# reads "zoho side" as one noun; it carries no fact.
_FILLERS = re.compile(r"(?<![\w'’-])side[- ]by[- ]side(?![\w'’-])", re.IGNORECASE)


# ", not York" / ", not 68" ending a clause: the value denied beside the one said
# (a name or a number: "not bad", "not yet" deny nothing said)
_DENIED = re.compile(
    r",\s*not\s+(?:[A-Z][\w'’&-]*(?:\s+[A-Z][\w'’&-]*){0,2}|\d+(?:[,.]\d+)*[a-zA-Z]{0,3})"
    r"(?=\s*(?:[.;:!?,)]|\s[-–—]\s|$))"
)


# ", no longer a team lead" after the new value ("I'm now Head of Customer Success, no longer a team lead")
_NO_LONGER = re.compile(
    r",\s*no longer\s+(?:an?\s+|the\s+)?[\w'’&-]+(?:\s+[\w'’&-]+){0,3}(?=\s*(?:[.;:!?)]|\s[-–—]\s|$))",
    re.IGNORECASE,
)


# A dictated self-correction: a name or a number taken back for the next one ("at Zenko no Zenkai",
# "we live in Leeds no sorry Horsforth", "she's forty four no forty five"). The word taken back and the
# "no" are blanked, so the parse reads only the word said last.
_WORD_SAID = (
    r"(?:[A-Z][\w'’&-]*|\d[\d,.]*k?|[a-z]+ty(?:[ -][a-z]+)?|[a-z]+teen"
    r"|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
)
_SELF_CORRECTED = re.compile(
    rf"(?<![\w'’-])(?<!\d[.,]){_WORD_SAID} no,?(?: sorry| wait)?,? (?={_WORD_SAID}(?![\w'’-]))"
)


# Emoji (pictographs, symbols, with their variation selectors, joiners and skin tones) between two words
_EMOJI = "\U0001f000-\U0001faff\u2600-\u27bf\u2b00-\u2bff\ufe0f\u200d"
# (not as a verb: "I ❤️ London"; not before a word that carries the clause on: "Engaged 💍 and moved")
_EMOJI_BREAK = re.compile(
    rf"(?<=[\w.,!?)] )(?<!\bI )(?<!\bwe )(?<!\bWe )[{_EMOJI}]+"
    r"(?= +(?!(?:and|or|with|for|to|in|at|on|of|from|the|a|an)\b)[^\W\d_])"
)


def _emoji_stop(match: re.Match[str]) -> str:
    return "." + " " * (len(match.group()) - 1)


# Words in capitals, two or more ("I GOT IT", "WE GOT THE HOUSE"): shouting when one is a function
# word. The model tagged them names ("Lwazi gots IT"); in lower case ("I got it") they parse.
_I_FORMS = frozenset({"i", "i'm", "i’m", "i've", "i’ve", "i'll", "i’ll", "i'd", "i’d"})
_BEFORE_A_NAME = frozenset({"at", "from", "with", "for", "to", "in", "join", "joined", "joining"})
_CAPS_RUN = re.compile(r"(?<![\w'’])[A-Z]+(?:['’][A-Z]+)?(?:[ \t]+[A-Z]+(?:['’][A-Z]+)?)+(?![\w'’])")


def _unshouted(match: re.Match[str]) -> str:
    """The run in lower case, "I" kept, and a word after a preposition capitalised: it may be a name
    ("I GOT THE JOB AT TESCO" -> "I got the job at Tesco")."""
    run = match.group()
    if not shouted(" ".join(run.split())):  # the regex tier's test (a run of it has single spaces)
        return run  # acronyms ("NHS UK")
    out, after_prep = [], False
    for word in re.split(r"(\s+)", run):
        if word.isspace():
            out.append(word)
            continue
        low = word.lower()
        out.append("I" + low[1:] if low in _I_FORMS else word.capitalize() if after_prep else low)
        after_prep = low in _BEFORE_A_NAME
    return "".join(out)


def blank(text: str) -> str:
    """`text` with its chat interjections and denied values replaced by spaces, and an emoji between
    two clauses by a full stop (same length): "my gf Sienna says hi 👋 she just started at Canva" ran
    into one sentence whose emoji was the object of "says" and "she started" its relative clause."""
    text = _EMOJI_BREAK.sub(_emoji_stop, text)
    text = _CAPS_RUN.sub(_unshouted, text)
    text = _INTERJECTIONS.sub(lambda m: " " * len(m.group()), text)
    text = _FILLERS.sub(lambda m: " " * len(m.group()), text)
    text = _HESITATIONS.sub(lambda m: " " * len(m.group()), text)
    text = _SELF_CORRECTED.sub(lambda m: " " * len(m.group()), text)
    text = _NO_LONGER.sub(lambda m: " " * len(m.group()), text)
    return _DENIED.sub(lambda m: " " * len(m.group()), text)


def blank_all(texts: list[str]) -> list[str]:
    """The texts blanked; counts the texts it changed."""
    return _each(texts, blank, "extract.spacy.chatter_blanked")


def _each(texts: list[str], change: Callable[[str], str], counter: str) -> list[str]:
    out = [change(t) for t in texts]
    changed = sum(1 for a, b in zip(texts, out, strict=True) if a != b)
    if changed:
        counters.inc(counter, changed)
    return out


_OPEN_END = re.compile(r"[^\W_]\s*\Z")  # the text ends in a letter or digit (no stop, "?", ")" or emoji)
CLOSING = " ."


def close(text: str) -> str:
    """`text` with a closing full stop after it when it ends in a word ("... is Raj" -> "... is Raj .")."""
    return text + CLOSING if _OPEN_END.search(text) else text


def close_all(texts: list[str]) -> list[str]:
    """The texts closed; counts the texts it changed."""
    return _each(texts, close, "extract.spacy.closed")


# A chat message with no stop inside, several clauses run together ("got the job at tesco starting monday
# i start at 9 he said the pay is 24k"): a line break (same length) before a clause that opens with a
# subject pronoun, for the parse (extract/line_breaks.py ends a sentence there). Not after a word that
# ties what follows to what came before ("and", "that", "said", "at", ...), nor within three words of
# the last break.
_STOP = re.compile(r"[.!?;:\n]")
# the last word character: one pass (a lookahead ".*\w" after every stop was quadratic on a run of stops)
_LAST_WORD = re.compile(r"\w\W*\Z")


def _stops_inside(text: str) -> bool:
    """A sentence stop with a word after it somewhere."""
    last = _LAST_WORD.search(text)
    return last is not None and _STOP.search(text, 0, last.start()) is not None


def run_on(text: str) -> str:
    """`text` with a line break before each new clause of a run-on with no stop inside (same length)."""
    if _stops_inside(text):
        return text
    words = list(re.finditer(r"\S+", text))
    if len(words) < 12:
        return text
    out, last = list(text), 0
    for k in range(3, len(words)):
        if k - last >= 3 and _clause_opens(text, words[k - 1], words[k]):
            out[words[k].start() - 1] = "\n"
            last = k
    return "".join(out)


def _clause_opens(text: str, prev: re.Match[str], word: re.Match[str]) -> bool:
    """A subject pronoun after one space and a word that does not tie it to what came before."""
    before = prev.group().lower()
    return (
        word.group().lower() in RUN_ON_OPENERS
        and before not in RUN_ON_GLUE
        and before not in RUN_ON_OPENERS
        and not before.endswith(",")
        and text[word.start() - 1] == " "
    )


def run_on_all(texts: list[str]) -> list[str]:
    """The run-on texts broken into their clauses; counts the texts it changed."""
    return _each(texts, run_on, "extract.spacy.run_on_broken")


# A first-person statement, a comma, then a question: "I'm 29 and ..., where do I even start?"
_ASKED_AFTER = re.compile(
    r"(?:^|(?<=[.!?]\s))(\s*(?:(?:also|and|so|but|ok|okay|plus|oh|well)\s+)?"
    # chat drops the "my" of pay and rent: "also salary is 19k per month, is normal for senior?"
    r"(?:i|i'm|i’m|im|i've|ive|we|we're|we've|my|our|salary|rent|pay|base)\b[^.!?,]*(?:,[^.!?,]*)?),"
    r"(?=\s+(?:what|where|when|how|why|which|who|any|anyone|should|can|could|would|do|does|is|are)\b[^.!?]*\?)",
    re.IGNORECASE,
)


def ask_apart(text: str) -> str:
    """`text` with the comma between a statement and its question made a full stop (same length)."""
    return _ASKED_AFTER.sub(lambda m: m.group(1) + ".", text)


def ask_apart_all(texts: list[str]) -> list[str]:
    """The texts with their statements asked apart; counts the texts it changed."""
    return _each(texts, ask_apart, "extract.spacy.asked_apart")


# A he/she said to be the speaker's after a comma ("Dan agrees, he's my partner", "I asked Dan, he's my
# hubby"): the parse made the second clause a thing the first says (a ccomp of "agrees"), which no rule
# reads as the speaker's; as its own sentence its he/she is the name before it.
_KIN_AFTER = re.compile(r",(?=\s+(?:he|she)(?:['’]s|\s+is)\s+(?:my|our)\s+\w)", re.IGNORECASE)


def kin_apart(text: str) -> str:
    """`text` with the comma before "he's my ..." / "she is our ..." made a full stop (same length)."""
    return _KIN_AFTER.sub(".", text)


def kin_apart_all(texts: list[str]) -> list[str]:
    """The texts with their he/she-is-my clauses set apart; counts the texts it changed."""
    return _each(texts, kin_apart, "extract.spacy.kin_apart")


# Indian English introduces the speaker with "myself": "Good morning sir, myself Ramesh Iyer, working
# with Wipro ...", "Myself Priyanka, 27 years, ...". The parse made "Myself Priyanka" one name and the
# subject of what followed; read as "I am" (padded to the same length), the clauses are the speaker's.
_MYSELF = re.compile(r"(?:^|(?<=[,.!:;] ))[Mm]yself(?= [A-Z][a-z])")
I_AM = "I am  "  # as long as "myself"


def myself(text: str) -> str:
    """`text` with an introducing "myself NAME" read as "I am NAME" (same length)."""
    return _MYSELF.sub(I_AM, text)


def myself_all(texts: list[str]) -> list[str]:
    """The texts with their introductions read; counts the texts it changed."""
    return _each(texts, myself, "extract.spacy.myself_introduced")
