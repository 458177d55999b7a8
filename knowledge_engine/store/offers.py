"""A job accepted without naming the employer ("I accepted it", "he took the Council one") is the job of
an offer the subject received: the newest valid `has-offer-from` whose name holds the words the
acceptance gave ("Council" -> "Sunshine Coast Council"). Resolved when the acceptance is stored, so an
offer from an earlier session counts; with no such offer the acceptance says nothing and is dropped.
The role the offer named ("offered me the Coordinator position", `has-offered-role`, said with or after
it) becomes the subject's role with the job, and the pay it named (`has-salary-offer`) the salary.
A job said to have started without a name ("two weeks into the new job", `STARTED_JOB`) takes only an
offer not yet taken: none of the subject's jobs names it or began after it. An offer turned down
(`declined-offer-from`) ends.
"""

from __future__ import annotations

from collections.abc import Iterable

from knowledge_engine.model.extraction import FactCandidate
from knowledge_engine.model.predicates import STARTED_JOB
from knowledge_engine.model.records import Fact, canonical
from knowledge_engine.store.facts import began, same_words


def accepted_job(
    acceptance: FactCandidate,
    offers: Iterable[Fact],
    roles: Iterable[Fact] = (),
    pay: Iterable[Fact] = (),
    jobs: Iterable[Fact] = (),
) -> list[FactCandidate]:
    """works-at the offer's organisation (and has-role the role, has-salary the pay it named), or
    nothing when no valid offer of the subject fits. `jobs`: the subject's employer facts, which a
    started job's offer must not be among nor older than."""
    named = canonical(acceptance.object)
    words = set() if named in {"offer", STARTED_JOB} else set(named.split())
    fits = [f for f in offers if f.invalid_at is None and words <= set(canonical(f.object).split())]
    if named == STARTED_JOB:
        held = list(jobs)
        fits = [f for f in fits if not any(same_words(f, j) or began(j) >= began(f) for j in held)]
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
    out = [job]
    for terms, predicate in ((roles, "has-role"), (pay, "has-salary")):
        named_terms = [t for t in terms if t.invalid_at is None and began(t) >= began(offer)]
        if named_terms:
            term = max(named_terms, key=began)
            out.append(
                acceptance.model_copy(
                    update={"predicate": predicate, "object": term.object, "object_type": None}
                )
            )
    return out


def declined(decline: Fact, offers: Iterable[Fact]) -> list[Fact]:
    """The subject's valid offers a decline names (one name's words hold the other's), said before it."""
    return [
        f for f in offers if f.invalid_at is None and same_words(f, decline) and began(f) <= began(decline)
    ]
