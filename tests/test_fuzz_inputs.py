"""Bad input at every boundary: a clear error or a counted skip, never an unhandled exception.

Property-based (hypothesis, modest example counts) plus targeted cases for the config loader,
the transcript reader, the LLM output parser, LightRAG and pgvector response handling, the
store loader and the CLI. "Clear error" means the module's own documented error type
(ConfigError, LlmError, LightragError); anything else escaping is a bug.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import string
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from knowledge_engine.config import ConfigError, EngineConfig, example_config, load_config, load_config_file
from knowledge_engine.ingest.transcript import TranscriptReport, read_transcript
from knowledge_engine.llm.errors import LlmError
from knowledge_engine.llm.parse import load_body, ollama_content, openai_content, parse_output
from knowledge_engine.model.retrieval import RetrievalRequest
from knowledge_engine.retrieve.sources.lightrag import LightragError, LightragSource, parse_response
from knowledge_engine.retrieve.sources.pgvector import row_to_item

FUZZ = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

# JSON values of any shape (bounded), the raw material of most properties below.
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**40), 2**40)
    | st.floats(allow_nan=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=20,
)


def _config_keys(node: dict[str, Any], prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    for key, value in node.items():
        if key.startswith("//"):
            continue
        out.append((*prefix, key))
        if isinstance(value, dict):
            out.extend(_config_keys(value, (*prefix, key)))
    return out


REAL_KEYS = _config_keys(example_config()) + [
    (k,) for k in ("postgresUrl", "topK", "testMode", "geminiApiKey")
]


def _set(doc: dict[str, Any], path: tuple[str, ...], value: Any) -> dict[str, Any]:
    node = doc
    for part in path[:-1]:
        nxt = node.get(part)
        if not isinstance(nxt, dict):
            nxt = {}
            node[part] = nxt
        node = nxt
    node[path[-1]] = value
    return doc


# --------------------------------------------------------------------------- config loader


@FUZZ
@given(st.lists(st.tuples(st.sampled_from(REAL_KEYS), JSON), max_size=6))
def test_config_loader_real_keys_with_any_values(pairs: list[tuple[tuple[str, ...], Any]]) -> None:
    doc: dict[str, Any] = {}
    for path, value in pairs:
        _set(doc, path, value)
    try:
        cfg = load_config(doc)
    except ConfigError as exc:
        assert exc.problems and all(isinstance(p, str) and p for p in exc.problems)
        assert "Traceback" not in str(exc)
    else:
        assert isinstance(cfg, EngineConfig)


@FUZZ
@given(JSON)
def test_config_loader_any_json(raw: Any) -> None:
    try:
        load_config(raw)
    except ConfigError as exc:
        assert exc.problems


@FUZZ
@given(st.binary(max_size=300) | st.text(max_size=300).map(str.encode))
def test_config_file_any_bytes(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    path = tmp_path_factory.mktemp("cfg") / "config.json"
    path.write_bytes(data)
    try:
        load_config_file(path)
    except ConfigError as exc:
        assert exc.problems


@pytest.mark.parametrize(
    "raw",
    [
        {"retrieval": {"budgetMs": "NaN"}},
        {"extraction": {"llm": {"endpoint": "file:///etc/passwd"}}},
        {"extraction": {"llm": {"endpoint": "${NOT_SET_ANYWHERE_KE}"}}},
        {"workspaceTemplate": "/shared"},
        {"pgvector": {"collections": "not-a-list"}},
        {"retrival": {}},
        {"\x00": 1, "\ud800": 2},
        {"topK": -1, "postgresUrl": 5},
        {"retrieval": {"format": "html"}},
        {"testMode": "yes"},
    ],
)
def test_config_loader_targeted(raw: dict[str, Any]) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(raw)
    assert info.value.problems


# --------------------------------------------------------------------------- transcript reader


LINE = st.one_of(
    st.binary(max_size=80),
    JSON.map(lambda v: json.dumps(v).encode()),
    st.fixed_dictionaries(
        {"id": st.one_of(st.text(max_size=5), st.integers(), st.none(), st.lists(st.integers(), max_size=2))},
        optional={
            "role": st.sampled_from(["user", "assistant", "system", "", None, 3]),
            "text": st.one_of(st.text(max_size=40), st.none(), st.integers()),
            "timestamp": st.one_of(
                st.sampled_from(
                    ["2025-01-01T00:00:00Z", "2025-13-45", "yesterday", "", "2025-01-01T00:00:00"]
                ),
                st.integers(-(2**62), 2**62),
                st.floats(allow_nan=True),
                st.none(),
            ),
            "speaker": st.one_of(st.text(max_size=10), st.none(), st.booleans()),
        },
    ).map(lambda d: json.dumps(d).encode()),
)


@FUZZ
@given(st.lists(LINE, max_size=12))
def test_transcript_reader_any_lines(tmp_path_factory: pytest.TempPathFactory, lines: list[bytes]) -> None:
    path = tmp_path_factory.mktemp("tr") / "t.jsonl"
    path.write_bytes(b"\n".join(line.replace(b"\n", b" ") for line in lines))
    report = TranscriptReport()
    messages = list(read_transcript(path, report))
    nonblank = sum(1 for line in path.read_bytes().split(b"\n") if line.strip())
    assert len(messages) == report.read
    assert report.read + len(report.errors) == nonblank  # every line is read or reported, none lost
    for err in report.errors:
        assert err.startswith("line ") and "Traceback" not in err
    for msg in messages:
        assert msg.role in ("user", "assistant") and msg.timestamp.tzinfo is not None


def test_transcript_reader_truncated_and_binary_lines(tmp_path: Path) -> None:
    good = json.dumps({"id": 1, "role": "user", "text": "Dana works at Globex."})
    path = tmp_path / "t.jsonl"
    path.write_bytes(
        b"\n".join([good.encode(), good.encode()[:17], b"\xff\xfe\x00garbage", b"[1,2]", good.encode()])
    )
    report = TranscriptReport()
    assert [m.id for m in read_transcript(path, report)] == ["1", "1"]
    assert len(report.errors) == 3 and report.errors[0].startswith("line 2")


# --------------------------------------------------------------------------- LLM output parser


def _parse_or_clear_error(text: str) -> None:
    try:
        out = parse_output(text)
    except LlmError:
        return
    for fact in out.facts:
        assert fact.subject and fact.predicate and fact.object


FACTISH = st.fixed_dictionaries(
    {},
    optional={
        "message_index": st.one_of(st.integers(-5, 50), st.text(max_size=3), st.none()),
        "message_id": st.one_of(st.text(max_size=5), st.none()),
        "subject": st.one_of(st.text(max_size=12), st.none(), st.integers()),
        "predicate": st.one_of(st.text(max_size=12), st.none()),
        "object": st.one_of(st.text(max_size=12), st.none(), st.lists(st.text(max_size=3), max_size=2)),
        "valid_at": st.one_of(st.text(max_size=12), st.none(), st.integers()),
        "confidence": st.one_of(st.floats(allow_nan=True), st.text(max_size=3), st.none()),
    },
)
OUTPUT = st.fixed_dictionaries(
    {},
    optional={
        "entities": st.one_of(
            st.lists(
                JSON | st.fixed_dictionaries({"name": st.text(max_size=8), "type": st.text(max_size=8)}),
                max_size=4,
            ),
            JSON,
        ),
        "facts": st.one_of(st.lists(FACTISH | JSON, max_size=5), JSON),
    },
)


@FUZZ
@given(st.text(max_size=300))
def test_llm_parser_any_text(text: str) -> None:
    _parse_or_clear_error(text)


@FUZZ
@given(OUTPUT, st.sampled_from(["{}", "```json\n{}\n```", '{"response": %s}', "Sure! {} trailing }}", "{},"]))
def test_llm_parser_shaped_output(data: dict[str, Any], wrapper: str) -> None:
    body = json.dumps(data)
    text = wrapper % json.dumps(body) if "%s" in wrapper else wrapper.replace("{}", body, 1)
    _parse_or_clear_error(text)


@FUZZ
@given(
    st.binary(max_size=200) | JSON.map(lambda v: json.dumps(v).encode()), st.integers(100, 599), st.booleans()
)
def test_llm_http_body_handling(raw: bytes, status: int, generate: bool) -> None:
    _body_or_clear_error(raw, status, generate)


def _body_or_clear_error(raw: bytes, status: int, generate: bool) -> None:
    try:
        objs = load_body(raw)
        ollama_content(objs, status, generate=generate)
        openai_content(objs[0], status)
    except LlmError:
        pass


@pytest.mark.parametrize(
    "text",
    [
        '{"facts": [{"subject": "A", "predicate": "p", "object": "B", "message_index": 0}',  # truncated
        '{"facts": "all of them"}',
        '{"entities": {"name": "x"}}',
        '{"response": "{\\"response\\": \\"{}\\"}"}',
        '{"facts": ['
        + ",".join(['{"subject":"a","predicate":"p","object":"b","message_index":1}'] * 5000)
        + "]}",
        "[" * 100_000,  # deep nesting must not blow the stack
        '{"a": ' * 5000 + "1" + "}" * 5000,
        '```json\n{"facts": [{"subject": "\\q"}]}\n```',
        "\x00" * 1000,
    ],
)
def test_llm_parser_targeted(text: str) -> None:
    _parse_or_clear_error(text)


def test_llm_deeply_nested_body_is_a_clear_error() -> None:
    _body_or_clear_error(b'{"a": ' * 5000 + b"1" + b"}" * 5000, 200, False)


# --------------------------------------------------------------------------- LightRAG responses


@FUZZ
@given(JSON, st.integers(100, 5000))
def test_lightrag_parse_any_json(data: Any, max_chars: int) -> None:
    try:
        result = parse_response(data, max_chars)
    except LightragError:
        return
    assert len(result.text or "") <= max_chars
    assert all(i.file_path for i in result.items)


REF = st.one_of(
    JSON,
    st.fixed_dictionaries(
        {"file_path": st.one_of(st.text(max_size=20), st.none(), st.integers())},
        optional={
            "reference_id": JSON,
            "content": st.one_of(st.lists(st.text(max_size=10) | JSON, max_size=3), JSON),
            "score": JSON,
        },
    ),
)
ADVERSARIAL_BODY = st.fixed_dictionaries(
    {},
    optional={
        "response": st.one_of(st.text(max_size=400), JSON),
        "context": JSON,
        "references": st.one_of(st.lists(REF, max_size=5), JSON),
        "llm_generated": JSON,
    },
)


@pytest.fixture(scope="module")
def adversarial_lightrag() -> Any:
    from tests.servers.lightrag_server import LightragServer

    server = LightragServer(api_key="k").start()
    yield server
    server.stop()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ADVERSARIAL_BODY | JSON)
@pytest.mark.slow
def test_lightrag_client_against_adversarial_server(adversarial_lightrag: Any, body: Any) -> None:
    """The real loopback server answers each query with the drawn body; the engine's client copes."""
    from knowledge_engine.config import LightragConfig

    adversarial_lightrag.answer = lambda _req: body
    source = LightragSource(
        LightragConfig(enabled=True, url=adversarial_lightrag.url, api_key="k", max_chars=300)
    )
    try:
        result = asyncio.run(source.search(RetrievalRequest(query="who leads Halcyon?")))
    except LightragError as exc:
        assert exc.args and "Traceback" not in str(exc)
        return
    assert len(result.text or "") <= 300


