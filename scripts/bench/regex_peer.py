#!/usr/bin/env python3
"""Regex tier side by side with the vainplex plugin's regex extractor, on the same LoCoMo turns.

Ours runs the way the engine uses it per batch of messages: `ExtractionPipeline.prepare` (text
cleaning, role filter) and then `RegexTier.extract`. The peer is `EntityExtractor.extract(text)`
of alberthild/vainplex-openclaw's packages/openclaw-knowledge-engine (as its `message_received`
hook calls it), run under Node >= 22.6 with its TypeScript types stripped. The peer's source is
not part of this repository: pass `--peer-dir` (a checkout of that package's `src/`); without it
the peer side is skipped and said so. Its two files are copied into a temp dir, with the `.js`
import specifiers rewritten to `.ts` and the type-only import marked `import type` (all Node's
type stripping needs); nothing else is changed.

Both sides are timed in CPU time of their own process (Python `time.process_time`, Node
`process.cpuUsage`), around the extraction loop only (data loading, imports and a warm-up pass
excluded); the best of `--repeat` passes in each of `--rounds` rounds (the sides take turns) is
kept. Also reported: entity counts, the most frequent values of each side (noise shows there), and
three quality checks on the distinct turns:
a speaker's name opening a turn ("Caroline, so glad ...") is found, a possessive sentence starter
("Life's ...") is not taken as a name, a title with a possessive ("Charlotte's Web") stays whole.
The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from knowledge_engine.config import load_config  # noqa: E402
from knowledge_engine.extract.pipeline import ExtractionPipeline  # noqa: E402
from knowledge_engine.extract.regex import RegexTier  # noqa: E402
from knowledge_engine.model.extraction import Extraction  # noqa: E402
from knowledge_engine.model.records import Message  # noqa: E402

LOCOMO = ROOT.parent / "shared" / "data" / "locomo" / "locomo-dev.json"
PEER_FILES = ("entity-extractor.ts", "patterns.ts")

_DRIVER = r"""
import { readFileSync } from 'node:fs';
import { EntityExtractor } from './entity-extractor.ts';
const texts = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const repeat = Number(process.argv[3]);
const logger = { info() {}, warn() {}, error() {}, debug() {} };
const ex = new EntityExtractor(logger);
for (const t of texts.slice(0, 2000)) ex.extract(t);  // warm-up: JIT
let best = Infinity;
let out = null;
const keep = Number(process.argv[4]);
for (let r = 0; r < repeat; r++) {
  const found = [];
  const t0 = process.cpuUsage();
  for (let i = 0; i < texts.length; i++) {
    const es = ex.extract(texts[i]);
    if (i < keep) found.push(es);  // the first `keep` results are kept for the counts, as on our side
  }
  const d = process.cpuUsage(t0);
  best = Math.min(best, (d.user + d.system) / 1e6);
  out = found;
}
const values = out.map(es => es.map(e => [e.type, e.value]));
process.stdout.write(JSON.stringify({ cpu_s: best, values }));
"""


def load_turns() -> list[tuple[str, str, tuple[str, str]]]:
    """(speaker, text, (speaker_a, speaker_b)) of every LoCoMo dev turn, in order."""
    turns: list[tuple[str, str, tuple[str, str]]] = []
    for conv in json.loads(LOCOMO.read_text()):
        c = conv["conversation"]
        pair = (c["speaker_a"], c["speaker_b"])
        for key, value in c.items():
            if key.startswith("session_") and isinstance(value, list):
                turns.extend((t["speaker"], t["text"], pair) for t in value if t.get("text"))
    return turns


def find_node(given: str | None) -> str | None:
    """A Node >= 22.6 binary (type stripping): --node, the repo's .cache/openclaw, then PATH."""
    candidates = [given] if given else []
    candidates += [str(ROOT / ".cache" / "openclaw" / "bin" / "node"), shutil.which("node") or ""]
    for cand in candidates:
        if not cand or not os.access(cand, os.X_OK):
            continue
        try:
            version = subprocess.run([cand, "--version"], capture_output=True, text=True, check=True).stdout
        except (OSError, subprocess.CalledProcessError):
            continue
        major, minor = (int(x) for x in version.strip().lstrip("v").split(".")[:2])
        if (major, minor) >= (22, 6):
            return cand
    return None


