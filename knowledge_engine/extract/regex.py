"""Instant regex tier: emails, URLs, dates, money, organisations, products, proper nouns.

Every pattern is compiled once and runs in linear time on adversarial input: each match can
only start at the beginning of a run (a negative lookbehind on the class its first quantifier
consumes), quantifiers that could re-scan are possessive or bounded, and no quantifier is
nested inside another unbounded one. A failed attempt therefore costs at most the length of
one run, and the next attempt inside that run is rejected by the lookbehind in O(1).
Judgement that a regex would need backtracking for (exclusion words, sentence starts, TLDs,
day/month ranges) is done in Python on the few matches.
"""

from __future__ import annotations

import bisect
import re
import string
from collections.abc import Callable, Iterator

from knowledge_engine.config import RegexConfig
from knowledge_engine.model.extraction import Extraction, Mention
from knowledge_engine.model.records import BASE_IMPORTANCE, EntityType, Message
from knowledge_engine.model.records import initial_importance as initial_importance  # re-exported
from knowledge_engine.observe import counters, log

# --------------------------------------------------------------------------- importance

# --------------------------------------------------------------------------- patterns

# A letter that is not lower case in ASCII or Latin-1 (so capitals of any script qualify).
_UP = r"[^\W\d_a-zß-öø-ÿ]"
# A capitalised word; hyphen/apostrophe parts allowed ("Jean-Luc", "O'Brien", "Alice's").
_CAPWORD = _UP + r"[^\W_]*+(?:['’-][^\W_]++)*+"

