"""The integrity harness (issue 13): a host killed with SIGKILL again and again while CLI writers run.

Each round starts a host process that feeds a realistic message stream through the real
`message_received` hook (people, organisations, cities, e-mail addresses, lines of the bundled sample
conversation) and prints each message id once the hook returned (acknowledged). While it runs, the CLI
writes to the same workspace: `import` (a new export), `edit` (a fact imported earlier gets a new
object), `forget --entity ... --delete-messages` (a name the stream stopped mentioning), and
`maintain --once`. Then the host is killed with SIGKILL at a random moment. After every round, from the
files alone (no host running):

- `knowledge-engine validate --no-index` passes;
- every acknowledged message is in the message log once, or still waiting in the ingest journal /
  spill file (replayed by the next start); once its applied key is on disk it has every fact a kill-free
  control run (the same stream through the same hook, never killed) extracted from it;
- no forgotten name is in any byte of any file of the workspace;
- every imported fact is there and every edit holds.

After the last round a clean start replays what waits and the same checks run with nothing allowed to
wait. The counts are printed (`pytest -s`) and recorded in docs/reliability.md.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from knowledge_engine.config import load_config
from knowledge_engine.engine import KnowledgeEngine
from knowledge_engine.ingest.journal import JOURNAL_NAME
from knowledge_engine.ingest.queue import SPILL_NAME
from knowledge_engine.model.extraction import Extraction, FactCandidate, Mention
from knowledge_engine.model.records import Message
from knowledge_engine.store.workspace import Workspace

ROUNDS = int(os.environ.get("KE_HARNESS_ROUNDS", "6"))
PER_ROUND = 200  # at most this many messages per round (the stream is finite and known in advance)
AGENT = "h"
CLI = str(Path(sys.executable).parent / "knowledge-engine")

# The stream, shared with the host process (exec'd there): message i is a pure function of i.
STREAM = textwrap.dedent(
    '''
    import json as _json
    from datetime import UTC as _UTC, datetime as _dt, timedelta as _td
    from importlib.resources import files as _files

    PEOPLE = ["Dana Reyes", "Carlos Mendes", "Priya Shah", "Omar Haddad", "Lena Vogel", "Tom Okafor",
              "Ingrid Solberg", "Mateo Ruiz"]
    ORGS = ["Globex Corporation", "Initech", "Umbrella Health", "Stark Industries", "Wayne Enterprises",
            "Hooli", "Vandelay Imports"]
    CITIES = ["Toronto", "Berlin", "Lisbon", "Austin", "Oslo", "Nairobi", "Kyoto", "Valparaiso"]
    TARGETS = ["Bruno Keller", "Ines Duarte", "Kofi Mensah", "Yuki Tanaka", "Sven Lund", "Amara Obi",
               "Leopold Fischer", "Noor Haddadi", "Elif Demir", "Rafael Costa", "Hana Novak", "Aziz Rahman"]
    WINDOW, MENTIONS = 200, 15  # target k is mentioned in messages [200k, 200k+15) of the stream
    SAMPLE = [r["text"] for r in map(_json.loads, _files("knowledge_engine.data").joinpath(
        "sample_conversation.jsonl").read_text().splitlines()) if r["role"] == "user"]
    SESSION = "agent:h:main"

    def target_of(i):
        k = i // WINDOW  # each target once: past the last one (KE_HARNESS_ROUNDS > 12) a forgotten name
        # mentioned again would be new knowledge, not a resurrection
        return TARGETS[k] if k < len(TARGETS) and i % WINDOW < MENTIONS and i % 3 == 0 else None

    def text_of(i):
        who, who2 = PEOPLE[i % 8], PEOPLE[(i * 3 + 1) % 8]
        org, city = ORGS[i % 7], CITIES[(i // 2) % 8]
        target = target_of(i)
        if target is not None:
            return f"{target} from {org} called about the {city} project."
        first, last = who.lower().split()
        kind = i % 5
        if kind == 0:
            return f"{who} works at {org} and lives in {city}."
        if kind == 1:
            return f"Mail {first}.{last}{i}@example.org about invoice {i} for {org}."
        if kind == 2:
            return f"{who} moved to {city} last week and joined {org}."
        if kind == 3:
            return SAMPLE[i % len(SAMPLE)]
        return f"I met {who} and {who2} at the {org} office in {city}."

    def ts_of(i):
        return (_dt(2026, 1, 1, tzinfo=_UTC) + _td(minutes=i)).isoformat()
    '''
)
GEN: dict[str, Any] = {}
exec(STREAM, GEN)

HOST = STREAM + textwrap.dedent(
    """
    import asyncio, sys, threading, time
    from knowledge_engine.host import HookRunner, PluginApi
    from knowledge_engine.plugin import register

    config, start, stop, mode = _json.loads(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    api = PluginApi("knowledge-engine", config)
    plugin = register(api)
    runner = HookRunner(api.registrations)

    async def main():
        for i in range(start, stop):
            event = {"content": text_of(i), "messageId": f"h-{i}", "timestamp": ts_of(i), "from": "u",
                     "sessionKey": SESSION}
            await runner.run("message_received", event, {"sessionKey": SESSION})
            print(i, flush=True)  # acknowledged: the hook returned
            if mode == "kill":
                await asyncio.sleep(0.02)  # a busy chat, not a bulk import

    asyncio.run(main())
    if mode == "control":
        assert plugin.engine.flush(900, sync=False)
        plugin.engine.stop(30)
        print("done", flush=True)
    else:
        threading.Event().wait()  # idle until killed
    """
)

GADGETS = ["Quartz Kettle", "Amber Lantern", "Cobalt Drone", "Velvet Compass", "Ivory Sextant", "Jade Loom",
           "Onyx Prism", "Ruby Anvil", "Saffron Kite", "Teal Beacon", "Umber Quill", "Violet Harp",
           "Walnut Easel", "Zinc Gimbal"]
WORDS = ["North", "South", "East", "West", "Upper", "Lower", "Inner", "Outer", "Middle", "Far", "Near",
         "High", "Low", "Deep"]


def _config(root: Path) -> dict[str, Any]:
    return {"workspace": str(root / "{agentId}"), "embeddings": {"enabled": False},
            "retrieval": {"enabled": False}, "maintenance": {"enabled": False},
            "storage": {"writeDebounceMs": 200}, "extraction": {"spacy": {"workers": 0}}}


def _norm(s: str) -> str:
    return " ".join(s.lower().split())


def _triples(ws: Workspace) -> dict[tuple[str, str, str], list[str]]:
    """Every fact (superseded ones too) as (subject, predicate, object) -> evidence message ids."""
    out: dict[tuple[str, str, str], list[str]] = {}
    for f in ws.facts.all():
        out.setdefault((_norm(f.subject), f.predicate, _norm(f.object)), []).extend(
            e.message_id for e in f.evidence
        )
    return out


class _Control:
    """The kill-free control run: the same stream through the same hook in one host that is never killed.
    It runs in the background while the first round starts; `per_message()` waits for it."""

    def __init__(self, tmp_path: Path, n: int) -> None:
        self.root = tmp_path / "control"
        self.proc = subprocess.Popen(
            [sys.executable, str(tmp_path / "host.py"), json.dumps(_config(self.root)), "0", str(n),
             "control"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        self._per: dict[str, set[tuple[str, str, str]]] | None = None

    def per_message(self) -> dict[str, set[tuple[str, str, str]]]:
        """Message id -> the (subject, predicate, object) triples it is evidence of."""
        if self._per is None:
            out, err = self.proc.communicate(timeout=900)
            assert out.rstrip().endswith("done"), err[-2000:]
            ws = Workspace(self.root / AGENT, load_config(_config(self.root)))
            self._per = {}
            for triple, ids in _triples(ws).items():
                for mid in ids:
                    self._per.setdefault(mid, set()).add(triple)
            ws.closed = True
        return self._per


def _export_line(kind: str, rec: Any) -> bytes:
    return json.dumps({"kind": kind, **rec.model_dump(mode="json", exclude_none=True)}).encode() + b"\n"


def _import_file(tmp_path: Path, k: int) -> tuple[Path, list[str], str]:
    """An export holding one gadget's facts (as another workspace made them), their fact ids, and the id
    of its `made-by` fact (the one a later round edits)."""
    folder = tmp_path / f"import-src-{k}"
    ws = Workspace(folder, load_config(_config(tmp_path)))
    gadget, vendor, city = GADGETS[k], f"{WORDS[k]} Foundry", GEN["CITIES"][k % 8]
    msg = Message(id=f"import-{k}", text=f"The {gadget} is made by {vendor} in {city}.", role="user",
                  session="import", timestamp=datetime(2025, 6, 1, tzinfo=UTC) + timedelta(days=k))
    ws.store_message(msg)
    mentions = [Mention(value=gadget, type="product", tier="regex"),
                Mention(value=vendor, type="organization", tier="regex")]
    facts = [
        FactCandidate(subject=gadget, predicate="made-by", object=vendor, tier="regex",
                      subject_type="product", object_type="organization"),
        FactCandidate(subject=gadget, predicate="located-in", object=city, tier="regex",
                      subject_type="product", object_type="location"),
    ]
    ws.apply(msg, [Extraction(message_id=msg.id, mentions=mentions, facts=facts)])
    ws.flush()
    path = tmp_path / f"import-{k}.jsonl"
    lines = [_export_line("entity", e) for e in ws.entities.all()]
    lines += [_export_line("fact", f) for f in ws.facts.all()]
    lines += [_export_line("message", m) for m in ws.messages.iter()]
    path.write_bytes(b"".join(lines))
    ids = [f.id for f in ws.facts.all()]
    made_by = next(f.id for f in ws.facts.all() if f.predicate == "made-by")
    ws.close()
    return path, ids, made_by


@dataclass
class Tally:
    rounds: int = 0
    kills: int = 0
    acked: set[int] = field(default_factory=set)
    lost: set[str] = field(default_factory=set)
    lost_facts: set[str] = field(default_factory=set)
    duplicated: int = 0
    duplicated_parked: int = 0  # most lines of the spill files that repeat a message already parked
    resurrected: set[tuple[str, str]] = field(default_factory=set)
    forgotten: dict[str, int] = field(default_factory=dict)  # name -> forget's exit code
    imported: list[str] = field(default_factory=list)
    made_by: dict[int, str] = field(default_factory=dict)  # import k -> its made-by fact id
    edits: list[tuple[str, str]] = field(default_factory=list)  # (gadget, new object)
    lost_edits: set[str] = field(default_factory=set)
    validate_failures: list[str] = field(default_factory=list)
    cli_failures: list[str] = field(default_factory=list)

    def figures(self) -> dict[str, int]:
        return {"rounds": self.rounds, "kills": self.kills, "messages": len(self.acked),
                "lost": len(self.lost), "lost_facts": len(self.lost_facts), "duplicated": self.duplicated,
                "duplicated_parked": self.duplicated_parked,
                "resurrected": len(self.resurrected), "forgets": len(self.forgotten),
                "forgets_final": sum(1 for c in self.forgotten.values() if c == 0),
                "forgets_not_final": sum(1 for c in self.forgotten.values() if c != 0),
                "edits": len(self.edits), "lost_edits": len(self.lost_edits)}


def _cli(cfg_file: Path, *args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    t0 = time.monotonic()
    out = subprocess.run([CLI, *args, "--config", str(cfg_file), "--agent", AGENT],
                         capture_output=True, text=True, timeout=timeout)
    _trace(f"{args[0]} exit {out.returncode} in {time.monotonic() - t0:.1f} s")
    return out


_T0 = time.monotonic()


def _trace(what: str) -> None:
    """Progress on stdout (seen with `pytest -s`): where a slow or failing run spent its time."""
    print(f"[harness {time.monotonic() - _T0:6.1f} s] {what}", flush=True)


def _id_list(path: Path) -> list[str]:
    """The message ids of a journal or spill file, one per line."""
    ids: list[str] = []
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return ids
    for line in raw.splitlines():
        try:
            ids.append(json.loads(line)["id"])
        except (ValueError, KeyError, TypeError):
            continue  # a line torn by the kill
    return ids


def _ids_in(path: Path) -> set[str]:
    return set(_id_list(path))


def _check(folder: Path, cfg_file: Path, control: _Control, t: Tally,
           final: bool) -> None:
    """Everything the harness promises, read from the files alone."""
    out = _cli(cfg_file, "validate", "--no-index", "--json")
    if out.returncode != 0:
        t.validate_failures.append(out.stdout[-1500:] + out.stderr[-1500:])
    names = (JOURNAL_NAME, SPILL_NAME, SPILL_NAME + ".work")
    waiting: set[str] = set() if final else set().union(*(_ids_in(folder / n) for n in names))
    parked = [i for n in names[1:] for i in _id_list(folder / n)]  # a message parked twice is replayed twice
    t.duplicated_parked = max(t.duplicated_parked, len(parked) - len(set(parked)))
    ws = Workspace(folder, load_config(_config(folder.parent)))
    try:
        applied = {k.split("|", 1)[0] for k in ws.facts.table.meta.get("applied", [])}
        triples = _triples(ws)
        max_ev = ws.config.storage.max_evidence
        ids = [f"h-{i}" for i in sorted(t.acked) if GEN["target_of"](i) is None]
        in_log = {m.id for m in ws.messages.get_many(ids)}
        for mid in ids:
            if mid in waiting:
                continue  # the next start replays it
            expected = control.per_message().get(mid, set())
            if mid not in in_log or (expected and mid not in applied):
                t.lost.add(mid)
                continue
            for triple in expected:
                if any(w in triple[0] or w in triple[2] for w in map(_norm, t.forgotten)):
                    continue
                ev = triples.get(triple)
                if ev is None or (mid not in ev and len(ev) < max_ev):
                    t.lost_facts.add(f"{mid} {triple[1]}")
        t.duplicated = max(t.duplicated, sum(len(ev) - len(set(ev)) for ev in triples.values()))
        for fid in t.imported:
            if ws.facts.get(fid) is None:
                t.lost_edits.add(f"import {fid}")
        for gadget, obj in t.edits:
            if (_norm(gadget), "made-by", _norm(obj)) not in triples:
                t.lost_edits.add(f"edit {gadget}")
    finally:
        ws.closed = True
        if ws._messages is not None:
            ws._messages.close()
    with sqlite3.connect(folder / "messages.sqlite3") as db:
        t.duplicated += db.execute("SELECT COUNT(*) - COUNT(DISTINCT id) FROM messages").fetchone()[0]
    for name, code in t.forgotten.items():
        if code != 0:
            continue
        needles = {name.encode(), name.lower().encode(), name.upper().encode()}
        for p in folder.rglob("*"):
            if p.is_file() and any(n in p.read_bytes() for n in needles):
                t.resurrected.add((name, p.name))


def _wait_for_bytes(path: Path, needle: bytes, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if needle in path.read_bytes():
                return True
        except FileNotFoundError:
            pass
        time.sleep(0.1)
    return False


def _writers(cfg_file: Path, folder: Path, tmp_path: Path, round_: int, t: Tally, acked_hi: Any,
             has_wait: bool) -> None:
    """The CLI writers of one round, one after another while the host runs: `import` and `edit` in even
    rounds, `forget` (of each name the stream has stopped mentioning) and `maintain --once` in odd ones."""
    if round_ % 2 == 0:
        k = round_ // 2
        path, ids, made_by = _import_file(tmp_path, k + 1)
        out = _cli(cfg_file, "import", str(path))
        if out.returncode == 0:
            t.imported += ids
            t.made_by[k + 1] = made_by
        else:
            t.cli_failures.append(f"import: {out.returncode} {out.stderr[-300:]}")
        gadget, obj = GADGETS[k], f"{WORDS[k]} Workshop"
        out = _cli(cfg_file, "edit", "--fact", t.made_by[k], "--object", obj)
        if out.returncode == 0:
            t.edits.append((gadget, obj))
        else:
            t.cli_failures.append(f"edit: {out.returncode} {out.stderr[-300:]}")
        return
    for k, name in enumerate(GEN["TARGETS"]):
        if name in t.forgotten or acked_hi() < k * GEN["WINDOW"] + GEN["MENTIONS"]:
            continue  # still being mentioned, or not yet
        if not _wait_for_bytes(folder / "entities.json", name.encode(), 10.0):
            continue  # the host has not stored it yet (still loading spaCy, or killed): a later round
        args = ["forget", "--entity", name, "--delete-messages", "--yes", "--json"]
        out = _cli(cfg_file, *args, *(["--wait", "15"] if has_wait else []))
        t.forgotten[name] = out.returncode
    out = _cli(cfg_file, "maintain", "--once")
    if out.returncode != 0:
        t.cli_failures.append(f"maintain: {out.returncode} {out.stderr[-300:]}")


class _Host:
    """A host process fed the stream from `start`; `acked` grows as its hook calls return."""

    def __init__(self, script: Path, root: Path, start: int, total: int) -> None:
        self.start = start
        self.acked: list[int] = []
        self.proc = subprocess.Popen(
            [sys.executable, str(script), json.dumps(_config(root)), str(start), str(total), "kill"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.strip().isdigit():
                self.acked.append(int(line))

    def high(self) -> int:
        return max(self.acked, default=self.start - 2)

    def wait_for(self, n: int, timeout_s: float) -> bool:
        """Until n messages are acknowledged (or the host exited, or the deadline passed)."""
        deadline = time.monotonic() + timeout_s
        while len(self.acked) < n and self.proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        return len(self.acked) >= n

    def kill(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(30)
        self._reader.join(30)


@pytest.mark.slow
@pytest.mark.timeout(900)  # 80-130 s on a loaded 2-core machine; the suite's 300 s is tight under load
def test_integrity_under_kill_9_with_cli_writers(tmp_path: Path) -> None:
    seed = int(os.environ.get("KE_FAULT_SEED", time.time_ns() % 100000))
    rng = random.Random(seed)
    total = ROUNDS * PER_ROUND
    (tmp_path / "host.py").write_text(HOST)
    control = _Control(tmp_path, total)
    root = tmp_path / "ws"
    folder = root / AGENT
    cfg_file = tmp_path / "config.json"
    cfg_file.write_text(json.dumps(_config(root)))
    t = Tally()
    path, ids, made_by = _import_file(tmp_path, 0)
    folder.mkdir(parents=True)
    out = _cli(cfg_file, "import", str(path))
    assert out.returncode == 0, out.stderr
    t.imported += ids
    t.made_by[0] = made_by
    has_wait = "--wait" in _cli(cfg_file, "forget", "--help").stdout
    start = 0
    for round_ in range(ROUNDS):
        stop = min(start + PER_ROUND, total)
        host = _Host(tmp_path / "host.py", root, start, stop)
        assert host.wait_for(1, 120), "the host never acknowledged a message"
        before = max(t.acked, default=-1)
        args = (cfg_file, folder, tmp_path, round_, t, lambda h=host, b=before: max(h.high(), b), has_wait)
        writer = threading.Thread(target=_writers, args=args)
        writer.start()
        host.wait_for(stop - start, rng.uniform(1.0, 7.0))  # the kill lands anywhere, writers or not
        host.kill()
        writer.join(300)  # a writer still running goes on against the killed host's files
        _trace(f"round {round_}: killed after {len(host.acked)} acknowledged")
        t.kills += 1
        t.rounds += 1
        t.acked.update(host.acked)
        start = max(t.acked, default=-1) + 2  # the next id may have been accepted unacknowledged: skip it
        _check(folder, cfg_file, control, t, final=False)
        if start >= total:
            break
    # a clean start replays whatever waits; then nothing may wait any more
    engine = KnowledgeEngine(load_config(_config(root)))
    engine.open_workspace(folder, AGENT)
    end = time.monotonic() + 300
    while engine.queue.pending() > 0 and time.monotonic() < end:
        engine.queue.drain(1)
    flushed = engine.flush(120, sync=False)
    engine.stop(30)
    left = len(_id_list(folder / SPILL_NAME)) + len(_id_list(folder / JOURNAL_NAME))
    _check(folder, cfg_file, control, t, final=True)
    figures = {**t.figures(), "left_waiting_after_clean_start": left}
    print(f"integrity harness: seed={seed} " + json.dumps(figures))
    if t.lost or t.lost_facts:
        print(f"lost: {sorted(t.lost)[:10]} lost facts: {sorted(t.lost_facts)[:10]}")
    assert flushed
    assert left == 0, f"seed {seed}: {left} messages still wait after a clean start drained"
    assert t.rounds == ROUNDS or start >= total
    assert len(t.acked) >= ROUNDS * 20
    assert not t.validate_failures, f"seed {seed}: validate failed: {t.validate_failures[:2]}"
    assert not t.cli_failures, f"seed {seed}: {t.cli_failures[:3]}"
    assert not t.lost, f"seed {seed}: acknowledged messages lost: {sorted(t.lost)[:10]}"
    assert not t.lost_facts, f"seed {seed}: facts lost: {sorted(t.lost_facts)[:10]}"
    assert t.duplicated == 0, f"seed {seed}: {t.duplicated} duplicated evidence or log rows"
    assert t.duplicated_parked == 0, f"seed {seed}: {t.duplicated_parked} messages parked twice"
    assert not t.lost_edits, f"seed {seed}: {sorted(t.lost_edits)}"
    assert not t.resurrected, f"seed {seed}: forgotten names found again: {sorted(t.resurrected)[:10]}"

