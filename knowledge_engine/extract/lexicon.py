"""The words the dependency fact tier reads: verbs, nouns, predicates and name cues.

Why apart: the rules in dependency/ read better without five hundred lines of word lists in
front of them, and these lists are what a reader tunes or extends (docs/extraction-facts.md
says what each construction uses). Nothing here parses; it is data and two tiny helpers.
"""

from __future__ import annotations

import re

from knowledge_engine.model.predicates import rename
from knowledge_engine.model.records import EntityType


def _words(text: str) -> set[str]:
    return set(text.split())


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
# Verbs of telling whose clause the speaker asserts ("Please note that we have moved to Chester").
ANNOUNCE_VERBS = {"inform", "note", "notify", "advise", "tell", "update", "mention"}
# Verbs of learning whose complement clause is asserted ("I learned that Tom works at X"); "find" and
# "turn" count with "out" ("found out", "turns out").
FACTIVE_VERBS = {"learn", "discover", "realise", "realize"}
# Feelings about what happened: the clause after them is asserted ("I'm so relieved we finally moved
# to Vancouver"); not worry or hope ("I'm worried we'll have to move").
EMOTIVE_ADJECTIVES = _words(
    "glad happy relieved thrilled chuffed proud gutted sad delighted pleased grateful thankful lucky"
)
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
    "stay",  # "a stay at home mum" parses "stay" as the noun
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
    "end",
    "moment",
    "rent",  # "we pay 1,200 a month in rent": the amount is the fact (has-rent), not "pays-in rent"
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
# Verbs of a trade whose "for" and a named organisation is the employer: "I drive OTR for Buckeye
# Freightways", "she teaches for the Toronto board", "I write for The Guardian".
WORK_FOR_VERBS = {
    *("drive", "haul", "deliver", "fly", "ride", "teach", "nurse", "code", "program", "develop", "test"),
    *("design", "write", "consult", "contract", "freelance", "cook", "clean", "build", "sell"),
}
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
# Verb-preposition pairs renamed to the shared vocabulary (come from = is from); a wording of a
# single-valued relation takes the one vocabulary's predicate (model/predicates.py).
PREDICATE_ALIASES = {
    # "I got promoted to store manager at Lidl": promoted where one works
    **dict.fromkeys(["was-promoted-at", "promoted-at", "got-promoted-at", "is-promoted-at"], "works-at"),
    "finished-at": "left",  # "I finished at Sainsbury's on Friday": the job ended
    "is-done-with": "left",  # "i am done with polytechnique for real": the studies (or the job) ended
    # "Leo's school is Hillcrest Primary", "her nursery is Little Acorns": the school a person attends
    "has-school": "attends",
    "has-nursery": "attends",
    "comes-from": "is-from",
    "came-from": "is-from",
    "bears-in": "born-in",
    "beared-in": "born-in",
    # "he's been at Thornwood since P1": the small model reads the perfect's 's as "is"
    "is-been-at": "is-at",
    "is-been-in": "is-in",  # "Born in Leeds, moved to York at 20": a participle read as past
    "was-born-in": "born-in",
    "works-as": rename("works-as"),
    # "born and brought up in Kochi", "raised in Cork" (the small model reads the passive as active)
    "brings-up-in": "grew-up-in",
    "brought-up-in": "grew-up-in",
    "raises-in": "grew-up-in",
    "raised-in": "grew-up-in",
    # "we're settled in Brighton", "we're based in Glasgow": a home, as "settled in Brighton" says it
    "is-settled-in": "settled-in",
    "has-team-leader": "has-team-lead",  # "Priya is my new team leader"
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
    "quit": "quit",
    "find": "found",
    "pay": "paid",
    "lose": "lost",
}
TAKE_HOME = "has-take-home-pay"  # model/predicates.py: its own family beside the salary
TAKE_HOME_NOUNS = ("take", "take-home", "payslip", "paycheck", "paycheque")
# Kin words a speaker keeps from another language in English chat ("my anak Gabriel", "my kuya
# Paolo", "my hija Valentina"): Spanish, Portuguese, French, German, Italian, Hindi and Urdu, Tagalog,
# Swahili (general knowledge, not any story's). Not a parent's word: "Mama has diabetes", "Appa
# retired" use it as the parent's name, and a kin word's fact with no name known is dropped.
FOREIGN_KIN = {
    **dict.fromkeys(
        [
            *("esposo", "esposa", "marido", "mari", "ehemann", "ehefrau", "moglie", "marito"),
            *("patni", "pati", "asawa", "mume", "mke"),
        ],
        "is-married-to",
    ),
    **dict.fromkeys(
        [
            *("hija", "hijo", "filha", "filho", "fils", "fille", "tochter", "sohn", "figlia", "figlio"),
            *("beti", "anak", "mtoto"),  # not "beta": "my beta testers"
        ],
        "has-child",
    ),
    **dict.fromkeys(
        ["hermano", "irmão", "frère", "bruder", "fratello", "kuya", "bhai", "bhaiya"], "has-brother"
    ),
    **dict.fromkeys(["hermana", "irmã", "sœur", "schwester", "sorella", "didi", "behen"], "has-sister"),
    **dict.fromkeys(["sis", "sissy"], "has-sister"),  # chat's own: "my sis Kerry-Ann"
    "bro": "has-brother",  # "my bro Nick"
}
# "my" in the languages FOREIGN_KIN's words come from, before a kin word ("mi hija Valentina",
# "Minha namorada Larissa", "Meri beti Anaya", "mon mari Luc"): read only before one.
FOREIGN_MY = frozenset(
    {"mi", "mis", "minha", "meu", "meri", "mera", "mon", "ma", "mein", "meine", "mio", "mia"}
)
MANAGER_NOUNS = {
    "manager",
    "boss",
    "teamlead",
    "line-manager",
    "mgr",
    "hod",
    "superior",  # "my superior, Mrs. Adebola": formal and non-native English
    "chief",  # "my old chief from Nokia" (a "chef" or "jefe" of other languages)
    "manger",  # the typo autocorrect leaves: "brian the depot manger says"
    "sm",  # retail's store manager: "my SM trish"
    "gm",  # general manager
    "superintendent",  # a pharmacy's superintendent pharmacist: "my superintendent, Mr Varma"
}  # a supervisor may be a PhD one; "hod": head of department
# Relation nouns folded into one predicate, whichever word the speaker used: "my husband Tom"
# and "Tom, my wife's ..." both read `is-married-to`; a son, a daughter and a kid are `has-child`.
RELATION_PREDICATES = {
    **dict.fromkeys(["husband", "wife", "spouse", "hubby", "hubs", "wifey", "missus"], "is-married-to"),
    **dict.fromkeys(
        [
            *("partner", "girlfriend", "boyfriend", "fiance", "fiancé", "fiancee", "fiancée"),
            *("bf", "gf", "boyf", "fella"),  # "my fella Gav": the British and Irish boyfriend
            # the word a French, Spanish or Portuguese speaker keeps in English chat: "my copine léa"
            *("copine", "copain", "novia", "novio", "namorada", "namorado"),
        ],
        "has-partner",
    ),
    **dict.fromkeys(
        # "my lad Liam": the British son
        [
            *("son", "daughter", "kid", "kiddo", "child", "children", "baby"),
            *("stepson", "stepdaughter", "toddler", "lad"),
        ],
        "has-child",
    ),
    **dict.fromkeys(["mum", "mom", "mother", "mam", "mommy", "mummy"], "has-mother"),
    **dict.fromkeys(["dad", "father", "daddy", "papa"], "has-father"),
    **FOREIGN_KIN,
    **dict.fromkeys([*MANAGER_NOUNS, "team-lead"], "has-manager"),
    **dict.fromkeys(["salary", "pay", "income", "wage", "wages", "compensation", "stipend"], "has-salary"),
    # pay after tax, a value of its own: "my take home is £2,080" (the parse leaves "take" as the noun)
    **dict.fromkeys(TAKE_HOME_NOUNS, TAKE_HOME),
    **dict.fromkeys(["title", "role", "position", "job-title"], "has-role"),
    **dict.fromkeys(["employer", "workplace", "company", "firm"], "works-at"),  # "my employer, Serco"
}
MOVE_VERBS = {"move", "relocate"}
# What only a child has: "Ruby's daycare", "Callum's teacher" (not "school": adults work at one).
CHILDCARE_NOUNS = {
    "daycare",
    "nursery",
    "preschool",
    "kindergarten",
    "creche",
    "crèche",
    "teacher",
    "homework",
}
TIME_PARTS = {
    "end",
    "start",
    "beginning",
    "middle",
    "mid",
}  # "to Leeds end of May": the parser swallows the place
HOME_FIND_VERBS = {"find", "buy", "get"}  # "we found a house in Headingley": where we are moving
# Verb families: (lemma, preposition) -> (present predicate, past predicate). Verbs that mean the
# same relation land on one predicate whatever word the speaker used ("we stay in Pune", "I shifted
# to Bangalore", "she teaches at Lamar"), so supersession and retrieval see one family. Grouped by
# meaning, not by any story's sentence; "stay in" is present-only (a past "stayed in" is a visit).
_WORK_AS_VERBS = ("teach", "intern", "lecture", "temp")  # "I temp at Barclays": works there
VERB_FAMILIES: dict[tuple[str, str], tuple[str, str]] = {
    **{(v, "in"): ("lives-in", "lived-in") for v in ("live", "reside")},
    ("stay", "in"): ("lives-in", ""),
    **{("settle", p): ("lives-in", "settled-in") for p in ("in", "into")},
    **{(v, "to"): ("moves-to", "moved-to") for v in ("move", "relocate", "shift", "emigrate", "flit")},
    ("work", "at"): ("works-at", "worked-at"),
    **{(v, p): ("works-at", "worked-at") for v in _WORK_AS_VERBS for p in ("at", "for")},
    **{(v, "at"): ("studies-at", "studied-at") for v in ("study", "enrol", "enroll")},
}
FAMILY_VERBS = {lemma for lemma, _ in VERB_FAMILIES}
# Verbs whose "at X" may hang on their object ("teaches 7th grade science at Lamar Middle School").
WORK_VERBS = {"work", "teach", "intern", "lecture"}
# Adverbs that turn a negated present state into an ended one: "I no longer work at X", "not ... anymore".
ENDED_STATE = {"longer", "anymore", "more"}
# Car makes and well-known model names (general knowledge, not any story's): "bought a Skoda Octavia",
# "we have a 2016 Honda Pilot", "picked up the RAV4" -> has-car. Matched on the object's own words, cased.
CAR_MAKES = frozenset({
    "Acura", "Alfa", "Audi", "BMW", "Buick", "BYD", "Cadillac", "Chevrolet", "Chevy", "Chrysler", "Citroen",
    "Citroën", "Cupra", "Dacia", "Daewoo", "Daihatsu", "Dodge", "Ferrari", "Fiat", "Ford", "GMC", "Holden",
    "Honda", "Hyundai", "Infiniti", "Isuzu", "Jaguar", "Jeep", "Kia", "Lada", "Lancia", "Lexus", "Lincoln",
    "Mahindra", "Maruti", "Mazda", "Mercedes", "Mini", "MG", "Mitsubishi", "Nissan", "Opel", "Peugeot",
    "Polestar", "Pontiac", "Porsche", "Proton", "Ram", "Renault", "Rivian", "Rover", "Saab", "Saturn",
    "Seat", "SEAT", "Skoda", "Škoda", "Smart", "Subaru", "Suzuki", "Tata", "Tesla", "Toyota", "Vauxhall",
    "Volkswagen", "Volvo", "VW",
})  # fmt: skip
CAR_MODELS = frozenset({
    "Accord", "Astra", "Camry", "Captur", "Civic", "Clio", "Commodore", "Corolla", "Corsa", "CR-V",
    "Duster", "Echo", "Escape", "Explorer", "F-150", "Fabia", "Fiesta", "Focus", "Forester", "Golf",
    "Highlander", "Hilux", "Ibiza", "i10", "i20", "i30", "Impreza", "Jazz", "Juke", "Kuga", "Leaf", "Micra",
    "Mondeo", "Mustang", "Octavia", "Outback", "Passat", "Pilot", "Polo", "Prius", "Punto", "Qashqai",
    "RAV4", "Sandero", "Sorento", "Sportage", "Swift", "Tacoma", "Tiguan", "Tucson", "Twingo", "Yaris",
    "Zafira", "Ute", "Silverado", "Tundra", "Wrangler", "Outlander", "Elantra", "Altima", "Sentra",
    "Pathfinder", "Kona", "Ioniq", "Niro", "Megane", "Mégane", "Ceed", "CX-5",
    "Berlingo", "Picanto", "Creta", "Karoq", "Kodiaq", "Kamiq", "Mokka", "Grandland", "Aygo", "Auris",
    "Avensis", "X-Trail", "Navara", "Almera", "HR-V", "CX-3", "CX-30", "MX-5", "Vitara", "Baleno",
    "Celerio", "Ertiga", "Nexon", "Tiago", "Kadjar", "Arkana", "Touareg", "T-Roc", "Touran", "Sharan",
    "Meriva", "Kangoo", "Trafic", "Macan", "Venza", "LandCruiser", "Prado", "Patrol", "Ranger", "Triton",
    "D-Max", "BT-50", "MU-X", "Kluger", "Everest",
})  # fmt: skip
CAR_NAMES = CAR_MAKES | CAR_MODELS  # a span of these words is a car ("Renault Clio"), never a person
CAR_NOUNS = frozenset(
    {"car", "estate", "hatchback", "suv", "truck", "van", "hybrid", "wagon", "ute", "sedan"}
)
CAR_GET_VERBS = frozenset({"buy", "get", "have", "own", "lease", "pick", "collect", "drive"})
# A place inside a city: "Kreuzberg is a lively area", "Clifton, a suburb of Bristol".
DISTRICT_NOUNS = frozenset(
    {"area", "neighbourhood", "neighborhood", "district", "suburb", "borough", "quarter", "barrio", "bairro"}
)
# "the east end of Glasgow", "the outskirts of Leeds": what follows "of" is a place.
PLACE_PARTS = _words("end side part centre center outskirts north south east west edge heart")
# "at Tesco right now", "at the Hilton tonight": being somewhere for a while, not working there.
# Words that make a unit of time how often, not when: "3 days a week", "every weekend", "per month"
FREQUENCY_WORDS = frozenset({"a", "an", "per", "every", "each"})
VISIT_WORDS = frozenset(
    {"today", "tonight", "tomorrow", "yesterday", "right", "moment", "visiting", "week", "weekend"}
    | {"holiday", "holidays", "hols", "vacation"}  # "I'm on holiday at Center Parcs"
)
# Past wordings whose verb itself says a relation ended ("I left Northwind", "we sold the Golf"): the store
# ends the subject's current fact with that object (model/predicates.py says which relations each ends).
# "leaves" too, said ahead ("I'm leaving Acme in June"): it ends a job or a school, never a home (a trip).
ENDING_PREDICATES = frozenset(
    {
        "left",
        "leaves",
        "quit",
        "resigned-from",
        "retired-from",
        "sold",
        "moved-out-of",
        "moved-from",
        "was-laid-off-from",
    }
)
FRAGMENT_IRREALIS = {"if", "would", "'d", "could", "might", "maybe", "hopefully", "wish", "unless", "whether"}
FRAGMENT_LEADS = {"update", "news", "so", "ok", "okay", "btw", "also", "and", "oh", "well", "yay", "finally"}
FRAGMENT_OWNERS = {"my", "new", "current", "the", "our", "annual", "base", "monthly", "starting"}
FRAGMENT_GLUE = {"is", "now", "only", "just", "about", "around", "roughly", "finally", "currently", "of"}
FRAGMENT_JOB_KEYS = {"job", "employer", "gig", "workplace"}
FRAGMENT_ROLE_KEYS = {"role", "title", "position", "occupation", "profession", "designation"}
# Words a note's key names a thing with, never a person, though some are first names too ("Job: ...")
NOTE_KEY_WORDS = frozenset(
    FRAGMENT_JOB_KEYS
    | FRAGMENT_ROLE_KEYS
    | FRAGMENT_LEADS
    | {"work", "home", "car", "rent", "salary", "pay", "location", "status", "note", "notes", "age", "school"}
)
PURCHASE_WORDS = {
    "buy",
    "bought",
    "sell",
    "sold",
    "price",
    "cost",
    "deposit",
    "worth",
    "value",
    "sale",
    "offer",
}
DEGREE_NOUNS = _words(
    """degree masters master's phd doctorate mba msc ma bsc ba beng meng mtech btech llm llb
    diploma undergrad postgrad thesis dissertation apprenticeship"""
) - {"apprenticeship"}
TRAINEESHIPS = {
    "internship": "intern",
    "apprenticeship": "apprentice",
    "traineeship": "trainee",
    "residency": "resident",
}
# A school year or class as a span the model names ("Grade 10", "Year 3", "P7", "S1"): no name.
SCHOOL_YEAR = re.compile(r"(?:grade|year|yr|class|form|p|s)\s?\d{1,2}", re.I)
# A school year said in a sentence, in the ways of several school systems ("Grade 2 at X", "going into
# 7th at X", "in third class at the X", "7th grade", "kindergarten"): the name beside it is a school.
_ORDINALS = "first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth"
_MONTHS = "of|jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|january|february|march|april|june|july|"
_MONTHS += "august|september|october|november|december"
_STAGES = ("reception", "nursery", "preschool", "pre-school", "secondary", "sixth form", "big school")
SCHOOL_STAGES = frozenset(_STAGES)  # a stage is no place: "Leo starts reception" is no fact of its own
_STAGES_SAID = "|".join(re.escape(s).replace(r"\ ", r"\s+") for s in _STAGES)
SCHOOL_YEAR_SAID = re.compile(
    rf"\b(?:{SCHOOL_YEAR.pattern}|\d{{1,2}}(?:st|nd|rd|th)\s+(?:grade|class)|(?:{_ORDINALS})\s+(?:grade|class)|"
    rf"(?:in|into)\s+\d{{1,2}}(?:st|nd|rd|th)(?!\s+(?:{_MONTHS})\b)|(?:in|into)\s+(?:{_ORDINALS})\s+year|"
    rf"kindergarten|pre-?k|"
    # a stage started or in, as the UK says the first years: "Leo starts reception at St Peter's"
    rf"(?:starts?|starting|started|in|into)\s+(?:{_STAGES_SAID}))\b",
    re.I,
)
# Modifiers of a relation noun that leave the relation as it is ("my actual supervisor", "my direct
# manager", "my new boss"): dropped from the predicate, unlike "best friend" or "former boss".
NEUTRAL_MODIFIERS = frozenset(
    {"new", "current", "actual", "real", "direct", "immediate", "present", "official"}
)
# Roles whose "head" runs the speaker's team: "my head nurse, Ms. Leena Thomas", "the head chef".
HEADED_ROLES = {"nurse", "chef"}
MULTIPLE_BIRTHS = {"twins", "triplets", "quadruplets"}
SALARY_NOUNS = {
    *("salary", "pay", "income", "wage", "wages", "compensation", "stipend"),
    *("paycheck", "paycheque", "payslip"),
    "take-home",  # "take home": the parse's noun is "take" (RELATION_PREDICATES), "home" is no home then
}
HOME_NOUNS = {
    "house", "flat", "apartment", "place", "room", "studio", "home", "condo", "cottage", "bungalow",
    "terrace", "townhouse", "maisonette", "bedsit", "semi", "housing", "accommodation",
    "1bhk", "2bhk", "3bhk", "bhk", "1rk", "duplex", "villa",
    "apt", "1br", "2br", "3br", "4br", "1bd", "2bd", "3bd",  # US listings' shorthand: "a 2br apt in fremont"
}  # fmt: skip
# A home no longer or not mainly lived in: "my old flat in Leith", "our holiday cottage in Kerry".
OLD_HOME_WORDS = frozenset(
    {"old", "previous", "former", "last", "holiday", "second", "summer", "first", "childhood"}
)
WORK_NOUNS = {
    *("manager", "boss", "supervisor", "colleague", "coworker", "team", "teamlead", "lead"),
    *("ceo", "workmate", "sm", "gm"),
}
VALUE_NOUNS = {*SALARY_NOUNS, "rent", "mortgage"}
PAY_WORDS = {*VALUE_NOUNS, "base", "basic"}
# An amount that is pay by its own unit ("18 LPA": lakhs per annum) or by the words after it.
PAY_MARKED = re.compile(r"\b(?:LPA|CTC)\b|\blakhs? per annum\b", re.IGNORECASE)
# The words after an amount that make it pay after tax (has-take-home-pay), not the salary.
NET_MARKED_AFTER = re.compile(r"(?:after tax|net\b|take[- ]home|in hand)")
PAY_MARKED_AFTER = re.compile(
    r"(?:before tax|after tax|pre-tax|pretax|gross|net\b|ctc|lpa|per annum|p\.a\.|salary\b|base salary"
    r"|base\b(?! (?:price|model|rate|fare|cost|fee|trim|spec|version))(?!-))"
)  # "$165k base" (not "$30 base price")
# A retired speaker's income: "the ESB pension comes to about €1,950 a month" is pay, never a home's rent.
PENSION_NOUNS = {"pension", "pensions"}
PAY_CUES = {
    *SALARY_NOUNS,
    *PENSION_NOUNS,
    "take",  # "my take-home is 2,080 a month": pay, though "home" follows
    "earn",
    "make",
    "paid",
    "tax",
    "gross",
    "net",
    "bonus",
    "hike",
    "raise",
    "ctc",
    "job",
}  # "The base is $140,000": the base salary
# Words after an amount that belong to it: "980 euro", "54k per year" ends before "per".
CURRENCY_WORDS = _words(
    "euro euros eur dollars dollar usd bucks pounds pound quid gbp chf francs yen k grand"
)
# A message that arrives from a place (extract/arrival.py): words of a move made or of the new home
# being lived in, and words of a trip, which make the place a visit instead.
MOVE_CUES = _words(
    """move moved movers unpack unpacking boxes settle settling settled lease apartment flat house rent
    renting living neighbours neighbors landlord"""
)
TRIP_CUES = _words(
    "holiday holidays vacation trip hotel hostel flight conference visiting visit tour airbnb honeymoon"
)
ANIMAL_NOUNS = {
    "dog", "cat", "puppy", "kitten", "pet", "horse", "rabbit", "hamster", "parrot", "pony", "tortoise",
    "budgie", "bunny", "ferret",
}  # fmt: skip
# A breed names the animal: "a rescue greyhound called Biscuit" -> has-dog Biscuit.
PET_BREEDS = {
    **dict.fromkeys(
        _words(
            """greyhound collie labrador lab spaniel terrier retriever poodle beagle kelpie dachshund pug
            husky whippet lurcher corgi schnauzer labradoodle cockapoo sheepdog shepherd boxer chihuahua
            staffie staffy westie yorkie frenchie bulldog rottweiler doberman dobermann dalmatian springer
            cavapoo sprocker pomeranian samoyed akita"""
        ),
        "dog",
    ),
    **dict.fromkeys(_words("tabby moggy siamese persian ragdoll tomcat kitty bengal burmese sphynx"), "cat"),
    **dict.fromkeys(_words("pup pupper doggo doggy"), "dog"),  # chat's words for a dog
}
PET_NOUNS = ANIMAL_NOUNS | PET_BREEDS.keys()
CONDITIONS = _words(
    """asthma diabetes arthritis eczema epilepsy migraine migraines adhd autism dyslexia anxiety
    depression dementia cancer hypertension psoriasis ibs endometriosis pcos fibromyalgia tinnitus
    gout lupus ms parkinson's alzheimer's crohn's coeliac celiac anaemia anemia hypothyroidism
    sciatica insomnia apnoea apnea covid shingles bronchitis pneumonia tonsillitis sinusitis glaucoma
    cataracts osteoporosis osteoarthritis scoliosis tendonitis tendinitis gallstones angina afib
    arrhythmia copd emphysema hepatitis hiv ocd ptsd bipolar schizophrenia anorexia bulimia rosacea
    vertigo hayfever dyspraxia narcolepsy neuropathy concussion whiplash leukaemia leukemia lymphoma
    melanoma diverticulitis colitis gastritis pancreatitis meningitis cystitis dermatitis sepsis
    chickenpox measles hyperthyroidism crohns parkinsons alzheimers hernia"""
)
# Conditions named after a person, written with "'s" ("Crohn's"): one token each (extract/eponyms.py)
EPONYMOUS_CONDITIONS = (
    "crohn", "parkinson", "alzheimer", "asperger", "hashimoto", "raynaud", "tourette", "meniere",
    "ménière", "sjogren", "sjögren", "hodgkin",
)  # fmt: skip
CONDITIONS |= {name + apostrophe + "s" for name in EPONYMOUS_CONDITIONS for apostrophe in ("'", "’")}
# Verbs of getting over an illness ("beat breast cancer", "survived a stroke", "recovered from").
RECOVERY_VERBS = {"beat", "survive", "recover"}
DISEASE_HEADS = {"disease", "syndrome", "disorder", "deficiency", "intolerance", "allergy"}
# Conditions said as what one is ("I'm lactose intolerant", "he's diabetic", "I'm coeliac").
CONDITION_ADJECTIVES = _words(
    """intolerant diabetic prediabetic pre-diabetic anaemic anemic asthmatic epileptic coeliac celiac
    autistic dyslexic hypertensive pregnant"""
)
# Conditions of two words whose head alone says nothing ("high blood pressure", "high cholesterol").
CONDITION_COMPOUNDS = {
    ("pressure", "blood"),
    ("cholesterol", "high"),
    ("apnoea", "sleep"),
    ("apnea", "sleep"),
    ("bp", "high"),
    ("disc", "slipped"),
    ("disc", "herniated"),
    ("acl", "torn"),
    ("tunnel", "carpal"),
    ("fever", "hay"),
    ("fever", "glandular"),
    ("stones", "kidney"),
    ("fibrillation", "atrial"),
    ("sclerosis", "multiple"),
    ("fatigue", "chronic"),
    ("palsy", "cerebral"),
    ("pain", "back"),  # "I have back pain", "chronic neck pain"
    ("pain", "neck"),
    ("pain", "knee"),
    ("pain", "hip"),
    ("pain", "shoulder"),
    ("pain", "joint"),
    ("pain", "nerve"),
    ("pain", "chronic"),
    ("back", "bad"),  # "I've got a bad back"
    ("knee", "bad"),
    ("hip", "bad"),
    ("shoulder", "bad"),
    ("reflux", "acid"),
    ("failure", "heart"),
    ("failure", "kidney"),
    ("attack", "panic"),  # "I get panic attacks"
    ("covid", "long"),
    ("thyroid", "underactive"),  # "Turns out I have an underactive thyroid"
    ("thyroid", "overactive"),
}
CLINICIANS = _words("doctor doc dr gp consultant specialist dentist nurse physio dermatologist cardiologist")
# "our X" in a user message is the speaker's X for family (a family talks of "our son"), not
# for teams, companies or flats, which the speaker may only belong to.
FAMILY_NOUNS = {
    "son",
    "daughter",
    "kid",
    "kiddo",  # "my kiddo Sam"
    "child",
    "children",
    "baby",
    "stepson",
    "stepdaughter",
    "toddler",
    "lad",  # "our lad Callum": the British son
    "mum",
    "mom",
    "mother",
    "mam",
    "mommy",
    "mummy",
    "dad",
    "father",
    "daddy",
    "papa",
    "parents",
    "brother",
    "sister",
    "grandma",
    "grandmother",
    "grandpa",
    "grandfather",
    "granny",
    "nan",
    "dog",
    "cat",
}
# The object of these predicates is a person; roles, money and ages are values, not entities.
PERSON_PREDICATES = {"is-married-to", "has-partner", "has-child", "has-mother", "has-father", "has-manager"}
# Entity type implied by a predicate for a named object (a city one moves to is a location even
# when the small model calls it an organisation; a child is a person, never an organisation).
PREDICATE_OBJECT_TYPES: dict[str, EntityType] = {
    **dict.fromkeys(PERSON_PREDICATES, "person"),
    **dict.fromkeys(
        [
            "works-at",
            "worked-at",
            "works-for",
            "worked-for",
            "attends",
            "attended",
            "studies-at",
            "studied-at",
            "teaches-at",
            "taught-at",
            "volunteers-at",
        ],
        "organization",
    ),
    **dict.fromkeys(
        [
            "lives-in",
            "lived-in",
            "moved-to",
            "moves-to",
            "moved-from",
            "moves-from",
            "grew-up-in",
            "born-in",
            "is-from",
            "was-from",
        ],
        "location",
    ),
    **dict.fromkeys(["drives", "drove", "has-car"], "product"),
    **dict.fromkeys(["has-salary", "has-salary-offer", "has-rent"], "money"),
    # a pet's name: not a person, nor the organisation the small model may call it
    **dict.fromkeys([f"has-{a}" for a in ANIMAL_NOUNS], "unknown"),
}
PERSON_SUBJECT_PREDICATES = PERSON_PREDICATES | {
    "is-aged",
    "attends",
    "attended",
    "works-at",
    "worked-at",
    "has-role",
    "has-salary",
    "has-salary-offer",
}
# Values that are not entities: a job title is not an organisation ("Head of Design").
VALUE_PREDICATES = {"has-role", "is-aged", "is-a", "was-a"}
# Nouns naming a job one gets, takes or starts ("got a job at X", "accepted a position with X").
# A rise in pay said by its noun ("got a raise to 48k", "a pay rise to £40,000").
RAISE_NOUNS = frozenset({"raise", "rise", "payrise", "bump", "increase", "increment", "hike"})
JOB_NOUNS = {"job", "position", "role", "post", "gig", "contract", "internship", "placement", "offer"}
# The heads of a title the small model reads as a verb ("a team lead", "a shift leader").
LEAD_WORDS = {"lead", "leader"}
# Feasts the small model may take for a place or a name ("my job at Easter").
HOLIDAYS = _words("christmas xmas easter thanksgiving halloween diwali eid hanukkah passover")
# Units of a stay of months or years said as a count ("at Google 3 years now", "a 4 year old"): not
# days or weeks, which an errand or a visit takes.
STAY_UNITS = frozenset({"year", "yr", "month"})
# Work done at or for an employer: "doing nights at the Co-op", "contract work for the NHS".
SHIFT_NOUNS = _words("shift night nights day days weekend weekends overtime work locum placement")
# Workplaces chat names in lower case after "the": "Tom's new job at the council", "his job at the bank".
WORKPLACE_NOUNS = _words(
    "council library hospital bank university college school nursery surgery pharmacy factory warehouse"
    " airport museum theatre prison police"
)
# Nouns for an employer named after them: "at a software company called Brightwave".
FIRM_NOUNS = _words(
    "company firm startup start-up agency charity consultancy business bank practice fintech scaleup scale-up"
    " nonprofit non-profit retailer manufacturer studio outfit publisher supplier provider"
)
# Fields and departments one works "in", capitalised as chat often does: "I work in Finance" names no
# employer (the small model tags "Finance" an organisation).
WORK_FIELDS = _words(
    """finance marketing sales hr it ops operations retail procurement hospitality healthcare education
    tech technology construction insurance banking law pharma consulting logistics admin accounts
    accounting engineering design research publishing media recruitment recruiting comms communications
    compliance legal payroll support property telecoms telecom software government audit tax"""
)
# What a job does when it is over: "my job at Boots ended last week".
JOB_END_VERBS = _words("end finish stop fold close")
# Verbs whose present perfect is the ending itself: "I've left Google", "we've sold the Corsa".
DONE_BY_PERFECT = _words("leave quit sell")
# Words for a person named after them: "my new boss is a guy called Pete".
PERSON_NOUNS = _words("guy man woman lady bloke chap fella fellow girl boy person lad lass")
# A job someone has, named with its employer: "my job at X", "her new role with Y".
OWN_JOB_NOUNS = {"job", "position", "role", "post", "gig", "internship", "placement", "workplace", "shift"}
# "my dream job at Google" is no job; "my old job at X" is one that ended.
UNREAL_JOB_MODS = {"dream", "ideal", "perfect", "potential", "possible", "hypothetical"}
PAST_JOB_MODS = {"old", "former", "previous", "last", "first", "prior", "earlier"}
# The predicates that say where someone works or worked.
WORK_PREDICATES = {"works-at", "worked-at", "works-for", "resigned-from", "attends", "attended"}
JOB_GET_VERBS = {"get", "land", "take", "accept", "start", "begin", "find", "secure", "score", "have"}
# "I got an offer from Monzo", "we received an offer from X": an offer held, not yet a job.
OFFER_GET_VERBS = {"get", "receive", "have", "come"}
# Verbs of starting somewhere: "I start at Acme on June 8", "Leo will start at Riverside Primary".
START_VERBS = {"start", "begin", "join"}
SCHEDULED_VERBS = START_VERBS | {"report"}  # "I'll report to Omar Haddad"
HIRE_VERBS = {"hire", "employ", "recruit", "take"}
# A scheduled start is a fact about the future, unlike other plans: will/'ll/shall are allowed.
SCHEDULED_MODALS = {"will", "'ll", "shall", "wo"}
SCHOOL_WORDS = {
    "colegio",
    "escuela",
    "escola",
    "école",
    "ecole",
    "lycée",
    "lycee",
    "collège",
    "schule",
    "grundschule",
    "gymnasium",
    "kita",
    "scuola",
    "liceo",
    "basisschool",
    "scoil",  # Irish: "Scoil Bhríde", "Gaelscoil"
    "gaelscoil",
    "school",
    "primary",
    "secondary",
    "elementary",
    "kindergarten",
    "nursery",
    "preschool",
    "academy",
    "high",
    "daycare",
    "montessori",
    "prep",
    "infants",
    "juniors",
    "grammar",  # "Ashford Grammar"
    "playschool",
    "creche",
    "crèche",
}
# Verbs of a career's start or end: "started out as a linesman", "retired as head teacher" (past).
CAREER_VERBS = frozenset({"start", "begin", "finish", "end", "retire", "spend"})
# Heads of job titles written without an article: "I'm now Head of Design", "I'm Lead Engineer".
TITLE_HEADS = {
    "head",
    "director",
    "manager",
    "lead",
    "chief",
    "vp",
    "president",
    "officer",
    "engineer",
    "designer",
    "developer",
    "analyst",
    "architect",
    "editor",
    "consultant",
    "coordinator",
    "specialist",
    "administrator",
    "principal",
    "associate",
    "intern",
    "ceo",
    "cto",
    "cfo",
    "coo",
    "cmo",
    "founder",
    "co-founder",
    "cofounder",
    "owner",
    "supervisor",
    "scientist",
    "researcher",
    "partner",
    "strategist",
    "producer",
    "accountant",
    "controller",
    "recruiter",
    "advisor",
    "adviser",
}
# Verbs of a duty done at one's workplace: "I manage a team at Asda", "I run the kitchen at The Swan";
# those that say a job with no object: "I cook at The Swan".
DUTY_VERBS = _words("manage run lead head handle supervise oversee coordinate cook nurse bartend")
DUTY_VERBS_ALONE = _words("cook nurse bartend")
# The last word of what one joins as a member, not as staff: "joined the Labour Party", "the tennis club".
MEMBERSHIP_HEADS = _words("party club union society association league choir gym fc committee")
# Ranks that make "the <rank> <job>" a post, not a part in a story: "I'm the deputy head", "the senior
# pharmacist" (but "the only nurse on the ward", "the designated driver tonight" are not titles).
TITLE_RANKS = _words(
    """senior junior deputy assistant associate principal chief head lead acting interim executive
    general managing staff trainee charge"""
)
# Nouns of an occupation: "Sara is a nurse", "he is engineer", "works as a pharmacist" -> has-role,
# so a new job title ends the old one ("is-a" holds many things at once and would not).
JOB_TITLE_NOUNS = TITLE_HEADS | _words(
    """nurse doctor teacher lawyer chef cook dentist vet pharmacist midwife translator interpreter
    journalist writer electrician plumber carpenter mechanic driver pilot paramedic firefighter
    programmer barista waiter waitress bartender cashier librarian therapist psychologist
    physiotherapist physio surgeon physician gp professor lecturer tutor photographer
    hairdresser baker farmer builder cleaner carer caregiver secretary receptionist clerk
    paralegal solicitor barrister attorney banker trader salesman saleswoman salesperson
    technician nanny fisherman soldier optician radiographer pharmacologist economist
    freelancer contractor dev sysadmin copywriter illustrator animator veterinarian
    psychiatrist counsellor counselor instructor coach trainer chemist biologist physicist
    mathematician statistician auditor actuary underwriter teller courier postman
    welder roofer painter decorator gardener landscaper butcher fishmonger tailor
    housekeeper janitor caretaker guard warden officer detective sergeant constable
    worker assistant staffer employee tester estimator surveyor planner buyer executive exec rep
    dispatcher trucker linesman lineman foreman operator machinist miner dietitian nutritionist
    sonographer phlebotomist hygienist optometrist podiatrist chiropractor bricklayer plasterer
    joiner tiler locksmith conductor steward stewardess reporter presenter archivist curator
    musician singer dancer artist author novelist realtor broker valuer inspector
    telemarketer storekeeper shopkeeper stocker packer picker forklift labourer laborer merchandiser
    stylist florist beautician porter concierge tech technologist bookkeeper
    barber barman barmaid groomer childminder babysitter lifeguard bouncer chauffeur glazier scaffolder
    draughtsman sommelier undertaker osteopath anaesthetist anesthetist registrar locum postdoc coder
    cop policeman policewoman servant agent attendant headteacher headmaster headmistress pastor vicar
    priest chaplain rabbi imam handyman postie postwoman maid educator framer apprentice trainee caseworker
    actor actress hostess ta hca cna lpn"""
)
# Endings that make any noun an occupation: a paediatrician, a cardiologist, a videographer, a
# psychiatrist (not "-ist" alone: a perfectionist, an optimist).
JOB_SUFFIXES = ("ician", "ologist", "ographer", "iatrist", "ometrist")
APPROXIMATORS = {
    *("about", "around", "roughly", "approximately", "approx", "approx.", "circa", "~", "some"),
    *("abt", "like"),  # chat's "im on abt 52k", "I earn like 45k"
}
_UNITS = "zero one two three four five six seven eight nine ten eleven twelve"
_TEENS = "thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty"
NUMBER_WORDS = {w: i for i, w in enumerate(f"{_UNITS} {_TEENS}".split(" "))}
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety"
NUMBER_WORDS |= {w: 20 + 10 * i for i, w in enumerate(_TENS.split(" "))}
MONEY_SHORT = re.compile(r"^[$€£¥]?\d+(?:[.,]\d+)?[kKmM]$")
IRREGULAR_PRESENT = {"be": "is", "have": "has", "do": "does", "go": "goes"}
FIRST_PERSON = {"i", "me", "myself"}
FIRST_PERSON_POSS = {"my", "mine"}
SPEAKER_SUBJECTS = frozenset({"i", "we"})  # the speaker, alone or with the household
OTHER_POSSESSIVES = frozenset({"his", "her", "their", "your"})  # someone else's: "her dog", "their kids"
WH_TAGS = {"WP", "WRB", "WDT", "WP$"}