EMAIL = re.compile(
    r"(?<![\w.%+-])[\w.%+-]{1,64}+@[A-Za-z0-9][A-Za-z0-9-]{0,62}+(?:\.[A-Za-z0-9-]{1,63}+)*+", re.ASCII
)
URL = re.compile(r"(?<![\w@/.])(?:(?:https?|ftp)://|www\.)[^\s<>\"'`\[\]{}|\\^]++", re.IGNORECASE)
ISO_DATE = re.compile(
    r"(?<![\w.:/-])\d{4}-\d{2}-\d{2}"
    r"(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?(?![\w:-])"
)
COMMON_DATE = re.compile(r"(?<![\w.,:/-])(\d{1,2})([/.-])(\d{1,2})\2(\d{4}|\d{2})(?!\d|[/-]\d|\.\d)")
_DE_MONTHS = "Januar|Jänner|Februar|März|Maerz|April|Mai|Juni|Juli|August|September|Oktober|November|Dezember"
GERMAN_DATE = re.compile(rf"(?<![\w.])\d{{1,2}}\.[ \t]?(?:{_DE_MONTHS})(?:[ \t]+\d{{4}})?(?![\w])")
_EN_MONTHS = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
)
_ORD = r"\d{1,2}(?:st|nd|rd|th)?"
ENGLISH_DATE = re.compile(
    rf"(?<![\w.])(?:{_EN_MONTHS}\.?[ \t]++{_ORD}(?![\w])(?:,?[ \t]++\d{{4}})?"
    rf"|{_ORD}[ \t]++(?:of[ \t]++)?{_EN_MONTHS}\.?(?:,?[ \t]++\d{{4}})?"
    rf"|{_EN_MONTHS}[ \t]++\d{{4}})(?![\w])"
)
_CODES = (
    "USD|EUR|GBP|CHF|JPY|CNY|CAD|AUD|NZD|INR|SEK|NOK|DKK|PLN|CZK|BRL|MXN|KRW|SGD|HKD|ZAR|TRY|BTC|ETH"
    "|AED|SAR|QAR|KWD|EGP|NGN|KES|GHS|PHP|IDR|MYR|THB|VND|PKR|LKR|BDT|ILS|HUF|RON|UAH|ARS|CLP|COP|PEN|TWD"
)
CURRENCY_CODES = frozenset(_CODES.split("|"))  # "EUR 1,680": a unit, never a name
_SYMS = r"US\$|A\$|C\$|NZ\$|HK\$|R\$|Rs\.?|[$€£¥₹₩₽₺₪₫฿₱₦₴₵]"
_NUM = r"(?>\d{1,3}(?:[,.'\u00a0\u202f ]\d{3})++(?:[.,]\d{1,2})?|\d++(?:[.,]\d{1,2})?)(?![\d])"
# India's lakh and crore multiply as a thousand does ("₹18 lakh", "Rs 1.2 crore": one amount)
_MULT = (
    r"(?:[ \t]?(?:k|K|m|M|bn|mn|Mio|Mrd|thousand|million|billion|trillion|lakhs?|crores?|LPA)(?![A-Za-z]))?"
)
_WORDCUR = (
    r"dollars?|euros?|pounds?|bucks|yen|yuan|francs?|rupees?|cents?|pence|quid"
    r"|reais|rand|dirhams?|pesos?|naira|shillings?|ringgit|baht|rupiah|z[łl]oty|lakhs?|crores?|LPA"
)
# The rand's bare R only with an amount no other reading has: "R62k", "R12 500", "R139,000".
_RAND = r"R(?:\d{1,3}(?:[, \u00a0]\d{3})++|\d++(?:[.,]\d)?[ \t]?[kK])(?![\w])"
MONEY = re.compile(
    rf"(?<![\w$€£¥₹₩₽₺₪₫฿₱₦₴₵])(?:(?:{_SYMS})[ \t]?|(?:{_CODES})[ \t]?){_NUM}{_MULT}"
    rf"|(?<![\w.,$€£¥₹₩₽₺₪₫฿₱₦₴₵]){_NUM}{_MULT}[ \t]?(?:{_SYMS}|(?:{_CODES}|{_WORDCUR})(?![\w]))"
    rf"|(?<![\w$]){_RAND}"
)
_SUFFIXES = (
    r"Inc\.?|Incorporated|LLC|L\.L\.C\.|LLP|Ltd\.?|Limited|Corp\.?|Corporation|Co\.|GmbH|gGmbH|AG|KGaA|KG"
    r"|OHG|UG|e\.V\.|SAS|SARL|SA|S\.A\.|SE|PLC|plc|NV|N\.V\.|BV|B\.V\.|S\.p\.A\.|SpA|Srl|S\.r\.l\.|AB|ASA"
    r"|Oyj|Oy|A/S|ApS|Pty[ \t]Ltd\.?|K\.K\."
)
_SUFFIX_AHEAD = rf"(?:{_SUFFIXES})(?![\w/])"
_SUFFIX_ANYWHERE = re.compile(rf"(?<![\w])(?:{_SUFFIXES})(?![\w/])")
# Words are not joiners: "Shares of Apple Inc." names Apple, "Alice Consulting and Acme Corp." names Acme.
_ORG_JOIN = r"(?:[ \t]|[ \t]?&[ \t]?)"
ORGANIZATION = re.compile(
    rf"(?<![\w'’&-])(?!{_SUFFIX_AHEAD})(?P<name>{_CAPWORD}(?:{_ORG_JOIN}(?!{_SUFFIX_AHEAD}){_CAPWORD}){{0,5}}+)"
    rf",?[ \t]+(?P<suffix>{_SUFFIXES})(?![\w/])"
)
_PRODUCT_TAILS = "Pro|Max|Ultra|Mini|mini|Plus|Air|Lite|Turbo|Sonnet|Opus|Haiku|Flash|SE|XL|Omni|Studio"
PRODUCT = re.compile(
    r"(?<![\w.'’-])(?P<name>[A-Za-z][A-Za-z0-9]*+(?:\.js)?)(?P<sep>[ \t]|-)"
    r"(?P<ver>v?\d{1,4}(?:\.\d{1,4}){0,3}[a-z]{0,2})(?![\w]|[.-]\d)"
    rf"(?:[ \t](?P<tail>{_PRODUCT_TAILS})(?![\w]))?"
)
# The capital leads and the lookbehind follows it (same matches as a leading lookbehind): a pattern
# that starts with a character class lets the scanner jump from capital to capital in C, twice as fast.
PROPER_NOUN = re.compile(rf"{_UP}(?<=(?<![\w'’@/.#&-]).)[^\W_]*+(?:['’-][^\W_]++)*+(?: {_CAPWORD}){{0,7}}")
# The same on ASCII text (where its classes are these), a third faster: most messages are ASCII.
_ASCII_WORD = r"[A-Za-z0-9]*+(?:['-][A-Za-z0-9]++)*+"
PROPER_NOUN_ASCII = re.compile(
    rf"[A-Z](?<=(?<![\w'@/.#&-]).){_ASCII_WORD}(?: [A-Z]{_ASCII_WORD}){{0,7}}", re.ASCII
)

PATTERNS: dict[str, re.Pattern[str]] = {
    "email": EMAIL,
    "url": URL,
    "iso_date": ISO_DATE,
    "common_date": COMMON_DATE,
    "german_date": GERMAN_DATE,
    "english_date": ENGLISH_DATE,
    "money": MONEY,
    "organization": ORGANIZATION,
    "product": PRODUCT,
    "proper_noun": PROPER_NOUN,
}

# --------------------------------------------------------------------------- exclusion words

