"""LightRAG source against a real loopback server speaking the /query protocol."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from knowledge_engine.config import LightragConfig
from knowledge_engine.host import HookRunner, PluginApi
from knowledge_engine.inject.format import render_block
from knowledge_engine.inject.lightrag_context import compose, parse_context
from knowledge_engine.model.retrieval import RetrievalRequest
from knowledge_engine.plugin import register
from knowledge_engine.retrieve.cooldown import Breaker
from knowledge_engine.retrieve.parallel import gather_sources
from knowledge_engine.retrieve.retriever import graph_context_item, retriever_for
from knowledge_engine.retrieve.sources.lightrag import (
    LightragError,
    LightragSource,
    LightragTimeout,
    parse_response,
    truncate_at_sentence,
)
from tests.fixtures.lightrag import LIGHTRAG_TEST_KEY
from tests.servers.lightrag_server import LightragServer, context_string

SECTION = "### Knowledge Graph Context (LightRAG)"


def hybrid_corpus(docs: int = 6) -> list[dict[str, Any]]:
    """About 11.6k characters of hybrid context, its chunks starting at about 8.3k (issue 18)."""
    corpus: list[dict[str, Any]] = []
    for d in range(docs):
        ents = [(f"Entity {d}-{e}", "concept", f"Halcyon note {d}-{e}: " + "words " * 4) for e in range(5)]
        rels = [
            (f"Entity {d}-{e}", f"Entity {d}-{e + 1}", f"Halcyon link {d}-{e} " + "w " * 4) for e in range(3)
        ]
        content = f"Halcyon chunk {d} evidence: the launch moved to Kourou on 2026-0{d + 1}-15. " + "x" * 400
        corpus.append(
            {"file_path": f"docs/halcyon-{d}.md", "content": content, "entities": ents, "relations": rels}
        )
    return corpus


def _graph_section(block: str) -> str:
    return block[block.index(SECTION) :] if SECTION in block else ""


def _source(server: LightragServer, **kw: object) -> LightragSource:
    cfg = LightragConfig(enabled=True, url=server.url, api_key=LIGHTRAG_TEST_KEY, **kw)
    return LightragSource(cfg)


def test_sends_documented_request_and_reads_context(lightrag_server: LightragServer) -> None:
    result = asyncio.run(_source(lightrag_server).search(RetrievalRequest(query="Who leads Halcyon?")))
    req = lightrag_server.requests[-1]
    assert req.path == "/query"
    assert req.headers["x-api-key"] == LIGHTRAG_TEST_KEY
    assert req.body == {
        "query": "Who leads Halcyon?",
        "mode": "hybrid",
        "only_need_context": True,
        "include_references": True,
        "stream": False,
    }
    assert result.status == "ok" and result.text is not None
    assert "Mira Okafor" in result.text
    assert [i.file_path for i in result.items] == [
        "people/mira.md",
        "projects/halcyon.md",
    ]  # best overlap first
    assert all(i.kind == "graph" and i.source == "lightrag" for i in result.items)


def test_mode_is_configurable(lightrag_server: LightragServer) -> None:
    asyncio.run(_source(lightrag_server, mode="naive").search(RetrievalRequest(query="deploy runbook")))
    assert lightrag_server.requests[-1].body["mode"] == "naive"


def test_no_context_answer_is_empty(lightrag_server: LightragServer) -> None:
    result = asyncio.run(_source(lightrag_server).search(RetrievalRequest(query="zzzz qqqq")))
    assert result.status == "ok" and result.text is None and result.items == []


def test_wrong_key_is_http_401(lightrag_server: LightragServer) -> None:
    cfg = LightragConfig(enabled=True, url=lightrag_server.url, api_key="wrong")
    with pytest.raises(LightragError) as info:
        asyncio.run(LightragSource(cfg).search(RetrievalRequest(query="Halcyon")))
    assert info.value.category == "http_401"


def test_no_key_header_when_unset() -> None:
    server = LightragServer(api_key=None).start()
    try:
        src = LightragSource(LightragConfig(enabled=True, url=server.url))
        asyncio.run(src.search(RetrievalRequest(query="Halcyon")))
        assert "x-api-key" not in server.requests[-1].headers
    finally:
        server.stop()


def test_short_query_is_http_422(lightrag_server: LightragServer) -> None:
    with pytest.raises(LightragError) as info:
        asyncio.run(_source(lightrag_server).search(RetrievalRequest(query="hi")))
    assert info.value.category == "http_422"


def test_server_error_is_http_500(lightrag_server: LightragServer) -> None:
    lightrag_server.fail_next(500)
    with pytest.raises(LightragError) as info:
        asyncio.run(_source(lightrag_server).search(RetrievalRequest(query="Halcyon")))
    assert info.value.category == "http_500"


def test_slow_server_is_a_timeout(lightrag_server: LightragServer) -> None:
    lightrag_server.delay_next(2.0)
    with pytest.raises(LightragTimeout) as info:
        asyncio.run(_source(lightrag_server, timeout_ms=200).search(RetrievalRequest(query="Halcyon")))
    assert info.value.category == "timeout"


def test_connection_refused_is_connect_error() -> None:
    server = LightragServer().start()
    url = server.url
    server.stop()
    with pytest.raises(LightragError) as info:
        asyncio.run(
            LightragSource(LightragConfig(enabled=True, url=url)).search(RetrievalRequest(query="abc"))
        )
    assert info.value.category == "connect_error"


def test_through_runner_statuses_and_cooldown(lightrag_server: LightragServer) -> None:
    source = _source(lightrag_server, timeout_ms=300)
    breaker = Breaker(name="lightrag")
    req = RetrievalRequest(query="Halcyon schedule")
    lightrag_server.fail_next(500, times=3)
    for _ in range(3):
        res = asyncio.run(gather_sources([source], req, 2000, {"lightrag": 1000}, {"lightrag": breaker}))[0]
        assert (res.status, res.error) == ("error", "http_500")
    res = asyncio.run(gather_sources([source], req, 2000, {"lightrag": 1000}, {"lightrag": breaker}))[0]
    assert res.status == "cooldown"
    assert len(lightrag_server.requests) == 3

    lightrag_server.delay_next(2.0)
    ok_breaker = Breaker(name="lightrag")
    res = asyncio.run(gather_sources([source], req, 2000, {"lightrag": 1000}, {"lightrag": ok_breaker}))[0]
    assert res.status == "timeout"
    assert ok_breaker.consecutive_timeouts == 1 and ok_breaker.consecutive_errors == 0


def test_truncation_at_sentence_boundary() -> None:
    text = "First sentence here. Second sentence is longer. Third one runs past the budget for sure."
    cut = truncate_at_sentence(text, 60)
    assert cut == "First sentence here. Second sentence is longer."
    assert truncate_at_sentence(text, 500) == text


def test_truncation_hard_cut_when_no_late_sentence_end() -> None:
    text = "Short. " + "x" * 200
    cut = truncate_at_sentence(text, 100)
    assert len(cut) == 100 and cut.startswith("Short. xxx")


def test_free_text_context_is_truncated_at_a_sentence(caplog: pytest.LogCaptureFixture) -> None:
    text = " ".join(f"Halcyon fact number {i} is recorded here." for i in range(50))
    result = parse_response({"response": text, "references": [{"file_path": "a.md"}]}, 300)
    assert result.text is not None and len(result.text) <= 300 and result.text.endswith(".")
    event = [r.getMessage() for r in caplog.records if '"type":"lightrag"' in r.getMessage()][-1]
    assert f'"context_chars":{len(result.text)}' in event and '"truncated_chars":0' not in event


def test_template_context_is_kept_whole_and_parsed(caplog: pytest.LogCaptureFixture) -> None:
    server = LightragServer(corpus=hybrid_corpus()).start()
    try:
        src = LightragSource(LightragConfig(enabled=True, url=server.url, max_chars=3950))
        result = asyncio.run(src.search(RetrievalRequest(query="Halcyon launch")))
    finally:
        server.stop()
    assert result.text is not None and 11_000 < len(result.text) < 12_500
    assert result.text.index("Document Chunks") > 8_000  # the chunks come late, as in the issue
    ctx = parse_context(result.text)
    assert (len(ctx.entities), len(ctx.relations), len(ctx.chunks)) == (30, 18, 6)
    assert ctx.references[0] == ("1", "docs/halcyon-0.md") and ctx.chunks[0][0] == "1"
    event = [r.getMessage() for r in caplog.records if '"type":"lightrag"' in r.getMessage()][-1]
    assert '"entities":30' in event and '"chunks":6' in event and "Halcyon" not in event


@pytest.mark.parametrize("fmt", ["markdown", "xml"])
@pytest.mark.parametrize("budget", [3950, 1500, 600])
def test_hybrid_context_renders_within_its_section_budget(fmt: str, budget: int) -> None:
    """Issue 18: the context cut to maxChars rendered over the budget and the whole item was dropped."""
    raw = context_string(hybrid_corpus())
    result = parse_response({"response": raw, "references": None}, budget)
    item = graph_context_item(result)
    block = render_block({"lightrag": [item]}, fmt, nonce="n0", section_chars={"lightrag": budget})  # type: ignore[arg-type]
    assert block, "the LightRAG item was dropped"
    body = block.split("Knowledge Graph Context (LightRAG)", 1)[1]
    assert len(body) <= budget + 200  # the section, plus the block's closing lines
    # a balanced pick: entities, relations and the evidence (chunks) with their reference
    assert "Entity 0-0 (concept)" in body and "Halcyon chunk 0 evidence" in body
    if budget >= 1500:
        assert "Entity 0-0 -- Entity 0-1" in body
    assert "docs/halcyon-0.md" in body


def test_section_is_exactly_within_budget() -> None:
    raw = context_string(hybrid_corpus())
    item = graph_context_item(parse_response({"response": raw, "references": None}, 3950))
    for budget in (3950, 2000, 800, 400):
        block = render_block({"lightrag": [item]}, "markdown", nonce="n1", section_chars={"lightrag": budget})
        lines = block.split("\n")
        start = lines.index(SECTION)
        section = "\n".join(lines[start + 1 : -2]) + "\n"
        assert 0 < len(section) <= budget, (budget, len(section))


def test_compose_shares_and_citations() -> None:
    ctx = parse_context(context_string(hybrid_corpus()))
    text, cited = compose(ctx, 3000)
    assert text.startswith("Entities:\n- Entity 0-0") and "\nRelations:\n- " in text
    assert "\nDocument chunks:\n- [1] Halcyon chunk 0" in text
    assert cited and cited[0] == "1"
    assert len(text) <= 3000 + 10
    everything, all_cited = compose(ctx)
    assert everything.count("\n- [") == 6 and all_cited == [str(i) for i in range(1, 7)]
    assert parse_context("plain text, not the template") == type(ctx)()


def test_references_from_the_context_text_when_the_field_is_null() -> None:
    raw = context_string(hybrid_corpus(2))
    result = parse_response({"response": raw, "references": None}, 3950)
    assert [(i.file_path, i.extra["reference_id"]) for i in result.items] == [
        ("docs/halcyon-0.md", "1"),
        ("docs/halcyon-1.md", "2"),
    ]
    assert "Halcyon chunk 0" in result.items[0].text
    item = graph_context_item(result)
    assert item.file_path == "docs/halcyon-0.md"


def test_hook_injects_the_graph_section_and_provenance_has_file_paths(tmp_path: Path) -> None:
    server = LightragServer(corpus=hybrid_corpus()).start()
    config = {
        "workspace": str(tmp_path / "{agentId}"),
        "embeddings": {"enabled": False},
        "lightrag": {"enabled": True, "url": server.url, "maxChars": 3950, "timeoutMs": 3000},
        "retrieval": {"budgetMs": 4000},
    }
    api = PluginApi("knowledge-engine", config)
    plugin = register(api)
    assert plugin is not None
    runner = HookRunner(api.registrations)
    ctx = {"agentId": "lr", "sessionKey": "agent:lr:main", "trigger": "user"}
    try:
        result = asyncio.run(
            runner.run(
                "before_prompt_build", {"prompt": "What happened to the Halcyon launch?", "messages": []}, ctx
            )
        )
        prov = retriever_for(plugin.engine, plugin.engine.workspace("lr")).last_provenance or {}
    finally:
        plugin.engine.stop(10)
        server.stop()
    block = (result or {}).get("appendSystemContext", "")
    assert SECTION in block and "Halcyon chunk 0 evidence" in block, json.dumps(prov)[:500]
    assert prov["sources"]["lightrag"]["status"] == "ok"
    graph = [it for it in prov["items"] if it["source"] == "lightrag"]
    assert graph and graph[0]["file_path"] == "docs/halcyon-0.md"
    assert graph[0]["file_paths"] == [f"docs/halcyon-{d}.md" for d in range(6)]


def test_parse_response_shapes() -> None:
    assert parse_response({"context": "Ctx text."}, 100).text == "Ctx text."
    assert parse_response({"response": "[no-context]"}, 100).text is None
    refs = [
        {"reference_id": "1", "file_path": ""},
        {"file_path": 3},
        {"reference_id": "2", "file_path": "a.md", "content": ["c1", "c2"]},
        {"reference_id": "3", "file_path": "a.md"},
        "junk",
    ]
    res = parse_response({"response": "Some context.", "references": refs}, 100)
    assert [(i.file_path, i.text, i.extra["reference_id"]) for i in res.items] == [("a.md", "c1\n\nc2", "2")]
    with pytest.raises(LightragError) as info:
        parse_response(["not", "a", "dict"], 100)
    assert info.value.category == "bad_response"


def test_empty_url_is_rejected() -> None:
    with pytest.raises(ValueError):
        LightragSource(LightragConfig(enabled=True, url=""))


def test_no_query_or_document_text_in_logs(
    lightrag_server: LightragServer, caplog: pytest.LogCaptureFixture
) -> None:
    secret = "Zanzibar-Quokka Halcyon"
    src = _source(lightrag_server)
    lightrag_server.fail_next(500)
    asyncio.run(gather_sources([src], RetrievalRequest(query=secret), 2000, {"lightrag": 1000}))
    res = asyncio.run(gather_sources([src], RetrievalRequest(query=secret), 2000, {"lightrag": 1000}))
    assert res[0].status == "ok" and res[0].text
    logs = "\n".join(r.getMessage() for r in caplog.records)
    assert "[knowledge.event]" in logs
    assert "Zanzibar" not in logs and "Mira Okafor" not in logs and "Halcyon" not in logs


def test_test_server_speaks_the_documented_protocol(lightrag_server: LightragServer) -> None:
    """Guards the fake itself: status codes and body shapes as LightRAG's query_routes.py."""
    import httpx

    url = lightrag_server.url + "/query"
    key = {"X-API-Key": LIGHTRAG_TEST_KEY}
    assert httpx.post(url, json={"query": "Halcyon"}).status_code == 401
    missing = httpx.post(url, json={"mode": "mix"}, headers=key)
    assert missing.status_code == 422 and missing.json()["detail"][0]["loc"] == ["body", "query"]
    bad_mode = httpx.post(url, json={"query": "Halcyon", "mode": "telepathy"}, headers=key)
    assert bad_mode.status_code == 422 and bad_mode.json()["detail"][0]["loc"] == ["body", "mode"]
    ok = httpx.post(url, json={"query": "Halcyon", "include_chunk_content": True}, headers=key).json()
    assert set(ok) == {"response", "references", "llm_generated"} and ok["llm_generated"] is False
    assert {"reference_id", "file_path", "content"} <= set(ok["references"][0])
    assert isinstance(ok["references"][0]["content"], list)
