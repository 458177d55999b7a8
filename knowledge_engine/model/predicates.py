"""The one vocabulary of the relations a subject holds one value of at a time (employer, home, role, ...).

Four places name these predicates and used to keep four copies that drifted apart; each now derives
its table from FAMILIES below:

- the store's supersession families, the default of `facts.predicateFamilies`
  (`config.DEFAULT_PREDICATE_FAMILIES` = `store_families()`): a new fact ends the subject's current
  fact of the same family;
- the LLM tier's renames (`extract/llm.PREDICATE_MAP` = `llm_renames()`): what models write -> the
  relation's predicate, so "works for" from the LLM and "works at" from spaCy are one predicate;
- the predicates the LLM prompt asks for, with their meanings (`extract/prompts.CANONICAL_PREDICATES`
  = `prompt_predicates()`);
- the predicate side of the question families that rank the facts of an asked relation first
  (`retrieve/relations.FAMILIES` and `INVERSE`, through `pattern()` and `inverse_pattern()`).

Pure data and lookups: nothing of the package is imported here, so every floor may import it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class Relation:
    """One relation: the predicate every tier stores it as, and its other wordings.

    `predicate` is what the prompt asks for and what the LLM tier renames the other wordings to.
    `meaning` is its line in the prompt ("" = the prompt does not list it).
    `members`: the predicates of the store's family that state this relation, `predicate` among them,
    in the order `facts.predicateFamilies` lists them (the local tiers produce these).
    `kept`: members the LLM tier keeps as written (not renamed to `predicate`).
    `written`: what models write for it that the store's family does not list: renamed by the LLM tier
    before anything is stored, and recognised in questions' facts.
    `inverse`: wordings from the other end; the LLM tier swaps subject and object
    ("Leo is-son-of Maya" -> "Maya has-child Leo").
    `ended_by`: past wordings that, said as an ending ("I no longer work at X", "I left X"), end the
    subject's current fact of this relation with the same object (`FactStore.add(ends=True)`).
    """

    predicate: str
    meaning: str = ""
    members: tuple[str, ...] = ()
    kept: tuple[str, ...] = ()
    written: tuple[str, ...] = ()
    inverse: tuple[str, ...] = ()
    ended_by: tuple[str, ...] = ()

    def renamed(self) -> tuple[str, ...]:
        """The wordings the LLM tier renames to `predicate` (subject and object in place)."""
        skip = {self.predicate, *self.kept}
        return tuple(p for p in (*self.members, *self.written) if p not in skip)


@dataclass(frozen=True)
class Family:
    """Relations that share one current value per subject: a new one ends the old one.

    `single` False: a subject holds many at once (children), so it is no supersession family; its
    relation is still renamed and asked for."""

    name: str
    relations: tuple[Relation, ...]
    single: bool = True

    @property
    def members(self) -> tuple[str, ...]:
        """The store family, in order: every relation's members."""
        return tuple(p for r in self.relations for p in r.members)

    @property
    def wordings(self) -> tuple[str, ...]:
        """Every wording that states the family's relation from the subject's side."""
        return tuple(p for r in self.relations for p in (*r.members, *r.written))


def _r(
    predicate: str,
    meaning: str = "",
    *members: str,
    kept: tuple[str, ...] = (),
    written: tuple[str, ...] = (),
    inverse: tuple[str, ...] = (),
    ended_by: tuple[str, ...] = (),
) -> Relation:
    return Relation(predicate, meaning, (predicate, *members), kept, written, inverse, ended_by)