_MONTHS = (
    "January February March April May June July August September October November December "
    "Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec"
)
_WEEKDAYS = (
    "Monday Tuesday Wednesday Thursday Friday Saturday Sunday Mon Tue Tues Wed Thu Thur Thurs Fri Sat Sun "
    "Mondays Tuesdays Wednesdays Thursdays Fridays Saturdays Sundays"
)
_FUNCTION_WORDS = (
    "A An The This That These Those There Here Hello Hi Hiya Hey Dear Thanks Thank Please "
    "Yes No Not Ok Okay OK "
    "Sure Maybe Well So And But Or Nor If Then Else When While Where What Which Who Whom Whose Why How "
    "I Me My Mine We Us Our Ours You Your Yours He Him His She Her Hers It Its They Them Their Theirs "
    "Myself Yourself Himself Herself Itself Ourselves Themselves Am Is Are Was Were Be Been Being "
    "Do Does Did Done Have Has Had Will Would Shall Should Can Could May Might Must "
    "Let Lets Let's I'm I've I'll I'd It's That's There's What's Don't Can't Won't Isn't "
    "In On At To For From With Without By Of Off Over Under About Above Below After Before Since Until "
    "Into Onto Upon Through During Also Just Only Even Still Yet Already Again Once "
    "All Any Some Every Each Both Either Neither Many Much More Most Few Less Least Other Another "
    "Such Same Very Really Actually Basically Honestly Anyway However Although Though Because "
    "Today Tomorrow Yesterday Tonight Now Later Soon Never Always Often Sometimes Usually "
    "Good Great Nice Cool Fine Sorry Oh Ah Wow Hmm Yeah Yep Nope Alright Cheers Bye Goodbye Welcome "
    "Contact Event Talk Project Multiple Note Notes Update Todo TODO FYI Re Fwd Subject Summary "
    "First Second Third Next Last Final New Old One Two Three Four Five Six Seven Eight Nine Ten "
    "Mr Mrs Ms Dr Prof Sir Madam Sr Jr St "
    "Mail Email Call Send Sent Check See Saw Look Remember Tell Told Ask Asked Said Say Met Went Go Got "
    "Get Made Make Paid Pay Bought Buy Sold Need Want Like Love Hate Think Thought Know Knew Guess "
    "Please Try Tried Find Found Keep Kept Put Set Show Write Wrote Read Use Used Add Added Fix Fixed "
    "Move Moved Start Started Stop Stopped Finish Finished Wait Hope Feel Felt Came Come Left Took Take "
    "Meet Meeting Visit Visited Join Joined Ping Text Message Reply Invite Congrats Congratulations Happy "
    "Install Run Runs Enable Disable Default Configure Open Close Create Delete Remove Build Test Deploy "
    "Example Usage Returns Return Optional Required See "
    "Everything Everyone Everybody Something Someone Somebody Anything Anyone Anybody Nothing Nobody None "
    "Whatever Whoever Whenever Wherever "
    "Glad Seems Appreciate Definitely Absolutely Totally Plus Gonna Gotta Wanna Agreed Yup "
    "Woah Whoa Hopefully Reminds "
    "ID TV PC"
)
# Words that open a sentence before a comma without being a name: interjections, discourse words,
# exclamations of praise or regret, endearments and family words used to address someone. A lone
# Title-case word opening a sentence before a comma is otherwise taken as a name being addressed
# ("Maya, that looks great"). Adverbs in -ly are recognised by form (see _looks_addressed).
_NOT_ADDRESSED_WORDS = (
    "Absolutely Agreed Aha Alas Amazing Anyhow Anyways Afterwards Aw Aww Awesome Babe Beautiful Besides "
    "Bravo Brilliant Bro Buddy Congratulations Cute Dad Damn Dang Darling Darn Definitely Dude Eh Er "
    "Everyone Exactly Excellent Exciting Fair Fantastic Folks Fortunately Friend Friends Fun Funny "
    "Gee Geez Girl Glad Gorgeous Gosh Grandma Grandpa Guys Ha Haha Hehe Hm Honey Hooray Huh Impressive "
    "Incredible Indeed Instead Interesting Interestingly Jeez Lol Lovely Luckily Man Mate Meanwhile "
    "Meh Mom Mum Nah Neat Nevertheless Nonetheless Omg Oops Otherwise Ouch Overall Perfect Personally "
    "Phew Plus Right Sadly Seriously Shoot Sis Stunning Sweet Sweetie Therefore Thus Totally True "
    "Ugh Uh Um Unfortunately Weird Whoa Whoops Woah Wonderful Yay Yeah Yes Yikes Yup Pal Oof Gotcha Yea "
    "Yum Together Woohoo Bummer Cheers Hurray Ahoy Alrighty Okey Agree Noted Understood Deal Btw Fyi Imo "
    "Tbh Idk Ngl Morning Evening Afternoon Night Listen Whew Argh Kudos Likewise Regardless Hence Granted "
    "Duh Voila Boo Shh Psst Bingo Welp "
    "Best Regards Sincerely Warmly Yours Hugs"  # letter sign-offs: "Best, Maya"
)
_NOT_ADDRESSED = frozenset(_NOT_ADDRESSED_WORDS.split())
# After a sentence-opening "Word's", these say the 's is "is" or "has" ("Life's so short", "Art's been
# a refuge"), not a possessive ("Nora's brother"): determiners, pronouns, adverbs and participles.
_IS_HAS_CUES_WORDS = (
    "a an the my your his her our their its this that these those some no every all such what another "
    "so very really too just always never not also still even already pretty quite totally definitely "
    "truly actually honestly kind sort more much less way super finally here there back over "
    "about like been being become becoming got gotten getting going gonna gotta growing coming "
    "starting made making done gone had having one something everything nothing anything part "
    "how why where when who"
)
_IS_HAS_CUES = frozenset(_IS_HAS_CUES_WORDS.split())
# Adjectives that end a clause as a predicate ("Rent's high.", "Life's good, but"), and endings of more.
_PREDICATES_WORDS = (
    "good great bad hard tough short long easy fun funny crazy busy amazing awesome beautiful wonderful "
    "weird strange interesting rough fine okay ok nice cool better worse best worst perfect tight high low "
    "expensive cheap slow fast quiet loud hot cold warm boring exciting exhausting relaxing tiring annoying "
    "frustrating overwhelming insane wild brutal hectic chaotic calm lovely sweet tricky messy scary sad "
    "happy lucky important precious special different same real true right wrong free full empty new old "
    "big small huge tiny great healthy sick ready done over gone back"
)
_PREDICATES = frozenset(_PREDICATES_WORDS.split())
_PREDICATE_ENDINGS = ("ful", "ous", "less", "able", "ible")
# After "Word's", a Title-case word makes a title ("Charlotte's Web", "Grey's Anatomy"), but not
# a family or role word, which names the person's relative ("Nora's Mom").
_RELATIVES_WORDS = (
    "Mom Mum Mother Dad Father Parents Brother Sister Son Daughter Kids Children Wife Husband Partner "
    "Boyfriend Girlfriend Fiance Fiancee Aunt Uncle Cousin Niece Nephew Grandma Grandpa Grandmother "
    "Grandfather Family Friend Friends Boss Manager Team Dog Cat"
)
_RELATIVES = frozenset(_RELATIVES_WORDS.split())
_PRODUCT_STOP = (
    "Page Chapter Room Step Day Days Week Weeks Year Years Month Months Version Level Phase Part Section "
    "Item Number No Top Under Over Since Until Around About Only Just Covid COVID Floor Gate Platform "
    "Line Row Table Figure Fig Vol Volume Issue Episode Season Round Grade Class Apt Suite Unit Route "
    "Highway Exit Box Q1 Q2 Q3 Q4 H1 H2 FY Get Got Give Take Took Buy Bought Have Had Need Want Add "
    "Only Nearly Almost Over Under Top Like Than"
)
EXCLUDED_WORDS: frozenset[str] = frozenset((_MONTHS + " " + _WEEKDAYS + " " + _FUNCTION_WORDS).split())
_PRODUCT_EXCLUDED: frozenset[str] = frozenset(
    (_MONTHS + " " + _WEEKDAYS + " " + _FUNCTION_WORDS + " " + _PRODUCT_STOP).split()
)
_SENTENCE_END = ".!?:;\n\"'“”‘’()[]{}*-•>|#"
_POSSESSIVE = ("'s", "’s", "'", "’")
_TRAILING_PUNCT = ".,;:!?'\"’”)]}>"
_MAX_NOUN_WORDS = 5
# A message yields at most this many regex mentions; the rest are counted, not kept.
MAX_MENTIONS = 500