# A fact value: letters, digits and the punctuation of names, emails, URLs and amounts.
# every currency sign: "₹32,000", "₦450k", "₱25,000" were dropped as debris beside "$", "£", "€", "¥"
_CURRENCY_SIGNS = "$¢£¤¥฿₠-₿﷼"
CLEAN_VALUE = re.compile(rf"^[\w{_CURRENCY_SIGNS}][\w .,'’&@/:+%{_CURRENCY_SIGNS}-]*$")
MAX_VALUE_WORDS = 8
# Subject of a he/she the message cannot resolve (see extract_triples' keep_pronouns).
PRONOUN = "__pronoun__"  # an unresolved he/she; "__pronoun__:f" / ":m" carry which one
# Before a hint of an unresolved he/she ("__pronoun__:f|+Maya|Tesco"): a first name of its gender.
FIRST_NAME_MARK = "+"
# A fact's subject that is the speaker's kin by its word ("__kin__:husband"): the session gives it the name
# the speaker gave that word, or drops the fact (kin.KinNames).
KIN_PREFIX = "__kin__:"
FEMALE_KIN = _words(
    "wife wifey missus girlfriend gf fiancee fiancée copine novia namorada mum mom mother mam mommy mummy "
    "sister sis daughter stepdaughter aunt auntie niece grandma granny nan nana grandmother"
)
MALE_KIN = _words(
    "husband hubby hubs boyfriend bf boyf fiance fiancé copain novio namorado dad father daddy papa "
    "brother bro son stepson uncle nephew grandpa grandad granddad grandfather"
)
DATE_WORDS = {"today", "yesterday", "tomorrow", "tonight", "now", "lately", "recently"}
# Words that follow a relation noun without being a name ("my boss meeting", "my sister's wedding").
NOT_NAMES = _words(
    """meeting birthday party wedding funeral family friends friend job work car house place office
    team group chat call email text stuff thing things time day night life side company school
    kids baby boy girl visit trip holiday vacation flat apartment room phone bday anniversary
    situation drama issue problem news plan plans idea request approval lol haha ok home
    sitter walker groomer trainer minder food bowl bed lead leash insurance vet crate carrier toys treats"""
)  # the last line: a pet's care, not its name ("our dog sitter", "my dog walker")
PLAIN_ADJECTIVES = _words(
    """good nice great fine ok okay bad new old strict kind fair chill cool sound lovely mean rude
    cheap costly strange weird sweet smart calm busy lazy harsh tough soft glad sad mad late away
    back off out in on over done gone sick ill tired annoyed hard easy young senior junior"""
)
ADJECTIVE_ENDINGS = (
    "y",
    "ful",
    "ous",
    "ive",
    "able",
    "ible",
    "al",
    "ic",
    "ed",
    "ing",
    "less",
    "ish",
    "ant",
    "ent",
)
NOT_NAME_ENDINGS = ("ing", "tion", "ment", "ness", "ship", "ity", "ery", "ies")
# Verbs a chat line opens with when it drops its "I", which the small model may tag a name.
CHAT_VERBS_OPENING = _words("got get been had started finished went left moved quit joined signed meet")
NAME_BREAKS = {"on", "in", "at", "from", "since", "for", "by", "with", "until", "next", "last", "to"}
# Longer "sentences" are usually pasted text whose parse is unreliable. A chat run-on of 60 to 120 tokens
# is a person's own ("..., been there going on 6 years, made about 62k last year which ..."): at 60 the
# tune stories skipped 49 such sentences whole.
MAX_SENTENCE_TOKENS = 120

# A run-on chat message's clauses (extract/chatter.py `run_on`): the subject pronouns a new clause opens
# with, and the words before one that tie it to what came before ("said he", "that i", "and we").
RUN_ON_OPENERS = frozenset(
    _words("i im ive i'm i've i’m i’ve he hes he's he’s she shes she's she’s we we're we’re weve we've")
)
RUN_ON_GLUE = frozenset(
    _words(
        """and but or so because cos coz cause bc that which who whom whose when where while if as since than
        until till though although to of for with at in on about from by into onto like think thought said
        says say tell told know knew guess hope wish reckon mean means then also plus even just how what why
        whether once unless after before bet sure glad sad happy feel felt now"""
    )
)
