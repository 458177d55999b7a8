"""Short and long forms of one name merge when unambiguous (issue 14): "Northwind" and
"Northwind Logistics", "Dana" and "Dana Reyes", "Golf" and "2019 Golf", "$900" and "about $900";
places and ambiguous short forms stay apart."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from knowledge_engine.config import load_config
from knowledge_engine.model.extraction import Extraction, FactCandidate, Mention
from knowledge_engine.model.records import EntityType, Message
from knowledge_engine.store.entities import EntityStore
from knowledge_engine.store.persistence import WorkspaceLock
from knowledge_engine.store.workspace import Workspace


def make_store(folder: Path) -> EntityStore:
    cfg = load_config({})
    store = EntityStore(folder, WorkspaceLock(folder / ".lock"), cfg.storage, cfg.facts.fuzzy_threshold)
    store.load()
    return store


def _workspace(folder: Path) -> Workspace:
    """A workspace that writes only when asked (no debounced flush mid-test), without embeddings."""
    return Workspace(
        folder, load_config({"storage": {"writeDebounceMs": 600000}, "embeddings": {"enabled": False}})
    )


def test_short_form_joins_the_one_long_form(workspace: Path) -> None:
    store = make_store(workspace)
    long = store.observe("Northwind Logistics", "organization", "spacy")
    short = store.observe("Northwind", "unknown", "regex")
    assert short.id == long.id and long.value == "Northwind Logistics"
    assert store.resolve("Northwind", "organization") is long
    assert len(store) == 1


def test_long_form_after_short_form_becomes_the_display_value(workspace: Path) -> None:
    store = make_store(workspace)
    short = store.observe("Northwind", "organization", "spacy")
    long = store.observe("Northwind Logistics", "organization", "spacy")
    assert long.id == short.id and long.value == "Northwind Logistics" and "Northwind" in long.aliases
    other = store.observe("Northwind Labs", "organization", "spacy")
    assert other.id != long.id  # the short form already belongs to another long name


def test_person_short_and_long_forms(workspace: Path) -> None:
    store = make_store(workspace)
    dana = store.observe("Dana", "person", "spacy")
    full = store.observe("Dana Reyes", "person", "llm")
    assert full.id == dana.id and full.value == "Dana Reyes"


def test_ambiguous_short_form_is_not_guessed(workspace: Path) -> None:
    store = make_store(workspace)
    store.observe("Northwind Logistics", "organization", "spacy")
    store.observe("Northwind Labs", "organization", "spacy")
    assert store.resolve("Northwind") is None


def test_types_must_agree(workspace: Path) -> None:
    store = make_store(workspace)
    store.observe("Paris Hilton", "person", "spacy")
    city = store.observe("Paris", "location", "spacy")
    assert city.value == "Paris" and len(store) == 2


def test_places_do_not_merge_into_longer_places(workspace: Path) -> None:
    store = make_store(workspace)
    store.observe("Bristol Airport", "location", "spacy")
    city = store.observe("Bristol", "location", "spacy")
    assert city.value == "Bristol" and len(store) == 2


def test_year_before_a_product_name(workspace: Path) -> None:
    store = make_store(workspace)
    car = store.observe("2019 Golf", "product", "spacy")
    again = store.observe("Golf", "product", "spacy")
    assert again.id == car.id and car.value == "2019 Golf"


def test_a_car_model_without_its_make_is_the_car(workspace: Path) -> None:
    store = make_store(workspace)
    fabia = store.observe("Skoda Fabia", "product", "spacy")
    assert store.observe("Fabia", "product", "spacy").id == fabia.id
    highlander = store.observe("Highlander", "product", "spacy")  # the short form first
    assert store.observe("Toyota Highlander", "product", "spacy").id == highlander.id
    assert store.get(highlander.id).value == "Toyota Highlander"
    octavia = store.observe("Skoda Octavia estate", "product", "spacy")
    assert store.observe("Octavia", "product", "spacy").id == octavia.id
    assert len(store) == 3


def test_a_make_that_opens_a_persons_name_is_no_car_make(workspace: Path) -> None:
    store = make_store(workspace)
    store.observe("Mercedes Lopez", "person", "spacy")
    assert store.resolve("Lopez", "person") is None


def test_approximate_amount_is_the_amount(workspace: Path) -> None:
    store = make_store(workspace)
    exact = store.observe("$900", "money", "regex")
    about = store.observe("about $900", "money", "llm")
    assert about.id == exact.id and len(store) == 1
    assert store.resolve("around $900", "money") is exact


def test_a_relation_types_the_entity_it_links(tmp_path: Path) -> None:
    """The small model calls Leo an organization in three messages; 'our son Leo' (has-child,
    whose object is a person) outweighs them, and stays the type when one more NER guess comes."""
    from knowledge_engine.config import SpacyConfig
    from knowledge_engine.extract.spacy_ner import SpacyTier

    ws = _workspace(tmp_path)
    leo_org = Mention(value="Leo", type="organization", tier="spacy")
    for i in range(3):
        ws.apply(
            Message(id=f"m{i}", text="Leo ...", role="user", speaker="Maya"),
            [Extraction(message_id=f"m{i}", mentions=[leo_org])],
        )
    assert ws.entities.resolve("Leo").type == "organization"  # type: ignore[union-attr]
    msg = Message(
        id="r", text="It's just me, my husband Tom and our son Leo, he's four.", role="user", speaker="Maya"
    )
    (ex,) = SpacyTier(SpacyConfig(workers=0)).extract([msg])
    child = next(f for f in ex.facts if f.predicate == "has-child")
    assert child.object_type == "person" and child.object_type_implied
    ws.apply(msg, [ex])
    ws.apply(
        Message(id="m9", text="Leo ...", role="user", speaker="Maya"),
        [Extraction(message_id="m9", mentions=[leo_org])],
    )
    assert ws.entities.resolve("Leo").type == "person"  # type: ignore[union-attr]


def test_a_relation_type_outlasts_any_number_of_later_ner_guesses(workspace: Path) -> None:
    """ "Callum attends Whitehill" makes Callum a person; the model calling him an organisation in
    every later message does not undo it (it did, one vote at a time)."""
    store = make_store(workspace)
    callum = store.observe("Callum", "organization", "spacy")
    store.constrain_type(callum.id, "person")
    for _ in range(6):
        store.observe("Callum", "organization", "spacy")
    assert store.get(callum.id).type == "person"  # type: ignore[union-attr]


def test_a_corrected_place_keeps_the_type_its_relation_gave(tmp_path: Path) -> None:
    """ "sorry, I meant Dennistoun not Dalmarnock": the model calls Dennistoun a person in that very
    message; the corrected fact's place is still a place."""
    from knowledge_engine.model.extraction import FactCandidate

    ws = _workspace(tmp_path)
    move = FactCandidate(
        subject="Kirsty",
        predicate="moves-to",
        object="Dalmarnock",
        tier="spacy",
        subject_type="person",
        object_type="location",
        object_type_implied=True,
    )
    ws.apply(
        Message(id="m1", text="We're moving to Dalmarnock!", role="user", speaker="Kirsty"),
        [Extraction(message_id="m1", facts=[move])],
    )
    fix = Message(id="m2", text="sorry, I meant Dennistoun not Dalmarnock", role="user", speaker="Kirsty")
    ws.apply(
        fix,
        [Extraction(message_id="m2", mentions=[Mention(value="Dennistoun", type="person", tier="spacy")])],
    )
    assert {(f.predicate, f.object) for f in ws.facts.all() if f.invalid_at is None} == {
        ("moves-to", "Dennistoun")
    }
    assert ws.entities.resolve("Dennistoun").type == "location"  # type: ignore[union-attr]