# --------------------------------------------------------------------------- helpers


# A match: (value, type, start, end). A plain tuple: the proper-noun path builds one per name.
_Hit = tuple[str, EntityType, int, int]


def _at_sentence_start(text: str, pos: int) -> bool:
    i = pos - 1
    while i >= 0 and text[i] in " \t":
        i -= 1
    return i < 0 or text[i] in _SENTENCE_END


def _trim_url(url: str) -> str:
    """Drop trailing punctuation and a closing bracket that the URL did not open."""
    end = len(url)
    unopened = url.count(")") - url.count("(")
    while end and url[end - 1] in _TRAILING_PUNCT:
        if url[end - 1] == ")":
            if unopened <= 0:
                break
            unopened -= 1
        end -= 1
    return url[:end]


def _emails(text: str) -> Iterator[_Hit]:
    if "@" not in text:
        return
    for m in EMAIL.finditer(text):
        value = m.group().rstrip(".-")
        local, _, domain = value.partition("@")
        tld = domain.rsplit(".", 1)[-1] if "." in domain else ""
        if len(tld) >= 2 and tld.isalpha() and not local.startswith(".") and ".." not in value:
            yield (value, "email", m.start(), m.start() + len(value))


def _urls(text: str) -> Iterator[_Hit]:
    if "://" not in text and "www." not in text.lower():
        return
    for m in URL.finditer(text):
        value = _trim_url(m.group())
        host = value.split("://", 1)[-1]
        if len(host) > 4 and any(c.isalnum() for c in host[:64]):
            yield (value, "url", m.start(), m.start() + len(value))