# --------------------------------------------------------------------------- pgvector rows


ROW = st.fixed_dictionaries(
    {"score": st.floats(-1, 1, allow_nan=False)},
    optional={  # the column types of the seed's table: TEXT columns and INT columns, all nullable
        **{
            k: st.one_of(st.none(), st.text(max_size=10))
            for k in (
                "text",
                "file_name",
                "file_id",
                "timestamp_start",
                "timestamp_end",
                "mime_type",
                "source",
                "owner",
            )
        },
        **{k: st.one_of(st.none(), st.integers(-(2**31), 2**31)) for k in ("chunk_index", "total_chunks")},
    },
)


@FUZZ
@given(ROW, st.text(max_size=20))
def test_pgvector_row_handling(row: dict[str, Any], collection: str) -> None:
    item = row_to_item(row, collection)
    assert item.source == "pgvector" and item.collection == collection
    assert isinstance(item.text, str) and item.score == pytest.approx(row["score"])


# --------------------------------------------------------------------------- store loader


def _real_store(folder: Path) -> tuple[bytes, int]:
    """A facts.json written by the real engine (spaCy extraction) and its fact count."""
    from knowledge_engine.engine import KnowledgeEngine
    from knowledge_engine.model.records import Message

    cfg = load_config({"embeddings": {"enabled": False}, "storage": {"writeDebounceMs": 0}})
    eng = KnowledgeEngine(cfg)
    ws = eng.open_workspace(folder)
    texts = ["Dana works at Globex Corporation.", "Carlos lives in Toronto.", "Mira moved to Lisbon in May."]
    eng.ingest(ws, [Message(id=f"m{i}", text=t, role="user", speaker="Dana") for i, t in enumerate(texts)])
    ws.flush()
    n = len(ws.facts.all())
    eng.stop(2)
    assert n >= 2
    return (folder / "facts.json").read_bytes(), n