def run_ours(
    texts: list[str], repeat: int, batch: int, n_values: int
) -> tuple[float, list[list[tuple[str, str]]]]:
    """Best CPU time of `repeat` passes; the mentions of the first n_values messages.

    Each batch's extractions are dropped after the next batch starts (as the engine hands them on),
    except those of the first n_values messages, kept for the counts (the peer's side does the same)."""
    base = load_config({})
    config = base.extraction.model_copy(
        update={"spacy": base.extraction.spacy.model_copy(update={"enabled": False})}
    )
    tier = RegexTier(config.regex)
    pipeline = ExtractionPipeline(config, tiers=[tier])
    msgs = [Message(id=f"m{i}", text=t, role="user", speaker="Ann") for i, t in enumerate(texts)]

    def one_pass() -> list[Extraction]:
        kept: list[Extraction] = []
        for i in range(0, len(msgs), batch):
            found = tier.extract(pipeline.prepare(msgs[i : i + batch]))
            if i < n_values:
                kept.extend(found)
        return kept

    one_pass()  # warm-up
    best = float("inf")
    kept: list[Extraction] = []
    for _ in range(repeat):
        t0 = time.process_time()
        kept = one_pass()
        best = min(best, time.process_time() - t0)
    by_id: dict[str, list[tuple[str, str]]] = {
        ex.message_id: [(m.type, m.value) for m in ex.mentions] for ex in kept
    }
    return best, [by_id.get(m.id, []) for m in msgs[:n_values]]  # prepare drops empty texts


def run_peer(
    texts: list[str], repeat: int, peer_dir: Path, node: str, n_values: int
) -> tuple[float, list[list[tuple[str, str]]]]:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for name in PEER_FILES:
            src = (peer_dir / name).read_text()
            src = re.sub(r"""from '(\./[\w-]+)\.js'""", r"from '\1.ts'", src)
            types_import = r"^import \{([^}]*)\} from '\./types\.ts'"
            src = re.sub(types_import, r"import type {\1} from './types.ts'", src, flags=re.M)
            (work / name).write_text(src)
        (work / "driver.mts").write_text(_DRIVER)
        (work / "package.json").write_text('{"type": "module"}')
        data = work / "texts.json"
        data.write_text(json.dumps(texts))
        proc = subprocess.run(
            [node, "--experimental-strip-types", "--no-warnings", str(work / "driver.mts"), str(data),
             str(repeat), str(n_values)],
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"peer run failed: {proc.stderr.strip()[-2000:]}")
        got = json.loads(proc.stdout)
    return float(got["cpu_s"]), [[(t, v) for t, v in row] for row in got["values"]]


def summary(values: list[list[tuple[str, str]]], n_distinct: int) -> dict[str, Any]:
    """Counts over the distinct turns (the first n_distinct results)."""
    rows = values[:n_distinct]
    mentions = [v for row in rows for v in row]
    by_type = Counter(t for t, _ in mentions)
    top = Counter(f"{t}:{v}" for t, v in mentions).most_common(25)
    return {
        "mentions": len(mentions),
        "distinct_values": len({v for v in mentions}),
        "by_type": dict(by_type.most_common()),
        "top": [f"{k} ({n})" for k, n in top],
    }


_OPENER = re.compile(r"^([A-Z][a-z]+)\b")
_POSSESSIVE_START = re.compile(r"(?:^|[.!?]\s+)([A-Z][a-z]+)['’]s\b")
_TITLE = re.compile(r"\b([A-Z][a-z]+['’]s [A-Z][a-z]+)\b")
_NOT_OWNERS = {"It", "That", "There", "What", "Here", "He", "She", "Who", "Let", "Where", "How"}