# Kebab-case, tense kept: `worked-at` is history already and belongs to no family. The order of the
# families and of their members is the order config.example.json shows.
FAMILIES: tuple[Family, ...] = (
    Family("residence", (
        # `lives-at` (an address) and `rents-in` say a little more than `lives-in`: the LLM keeps them.
        _r("lives-in", "home town, city or district",
           "lives-at", "resides-in", "is-based-in", "based-in", "settled-in", "rents-in",
           kept=("lives-at", "rents-in"), written=("is-living-in",),
           ended_by=("lived-in", "left", "moved-out-of", "moved-from")),
        _r("moved-to", "a move", "moves-to", "relocated-to", "relocates-to", written=("is-moving-to",)),
    )),
    Family("employer", (
        _r("works-at", "employer (also a job got, accepted or started)",
           "works-for", "employed-by", "is-employed-by", "employed-at", "got-job-at", "gets-job-at",
           "hired-at", "hired-by", "starts-at", "started-at", "has-employer",
           written=("is-employed-at", "has-job-at", "is-hired-by", "was-hired-by", "starts-working-at",
                    "started-working-at", "is-working-at", "is-working-for"),
           ended_by=("worked-at", "worked-for", "left", "leaves", "quit", "resigned-from", "retired-from",
                     "was-laid-off-from", "taught-at")),
    )),
    Family("role", (
        Relation("has-role", "job title or position",
                 ("works-as", "has-role", "has-job", "has-title", "has-job-title", "has-position",
                  "promoted-to", "is-promoted-to"),
                 written=("was-promoted-to", "has-occupation", "is-employed-as")),
    )),
    Family("manager", (
        _r("has-manager", "manager or boss",
           "has-line-manager", "has-boss", "has-supervisor", "has-team-lead", "has-lead", "reports-to",
           "is-managed-by",
           kept=("has-team-lead", "has-lead"), written=("managed-by",),
           inverse=("manages", "is-manager-of", "is-boss-of", "supervises"),
           ended_by=("had-manager", "reported-to")),
    )),
    Family("spouse", (
        _r("is-married-to", "husband or wife", "has-husband", "has-wife", "has-spouse",
           written=("married-to", "married"), inverse=("is-husband-of", "is-wife-of", "is-spouse-of")),
        _r("has-partner", "partner, girlfriend, boyfriend, fiance(e)",
           "has-fiance", "has-fiancee", "is-engaged-to", "has-girlfriend", "has-boyfriend",
           written=("is-dating",)),
    )),
    # name, rent and car: the prompt does not ask for them and the LLM tier renames none of their wordings
    Family("name", (_r("is-named", "", "has-name", kept=("has-name",)),)),
    Family("age", (_r("is-aged", "age, in digits", "has-age", written=("is-age", "age", "is-years-old")),)),
    Family("salary", (
        _r("has-salary", "pay, salary, income", "earns",
           written=("is-paid", "has-pay", "has-income", "earns-salary", "has-annual-salary")),
    )),
    # pay after tax ("my take-home is £2,080 a month", a payslip's amount): its own value, which a
    # gross salary said beside it ("£29,970 a year") neither ends nor is ended by
    Family("take-home", (_r("has-take-home-pay", "", "has-net-pay", kept=("has-net-pay",)),)),
    Family("rent", (_r("has-rent", "", "pays-rent", kept=("pays-rent",)),)),
    Family("car", (_r("drives", "", "has-car", kept=("has-car",), ended_by=("drove", "sold", "had-car")),)),
    Family("school", (
        _r("attends", "a school, nursery or university",
           "studies-at", "is-enrolled-at", "is-enrolled-in", "attends-school",
           written=("goes-to-school", "is-student-at"),
           ended_by=("attended", "studied-at", "left", "leaves", "graduated-from")),
    )),
    Family("children", (
        _r("has-child", "son, daughter, kid",
           written=("has-son", "has-daughter", "has-kid", "has-children", "is-parent-of", "is-father-of",
                    "is-mother-of"),
           inverse=("is-son-of", "is-daughter-of", "is-child-of", "is-kid-of")),
    ), single=False),
)  # fmt: skip
# The order the prompt lists the relations in (every relation with a meaning, each once).
PROMPT_ORDER: tuple[str, ...] = (
    "works-at", "has-role", "has-manager", "lives-in", "moved-to", "is-married-to", "has-partner",
    "has-child", "attends", "has-salary", "is-aged",
)  # fmt: skip

# A job offer received ("Helix offered me a job") is no job yet; a later acceptance that names no
# employer ("I accepted it", "he took the Council one") is stated as ACCEPTED_OFFER with the name it
# gives (or "offer") and resolved by the store against the subject's offers (store/offers.py).
OFFER_PREDICATE = "has-offer-from"
ACCEPTED_OFFER = "accepted-offer"
# A new job said to have started without its employer ("two weeks into the new job"): an acceptance
# of the newest offer the subject has not taken yet (store/offers.py), stated with this object.
STARTED_JOB = "new job"
# An interview the speaker has at a firm ("an interview at Deloitte on Monday"): no job, but the job a
# later "I got it!" names no employer for, when no offer fits (store/offers.py).
INTERVIEW_PREDICATE = "has-interview-at"
# The manager a job would bring ("would-be manager Tom Haskins", "Colleen, who would be my direct
# manager if I get the position"): the subject's manager (has-manager) once a job is accepted.
PROSPECTIVE_MANAGER = "has-prospective-manager"
# An offer turned down ("I declined the Flipkart offer"): kept as a fact, and it ends the offer.
DECLINED_OFFER = "declined-offer-from"
# The role an offer names ("Queensway offered me the Pharmacy Coordinator position"): the subject's
# role (has-role) once the offer is accepted, with the job.
OFFERED_ROLE = "has-offered-role"
# The pay an offer names ("they offered me 85k", "offer came. 18 LPA CTC"): the subject's salary
# (has-salary) once the offer is accepted.
OFFERED_PAY = "has-salary-offer"