@pytest.fixture(scope="module")
def real_facts(tmp_path_factory: pytest.TempPathFactory) -> tuple[bytes, int]:
    return _real_store(tmp_path_factory.mktemp("store"))


def _load(folder: Path) -> int:
    from knowledge_engine.store.workspace import Workspace

    ws = Workspace(folder, load_config({"embeddings": {"enabled": False}}))
    try:
        return len(ws.facts.all())
    finally:
        ws.close()


CORRUPTION = st.one_of(
    st.integers(0, 10_000).map(lambda n: ("truncate", n)),
    st.tuples(st.just("flip"), st.integers(0, 10_000), st.binary(min_size=1, max_size=8)),
    st.binary(max_size=200).map(lambda b: ("replace", b)),
)


def _corrupt(data: bytes, how: Any) -> bytes:
    if how[0] == "truncate":
        return data[: how[1] % max(1, len(data))]
    if how[0] == "flip":
        pos = how[1] % max(1, len(data))
        return data[:pos] + how[2] + data[pos + len(how[2]) :]
    return bytes(how[1])


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(CORRUPTION, st.booleans())
def test_store_loader_survives_corruption(
    tmp_path_factory: pytest.TempPathFactory, real_facts: tuple[bytes, int], how: Any, with_backup: bool
) -> None:
    data, n = real_facts
    folder = tmp_path_factory.mktemp("corrupt")
    bad = _corrupt(data, how)
    (folder / "facts.json").write_bytes(bad)
    if with_backup:
        (folder / "facts.json.bak").write_bytes(data)
    loaded = _load(folder)  # never raises
    aside = list(folder.glob("facts.json.corrupt-*"))
    if aside:  # the corrupt file is kept for the operator, byte for byte
        assert aside[0].read_bytes() == bad
        assert loaded == (n if with_backup else 0)
    else:  # it still parsed: whatever valid records it held are loaded, never more than were written
        assert 0 <= loaded <= n