def test_words_of_a_job_title_are_no_entities(tmp_path: Path) -> None:
    from knowledge_engine.model.extraction import FactCandidate

    ws = _workspace(tmp_path)
    msg = Message(id="m1", text="I'm now Head of Design at Northwind.", role="user", speaker="Maya")
    regex = Extraction(
        message_id="m1",
        mentions=[Mention(value=v, type="unknown", tier="regex") for v in ("Head", "Design", "Northwind")],
    )
    spacy = Extraction(
        message_id="m1",
        mentions=[Mention(value="Northwind", type="organization", tier="spacy")],
        facts=[FactCandidate(subject="Maya", predicate="has-role", object="Head of Design", tier="spacy")],
    )
    ws.apply(msg, [regex, spacy])
    assert {e.value for e in ws.entities.all()} == {"Northwind", "Maya"}


def test_a_name_tagged_a_nationality_joins_the_one_organisation_it_begins(workspace: Path) -> None:
    store = make_store(workspace)
    org = store.observe("Helix Robotics", "organization", "regex")
    short = store.observe("Helix", "concept", "spacy")  # "the Helix offer": the small model says NORP
    assert short.id == org.id and org.type == "organization" and "Helix" in org.aliases
    # a nationality that begins no known organisation stays what it is
    assert store.observe("Portuguese", "concept", "spacy").type == "concept"
    # an untyped long name takes the short form, unless the word is a demonym
    quill = store.observe("Quillon Labs", "unknown", "regex")
    assert store.observe("Quillon", "concept", "spacy").id == quill.id
    dog = store.observe("German Shepherd", "unknown", "regex")
    assert store.observe("German", "concept", "spacy").id != dog.id
    assert len(store) == 5