def _simple(pattern: re.Pattern[str], type_: EntityType) -> Callable[[str], Iterator[_Hit]]:
    def run(text: str) -> Iterator[_Hit]:
        for m in pattern.finditer(text):
            yield (" ".join(m.group().split()), type_, m.start(), m.end())

    return run


def _common_dates(text: str) -> Iterator[_Hit]:
    for m in COMMON_DATE.finditer(text):
        a, b = int(m.group(1)), int(m.group(3))
        if m.group(2) == "." and len(m.group(4)) == 2 and (len(m.group(1)) < 2 or len(m.group(3)) < 2):
            continue  # "3.11.12" is a version number; "17.02.26" is a date
        # Day-first (EU) or month-first (US): one reading must be a valid day and month.
        if 1 <= a <= 31 and 1 <= b <= 31 and (a <= 12 or b <= 12):
            yield (m.group(), "date", m.start(), m.end())


_DIGIT = re.compile(r"\d")


def _iso_dates(text: str) -> Iterator[_Hit]:
    for m in ISO_DATE.finditer(text):
        month, day = int(m.group()[5:7]), int(m.group()[8:10])
        if 1 <= month <= 12 and 1 <= day <= 31:
            yield (m.group(), "date", m.start(), m.end())


def _organizations(text: str) -> Iterator[_Hit]:
    for m in ORGANIZATION.finditer(text):
        name = m.group("name")
        words = name.split()
        # "The Acme Corp" -> "Acme": drop leading function words the run picked up.
        while words and words[0] in EXCLUDED_WORDS:
            words = words[1:]
        if not words:
            continue
        value = " ".join(words)
        yield (value, "organization", m.end("name") - len(value), m.end())


def _products(text: str) -> Iterator[_Hit]:
    for m in PRODUCT.finditer(text):
        name = m.group("name")
        if not any(c.isupper() for c in name) or name in _PRODUCT_EXCLUDED:
            continue
        title_only = name[0].isupper() and name[1:].islower()
        weak = m.group("sep") != "-" and title_only and "." not in m.group("ver")
        if weak and _at_sentence_start(text, m.start()):
            continue  # "Windows 11" mid-sentence, but not "Bought 3 apples" at a sentence start
        if weak and _first_name_aged(name, m.group("ver")):
            continue  # "Ella 7 and Noah 4": children and their ages
        yield (" ".join(m.group().split()), "product", m.start(), m.end())


def _first_name_aged(name: str, version: str) -> bool:
    """A first name and a child's age ("Noah 4"), which no product name is ("Pixel 7" is no first name)."""
    from knowledge_engine.extract.kids import MAX_CHILD_AGE
    from knowledge_engine.extract.truecase import names  # the name list, read once when first needed

    return version.isdigit() and int(version) <= MAX_CHILD_AGE and name.lower() in names()


def _strip_possessive(word: str) -> str:
    for suffix in _POSSESSIVE:
        if word.endswith(suffix) and len(word) > len(suffix):
            return word[: -len(suffix)]
    return word


def _noun_segments(text: str, start: int, run: str, out: list[_Hit]) -> None:
    """Split a run of capitalised words at excluded words; append what is left to out.

    A possessive ends a name ("Nora's brother" names Nora) unless a Title-case word follows that is
    not a family or role word: then the two are one title ("Charlotte's Web", "Grey's Anatomy")."""
    pos = start
    seg_start = -1  # start of the open segment
    seg_words: list[str] = []
    seg_end = 0
    words = run.split(" ")
    title_next = False
    for i, word in enumerate(words):
        offset = pos
        pos += len(word) + 1
        if title_next:  # the word after "Charlotte's", checked below
            seg_words.append(word)
            seg_end = offset + len(word)
            title_next = False
            continue
        bare = _strip_possessive(word) if "'" in word or "’" in word else word
        if bare in EXCLUDED_WORDS or len(bare) < 2 or not bare[0].isupper() or _code(bare):
            if seg_words:
                _finish_segment(seg_words, seg_start, seg_end, out)
                seg_words = []
            continue
        if not seg_words:
            seg_start = offset
        if bare is not word:
            nxt = words[i + 1] if i + 1 < len(words) else ""
            if (
                nxt[1:].islower()
                and nxt[0].isupper()
                and nxt.isalpha()
                and nxt not in EXCLUDED_WORDS
                and nxt not in _RELATIVES
            ):
                seg_words.append(word)
                title_next = True
                continue
            seg_words.append(bare)
            seg_end = offset + len(bare)
            _finish_segment(seg_words, seg_start, seg_end, out)
            seg_words = []
            continue
        seg_words.append(bare)
        seg_end = offset + len(bare)
    if seg_words:
        _finish_segment(seg_words, seg_start, seg_end, out)


