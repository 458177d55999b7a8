"""Document ingestion into the seed's table on a real PostgreSQL + pgvector."""

from __future__ import annotations

import asyncio
import hashlib
import uuid
from pathlib import Path

import pytest

from knowledge_engine.config import PgvectorConfig
from knowledge_engine.documents import ingest_files
from knowledge_engine.model.retrieval import RetrievalRequest
from knowledge_engine.retrieve.sources.pgvector import DimensionMismatchError, PgvectorSource, close_pools
from tests.fixtures.postgres import PG_TEST_DIMENSIONS, HashEmbedder, PgHandle
from tests.test_docs_chunk import make_pdf


@pytest.fixture
def cfg(pg_server: PgHandle) -> PgvectorConfig:
    """A fresh table per test, so tests do not see each other's rows."""
    return PgvectorConfig(
        enabled=True,
        url=pg_server.url,
        table=f"docs_{uuid.uuid4().hex[:10]}",
        collections=["manuals"],
        dimensions=PG_TEST_DIMENSIONS,
        chunk_chars=200,
        chunk_overlap=50,
        score_threshold=0.2,
    )


def _rows(pg: PgHandle, table: str) -> list[tuple[int, str, str, str, int, int]]:
    with pg.connect() as conn:
        return conn.execute(
            f"SELECT id, collection, file_name, file_id, chunk_index, total_chunks FROM {table} ORDER BY id"
        ).fetchall()


def _docs(tmp_path: Path) -> list[Path]:
    md = tmp_path / "guide.md"
    md.write_text(
        "# Guide\n\n"
        + "\n\n".join(f"Section {i}: the deploy runbook step {i} needs approval." for i in range(8)),
        encoding="utf-8",
    )
    txt = tmp_path / "notes.txt"
    txt.write_text("Halcyon ships in Q3. Mira leads it.", encoding="utf-8")
    pdf = tmp_path / "brief.pdf"
    pdf.write_bytes(make_pdf(["Orbital Labs budget review.", "Marker HX-2026-0042."]))
    return [md, txt, pdf]


def test_creates_schema_and_inserts_chunks(pg_server: PgHandle, cfg: PgvectorConfig, tmp_path: Path) -> None:
    paths = _docs(tmp_path)
    report = ingest_files(paths, "manuals", cfg, HashEmbedder())
    assert sorted(report.added) == ["brief.pdf", "guide.md", "notes.txt"]
    assert report.skipped == {} and report.unchanged == [] and report.replaced == []
    rows = _rows(pg_server, cfg.table)
    assert len(rows) == report.chunks_inserted
    guide = [r for r in rows if r[2] == "guide.md"]
    assert len(guide) > 1  # chunked at 200 chars
    assert [r[4] for r in guide] == list(range(len(guide))) and {r[5] for r in guide} == {len(guide)}
    assert {r[3] for r in guide} == {hashlib.sha256(paths[0].read_bytes()).hexdigest()}
    with pg_server.connect() as conn:
        indexdef = conn.execute(
            "SELECT indexdef FROM pg_indexes WHERE tablename = %s", (cfg.table,)
        ).fetchall()
        mimes = dict(conn.execute(f"SELECT DISTINCT file_name, mime_type FROM {cfg.table}").fetchall())
    assert any(
        f"hnsw (((embedding)::halfvec({PG_TEST_DIMENSIONS})) halfvec_cosine_ops)" in d[0] for d in indexdef
    )
    assert mimes == {"guide.md": "text/markdown", "notes.txt": "text/plain", "brief.pdf": "application/pdf"}


def test_reingest_unchanged_is_a_no_op(pg_server: PgHandle, cfg: PgvectorConfig, tmp_path: Path) -> None:
    paths = _docs(tmp_path)
    ingest_files(paths, "manuals", cfg, HashEmbedder())
    before = _rows(pg_server, cfg.table)
    embedder = HashEmbedder()
    report = ingest_files(paths, "manuals", cfg, embedder)
    assert sorted(report.unchanged) == ["brief.pdf", "guide.md", "notes.txt"]
    assert report.chunks_inserted == 0 and embedder.calls == 0
    assert _rows(pg_server, cfg.table) == before  # same row ids: nothing rewritten


