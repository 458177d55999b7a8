"""A job accepted without naming the employer ("I accepted it", "he took the Council one") is the job of
an offer the subject received: the newest valid `has-offer-from` whose name holds the words the
acceptance gave ("Council" -> "Sunshine Coast Council"). Resolved when the acceptance is stored, so an
offer from an earlier session counts; with no such offer the acceptance says nothing and is dropped.
The role the offer named ("offered me the Coordinator position", `has-offered-role`, said with or after
it) becomes the subject's role with the job, and the pay it named (`has-salary-offer`) the salary.
A job said to have started without a name ("two weeks into the new job", `STARTED_JOB`) takes only an
offer not yet taken: none of the subject's jobs names it or began after it. An offer turned down
(`declined-offer-from`) ends. An interview the subject had (`has-interview-at`) stands for an offer:
a job started or won takes the newest interview or offer, an acceptance an interview only when no
offer fits. People tell an assistant "interview at X on Thursday", then "I GOT IT!!! starting in
April", and never name the firm again.
"""

from __future__ import annotations

from collections.abc import Iterable

from knowledge_engine.model.extraction import FactCandidate
from knowledge_engine.model.predicates import STARTED_JOB
from knowledge_engine.model.records import Fact, canonical
from knowledge_engine.store.facts import began, same_words


def _fitting(acceptance: FactCandidate, offers: Iterable[Fact], held: list[Fact]) -> list[Fact]:
    """The valid offers whose name holds the words the acceptance gave; for a started job, only those
    not among the subject's jobs nor older than one of them."""
    named = canonical(acceptance.object)
    words = set() if named in {"offer", STARTED_JOB} else set(named.split())
    fits = [f for f in offers if f.invalid_at is None and words <= set(canonical(f.object).split())]
    if named == STARTED_JOB:
        fits = [f for f in fits if not any(same_words(f, j) or began(j) >= began(f) for j in held)]
    return fits


def accepted_job(
    acceptance: FactCandidate,
    offers: Iterable[Fact],
    roles: Iterable[Fact] = (),
    pay: Iterable[Fact] = (),
    jobs: Iterable[Fact] = (),
    interviews: Iterable[Fact] = (),
    managers: Iterable[Fact] = (),
) -> list[FactCandidate]:
    """works-at the offer's organisation (and has-role the role, has-salary the pay it named), or
    nothing when no valid offer of the subject fits. `jobs`: the subject's employer facts, which a
    started job's offer must not be among nor older than. `interviews`: the subject's interviews: a job
    started or won takes the newest of them and the offers ("an interview at Valley Gardens Dental" ...
    "I GOT IT!!!"); an acceptance ("I accepted it") an interview only when no offer fits. `managers`:
    the subject's prospective managers, the newest said since their last other job began is the job's."""
    held = list(jobs)
    started = canonical(acceptance.object) == STARTED_JOB
    fits = _fitting(acceptance, [*offers, *interviews] if started else offers, held)
    if not fits and not started:
        fits = _fitting(acceptance, interviews, held)
    if not fits:
        return []
    offer = max(fits, key=began)
    job = acceptance.model_copy(
        update={
            "predicate": "works-at",
            "object": offer.object,
            "object_type": "organization",
            "object_type_implied": True,
        }
    )
    return [job, *_terms(acceptance, offer, roles, pay, held, managers)]


def _terms(
    said: FactCandidate,
    offer: Fact,
    roles: Iterable[Fact],
    pay: Iterable[Fact],
    held: list[Fact],
    managers: Iterable[Fact],
) -> list[FactCandidate]:
    """The role, pay and manager an offer named, as the subject's own now that its job began."""
    out = []
    # the manager the job would bring may be named at the interview, before the offer: any said since
    # the subject's last other job began
    others = [began(j) for j in held if not same_words(j, offer)]
    since = max(others) if others else None
    boss = [m for m in managers if m.invalid_at is None and (since is None or began(m) >= since)]
    for terms, predicate in ((roles, "has-role"), (pay, "has-salary")):
        named_terms = [t for t in terms if t.invalid_at is None and began(t) >= began(offer)]
        if named_terms:
            term = max(named_terms, key=began)
            update = {"predicate": predicate, "object": term.object, "object_type": None}
            out.append(said.model_copy(update=update))
    if boss:
        newest = {"predicate": "has-manager", "object": max(boss, key=began).object, "object_type": "person"}
        out.append(said.model_copy(update=newest))
    return out


def offer_started(
    job: FactCandidate,
    offers: Iterable[Fact],
    roles: Iterable[Fact] = (),
    pay: Iterable[Fact] = (),
    jobs: Iterable[Fact] = (),
    managers: Iterable[Fact] = (),
) -> list[FactCandidate]:
    """The terms of the offer a job said with its employer's name takes ("offer from Monzo, senior
    engineer, 62k" ... "I started at Monzo"; "the offer at Victoria General" ... "started at VGH"):
    has-role, has-salary and has-manager (the one it "would" bring), as an acceptance would give them.
    Only an offer from a new employer: one none of the subject's jobs begun before it names (an offer
    from the current firm is a promotion told by its own words)."""
    named = canonical(job.object)
    held = list(jobs)
    fits = [
        f
        for f in offers
        if f.invalid_at is None
        and _names_offer(named, canonical(f.object))
        and not any(same_words(f, j) and began(j) < began(f) for j in held)
    ]
    if not fits:
        return []
    return _terms(job, max(fits, key=began), roles, pay, held, managers)


def _names_offer(named: str, offer: str) -> bool:
    """'monzo' names 'monzo'; 'vgh' (initials, and one more for the kind of place) names 'victoria
    general'."""
    words, offer_words = _bare(named), _bare(offer)
    if words and set(words) <= set(offer_words):
        return True
    initials = "".join(w[0] for w in offer_words if w[0].isalpha())
    acronym = len(words) == 1 and named.isalpha() and len(initials) >= 2
    return acronym and named.startswith(initials) and len(named) - len(initials) <= 1


def _bare(name: str) -> list[str]:
    """A name's words without a possessive ("st george's" and "st george" are one firm)."""
    return [w.removesuffix("'s").removesuffix("’s") for w in name.split()]


def declined(decline: Fact, offers: Iterable[Fact]) -> list[Fact]:
    """The subject's valid offers a decline names (one name's words hold the other's), said before it."""
    return [
        f for f in offers if f.invalid_at is None and same_words(f, decline) and began(f) <= began(decline)
    ]