def _finish_segment(words: list[str], start: int, end: int, out: list[_Hit]) -> None:
    if len(words) <= _MAX_NOUN_WORDS:
        out.append((" ".join(words), "unknown", start, end))


# "Word's" then a cue word, an "-ly" adverb or an "-ed" participle, or a predicate adjective and then
# the end of a clause, a conjunction or an adverb of time ("Rent's high, but", "Art's great for",
# "Work's busy today"): the 's is "is" or "has".
_IS_HAS = re.compile(
    r"['’]s(?:[ \t]++(?:([a-z]++)(?![\w'’-])"
    r"([ \t]*+(?:[.,!?;:)]|$)|[ \t]++(?:but|and|for|to|when|because|if|as|too|today|tonight|now|lately|again"
    r"|though|here|there|these)(?![\w'’-]))?"
    r"|[.,!?;:)]|$)|[.,!?;:)]|$)"
)
# Sounds rather than words: a letter three times ("Sooo", "Awww"), laughter, hums ("Ahhah", "Hmm", "Ooh").
_SOUND = re.compile(r"(.)\1\1|^(?:a*+h[ah]*+|h?m++|o++h*+|u++h*+|e++h*+|w[oh]++)$", re.IGNORECASE)


def _is_has(text: str, end: int) -> bool:
    """Whether the 's after text[:end] is "is" or "has" ("Life's good"), not a possessive."""
    m = _IS_HAS.match(text, end)
    if m is None:
        return False
    word = m.group(1)
    if word is None or word in _IS_HAS_CUES or word.endswith("ly") or (len(word) > 4 and word.endswith("ed")):
        return True
    # One word, then the clause ends ("Life's good!", but "Mia's birthday!"): only a predicate.
    return m.group(2) is not None and (word in _PREDICATES or word.endswith(_PREDICATE_ENDINGS))


def _looks_addressed(word: str) -> bool:
    """Whether a Title-case word opening a sentence before a comma is a name being addressed."""
    return not (
        word in _NOT_ADDRESSED
        or (word.endswith("ly") and len(word) > 5)
        or _SOUND.search(word) is not None
    )


def _opener(text: str, value: str, start: int, end: int) -> bool:
    """A lone Title-case word opening a sentence ("Install", "Default", "Life's good") is usually not
    a name. Two exceptions: a possessive ("Nora's brother" names Nora) and a word addressed before a
    comma ("Maya, that looks great")."""
    if " " in value or not value[1:].islower():
        return False
    i = start - 1
    while i >= 0 and text[i] in " \t":
        i -= 1
    if i >= 0 and text[i] not in _SENTENCE_END:
        return False
    after = text[end : end + 1]
    if after == "'" or after == "’":
        return _is_has(text, end)
    if after == "," and _LIST_MARKER.search(text, max(0, i - 8), i + 1) is not None:
        return True  # "6. Bucket, mug, mop": a list item, not someone addressed
    return after != "," or not _looks_addressed(value)


def _code(word: str) -> bool:
    """A letter with a number is a code, not a name: "P7", "S1", "Q3"."""
    return len(word) <= 3 and word[1:].isdigit()


def shouted(run: str) -> bool:
    """Words in capitals that hold a function word are shouting, not a name ("I GOT IT", "GUESS WHO
    GOT PROMOTED"); one word in capitals ("the WHO", "IT") and acronyms ("NHS UK") are left alone."""
    words = run.split(" ")
    return len(words) > 1 and run.isupper() and any(w.capitalize() in EXCLUDED_WORDS for w in words)


# A numbered or bulleted list item's opening ("6. Bucket, mug, mop", "- Towels, soap"): what follows
# is the item, not someone addressed before a comma.
_LIST_MARKER = re.compile(r"(?:^|\n)[ \t]*+(?:\d{1,3}[.)]|[-*•])[ \t]*+$")


def _proper_nouns(text: str, runs: list[tuple[int, str]]) -> list[_Hit]:
    """Capitalised runs; a sentence-opening lone word counts only if the text also capitalises it
    mid-sentence ("Berlin is big. I love Berlin." keeps both, "Install it." keeps nothing). A run
    in capitals that shouts, a value set in code ("daily_seasonality=True") and a letter with a
    number ("P7", "Q3") are no names."""
    hits: list[_Hit] = []
    openers: list[str] = []
    for start, run in runs:
        if (start and text[start - 1] == "=") or (run.isupper() and shouted(run)):
            continue
        if _code(run):
            continue
        if " " in run or "'" in run or "’" in run:
            n = len(hits)
            _noun_segments(text, start, run, hits)
            openers.extend(h[0] for h in hits[n:] if _opener(text, h[0], h[2], h[3]))
            continue
        if not run[0].isupper():
            continue
        end = start + len(run)
        hits.append((run, "unknown", start, end))
        # Cheap first: most names follow a letter and a space, far from a sentence start.
        if start > 1 and text[start - 1] == " " and text[start - 2].isalnum():
            continue
        if _opener(text, run, start, end):
            openers.append(run)
    if not openers:
        return hits
    if len(openers) == len(hits):  # every name opens a sentence: none is used elsewhere
        return []
    # An opener stays if the same word is also used where it is not one.
    drop = {v for v in openers if sum(h[0] == v for h in hits) == openers.count(v)}
    return [h for h in hits if h[0] not in drop] if drop else hits


