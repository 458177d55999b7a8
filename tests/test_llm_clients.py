"""The engine's own LLM clients against a real loopback server speaking Ollama / OpenAI."""

from __future__ import annotations

import socket

import httpx
import pytest

from knowledge_engine.config import ConfigError, LlmConfig, load_config
from knowledge_engine.llm.errors import LlmHttpError, LlmTimeout, LlmTruncated, LlmUnavailable
from knowledge_engine.llm.factory import make_client, resolve_api
from knowledge_engine.llm.parse import parse_output
from knowledge_engine.llm.schema import output_schema
from tests.servers.ollama_server import FakeOllamaServer, hash_vector

PROMPT = "Messages:\n[0] id=m1 2026-11-29T10:00:00+00:00 user (Alex): I work at Acme.\n"


def cfg(endpoint: str, **kw: object) -> LlmConfig:
    return LlmConfig.model_validate({"endpoint": endpoint, "enabled": True, **kw})


@pytest.mark.parametrize(
    ("endpoint", "api"),
    [
        ("http://localhost:11434", "ollama-chat"),
        ("http://localhost:11434/", "ollama-chat"),
        ("http://localhost:11434/api/chat", "ollama-chat"),
        ("http://localhost:11434/api/generate", "ollama-generate"),
        ("http://localhost:8080/v1", "openai"),
        ("http://localhost:1234/v1/", "openai"),
        ("http://localhost:8000/v1/chat/completions", "openai"),
    ],
)
def test_auto_api_from_endpoint(endpoint: str, api: str) -> None:
    assert resolve_api(cfg(endpoint)) == api
    assert make_client(cfg(endpoint)).api == api


def test_ollama_chat_request_shape(ollama_server: FakeOllamaServer) -> None:
    client = make_client(cfg(ollama_server.url, model="qwen2.5:7b", numCtx=4096, keepAlive="10m"))
    out = parse_output(client.complete("SYS", PROMPT, output_schema()))
    assert [(f.subject, f.predicate, f.object) for f in out.facts] == [("Alex", "works-at", "Acme")]
    (req,) = ollama_server.calls()
    assert req.path == "/api/chat"
    body = req.body
    assert body["stream"] is False and body["think"] is False
    assert body["format"] == output_schema()
    assert body["options"] == {"temperature": 0, "num_ctx": 4096}
    assert body["keep_alive"] == "10m" and body["model"] == "qwen2.5:7b"
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert body["messages"][1]["content"] == PROMPT
    assert "authorization" not in req.headers


def test_generate_endpoint_uses_generate_api(ollama_server: FakeOllamaServer) -> None:
    client = make_client(cfg(ollama_server.url + "/api/generate"))
    out = parse_output(client.complete("SYS", PROMPT, output_schema()))
    assert out.facts[0].object == "Acme"
    (req,) = ollama_server.calls()
    assert req.path == "/api/generate"
    assert req.body["system"] == "SYS" and req.body["prompt"] == PROMPT
    assert (
        req.body["format"] == output_schema() and req.body["stream"] is False and req.body["think"] is False
    )


def test_openai_compatible_request_shape(ollama_server: FakeOllamaServer) -> None:
    client = make_client(cfg(ollama_server.url + "/v1", apiKey="sk-test-123", model="local-model"))
    out = parse_output(client.complete("SYS", PROMPT, output_schema()))
    assert out.facts[0].subject == "Alex"
    (req,) = ollama_server.calls()
    assert req.path == "/v1/chat/completions"
    assert req.headers["authorization"] == "Bearer sk-test-123"
    rf = req.body["response_format"]
    assert rf["type"] == "json_schema"
    assert rf["json_schema"]["strict"] is True and rf["json_schema"]["schema"] == output_schema()
    assert rf["json_schema"]["name"]
    assert req.body["temperature"] == 0 and req.body["model"] == "local-model"


def test_explicit_api_overrides_the_url(ollama_server: FakeOllamaServer) -> None:
    client = make_client(cfg(ollama_server.url, api="openai"))
    client.complete("SYS", PROMPT, output_schema())
    assert ollama_server.calls()[0].path == "/v1/chat/completions"


@pytest.mark.parametrize("endpoint_suffix", ["", "/api/generate", "/v1"])
@pytest.mark.parametrize(
    ("behaviour", "error"),
    [
        ("http500", LlmHttpError),
        ("http404", LlmHttpError),
        ("error_body", LlmHttpError),
        ("truncated", LlmTruncated),
    ],
)
def test_server_errors_map_to_llm_errors(
    ollama_server: FakeOllamaServer, endpoint_suffix: str, behaviour: str, error: type[Exception]
) -> None:
    ollama_server.script(behaviour)
    client = make_client(cfg(ollama_server.url + endpoint_suffix))
    with pytest.raises(error) as info:
        client.complete("SYS", PROMPT, output_schema())
    if behaviour == "http404":
        assert info.value.status == 404 and "not found" in str(info.value)  # type: ignore[attr-defined]


def test_mid_stream_error_with_status_200(ollama_server: FakeOllamaServer) -> None:
    ollama_server.script("mid_stream_error")
    with pytest.raises(LlmHttpError):
        make_client(cfg(ollama_server.url)).complete("SYS", PROMPT, output_schema())


def test_timeout(ollama_server: FakeOllamaServer) -> None:
    ollama_server.script("hang")
    client = make_client(cfg(ollama_server.url, timeoutMs=300))
    with pytest.raises(LlmTimeout):
        client.complete("SYS", PROMPT, output_schema())
    ollama_server.release_hangs()


def test_connection_refused() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(LlmUnavailable):
        make_client(cfg(f"http://127.0.0.1:{port}")).complete("SYS", PROMPT, output_schema())


def test_fake_server_embeddings(ollama_server: FakeOllamaServer) -> None:
    ollama_server.embed_dim = 8
    r = httpx.post(ollama_server.url + "/api/embed", json={"model": "m", "input": ["a", "b"]}).json()
    assert len(r["embeddings"]) == 2 and all(len(v) == 8 for v in r["embeddings"])
    assert r["embeddings"][0] == hash_vector("a", 8) != r["embeddings"][1]
    r = httpx.post(
        ollama_server.url + "/v1/embeddings", json={"model": "m", "input": "a", "dimensions": 4}
    ).json()
    assert r["data"][0]["embedding"] == hash_vector("a", 4)
    assert httpx.get(ollama_server.url + "/api/tags").json()["models"][0]["name"] == ollama_server.model
    ollama_server.script("http500", channel="embed")
    assert (
        httpx.post(ollama_server.url + "/api/embed", json={"model": "m", "input": "a"}).status_code == 500
    )


def test_server_rejecting_think_is_asked_again_without_it(ollama_server: FakeOllamaServer) -> None:
    ollama_server.reject_think = True
    client = make_client(cfg(ollama_server.url))
    assert parse_output(client.complete("SYS", PROMPT, output_schema())).facts
    assert parse_output(client.complete("SYS", PROMPT, output_schema())).facts
    assert ["think" in r.body for r in ollama_server.calls()] == [True, False, False]


@pytest.mark.parametrize("bad", ["localhost:11434", "ftp://host/x", "", "http://"])
def test_endpoint_must_be_an_http_url(bad: str) -> None:
    with pytest.raises(ConfigError, match=r"extraction\.llm\.endpoint"):
        load_config({"extraction": {"llm": {"endpoint": bad}}})
