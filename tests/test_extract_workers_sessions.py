"""Session reading (who a he/she means, what a terse reply answers) happens once, in the parent, in
message order: a spaCy worker process sees only its share of a batch, so a he/she resolved there
was resolved against the wrong people."""

from __future__ import annotations

from knowledge_engine.config import SpacyConfig
from knowledge_engine.extract.spacy_ner import SpacyTier
from knowledge_engine.model.records import Message

TURNS = [
    ("user", "My daughter Isla starts school in September."),
    ("user", "Work is busy."),
    ("user", "Nothing else new."),
    ("user", "Gareth and I still meet for coffee every month or so."),
    ("assistant", "Very sensible. Is Isla's school sorted?"),
    ("user", "Yes! She's got a place at Brudenell Primary."),
]


def _facts(workers: int) -> set[tuple[str, str, str]]:
    tier = SpacyTier(SpacyConfig(workers=workers))
    try:
        msgs = [
            Message(id=f"w{i}", text=t, role=r, session="s1", speaker="Priya" if r == "user" else None)
            for i, (r, t) in enumerate(TURNS)
        ]
        (*_, last) = tier.extract(msgs)  # one call: two workers get three messages each
        assert tier.out_of_process == (workers > 0)
        return {(f.subject, f.predicate, f.object) for f in last.facts}
    finally:
        tier.close()


def test_workers_read_a_session_as_one_process_does() -> None:
    """The second worker sees Gareth named and not Isla; only the parent saw the whole session."""
    here = _facts(0)
    assert ("Isla", "attends", "Brudenell Primary") in here
    assert _facts(2) == here
