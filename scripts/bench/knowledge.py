#!/usr/bin/env python3
"""Knowledge benchmark: current truth, questions answered from Known Facts, fact precision/recall per tier.

On the labelled life stories of scripts/bench/stories/ (tune/ and heldout/; see its README): each
story goes through a real engine the way a host drives it (one fresh workspace per story; per
session a `session_start`; each user message through `message_received` with its timestamp and
`metadata.senderName` = the story's user; each assistant reply through `agent_end` with the
session's history so far, timestamps included), then `engine.flush()`. Local tiers only (regex +
spaCy) unless `--llm`, which also runs the LLM tier against the loopback schema-filling server
of the tests (tests/servers/ollama_server.py). Then:

- current-truth accuracy: share of the story's truth rows satisfied (rule in `row_satisfied`);
- questions: each goes through `before_prompt_build`; answered when an answer string is in the
  block's Known Facts section; stale = superseded facts shown there for questions not about the past;
  `answerable_store` = questions some stored fact answers (strict reading), shown or not: the
  questions below it were lost to extraction, those between it and `answered_strict` to ranking;
- per relation of the truth rows (per part, never per held-out story): rows, extracted in any form,
  satisfied;
- entities: the names the rows say are entities (objects of employer, lives_in, spouse, car...,
  typed by `ENTITY_TYPES`; people as subjects): found (see `score_entities`),
  typed (with the relation's type), doubled (held by two entities or more), and all entities stored;
- per tier (regex, spacy, llm; a fact belongs to every tier in its `source` and its evidence's
  `tiers`): recall = share of truth rows the tier's facts match (any validity), precision = share
  of the tier's facts that match a truth row or an `also_true` row of the story.

Held-out stories are reported as counts only; `--detail` prints the row-by-row outcome of the
tune stories (never of held-out ones). Last line: one JSON object.

`--folds` (tune stories only) reports leave-one-story-out figures: the rules are written by hand, so
a "fold" is a way of working, not a training run. Change the extractor looking only at the failures of
the other stories (`--detail --leave-out ID` hides that story's rows and facts), then judge the change
by the left-out story's figures; rotate. The table shows, for each tune story, its figures as the one
not looked at, and their mean over stories (macro), so that a rule fitted to one story shows up as a
gain on that story alone.

Usage: .venv/bin/python scripts/bench/knowledge.py [--stories DIR] [--llm] [--json] [--detail]
       [--folds] [--leave-out ID]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import re
import sys
import tempfile
import time
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from scripts.bench.common import apply_overrides, parse_overrides  # noqa: E402

STORIES = ROOT / "scripts" / "bench" / "stories"
PARTS = ("tune", "heldout")
TIERS = ("regex", "spacy", "llm")
USER = "user"


# --------------------------------------------------------------------------- the matching rule


@dataclass(frozen=True)
class Relation:
    """Engine predicates a person accepts for a relation (full-match regexes over kebab-case).

    `current`: the predicate states the relation as it is ("works-at"); `past`: as it was
    ("worked-at"); `inverse`: the relation with subject and object swapped ("is-husband-of").
    """

    current: str
    past: str = ""
    inverse: str = ""

    def kinds(self, predicate: str) -> list[str]:
        """Which of "current", "past", "inverse" a predicate expresses this relation as (a symmetric
        predicate such as is-married-to is both current and inverse)."""
        return [
            name
            for name, pattern in (("current", self.current), ("past", self.past), ("inverse", self.inverse))
            if pattern and re.fullmatch(pattern, predicate)
        ]


_KIN = r"(?:[a-z]+-)*"  # modifiers inside a has-<noun> predicate: has-older-sister, has-line-manager
RELATIONS: dict[str, Relation] = {
    "employer": Relation(
        current=r"works-(?:at|for|with)|is-employed-(?:at|by)|employed-by|is-at|joins|joined|(?:is-)?start(?:s|ed|ing)-at"
        r"|start(?:s|ed)-working-(?:at|for)|teaches-at|has-employer|has-(?:new-)?job-(?:at|with)|got-(?:a-)?job-(?:at|with)"
        r"|(?:was-|got-)?hired-(?:at|by)|accepted-(?:a-)?(?:job|offer|role|position)-(?:at|from|with)|moved-to-work-at",
        past=r"worked-(?:at|for)|taught-at|was-employed-(?:at|by)|used-to-work-(?:at|for)|left|quit|resigned-from|was-at"
        r"|retired-from",
    ),
    "job_title": Relation(
        current=r"works-as|is-a|is-an|is|has-role|has-(?:job-)?title|has-job|has-position|is-promoted-to|"
        r"(?:got-|was-)?promoted-to|became|becomes|is-becoming|start(?:s|ed)-as|hired-as|joined-as|is-now",
        past=r"was-a|was-an|was|worked-as|used-to-be",
    ),
    "manager": Relation(
        current=rf"has-{_KIN}(?:manager|boss|supervisor|lead|teamlead|team-lead|director|principal|head)"
        r"|reports-to|is-managed-by|managed-by|works-under",
        past=rf"has-(?:former|old|previous|ex)-{_KIN}(?:manager|boss|supervisor|lead|principal|head)"
        r"|had-(?:a-)?(?:manager|boss|supervisor|lead)|reported-to|was-managed-by|worked-under",
        inverse=rf"manages|is-(?:the-)?(?:manager|boss|supervisor|lead|principal)-of|supervises|has-{_KIN}reports?",
    ),
    "mentor": Relation(current=r"has-mentor|is-mentored-by", inverse=r"mentors|is-(?:a-)?mentor-(?:of|to)"),
    "colleague": Relation(
        current=rf"has-{_KIN}(?:colleague|coworker|co-worker)|works-with",
        inverse=r"is-(?:a-)?(?:colleague|coworker)-of",
    ),
    "lives_in": Relation(
        current=r"lives-(?:in|at|near)|is-in|resides-in|is-based-in|based-in|moved-to|moves-to|is-moving-to|relocated-to"
        r"|relocates-to|settled-in|has-(?:home|house|flat|apartment|condo)-in|rents-in|is-renting-in",
        past=r"lived-(?:in|at)|used-to-live-in|moved-from|moved-out-of|left",
    ),
    "from": Relation(current=r"is-from|comes-from|came-from|grew-up-in|born-in|was-born-in"),
    "spouse": Relation(
        current=rf"is-married-to|married|has-{_KIN}(?:husband|wife|spouse|partner|fiance|fiancee|fiancé|fiancée"
        r"|girlfriend|boyfriend|hubby)|is-engaged-to|got-engaged-to|lives-with|is-dating",
        inverse=r"is-married-to|is-(?:the-)?(?:husband|wife|spouse|partner|fiance|fiancee|girlfriend|boyfriend)-of"
        rf"|has-{_KIN}(?:husband|wife|spouse|partner|fiance|fiancee|fiancé|fiancée|girlfriend|boyfriend)|lives-with",
    ),
    "child": Relation(
        current=rf"has-{_KIN}(?:son|daughter|kid|child|children|baby|boy|girl|twin|stepson|stepdaughter)s?",
        inverse=rf"is-(?:the-)?(?:son|daughter|child|kid|baby)-of|has-{_KIN}(?:mother|mom|mum|mam|father|dad|parent)s?",
    ),
    "parent": Relation(
        current=rf"has-{_KIN}(?:mother|mom|mum|mam|father|dad|parent)s?",
        inverse=r"is-(?:the-)?(?:mother|mom|mum|father|dad|parent)-of"
        rf"|has-{_KIN}(?:son|daughter|kid|child|children|baby|boy|girl|twin)s?",
    ),
    "sibling": Relation(
        current=rf"has-{_KIN}(?:sister|brother|sibling|twin)s?",
        inverse=rf"is-(?:the-)?(?:sister|brother|sibling|twin)-of|has-{_KIN}(?:sister|brother|sibling|twin)s?",
    ),
    "friend": Relation(
        current=rf"has-{_KIN}(?:friend|mate|buddy|bestie)s?|is-friends-with",
        inverse=rf"is-(?:a-|the-)?(?:best-)?friend-of|is-friends-with|has-{_KIN}(?:friend|mate|buddy|bestie)s?",
    ),
    "child_school": Relation(
        current=r"attends|goes-to|goes-to-school-at|is-at|is-in|studies-at|is-enrolled-(?:at|in)|enrolled-(?:at|in)"
        r"|(?:is-)?start(?:s|ed|ing)-(?:at|school-at)|will-start-at|joins|joined|has-(?:school|preschool|nursery)"
        r"|got-(?:a-)?place-at|has-(?:a-)?place-at",
        past=r"went-to|attended|was-at|used-to-go-to",
    ),
    "studies_at": Relation(
        current=r"studies-at|is-(?:a-)?student-at|attends|is-enrolled-(?:at|in)|enrolled-(?:at|in)",
        past=r"studied-at|graduated-from|went-to|attended",
    ),
    "age": Relation(current=r"is-aged|is|has-age|is-years-old|turns|turned|age|is-age", past=r"was"),
    "salary": Relation(
        current=r"has-(?:base-|annual-|new-)?(?:salary|pay|income|wage)|earns|makes|is-paid|gets-paid|gets|is-on"
        r"|has-base|paid|offered|is-offered",
        past=r"earned|made|had-(?:a-)?(?:salary|pay)|was-on|was-paid",
    ),
    "rent": Relation(
        current=r"has-(?:monthly-)?(?:rent|mortgage|housing-cost)|pays|pays-rent|pays-for|rents|is-renting|costs",
        past=r"paid|had-(?:rent|mortgage)|used-to-pay",
    ),
    "pet": Relation(
        current=rf"has-{_KIN}(?:pet|dog|cat|puppy|kitten|parrot|bird|rabbit|bunny|hamster|guinea-pig|fish|tortoise"
        r"|budgie|beagle|greyhound|collie|labrador|terrier|spaniel|tabby)s?|adopted|owns|got",
        past=rf"had-{_KIN}(?:pet|dog|cat|parrot)",
    ),
    "car": Relation(
        current=rf"drives|owns|has-{_KIN}(?:car|vehicle|truck|van|suv|motorbike)|bought|got|leases|has|ordered"
        r"|is-getting|gets|test-drove",
        past=rf"drove|sold|had-{_KIN}(?:car|vehicle|truck)|used-to-drive|traded-in",
    ),
    "health": Relation(
        current=r"has|has-(?:condition|diagnosis|illness)|suffers-from|is-diagnosed-with|was-diagnosed-with"
        r"|diagnosed-with|is-allergic-to|is-intolerant-to|is-lactose-intolerant|is|is-a|takes|is-on|has-pain-in"
        r"|does-physio-for|does-pt-for|is-being-treated-for",
        past=r"had|was-diagnosed-with|recovered-from",
    ),
    "likes": Relation(
        current=r"likes|loves|enjoys|is-into|is-fan-of|is-a-fan-of|is-obsessed-with|is-interested-in|plays|does|joined"
        r"|practices|practises|decorates",
        past=r"liked|loved|used-to-like|played",
    ),
    "uses": Relation(current=r"uses|learned|learnt|learns|works-with|works-in|is-using", past=r"used"),
    "speaks": Relation(current=r"speaks|is-learning|learns|translates|translates-from|translates-into"),
    "owns": Relation(current=r"owns|has|bought|has-(?:a-)?[a-z-]+", past=r"owned|sold|had"),
}

_PUNCT_EDGE = ".,;:!?\"'()[]{}"


def norm(text: str) -> str:
    """Lower case, accents folded, typographic quotes straightened, spaces collapsed, edge punctuation off."""
    text = unicodedata.normalize("NFKD", text.replace("\u2019", "'").replace("\u2018", "'"))
    text = "".join(c for c in text if not unicodedata.combining(c))
    return re.sub(r"\s+", " ", text).strip().strip(_PUNCT_EDGE).strip().lower()


def contains(haystack: str, needle: str) -> bool:
    """`needle` appears in `haystack` as whole words (both normalised; empty never matches)."""
    h, n = norm(haystack), norm(needle)
    if not n or not h:
        return False
    return re.search(rf"(?<![\w]){re.escape(n)}(?![\w])", h) is not None


def subject_names(subject: str, user: str) -> list[str]:
    """The names a fact's subject may carry for a truth subject: the user's name (as the host sends it;
    the engine stores "I"/"my" as the speaker's name, or "user" when no name is known) or a person's name."""
    return [user, USER] if subject == USER else [subject]


def names_match(value: str, names: Sequence[str]) -> bool:
    """Case-insensitive whole-word containment either way ("Dana" ~ "Dana Reyes")."""
    return any(contains(value, n) or contains(n, value) for n in names)


def objects_of(row: dict[str, Any]) -> list[str]:
    return [str(row["object"]), *(str(o) for o in row.get("accept_objects") or [])]


@dataclass(frozen=True)
class FactView:
    """The fields of a stored fact the scoring reads."""

    subject: str
    predicate: str
    object: str
    valid: bool
    tiers: frozenset[str]


def fact_view(fact: Any) -> FactView:
    tiers = {str(fact.source)}
    for ev in fact.evidence:
        tiers.update(str(t) for t in ev.tiers)
    return FactView(fact.subject, fact.predicate, fact.object, fact.invalid_at is None, frozenset(tiers))


def match_kind(fact: FactView, row: dict[str, Any], user: str) -> str | None:
    """How a fact expresses a row's triple ("current", "past", "inverse"), or None when it does not.

    Subject: the row's subject names (see `subject_names`) contained in the fact's subject (or the
    reverse). Relation: the predicate is one a person accepts for it (`RELATIONS`). Object: the row's
    object or one of its `accept_objects`, normalised, as whole words in the fact's object. Inverse
    predicates swap subject and object.
    """
    relation = RELATIONS.get(str(row["relation"]))
    if relation is None:
        return None
    names = subject_names(str(row["subject"]), user)
    for kind in relation.kinds(fact.predicate):
        subj, obj = (fact.object, fact.subject) if kind == "inverse" else (fact.subject, fact.object)
        if names_match(subj, names) and any(contains(obj, o) for o in objects_of(row)):
            return kind
    return None


def row_satisfied(row: dict[str, Any], facts: Iterable[FactView], user: str) -> bool:
    """A current row: a valid fact states it as it is now. A superseded row: the old fact is kept in
    history, i.e. a fact stating it as current whose validity ended (invalid_at set), or a fact
    stating it in the past form ("worked-at"). Never satisfied when no such fact was extracted."""
    for f in facts:
        kind = match_kind(f, row, user)
        if kind is None:
            continue
        if row.get("status", "current") == "current":
            if f.valid and kind in ("current", "inverse"):
                return True
        elif kind == "past" or (not f.valid and kind in ("current", "inverse")):
            return True
    return False


# The type a person gives the object of each relation (relations whose objects are values or
# animals are left out: job titles, ages, conditions, likings, pets).
ENTITY_TYPES: dict[str, str] = {
    "employer": "organization",
    "child_school": "organization",
    "studies_at": "organization",
    "lives_in": "location",
    "from": "location",
    "car": "product",
    **dict.fromkeys(
        ("spouse", "child", "parent", "sibling", "friend", "manager", "mentor", "colleague"), "person"
    ),
}


def expected_entities(story: dict[str, Any]) -> dict[str, str]:
    """Names the story's rows (truth and also_true) say are entities, with the type their relation
    gives them: objects by `ENTITY_TYPES`, subjects other than the user are people. A name given two
    types is left out."""
    rows = [*story["truth"], *story.get("also_true", [])]
    pets = {str(r["object"]) for r in rows if r["relation"] == "pet"}
    seen: dict[str, set[str]] = {}
    for row in rows:
        type_ = ENTITY_TYPES.get(str(row["relation"]))
        if type_ is not None:
            seen.setdefault(str(row["object"]), set()).add(type_)
        if row["subject"] != USER and row["subject"] not in pets:  # "Mochi age 7": a cat, not a person
            seen.setdefault(str(row["subject"]), set()).add("person")
    return {name: next(iter(types)) for name, types in seen.items() if len(types) == 1}


def score_entities(story: dict[str, Any], entities: Iterable[Any]) -> dict[str, int]:
    """Entity figures of one story: how many expected names an entity holds (its value or an alias
    is the name, or, with the expected type, a longer or shorter form of it: "Skoda Octavia
    estate", "Copperleaf"; "Leeds General Infirmary" does not hold "Leeds"), how many of those with
    the expected type, how many more than once ("Octavia" beside "Skoda Octavia estate"), and how
    many entities were stored in all."""
    stored = [(e.type, [e.value, *e.aliases]) for e in entities]
    found = typed = doubled = 0
    for name, type_ in expected_entities(story).items():
        holders = [
            t
            for t, names in stored
            if any(
                norm(n) == norm(name) or (t == type_ and (contains(n, name) or contains(name, n)))
                for n in names
            )
        ]
        found += bool(holders)
        typed += type_ in holders
        doubled += len(holders) > 1
    return {
        "entities": len(stored),
        "entity_names": len(expected_entities(story)),
        "entity_found": found,
        "entity_typed": typed,
        "entity_doubled": doubled,
    }


def row_extracted(row: dict[str, Any], facts: Iterable[FactView], user: str) -> bool:
    """Whether any fact (valid or not, in any tense) states the row's triple: extraction recall."""
    return any(match_kind(f, row, user) is not None for f in facts)


def fact_correct(fact: FactView, story: dict[str, Any]) -> bool:
    """A fact a labeller accepts: it matches a truth row or an `also_true` row of the story."""
    user = str(story["user"])
    return any(
        match_kind(fact, row, user) is not None for row in [*story["truth"], *story.get("also_true", [])]
    )


# --------------------------------------------------------------------------- the injected block


_SECTION_RE = re.compile(r"^### (.+)$", re.MULTILINE)
_FACT_ID_RE = re.compile(r"\bid (f-[0-9a-f]+)\)")


def known_facts_section(block: str) -> str:
    """The text of the block's Known Facts section ('' when the block has none)."""
    from knowledge_engine.inject.format import SECTION_TITLES

    title = SECTION_TITLES["facts"]
    heads = list(_SECTION_RE.finditer(block))
    for i, head in enumerate(heads):
        if head.group(1).strip() == title:
            end = heads[i + 1].start() if i + 1 < len(heads) else len(block)
            return block[head.end() : end]
    return ""


def answered(text: str, answers: Sequence[str]) -> bool:
    return any(contains(text, a) for a in answers)


# --------------------------------------------------------------------------- stories


def load_stories(directory: Path, skip: Sequence[str] = ()) -> list[tuple[str, dict[str, Any]]]:
    """(part, story) for every story under `directory`: its tune/ and heldout/ folders (less the parts
    in `skip`, which are not opened), or the folder itself (part = its name) when it holds story files
    directly."""
    out: list[tuple[str, dict[str, Any]]] = []
    folders = [(p, directory / p) for p in PARTS if (directory / p).is_dir()] or [(directory.name, directory)]
    folders = [(p, f) for p, f in folders if p not in skip]
    for part, folder in folders:
        for path in sorted(folder.glob("*.json")):
            story = json.loads(path.read_text(encoding="utf-8"))
            check_story(story, path)
            out.append((part, story))
    return out


def check_story(story: dict[str, Any], path: Path) -> None:
    for key in ("id", "user", "messages", "truth", "questions"):
        if key not in story:
            raise ValueError(f"{path}: no {key!r}")
    for row in [*story["truth"], *story.get("also_true", [])]:
        if row["relation"] not in RELATIONS:
            raise ValueError(f"{path}: unknown relation {row['relation']!r}")
        if row.get("status", "current") not in ("current", "superseded"):
            raise ValueError(f"{path}: bad status {row.get('status')!r}")
    for q in story["questions"]:
        if not q.get("answers") or q.get("relation", "employer") not in RELATIONS:
            raise ValueError(f"{path}: bad question {q.get('question')!r}")


# --------------------------------------------------------------------------- the engine


def plugin_config(
    root: Path, llm_url: str | None, embeddings: bool, overrides: dict[str, Any] | None = None
) -> dict[str, Any]:
    llm: dict[str, Any] = {"enabled": False}
    if llm_url:
        llm = {"enabled": True, "endpoint": llm_url, "cooldownMs": 600000, "retryBackoffMs": 50}
    cfg = {
        "workspaceTemplate": "{workspaceDir}/ke",
        "workspaceRoot": str(root / "agents"),
        "storage": {"writeDebounceMs": 200},
        "embeddings": {"enabled": embeddings},
        "maintenance": {"enabled": False},
        "extraction": {"llm": llm},
        "retrieval": {"cacheTtlMs": 0},
    }
    return apply_overrides(cfg, overrides)


def _ctx(story: dict[str, Any], root: Path) -> dict[str, Any]:
    agent = "kb-" + re.sub(r"[^a-z0-9-]", "-", str(story["id"]).lower())
    return {"agentId": agent, "sessionKey": f"agent:{agent}:main", "workspaceDir": str(root / agent)}


async def ingest(runner: Any, story: dict[str, Any], ctx: dict[str, Any]) -> None:
    """The story through the hooks, as a host sends a conversation."""
    skey = ctx["sessionKey"]
    msg_ctx = {"channelId": "bench", "sessionKey": skey}
    session: Any = None
    history: list[dict[str, Any]] = []
    for i, m in enumerate(story["messages"]):
        if m["session"] != session:
            session, history = m["session"], []
            await runner.run(
                "session_start", {"sessionId": f"{story['id']}-{session}", "sessionKey": skey}, ctx
            )
        mid = f"{story['id']}-{i}"
        history.append({"role": m["role"], "content": m["text"], "id": mid, "timestamp": m["timestamp"]})
        if m["role"] == "user":
            event = {
                "content": m["text"],
                "messageId": mid,
                "sessionKey": skey,
                "timestamp": m["timestamp"],
                "from": "user",
                "metadata": {"senderName": story["user"]},
            }
            await runner.run("message_received", event, msg_ctx)
        else:
            await runner.run(
                "agent_end", {"messages": list(history), "success": True}, {**ctx, "trigger": "user"}
            )


def reference_time(story: dict[str, Any]) -> str:
    last = datetime.fromisoformat(story["messages"][-1]["timestamp"].replace("Z", "+00:00"))
    return (last + timedelta(days=1)).isoformat()


async def ask(runner: Any, story: dict[str, Any], ctx: dict[str, Any], ws: Any) -> list[dict[str, Any]]:
    """Each question through before_prompt_build: answered from Known Facts, from the block, stale facts."""
    ref = reference_time(story)
    out = []
    for q in story["questions"]:
        event = {
            "prompt": q["question"],
            "messages": [{"role": "user", "content": q["question"]}],
            "timestamp": ref,
        }
        result = await runner.run("before_prompt_build", event, {**ctx, "trigger": "user"})
        block = next((v for v in (result or {}).values() if isinstance(v, str)), "")
        section = known_facts_section(block)
        shown = [
            fact_view(f) for f in (ws.facts.get(fid) for fid in _FACT_ID_RE.findall(section)) if f is not None
        ]
        stored = [fact_view(f) for f in ws.facts.all()]
        out.append(
            {
                "answered_facts": answered(section, q["answers"]),
                "answered_strict": answered_by_fact(q, shown, str(story["user"])),
                # a stored fact answers it, shown or not: the rest is lost to extraction, not to ranking
                "answerable_store": answered_by_fact(q, stored, str(story["user"])),
                "answered_block": answered(block, q["answers"]),
                "stale": 0 if q.get("about_past") else sum(1 for f in shown if not f.valid),
                "facts_shown": len(shown),
            }
        )
    return out


def answered_by_fact(question: dict[str, Any], shown: Sequence[FactView], user: str) -> bool:
    """The stricter reading: a shown fact states the question's subject and relation with an answer as
    its object (valid and in the present form unless the question is about the past). Questions
    without `subject`/`relation` fall back to the answer string in the fact's triple."""
    answers = [str(a) for a in question["answers"]]
    if "relation" not in question:
        return any(answered(f"{f.subject} {f.object}", answers) for f in shown)
    row = {
        "subject": question.get("subject", USER),
        "relation": question["relation"],
        "object": answers[0],
        "accept_objects": answers[1:],
    }
    for f in shown:
        kind = match_kind(f, row, user)
        if kind is not None and (question.get("about_past") or (f.valid and kind != "past")):
            return True
    return False


def score_story(
    story: dict[str, Any], facts: Sequence[FactView], questions: Sequence[dict[str, Any]]
) -> dict[str, Any]:
    """Every figure of one story from its stored facts and its question outcomes."""
    user = str(story["user"])
    truth = story["truth"]
    rows = [row_satisfied(r, facts, user) for r in truth]
    current = [ok for r, ok in zip(truth, rows, strict=True) if r.get("status", "current") == "current"]
    superseded = [ok for r, ok in zip(truth, rows, strict=True) if r.get("status") == "superseded"]
    tiers: dict[str, Any] = {}
    for tier in (*TIERS, "all"):
        mine = [f for f in facts if tier == "all" or tier in f.tiers]
        correct = sum(1 for f in mine if fact_correct(f, story))
        found = sum(1 for r in truth if row_extracted(r, mine, user))
        tiers[tier] = {"facts": len(mine), "correct": correct, "rows_found": found}
    by_relation: dict[str, list[int]] = {}
    for r, ok in zip(truth, rows, strict=True):
        cell = by_relation.setdefault(str(r["relation"]), [0, 0, 0])
        cell[0] += 1
        cell[1] += row_extracted(r, facts, user)
        cell[2] += ok
    return {
        "by_relation": by_relation,
        "status_misses": status_misses(truth, rows, facts, user),
        "messages": len(story["messages"]),
        "truth_rows": len(truth),
        "satisfied": sum(rows),
        "current_rows": len(current),
        "current_satisfied": sum(current),
        "superseded_rows": len(superseded),
        "superseded_satisfied": sum(superseded),
        "questions": len(questions),
        "answered_facts": sum(1 for q in questions if q["answered_facts"]),
        "answered_strict": sum(1 for q in questions if q["answered_strict"]),
        "answerable_store": sum(1 for q in questions if q["answerable_store"]),
        "answered_block": sum(1 for q in questions if q["answered_block"]),
        "stale_injected": sum(int(q["stale"]) for q in questions),
        "facts": len(facts),
        "valid_facts": sum(1 for f in facts if f.valid),
        "tiers": tiers,
        "rows": rows,
    }


def status_misses(
    truth: Sequence[dict[str, Any]], rows: Sequence[bool], facts: Sequence[FactView], user: str
) -> dict[str, list[int]]:
    """Per relation, rows extracted but missed for their status: [a current row whose facts were all
    ended (superseded or ended wrongly), an old row whose fact is still current (never ended)]."""
    out: dict[str, list[int]] = {}
    for r, ok in zip(truth, rows, strict=True):
        kinds = [(f.valid, k) for f in facts if (k := match_kind(f, r, user)) is not None]
        if ok or not kinds:
            continue
        cell = out.setdefault(str(r["relation"]), [0, 0])
        if r.get("status", "current") == "current":
            cell[0] += all(not valid for valid, _ in kinds)
        else:
            cell[1] += any(valid and k in ("current", "inverse") for valid, k in kinds)
    return out


_COUNTS = (
    "messages",
    "truth_rows",
    "satisfied",
    "current_rows",
    "current_satisfied",
    "superseded_rows",
    "superseded_satisfied",
    "questions",
    "answered_facts",
    "answered_strict",
    "answerable_store",
    "answered_block",
    "stale_injected",
    "facts",
    "valid_facts",
    "entities",
    "entity_names",
    "entity_found",
    "entity_typed",
    "entity_doubled",
)


def summarise(scores: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Sums over stories, and the ratios of the sums."""
    s: dict[str, Any] = {k: sum(int(x[k]) for x in scores) for k in _COUNTS}
    s["stories"] = len(scores)
    s["accuracy"] = _ratio(s["satisfied"], s["truth_rows"])
    s["current_accuracy"] = _ratio(s["current_satisfied"], s["current_rows"])
    s["superseded_accuracy"] = _ratio(s["superseded_satisfied"], s["superseded_rows"])
    s["answered_facts_share"] = _ratio(s["answered_facts"], s["questions"])
    s["answered_strict_share"] = _ratio(s["answered_strict"], s["questions"])
    s["answered_block_share"] = _ratio(s["answered_block"], s["questions"])
    relations: dict[str, list[int]] = {}
    for x in scores:
        for rel, cell in x.get("by_relation", {}).items():
            relations[rel] = [a + b for a, b in zip(relations.get(rel, [0, 0, 0]), cell, strict=True)]
    # per relation of the truth rows: [rows, extracted in any form, satisfied]
    s["by_relation"] = dict(sorted(relations.items()))
    misses: dict[str, list[int]] = {}
    for x in scores:
        for rel, cell in x.get("status_misses", {}).items():
            misses[rel] = [a + b for a, b in zip(misses.get(rel, [0, 0]), cell, strict=True)]
    s["status_misses"] = dict(sorted(misses.items()))
    s["entity_recall"] = _ratio(s["entity_found"], s["entity_names"])
    s["entity_type_accuracy"] = _ratio(s["entity_typed"], s["entity_found"])
    tiers = {}
    for tier in (*TIERS, "all"):
        n = sum(x["tiers"][tier]["facts"] for x in scores)
        ok = sum(x["tiers"][tier]["correct"] for x in scores)
        found = sum(x["tiers"][tier]["rows_found"] for x in scores)
        tiers[tier] = {
            "facts": n,
            "correct": ok,
            "precision": _ratio(ok, n),
            "rows_found": found,
            "recall": _ratio(found, s["truth_rows"]),
        }
    s["tiers"] = tiers
    return s


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 3) if b else None


def run(
    stories: Sequence[tuple[str, dict[str, Any]]],
    llm: bool = False,
    embeddings: bool = True,
    detail: bool = False,
    overrides: dict[str, Any] | None = None,
    keep_facts: bool = False,
) -> dict[str, Any]:
    """Every story through the hooks, scored; `keep_facts` adds each story's stored facts (facts_diff.py)."""
    from knowledge_engine.host import HookRunner, PluginApi
    from knowledge_engine.plugin import register

    server = None
    if llm:
        from tests.servers.ollama_server import FakeOllamaServer

        server = FakeOllamaServer().start()
    t0 = time.perf_counter()
    per_story: dict[str, Any] = {}
    details: dict[str, Any] = {}
    kept: dict[str, list[list[Any]]] = {}
    try:
        with tempfile.TemporaryDirectory(prefix="ke-knowledge-") as tmp:
            root = Path(tmp)
            api = PluginApi(
                "knowledge-engine", plugin_config(root, server.url if server else None, embeddings, overrides)
            )
            plugin = register(api)
            assert plugin is not None
            engine = plugin.engine
            runner = HookRunner(api.registrations)

            async def go() -> None:
                ctxs = [_ctx(story, root) for _, story in stories]
                for (_, story), ctx in zip(stories, ctxs, strict=True):
                    await ingest(runner, story, ctx)
                await asyncio.to_thread(engine.flush, 300.0)
                for (part, story), ctx in zip(stories, ctxs, strict=True):
                    ws = engine.workspace(ctx["agentId"], ctx["workspaceDir"])
                    facts = [fact_view(f) for f in ws.facts.all()]
                    questions = await ask(runner, story, ctx, ws)
                    score = score_story(story, facts, questions) | score_entities(story, ws.entities.all())
                    rows = score.pop("rows")
                    per_story[str(story["id"])] = {"part": part, **score}
                    if keep_facts:
                        kept[str(story["id"])] = [[f.subject, f.predicate, f.object, f.valid] for f in facts]
                    if detail and part != "heldout":
                        details[str(story["id"])] = {
                            "rows": [
                                f"{'ok ' if ok else 'NO '}{r['subject']} {r['relation']} {r['object']} "
                                f"[{r.get('status', 'current')}]"
                                for r, ok in zip(story["truth"], rows, strict=True)
                            ],
                            "questions": [
                                f"{'ok ' if q['answered_facts'] else 'NO '}"
                                f"{'strict ' if q['answered_strict'] else ''}"
                                f"{s['question']} (stale {q['stale']})"
                                for s, q in zip(story["questions"], questions, strict=True)
                            ],
                            "facts": sorted(  # "?": a fact no truth or also_true row accepts
                                f"{'' if fact_correct(f, story) else '? '}{'' if f.valid else '(old) '}"
                                f"{f.subject} | {f.predicate} | {f.object} [{','.join(sorted(f.tiers))}]"
                                for f in facts
                            ),
                        }
                await runner.run("gateway_stop", {"reason": "bench done"}, {})

            asyncio.run(go())
            engine.stop(10)
    finally:
        if server is not None:
            server.stop()
    parts = {
        p: summarise([s for s in per_story.values() if s["part"] == p])
        for p in dict.fromkeys(s["part"] for s in per_story.values())
    }
    total = summarise(list(per_story.values()))
    for score in per_story.values():
        score.pop("by_relation")  # per part only: a held-out story is reported by its totals
        score.pop("status_misses")
    out: dict[str, Any] = {
        "llm": llm,
        "embeddings": embeddings,
        "elapsed_s": round(time.perf_counter() - t0, 1),
        "total": total,
        "parts": parts,
        "stories": per_story,
    }
    if detail:
        out["detail"] = details
    if keep_facts:
        out["facts"] = kept
    return out


def print_table(out: dict[str, Any]) -> None:
    print(
        f"{'':24} {'truth':>8} {'acc':>5} {'current':>8} {'old':>6} {'Q facts':>8} {'Q strict':>8} "
        f"{'Q block':>8} {'stale':>5}"
    )

    def frac(s: dict[str, Any], a: str, b: str) -> str:
        return f"{s[a]}/{s[b]}"

    def line(name: str, s: dict[str, Any]) -> str:
        acc = _fmt(_ratio(s["satisfied"], s["truth_rows"]))
        cells = [
            f"{frac(s, 'satisfied', 'truth_rows'):>8}",
            f"{acc:>5}",
            f"{frac(s, 'current_satisfied', 'current_rows'):>8}",
            f"{frac(s, 'superseded_satisfied', 'superseded_rows'):>6}",
            *(
                f"{frac(s, k, 'questions'):>8}"
                for k in ("answered_facts", "answered_strict", "answered_block")
            ),
            f"{s['stale_injected']:>5}",
        ]
        return f"{name:24} " + " ".join(cells)

    for sid, s in out["stories"].items():
        print(line(f"{s['part']}/{sid}", s))
    for part, s in out["parts"].items():
        print(line(f"[{part}]", s))
    print(line("[total]", out["total"]))
    for part, s in [*out["parts"].items(), ("total", out["total"])]:
        cells = ", ".join(
            f"{t} P {_fmt(v['precision'])} R {_fmt(v['recall'])} ({v['facts']})"
            for t, v in s["tiers"].items()
        )
        print(f"[{part}] per tier (facts): {cells}")
        print(
            f"[{part}] by relation (rows / extracted / satisfied): "
            + ", ".join(f"{rel} {n}/{x}/{ok}" for rel, (n, x, ok) in s["by_relation"].items())
        )
        print(
            f"[{part}] extracted, status missed (a current row ended / an old row still current): "
            + (", ".join(f"{rel} {a}/{b}" for rel, (a, b) in s["status_misses"].items()) or "none")
        )
        print(
            f"[{part}] entities: {s['entity_found']}/{s['entity_names']} named found, "
            f"{s['entity_typed']} typed as their relation says, {s['entity_doubled']} held twice, "
            f"{s['entities']} stored"
        )
    for sid, d in out.get("detail", {}).items():
        print(f"\n== {sid}")
        for item in [*d["rows"], *d["questions"]]:
            print("  " + item)
        print("  facts:")
        for item in d["facts"]:
            print("    " + item)


FOLD_COLUMNS = ("accuracy", "current", "old", "q_facts", "q_strict", "spacy_p", "spacy_r")


def fold_figures(score: dict[str, Any]) -> dict[str, float | None]:
    """One story's figures as a left-out fold: ratios within the story (a fold is one story)."""
    spacy = score["tiers"]["spacy"]
    return {
        "accuracy": _ratio(score["satisfied"], score["truth_rows"]),
        "current": _ratio(score["current_satisfied"], score["current_rows"]),
        "old": _ratio(score["superseded_satisfied"], score["superseded_rows"]),
        "q_facts": _ratio(score["answered_facts"], score["questions"]),
        "q_strict": _ratio(score["answered_strict"], score["questions"]),
        "spacy_p": _ratio(spacy["correct"], spacy["facts"]),
        "spacy_r": _ratio(spacy["rows_found"], score["truth_rows"]),
    }


def folds(out: dict[str, Any]) -> dict[str, Any]:
    """Leave-one-story-out table over the tune stories: each story's figures when it is the one left
    out, and their unweighted mean (a story with no value for a column is left out of that mean)."""
    table = {sid: fold_figures(s) for sid, s in out["stories"].items() if s["part"] != "heldout"}
    mean: dict[str, float | None] = {}
    for col in FOLD_COLUMNS:
        vals = [v[col] for v in table.values() if v[col] is not None]
        mean[col] = round(sum(vals) / len(vals), 3) if vals else None  # type: ignore[arg-type]
    return {"folds": table, "mean": mean}


def print_folds(result: dict[str, Any]) -> None:
    print("\nleave-one-story-out (figures of the story not looked at)")
    print(f"{'left out':24} " + " ".join(f"{c:>8}" for c in FOLD_COLUMNS))
    for sid, row in [*result["folds"].items(), ("[mean]", result["mean"])]:
        print(f"{sid:24} " + " ".join(f"{_fmt(row[c]):>8}" for c in FOLD_COLUMNS))


def _fmt(v: float | None) -> str:
    return "-" if v is None else f"{v:.2f}"


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    p.add_argument(
        "--stories", type=Path, default=STORIES, help="Story folder (tune/ and heldout/ under it)."
    )
    p.add_argument(
        "--llm", action="store_true", help="Also run the LLM tier against the loopback fake server."
    )
    p.add_argument("--no-embeddings", action="store_true", help="Embeddings off (retrieval without vectors).")
    p.add_argument("--detail", action="store_true", help="Row-by-row outcome and facts of the tune stories.")
    p.add_argument("--json", action="store_true", help="Only the JSON line.")
    p.add_argument(
        "--folds", action="store_true", help="Tune stories only: leave-one-story-out table and its mean."
    )
    p.add_argument(
        "--leave-out",
        metavar="ID",
        default="",
        help="With --detail: hide this tune story's rows and facts (its figures still print).",
    )
    p.add_argument(
        "--tune-only", action="store_true", help="Run the tune stories only (heldout/ is not opened)."
    )
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="Engine config override, dotted keys (--set extraction.spacy.truecase=true).",
    )
    args = p.parse_args(argv)
    logging.getLogger("knowledge_engine").setLevel(logging.ERROR)
    stories = load_stories(args.stories, skip=("heldout",) if args.folds or args.tune_only else ())
    overrides = parse_overrides(args.set)
    out = run(
        stories, llm=args.llm, embeddings=not args.no_embeddings, detail=args.detail, overrides=overrides
    )
    out["overrides"] = overrides
    if args.leave_out:
        left = [sid for sid in out.get("detail", {}) if args.leave_out in (sid, sid.removeprefix("tune-"))]
        for sid in left:
            del out["detail"][sid]
    if args.folds:
        out["folds"] = folds(out)
    if not args.json:
        print_table(out)
        if args.folds:
            print_folds(out["folds"])
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