# A run that is one excluded word (possessive, or with a contracted verb: "You're", "We've"), or one
# letter, yields nothing: skipped whole.
_CONTRACTIONS = (*_POSSESSIVE, "'re", "'ve", "'ll", "'d", "'m", "n't", "’re", "’ve", "’ll", "’d", "’m", "n’t")
_SKIP_RUNS: frozenset[str] = frozenset(
    set(EXCLUDED_WORDS)
    | {w.replace("'", "’") for w in EXCLUDED_WORDS}
    | {w + p for w in EXCLUDED_WORDS for p in _CONTRACTIONS}
    | set(string.ascii_uppercase)
    | {c + p for c in string.ascii_uppercase for p in _POSSESSIVE}
)

# Organisation pre-check without a scan of its own. A legal suffix that starts with a capital is a
# word (or the first part of a word) of a capitalised run: "Acme GmbH", "Inc" in "Acme, Inc.",
# "S" in "Acme S.A.". Alone, a one-letter run ("Acme, S.A.", "Foo, A/S") was skipped, so the forms
# with dots or a slash are then looked for as substrings, as are the lower-case ones ("plc").
# tests/test_extract_regex_speed.py checks the pre-check against ORGANIZATION for every suffix.
_SUFFIX_HEADS: frozenset[str] = frozenset(
    {
        "Inc", "Incorporated", "LLC", "L", "LLP", "Ltd", "Limited", "Corp", "Corporation", "Co", "GmbH",
        "AG", "KGaA", "KG", "OHG", "UG", "SAS", "SARL", "SA", "S", "SE", "PLC", "NV", "N", "BV", "B", "SpA",
        "Srl", "AB", "ASA", "Oyj", "Oy", "A", "ApS", "Pty", "K",
    }
)
_SUFFIX_LETTERS = frozenset("LSNBKA")
_SUFFIX_DOTTED = ("L.L.C.", "S.A.", "N.V.", "B.V.", "S.p.A.", "S.r.l.", "K.K.", "A/S")
_PARTS_TO_SPACES = str.maketrans({"'": " ", "’": " ", "-": " "})


def _runs(text: str) -> tuple[list[tuple[int, str]], bool]:
    """(start, run) of every capitalised run that is not one excluded word or one letter (most runs
    are: "I", "That's", "Thanks"; they are dropped here, before any other work), and whether an
    organisation suffix may be in the text.

    The runs come from `findall` (no match objects); a kept run's offset is found again with
    `str.find` from the end of the last one, and checked: the pattern must match exactly that run
    there (an earlier copy inside a skipped word, as "Don" in "Don't", is passed over)."""
    pattern = PROPER_NOUN_ASCII if text.isascii() else PROPER_NOUN
    found = pattern.findall(text)
    names = [run for run in found if run not in _SKIP_RUNS]
    kept: list[tuple[int, str]] = []
    pos = 0
    for run in names:
        start = text.find(run, pos)
        end = start + len(run)
        # The run looked for may be an earlier copy where no run starts, or one that goes on.
        if (start and ((c := text[start - 1]).isalnum() or c in "_'’@/.#&-")) or (
            end < len(text)
            and (
                not text[end + 1 : end + 2].islower()
                if (c := text[end]) == " "
                else c.isalnum() or c in "_'’-"
            )
        ):
            while (m := pattern.match(text, start)) is None or m.group() != run:
                start = text.find(run, start + 1)
            end = start + len(run)
        kept.append((start, run))
        pos = end
    org = (
        not _SUFFIX_HEADS.isdisjoint(names)
        or "plc" in text
        or "GmbH" in text
        or "e.V." in text
        or (not _SUFFIX_LETTERS.isdisjoint(found) and any(s in text for s in _SUFFIX_DOTTED))
    )
    if not org:  # a suffix inside a longer run: "Acme GmbH", "Acme Inc's"
        for run in names:
            if not run.isalnum() and not _SUFFIX_HEADS.isdisjoint(run.translate(_PARTS_TO_SPACES).split(" ")):
                return kept, True
    return kept, org