def test_changed_file_replaces_its_rows(pg_server: PgHandle, cfg: PgvectorConfig, tmp_path: Path) -> None:
    paths = _docs(tmp_path)
    ingest_files(paths, "manuals", cfg, HashEmbedder())
    old_notes = [r for r in _rows(pg_server, cfg.table) if r[2] == "notes.txt"]
    paths[1].write_text("Halcyon slipped to Q4.", encoding="utf-8")
    report = ingest_files(paths, "manuals", cfg, HashEmbedder())
    assert report.replaced == ["notes.txt"] and sorted(report.unchanged) == ["brief.pdf", "guide.md"]
    new_notes = [r for r in _rows(pg_server, cfg.table) if r[2] == "notes.txt"]
    assert len(new_notes) == 1 and new_notes[0][0] not in {r[0] for r in old_notes}
    with pg_server.connect() as conn:
        texts = [r[0] for r in conn.execute(f"SELECT text FROM {cfg.table} WHERE file_name = 'notes.txt'")]
    assert texts == ["Halcyon slipped to Q4."]


def test_same_file_in_another_collection_is_separate(
    pg_server: PgHandle, cfg: PgvectorConfig, tmp_path: Path
) -> None:
    paths = _docs(tmp_path)[1:2]
    ingest_files(paths, "a", cfg, HashEmbedder())
    report = ingest_files(paths, "b", cfg, HashEmbedder())
    assert report.added == ["notes.txt"]
    assert sorted({r[1] for r in _rows(pg_server, cfg.table)}) == ["a", "b"]


def test_bad_files_are_skipped_not_fatal(cfg: PgvectorConfig, tmp_path: Path) -> None:
    good = tmp_path / "ok.md"
    good.write_text("Fine text.", encoding="utf-8")
    binary = tmp_path / "blob.txt"
    binary.write_bytes(b"\x00\xff")
    empty = tmp_path / "empty.md"
    empty.write_text("  \n", encoding="utf-8")
    report = ingest_files([good, binary, empty, tmp_path / "missing.md"], "manuals", cfg, HashEmbedder())
    assert report.added == ["ok.md"]
    assert report.skipped == {
        "blob.txt": "UnsupportedDocument",
        "empty.md": "UnsupportedDocument",
        "missing.md": "FileNotFoundError",
    }