def test_one_message_naming_a_company_and_its_first_word_makes_one_entity(workspace: Path) -> None:
    """ "Helix Robotics offered me a job": the regex tier names the company (type undecided), the small
    model tags "Helix" a nationality. The concept is applied last, so it finds the long form."""

    ws = Workspace(workspace, load_config({"storage": {"writeDebounceMs": 0}}))
    msg = Message(id="m1", text="Big news: Helix Robotics offered me a job!", speaker="Maya")
    mentions = [
        Mention(value="Helix", type="concept", tier="spacy"),
        Mention(value="Helix Robotics", type="unknown", tier="regex"),
    ]
    ws.apply(msg, [Extraction(message_id="m1", mentions=mentions)])
    assert [(e.value, e.aliases) for e in ws.entities.all()] == [("Helix Robotics", ["Helix"])]
    ws.close()


def _said(
    ws: Workspace,
    mid: str,
    mentions: Sequence[tuple[str, EntityType]],
    facts: Sequence[tuple[str, str, str]] = (),
) -> None:
    ws.apply(
        Message(id=mid, text="...", role="user", speaker="Maya"),
        [
            Extraction(
                message_id=mid,
                mentions=[Mention(value=v, type=t, tier="spacy") for v, t in mentions],
                facts=[FactCandidate(subject=s, predicate=p, object=o, tier="spacy") for s, p, o in facts],
            )
        ],
    )


def test_a_long_form_takes_every_short_form_stored_before_it(tmp_path: Path) -> None:
    """ "Toyota" and "Highlander" (the tagger's NORP) were two entities; "Toyota Highlander" joins the
    first as before and now takes the second too, with the facts that pointed to it."""

    ws = _workspace(tmp_path)
    _said(ws, "m1", [("Toyota", "product")])
    _said(ws, "m2", [("Highlander", "concept")], [("Maya", "test-drove", "Highlander")])
    highlander = ws.entities.resolve("Highlander")
    assert highlander is not None and highlander.value == "Highlander"
    _said(ws, "m3", [("Toyota Highlander", "product")])
    car = ws.entities.resolve("Toyota Highlander")
    assert car is not None and {"Toyota", "Highlander"} <= set(car.aliases)
    assert ws.entities.resolve("Highlander") == car and ws.entities.get(highlander.id) is None
    drove = next(f for f in ws.facts.all() if f.predicate == "test-drove")
    assert drove.object_id == car.id and drove.object == "Highlander"  # the text as said
    assert "manual" not in car.sources


def test_a_short_form_two_long_names_share_joins_neither(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    _said(ws, "m1", [("Toyota Corolla", "product")])
    _said(ws, "m2", [("Highlander", "product")])
    _said(ws, "m3", [("Toyota Highlander", "product")])
    assert ws.entities.resolve("Highlander") == ws.entities.resolve("Toyota Highlander")
    assert ws.entities.resolve("Toyota Corolla") != ws.entities.resolve("Toyota Highlander")
    assert len(ws.entities) == 2  # the Corolla stays its own car


def test_a_value_keeps_the_words_a_shorter_entity_lacks(tmp_path: Path) -> None:
    """A job title is a value, not an entity: "QA lead" said after an organisation "QA" was stored is
    stored as "QA lead" (it was "QA": the value took the short name its first word is). A value said
    exactly as an entity's name still takes the entity's spelling."""
    ws = _workspace(tmp_path)
    qa = Mention(value="QA", type="organization", tier="spacy")
    ws.apply(
        Message(id="m1", text="...", role="user", speaker="Lwazi"),
        [Extraction(message_id="m1", mentions=[qa])],
    )
    role = FactCandidate(
        subject="Lwazi", predicate="has-role", object="QA lead", tier="spacy", subject_type="person"
    )
    same = FactCandidate(
        subject="Lwazi", predicate="has-role", object="qa", tier="spacy", subject_type="person"
    )
    ws.apply(
        Message(id="m2", text="...", role="user", speaker="Lwazi"),
        [Extraction(message_id="m2", facts=[role])],
    )
    ws.apply(
        Message(id="m3", text="...", role="user", speaker="Lwazi"),
        [Extraction(message_id="m3", facts=[same])],
    )
    values = {f.object for f in ws.facts.query(predicate="has-role", include_history=True)}
    assert values == {"QA lead", "QA"}
    lead = next(
        f for f in ws.facts.query(predicate="has-role", include_history=True) if f.object == "QA lead"
    )
    assert lead.object_id is None  # not linked to the organisation