# "Kreuzberg is a lively area", "Clifton, a suburb of Bristol": a place inside a city. A home there
# does not end the home city (nor the city the district), and the local tiers state it as this fact.
DISTRICT_FACT = ("is-a", "district")
# The wordings of a move: a move to a city ends every home not inside it; "I live in Berlin" only ends
# another city (and its districts with it), never the district of a city that stays.
MOVE_PREDICATES: frozenset[str] = frozenset(FAMILIES[0].relations[1].members)

_BY_NAME = {f.name: f for f in FAMILIES}
_RELATIONS = {r.predicate: r for f in FAMILIES for r in f.relations}
_ENDED = {
    wording: frozenset(
        f.name for f in FAMILIES if f.single and any(wording in r.ended_by for r in f.relations)
    )
    for f in FAMILIES
    for r in f.relations
    for wording in r.ended_by
}


def family(name: str) -> Family:
    """The family called `name` (KeyError for a name the vocabulary does not have)."""
    return _BY_NAME[name]


def store_families() -> dict[str, list[str]]:
    """family -> predicates of every single-valued family: the default of `facts.predicateFamilies`."""
    return {f.name: list(f.members) for f in FAMILIES if f.single}


def llm_renames() -> dict[str, tuple[str, bool]]:
    """wording -> (the relation's predicate, whether subject and object swap), for the LLM tier."""
    direct = {w: (r.predicate, False) for r in _RELATIONS.values() for w in r.renamed()}
    inverse = {w: (r.predicate, True) for r in _RELATIONS.values() for w in r.inverse}
    return {**direct, **inverse}


def prompt_predicates() -> tuple[tuple[str, str], ...]:
    """(predicate, meaning) of each relation the prompt asks for, in PROMPT_ORDER."""
    return tuple((p, _RELATIONS[p].meaning) for p in PROMPT_ORDER)


def rename(predicate: str) -> str:
    """The relation's predicate for one of its direct wordings (the dependency tier's renames)."""
    target, swap = llm_renames()[predicate]
    if swap:
        raise ValueError(f"{predicate!r} is an inverse wording: subject and object swap")
    return target


# Words that name a family's current value without naming it ("I quit my job", "we sold the car"): an
# ending with one of them ends the family's value when the subject holds exactly one.
GENERIC_VALUES: dict[str, frozenset[str]] = {
    "employer": frozenset({"job", "work", "company", "employer"}),
    "car": frozenset({"car"}),
    "school": frozenset({"school", "nursery", "daycare", "preschool"}),
}


# An event worded in the present ("we're moving to Leith on March 20", "I start at Acme on June 8") is a
# plan until its date; after it the fact is history of the event, said in the past tense.
EVENT_PAST: dict[str, str] = {
    "moves-to": "moved-to",
    "is-moving-to": "moved-to",
    "relocates-to": "relocated-to",
    "starts-at": "started-at",
    "starts-working-at": "started-working-at",
    "gets-job-at": "got-job-at",
}


def worded_at(predicate: str, valid_at: datetime | None, now: datetime) -> str:
    """The predicate as it reads at `now`: a present-tense event whose date has passed is put in the
    past tense, so "moves-to Kreuzberg" does not read as a plan months after the move. Undated, it
    stays as said (a plan, as far as anyone knows)."""
    past = EVENT_PAST.get(predicate)
    if past is None or valid_at is None or valid_at > now:
        return predicate
    return past


def ended_families(predicate: str) -> frozenset[str]:
    """The single-valued families an ending said with this past wording can end ("left": a job or a
    home, whichever holds the same object)."""
    return _ENDED.get(predicate, frozenset())


def pattern(*names: str) -> str:
    """A regex alternation of every wording of these families (for a whole-predicate match)."""
    return "|".join(re.escape(p) for n in names for p in family(n).wordings)


def inverse_pattern(*names: str) -> str:
    """A regex alternation of the inverse wordings of these families' relations."""
    return "|".join(re.escape(p) for n in names for r in family(n).relations for p in r.inverse)