@pytest.mark.parametrize(
    "doc",
    [
        {"facts": {"not": "a list"}},
        {"facts": [1, "two", None, {"id": 3}]},
        {"facts": [], "tombstones": ["not", "a", "dict"]},
        {"facts": [], "tombstones": {"f1": 12345, "f2": None, "f3": "not a date"}},
        {"facts": [], "meta": [1, 2]},
        {"schema": "seven", "facts": []},
        {"schema": None, "facts": None},
        [],
        "just a string",
    ],
)
def test_store_loader_wrong_shapes(tmp_path: Path, doc: Any) -> None:
    (tmp_path / "facts.json").write_bytes(json.dumps(doc).encode())
    assert _load(tmp_path) == 0


# --------------------------------------------------------------------------- CLI arguments


COMMANDS = [
    "stats",
    "entities",
    "facts",
    "messages",
    "show",
    "search",
    "context",
    "forget",
    "edit",
    "ingest",
    "export",
    "import",
    "validate",
    "sync",
    "docs",
    "demo",
    "decay",
    "prune",
    "compact",
    "maintain",
]
OPTIONS = [
    "--workspace",
    "-w",
    "--config",
    "-c",
    "--agent",
    "--json",
    "--limit",
    "--subject",
    "--entity",
    "--history",
    "--since",
    "--until",
    "--collection",
    "--format",
    "--yes",
    "--dry-run",
    "--help",
    "--",
]
ARG = st.one_of(
    st.sampled_from(COMMANDS + OPTIONS),
    st.sampled_from(["-1", "0", "99999999999999999999", "nan", "", " ", "2025-13-40", "{", "ingest"]),
    st.text(alphabet=string.ascii_letters + string.digits + "-_./:=", max_size=12),
)


@pytest.fixture(scope="module")
def cli_app() -> Any:
    from knowledge_engine.cli.app import app

    return app


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(ARG, max_size=5), st.booleans())
@pytest.mark.slow
def test_cli_random_arguments(
    cli_app: Any, tmp_path_factory: pytest.TempPathFactory, args: list[str], existing_ws: bool
) -> None:
    from typer.testing import CliRunner

    ws = tmp_path_factory.mktemp("cli") / "ws"
    if existing_ws:
        ws.mkdir()
    args = [str(ws) if a in ("WS",) else a for a in args]
    if args and args[0] in COMMANDS and existing_ws and "--workspace" not in args:
        args = [args[0], "--workspace", str(ws), *args[1:]]
    if "demo" in args or "sync" in args or "docs" in args:
        args = [a for a in args if a not in ("demo", "sync", "docs")]  # slow or network-shaped; own tests
    # relative paths ("-w .", "ingest -w x") land in a scratch folder, never in the checkout: "." was
    # the repository, made owner-only, which locked the `pgserver` user out of the venv's pgvector
    with contextlib.chdir(tmp_path_factory.mktemp("cwd")):
        result = CliRunner().invoke(cli_app, args, catch_exceptions=True)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"args {args!r} raised {type(result.exception).__name__}") from result.exception
    assert result.exit_code in (0, 1, 2), (args, result.exit_code)
    assert "Traceback" not in result.output
    if result.exit_code != 0:
        assert result.output.strip(), f"args {args!r} failed without a message"