def test_wrong_embedding_size_is_a_clear_error(cfg: PgvectorConfig, tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    path.write_text("Some text.", encoding="utf-8")
    with pytest.raises(DimensionMismatchError, match=r"pgvector\.dimensions is 64"):
        ingest_files([path], "manuals", cfg, HashEmbedder(dimensions=32))


def test_existing_table_of_other_dimension_is_refused(cfg: PgvectorConfig, tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    path.write_text("Some text.", encoding="utf-8")
    ingest_files([path], "manuals", cfg, HashEmbedder())
    other = cfg.model_copy(update={"dimensions": 32})
    with pytest.raises(DimensionMismatchError, match=r"vector\(64\)"):
        ingest_files([path], "manuals", other, HashEmbedder(32))


def test_empty_url_or_collection_is_rejected(cfg: PgvectorConfig) -> None:
    with pytest.raises(ValueError, match="url"):
        ingest_files([], "x", cfg.model_copy(update={"url": ""}), HashEmbedder())
    with pytest.raises(ValueError, match="collection"):
        ingest_files([], "", cfg, HashEmbedder())


def test_ingested_documents_are_found_by_the_source(cfg: PgvectorConfig, tmp_path: Path) -> None:
    ingest_files(_docs(tmp_path), "manuals", cfg, HashEmbedder())

    async def run() -> list[tuple[str | None, str]]:
        try:
            res = await PgvectorSource(cfg, HashEmbedder()).search(
                RetrievalRequest(query="Marker HX-2026-0042")
            )
            return [(i.file_path, i.text) for i in res.items]
        finally:
            await close_pools()

    found = asyncio.run(run())
    assert found[0][0] == "brief.pdf" and "HX-2026-0042" in found[0][1]


def test_ingest_with_config_uses_the_pgvector_embedding_provider(cfg: PgvectorConfig, tmp_path: Path) -> None:
    from knowledge_engine.config import EmbeddingsConfig, load_config
    from knowledge_engine.documents import ingest_with_config

    seen: list[EmbeddingsConfig] = []

    def factory(config: EmbeddingsConfig) -> HashEmbedder:
        seen.append(config)
        return HashEmbedder()

    section = cfg.model_dump(by_alias=True, exclude={"embeddings"})
    engine = load_config({"pgvector": {**section, "embeddings": {"provider": "ollama"}}})
    path = tmp_path / "x.md"
    path.write_text("Hello pgvector.", encoding="utf-8")
    report = ingest_with_config(engine, [path], "manuals", factory)
    assert report.added == ["x.md"] and [c.provider for c in seen] == ["ollama"]


def _table_dims(pg: PgHandle, table: str) -> int | None:
    with pg.connect() as conn:
        row = conn.execute(
            "SELECT atttypmod FROM pg_attribute WHERE attrelid = to_regclass(%s) AND attname = 'embedding'",
            (table,),
        ).fetchone()
    return None if row is None else int(row[0])


def test_same_base_name_in_two_folders_are_two_documents(
    pg_server: PgHandle, cfg: PgvectorConfig, tmp_path: Path
) -> None:
    """#18: `a/README.md` and `b/README.md` used to replace each other (identity was the base name)."""
    for folder, word in (("a", "Halcyon"), ("b", "Orbital")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "README.md").write_text(f"{word} readme text.", encoding="utf-8")
    paths = [tmp_path / "a" / "README.md", tmp_path / "b" / "README.md"]
    report = ingest_files(paths, "manuals", cfg, HashEmbedder())
    assert report.added == ["a/README.md", "b/README.md"] and report.replaced == []
    rows = _rows(pg_server, cfg.table)
    assert sorted(r[2] for r in rows) == ["a/README.md", "b/README.md"]
    again = ingest_files(paths, "manuals", cfg, HashEmbedder())  # stable across runs: nothing rewritten
    assert again.unchanged == ["a/README.md", "b/README.md"] and _rows(pg_server, cfg.table) == rows
    # one file alone keeps its name when the run gives the same root
    alone = ingest_files(paths[1:], "manuals", cfg, HashEmbedder(), root=tmp_path)
    assert alone.unchanged == ["b/README.md"] and _rows(pg_server, cfg.table) == rows


def test_file_outside_the_root_is_refused_before_anything_is_created(
    pg_server: PgHandle, cfg: PgvectorConfig, tmp_path: Path
) -> None:
    (tmp_path / "in").mkdir()
    outside = tmp_path / "x.md"
    outside.write_text("Text.", encoding="utf-8")
    with pytest.raises(ValueError, match="not under --root"):
        ingest_files([outside], "manuals", cfg, HashEmbedder(), root=tmp_path / "in")
    assert _table_dims(pg_server, cfg.table) is None


def test_dimensions_not_matching_the_provider_create_nothing(
    pg_server: PgHandle, cfg: PgvectorConfig, tmp_path: Path
) -> None:
    """#18: dimensions 3072 with a 384-d embedder used to fail only after creating a vector(3072) table."""
    path = tmp_path / "a.md"
    path.write_text("Some text.", encoding="utf-8")
    wrong = cfg.model_copy(update={"dimensions": 3072})
    with pytest.raises(DimensionMismatchError, match=r"64-dimensional.*pgvector\.dimensions is 3072"):
        ingest_files([path], "manuals", wrong, HashEmbedder())
    assert _table_dims(pg_server, cfg.table) is None  # no table, so the next (right) run just works
    report = ingest_files([path], "manuals", cfg.model_copy(update={"dimensions": None}), HashEmbedder())
    assert report.added == ["a.md"] and _table_dims(pg_server, cfg.table) == PG_TEST_DIMENSIONS


def test_table_of_other_dimension_names_it_and_the_fix(
    pg_server: PgHandle, cfg: PgvectorConfig, tmp_path: Path
) -> None:
    path = tmp_path / "a.md"
    path.write_text("Some text.", encoding="utf-8")
    ingest_files([path], "manuals", cfg, HashEmbedder())
    before = _rows(pg_server, cfg.table)
    derived = cfg.model_copy(update={"dimensions": None})
    with pytest.raises(DimensionMismatchError) as err:
        ingest_files([path], "manuals", derived, HashEmbedder(32))
    message = str(err.value)
    assert f"vector({PG_TEST_DIMENSIONS})" in message and "32-dimensional" in message
    assert "pgvector.table" in message and "--recreate" in message and "1 rows" in message
    assert _rows(pg_server, cfg.table) == before and _table_dims(pg_server, cfg.table) == PG_TEST_DIMENSIONS
    report = ingest_files([path], "manuals", derived, HashEmbedder(32), recreate=True)
    assert report.added == ["a.md"] and _table_dims(pg_server, cfg.table) == 32


def test_query_on_a_table_of_other_dimension_names_it(cfg: PgvectorConfig, tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    path.write_text("Some text.", encoding="utf-8")
    ingest_files([path], "manuals", cfg, HashEmbedder())
    derived = cfg.model_copy(update={"dimensions": None})

    async def run() -> None:
        try:
            await PgvectorSource(derived, HashEmbedder(32)).search(RetrievalRequest(query="text"))
        finally:
            await close_pools()

    with pytest.raises(DimensionMismatchError, match=rf"stores vector\({PG_TEST_DIMENSIONS}\).*--recreate"):
        asyncio.run(run())


LONG_DOC = "\n\n".join(
    [
        "# Operations handbook",
        " ".join(f"Step {i} of the deploy runbook needs sign-off from the on-call lead." for i in range(60)),
        " ".join(f"token{i}x{i * 7919:x}" for i in range(400)),  # one long sentence of many word pieces
        "Zürich, São Paulo and 東京 offices follow the same rota; " * 30,
        "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08" * 20,  # one huge "word"
        "Marker HX-2026-0042 closes the handbook.",
    ]
)


def _local_token_counts(texts: list[str]) -> list[int]:
    from tokenizers import Tokenizer

    from knowledge_engine.index.embeddings.local import tokenizer_path

    tok = Tokenizer.from_file(str(tokenizer_path()))
    tok.no_truncation()
    tok.no_padding()
    return [len(tok.encode(t).ids) for t in texts]  # special tokens included


@pytest.mark.slow
def test_stored_chunks_fit_the_local_model_window(pg_server: PgHandle, tmp_path: Path) -> None:
    """#18: 1,500-character chunks ran past MiniLM's 256 tokens, so their tail was never embedded."""
    from knowledge_engine.index.embeddings.local import MAX_TOKENS, LocalEmbedder

    path = tmp_path / "handbook.md"
    path.write_text(LONG_DOC, encoding="utf-8")
    config = PgvectorConfig(url=pg_server.url, table=f"docs_{uuid.uuid4().hex[:10]}", dimensions=384)
    ingest_files([path], "manuals", config, LocalEmbedder())
    with pg_server.connect() as conn:
        texts = [r[0] for r in conn.execute(f"SELECT text FROM {config.table} ORDER BY chunk_index")]
    counts = _local_token_counts(texts)
    assert len(texts) > 5 and max(counts) <= MAX_TOKENS, counts
    for word in ("sign-off", "token399x", "東京", "HX-2026-0042"):
        assert any(word in t for t in texts), word  # cutting to the window lost no part of the text


@pytest.mark.slow
def test_default_config_ingests_and_queries_with_the_local_embedder(
    pg_server: PgHandle, tmp_path: Path
) -> None:
    """#18: the default pgvector.dimensions (3072) did not fit the default embedder (local, 384)."""
    from knowledge_engine.config import load_config
    from knowledge_engine.documents import ingest_with_config
    from knowledge_engine.retrieve.sources.factory import make_remote_sources

    table = f"docs_{uuid.uuid4().hex[:10]}"
    engine = load_config({"pgvector": {"enabled": True, "url": pg_server.url, "table": table}})
    assert engine.pgvector.dimensions is None and engine.embeddings.provider == "local"
    path = tmp_path / "handbook.md"
    path.write_text(LONG_DOC, encoding="utf-8")
    report = ingest_with_config(engine, [path], "knowledge_default")
    assert report.added == ["handbook.md"] and _table_dims(pg_server, table) == 384

    async def run() -> list[str]:
        try:
            (source,) = make_remote_sources(engine)
            res = await source.search(RetrievalRequest(query="Which marker closes the handbook?"))
            return [i.text for i in res.items]
        finally:
            await close_pools()

    found = asyncio.run(run())
    assert found and "HX-2026-0042" in found[0]


@pytest.mark.parametrize(
    ("embeddings", "dims"),
    [
        ({"provider": "ollama"}, 16),  # unknown size: learnt by embedding one string
        ({"provider": "openai", "apiKey": "test-key", "dimensions": 8}, 8),  # embeddings.dimensions
        ({"provider": "gemini", "apiKey": "test-key"}, 3072),  # the default model's known size
    ],
)
def test_remote_providers_derive_the_dimension_and_keep_the_char_budget(
    pg_server: PgHandle, tmp_path: Path, embeddings: dict[str, object], dims: int
) -> None:
    from knowledge_engine.config import load_config
    from knowledge_engine.documents import ingest_with_config
    from tests.servers.embed_server import EmbedServer

    path = tmp_path / "guide.md"
    path.write_text(LONG_DOC, encoding="utf-8")
    table = f"docs_{uuid.uuid4().hex[:10]}"
    with EmbedServer() as server:
        endpoint = f"{server.url}/v1" if embeddings["provider"] == "openai" else server.url
        engine = load_config(
            {
                "pgvector": {"url": pg_server.url, "table": table, "chunkChars": 600},
                "embeddings": {**embeddings, "endpoint": endpoint, "retryBackoffMs": 1},
            }
        )
        report = ingest_with_config(engine, [path], "manuals")
    assert report.added == ["guide.md"] and _table_dims(pg_server, table) == dims
    with pg_server.connect() as conn:
        lengths = [len(r[0]) for r in conn.execute(f"SELECT text FROM {table}")]
    assert len(lengths) > 5 and max(lengths) <= 600


def test_rows_stored_under_a_bare_name_are_taken_over(
    pg_server: PgHandle, cfg: PgvectorConfig, tmp_path: Path
) -> None:
    """Upgrading: rows an old version stored as `README.md` for b/README.md are renamed, not duplicated."""
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "README.md").write_text(f"Readme of {folder}.", encoding="utf-8")
    b = tmp_path / "b" / "README.md"
    ingest_files([b], "manuals", cfg, HashEmbedder())  # stored as "README.md", as the old naming did
    legacy = _rows(pg_server, cfg.table)
    assert {r[2] for r in legacy} == {"README.md"}
    embedder = HashEmbedder()
    report = ingest_files([tmp_path / "a" / "README.md", b], "manuals", cfg, embedder)
    assert report.added == ["a/README.md"] and report.unchanged == ["b/README.md"]
    rows = _rows(pg_server, cfg.table)
    assert sorted({r[2] for r in rows}) == ["a/README.md", "b/README.md"]
    assert [r[0] for r in rows if r[2] == "b/README.md"] == [r[0] for r in legacy]  # same rows, renamed
    assert embedder.calls == 1  # only a/README.md was embedded


def test_a_real_bare_name_in_the_run_keeps_its_rows(
    pg_server: PgHandle, cfg: PgvectorConfig, tmp_path: Path
) -> None:
    (tmp_path / "sub").mkdir()
    for path in (tmp_path / "README.md", tmp_path / "sub" / "README.md"):
        path.write_text("Same readme text.", encoding="utf-8")
    ingest_files([tmp_path / "README.md"], "manuals", cfg, HashEmbedder())
    report = ingest_files(
        [tmp_path / "README.md", tmp_path / "sub" / "README.md"], "manuals", cfg, HashEmbedder()
    )
    assert report.unchanged == ["README.md"] and report.added == ["sub/README.md"]
    assert sorted({r[2] for r in _rows(pg_server, cfg.table)}) == ["README.md", "sub/README.md"]