# Highest priority first: a later extractor's hit that overlaps an earlier one is dropped; proper
# nouns come last. The flag says the pattern needs a digit, so digit-free text skips it.
_EXTRACTORS: tuple[tuple[Callable[[str], Iterator[_Hit]], bool], ...] = (
    (_emails, False),
    (_urls, False),
    (_iso_dates, True),
    (_common_dates, True),
    (_simple(GERMAN_DATE, "date"), True),
    (_simple(ENGLISH_DATE, "date"), True),
    (_simple(MONEY, "money"), True),
    (_organizations, False),
    (_products, True),
)


class _Spans:
    """Non-overlapping accepted spans, sorted, with O(log n) overlap checks."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []

    def overlaps(self, start: int, end: int) -> bool:
        i = bisect.bisect_right(self.starts, start)
        if i > 0 and self.ends[i - 1] > start:
            return True
        return i < len(self.starts) and self.starts[i] < end

    def merge(self, hits: list[_Hit]) -> None:
        pairs = sorted([*zip(self.starts, self.ends, strict=True), *((h[2], h[3]) for h in hits)])
        self.starts = [s for s, _ in pairs]
        self.ends = [e for _, e in pairs]


def _has_www(text: str) -> bool:
    """Whether "www." in any case may be in the text (its last two letters and the dot are)."""
    return "ww." in text or "WW." in text or "wW." in text or "Ww." in text


# The bytes an ASCII text keeps of "0123456789:@" (a digit, a link's "://", an email's "@"): one C pass.
_NOT_DIGIT_COLON_AT = bytes(c for c in range(256) if not (48 <= c <= 58 or c == 64))


def _needs_other_patterns(text: str) -> bool:
    """Whether a pattern other than the proper noun and the organisation could match: a digit, an
    '@', '://' or 'www.' (a cheap over-approximation; the patterns decide)."""
    if text.isascii():
        if text.encode().translate(None, _NOT_DIGIT_COLON_AT):
            return True
    elif _DIGIT.search(text) is not None or "@" in text or ":" in text:
        return True
    return ("w." in text or "W." in text) and _has_www(text)


def _hits(text: str) -> list[_Hit]:
    runs, has_org = _runs(text)
    if not has_org and not _needs_other_patterns(text):  # most messages: only names can match
        return _proper_nouns(text, runs) if runs else []
    has_digit = _DIGIT.search(text) is not None
    spans = _Spans()
    kept: list[_Hit] = []
    for extractor, needs_digit in _EXTRACTORS:
        if (needs_digit and not has_digit) or (extractor is _organizations and not has_org):
            continue
        new = [h for h in extractor(text) if h[0] and not spans.overlaps(h[2], h[3])]
        if new:
            spans.merge(new)
            kept.extend(new)
    kept.extend(h for h in _proper_nouns(text, runs) if not spans.overlaps(h[2], h[3]))
    kept.sort(key=lambda h: h[2])
    return kept


def _mention_fields(text: str, limit: int) -> list[dict[str, object]]:
    kept = _hits(text)  # text without a letter or digit matches nothing: no worth_extracting check
    if len(kept) > limit:
        counters.inc("extract.regex.mentions_capped", len(kept) - limit)
        kept = kept[:limit]
    return [
        {
            "value": value,
            "type": type_,
            "tier": "regex",
            "start": start,
            "end": end,
            # initial_importance, inlined: the tier's values have no surrounding spaces
            "importance": BASE_IMPORTANCE.get(type_) or (0.5 if " " in value else 0.3),
        }
        for value, type_, start, end in kept
    ]


def find_mentions(text: str, limit: int = MAX_MENTIONS) -> list[Mention]:
    """All regex mentions in text, without overlaps, in text order (at most `limit`)."""
    return [Mention.model_validate(f) for f in _mention_fields(text, limit)]


# Extraction.model_validate without its Python-level wrapper (pydantic's documented validator).
_validate_extraction = Extraction.__pydantic_validator__.validate_python


class RegexTier:
    """The instant tier: runs on every message before anything slower."""

    name = "regex"

    def __init__(self, config: RegexConfig | None = None, limit: int = MAX_MENTIONS) -> None:
        self.config = config or RegexConfig()
        self.limit = limit

    def extract(self, messages: list[Message]) -> list[Extraction]:
        if not self.config.enabled:
            return [Extraction(message_id=m.id) for m in messages]
        return [self._one(m) for m in messages]

    def _one(self, message: Message) -> Extraction:
        try:
            fields = _mention_fields(message.text, self.limit)
            # One validation for the message and its mentions (cheaper than one per mention).
            return _validate_extraction(
                {"message_id": message.id, "mentions": fields} if fields else {"message_id": message.id}
            )
        except Exception as exc:  # a bug here must cost one message, never the batch
            counters.inc("extract.regex.failed")
            log.warning("regex extraction failed for message %s: %s", message.id, type(exc).__name__)
        return Extraction(message_id=message.id)