def quality(
    turns: list[tuple[str, str, tuple[str, str]]], values: list[list[tuple[str, str]]]
) -> dict[str, Any]:
    """Speaker names opening a turn found; possessive sentence starters taken as names; titles split.

    A possessive starter counts as noise only when the word is not a name elsewhere in the data
    (capitalised mid-sentence, not possessive): "Life's great" is noise, "Melanie's kids" is not."""
    text_all = "\n".join(t for _, t, _ in turns)
    names_mid = set(re.findall(r"(?<=[a-z,] )([A-Z][a-z]+)\b(?!['’])", text_all))
    opened = found_opened = 0
    missed: list[str] = []
    starters = starters_named = 0
    starter_samples: set[str] = set()
    titles = titles_whole = 0
    for (_, text, pair), row in zip(turns, values, strict=False):
        got = {v for _, v in row}
        m = _OPENER.match(text)
        if m and m.group(1) in pair:
            opened += 1
            if m.group(1) in got or any(v.startswith(m.group(1) + " ") for v in got):
                found_opened += 1
            elif len(missed) < 10:
                missed.append(text[:40])
        for sm in _POSSESSIVE_START.finditer(text):
            word = sm.group(1)
            if word in names_mid or word in pair:
                continue
            starters += 1
            if word in got:
                starters_named += 1
                starter_samples.add(word)
        for tm in _TITLE.finditer(text):
            first = tm.group(1).split("'")[0].split("’")[0]
            if first in pair or first in _NOT_OWNERS:
                continue
            titles += 1
            if any(tm.group(1) in v for v in got):
                titles_whole += 1
    return {
        "speaker_openers": opened,
        "speaker_openers_found": found_opened,
        "speaker_openers_missed_samples": missed,
        "possessive_starters": starters,
        "possessive_starters_named": starters_named,
        "possessive_starter_samples": sorted(starter_samples)[:15],
        "possessive_titles": titles,
        "possessive_titles_whole": titles_whole,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--peer-dir", type=Path, help="checkout of vainplex-openclaw's packages/openclaw-knowledge-engine/src"
    )
    ap.add_argument("--node", help="Node >= 22.6 binary (default: .cache/openclaw/bin/node, then PATH)")
    ap.add_argument("--copies", type=int, default=14, help="the 1,451 turns, this many times (14: 20,314)")
    ap.add_argument("--repeat", type=int, default=3, help="timed passes per side; the best is kept")
    ap.add_argument("--rounds", type=int, default=3, help="rounds, the sides in turn; best kept")
    ap.add_argument("--batch", type=int, default=256, help="messages per prepare+extract call (ours)")
    args = ap.parse_args()
    if not LOCOMO.exists():
        print(f"skip: LoCoMo data not found at {LOCOMO}")
        print(json.dumps({"skipped": "no LoCoMo data"}))
        return
    turns = load_turns()
    texts = [t for _, t, _ in turns] * args.copies
    out: dict[str, Any] = {"messages": len(texts), "distinct_turns": len(turns), "rounds": args.rounds}
    node = find_node(args.node)
    peer_dir = args.peer_dir
    peer_skip = None
    if peer_dir is None or not all((peer_dir / f).exists() for f in PEER_FILES):
        peer_skip = f"skipped: --peer-dir with {', '.join(PEER_FILES)} not given or not found"
    elif node is None:
        peer_skip = "skipped: no Node >= 22.6 (scripts/setup_openclaw installs one in .cache/openclaw)"
    # Rounds alternate the two sides, so a busy spell on a shared machine slows both, not one.
    ours_s = peer_s = float("inf")
    ours_values: list[list[tuple[str, str]]] = []
    peer_values: list[list[tuple[str, str]]] = []
    for _ in range(args.rounds):
        s, ours_values = run_ours(texts, args.repeat, args.batch, len(turns))
        ours_s = min(ours_s, s)
        if peer_skip is None:
            assert peer_dir is not None and node is not None
            s, peer_values = run_peer(texts, args.repeat, peer_dir, node, len(turns))
            peer_s = min(peer_s, s)
    out["ours_cpu_s"] = round(ours_s, 3)
    out["ours_msgs_per_s"] = round(len(texts) / ours_s, 1)
    out["ours"] = summary(ours_values, len(turns)) | quality(turns, ours_values)
    if peer_skip is not None:
        out["peer"] = peer_skip
    else:
        out["peer_cpu_s"] = round(peer_s, 3)
        out["peer_msgs_per_s"] = round(len(texts) / peer_s, 1)
        out["ratio_ours_to_peer"] = round(peer_s / ours_s, 3)
        out["peer"] = summary(peer_values, len(turns)) | quality(turns, peer_values)
    for side in ("ours", "peer"):
        if isinstance(out[side], str):
            print(f"{side}: {out[side]}")
            continue
        rate = out.get(f"{side}_msgs_per_s")
        print(f"{side}: {rate} msg/s (CPU {out.get(f'{side}_cpu_s')} s), {out[side]['mentions']} mentions")
        print(f"  top: {', '.join(out[side]['top'][:12])}")
    if "ratio_ours_to_peer" in out:
        print(f"ratio (ours / peer throughput): {out['ratio_ours_to_peer']}")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
