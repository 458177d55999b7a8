"""Frictions a second new-user pass met (bad input, odd files, read-only places), each pinned down."""

from __future__ import annotations

import asyncio
import errno
import json
import logging
import os
import queue
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import threading
import time
import unicodedata
from pathlib import Path

import pytest

from knowledge_engine.config import ConfigError, load_config
from knowledge_engine.forget.stores import scan
from knowledge_engine.host import HookRunner, PluginApi
from knowledge_engine.plugin import register
from tests.test_cli_support import cli, workspace_copy


def _regex_only(tmp_path: Path) -> str:
    """A config without spaCy or the embedder: these tests are about the CLI, not extraction."""
    cfg = tmp_path / "config.json"
    cfg.write_text(
        json.dumps({"extraction": {"spacy": {"enabled": False}}, "embeddings": {"enabled": False}})
    )
    return str(cfg)


def test_ingest_keeps_a_line_cut_inside_an_emoji_and_says_where_a_broken_line_breaks(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(
        # what Node's JSON.stringify writes for a string sliced inside an emoji: valid JSON, a lone surrogate
        '{"id": "m1", "role": "user", "text": "I adopted a cat named Biscuit \\ud83d"}\n'
        '{"id": "m2", "role": "user", "text": "a line cut short\n'
        '{"id": "m3", "role": "user", "text": "trailing comma",}\n'
    )
    ws = tmp_path / "ws"
    code, out, err = cli(
        "ingest", "-w", str(ws), "--config", _regex_only(tmp_path), str(transcript), "--json"
    )
    assert code == 3, err  # ingested, lines skipped
    result = json.loads(out)
    assert result["messages"] == 1
    assert result["errors"] == [
        "line 2: not valid JSON (unexpected end of data at column 55)",
        "line 3: not valid JSON (trailing comma is not allowed at column 54)",
    ]
    db = sqlite3.connect(ws / "messages.sqlite3")
    try:
        assert db.execute("SELECT text FROM messages WHERE id = 'm1'").fetchone() == (
            "I adopted a cat named Biscuit \ufffd",
        )
    finally:
        db.close()


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).parent / "knowledge-engine"  # as a user runs it: main() prints the errors
    return subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=300, check=False)


@pytest.mark.parametrize("command", [["stats"], ["messages"], ["validate", "--no-index"], ["export"]])
def test_a_message_log_that_is_not_a_database_is_one_error_line_not_a_traceback(
    tmp_path: Path, command: list[str]
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "messages.sqlite3").write_text("not a database, a file someone wrote over")
    proc = _run(*command, "-w", str(ws))
    assert proc.returncode == 4, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    err = " ".join(proc.stderr.split())
    assert f"error: cannot open message log {ws / 'messages.sqlite3'}: file is not a database" in err, err
    assert "fix it, or move it away" in err
    assert (ws / "messages.sqlite3").read_text() == "not a database, a file someone wrote over"  # untouched


def test_context_on_a_file_says_it_is_a_file_not_that_nothing_is_stored_yet(tmp_path: Path) -> None:
    not_a_folder = tmp_path / "facts.json"  # -w pointed at a store file instead of its folder
    not_a_folder.write_text("{}")
    code, out, err = cli("context", "where does maya work now", "-w", str(not_a_folder))
    assert code == 1 and out == ""
    assert "is a file, not a folder" in " ".join(err.split()) and "does not exist" not in err, err
    code, out, err = cli("context", "where does maya work now", "-w", str(tmp_path / "new"), "--json")
    assert (
        code == 0 and "nothing is stored yet" in json.loads(out)["note"]
    )  # an agent's first turn: still fine


def test_ingest_summary_counts_one_as_one(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(
        '{"id": "m1", "role": "user", "text": "Mail me at ana@acme.example"}\n{"id": "m2"}\n'
    )
    code, _, err = cli(
        "ingest", "-w", str(tmp_path / "ws"), "--config", _regex_only(tmp_path), str(transcript)
    )
    assert code == 3, err
    said = " ".join(err.split())
    assert "ingested 1 message from" in said and "; 1 line skipped (0 with a conflicting id)" in said, said
    assert "added 1 entity and 0 facts (the workspace now holds 1 entity, 0 facts)" in said, said


def test_a_failed_maintenance_job_says_the_os_reason_not_only_the_class(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    transcript.write_text('{"id": "m1", "role": "user", "text": "Mail me at ana@acme.example"}\n')
    cfg, ws = _regex_only(tmp_path), tmp_path / "ws"
    assert cli("ingest", "-w", str(ws), "--config", cfg, str(transcript))[0] == 0
    (ws / "maintenance").write_text("a file where the jobs keep their locks")  # an OSError on every job
    code, out, err = cli("maintain", "-w", str(ws), "--config", cfg, "--once", "--job", "decay", "--json")
    assert code == 1, err
    assert (
        json.loads(out)[0]["error"] == f"FileExistsError: {os.strerror(errno.EEXIST)}"
    )  # was "FileExistsError"


def test_bidi_overrides_in_stored_text_are_shown_escaped_not_obeyed(tmp_path: Path) -> None:
    """A right-to-left override reorders the rest of the terminal line (a table row): shown as \\u202e."""
    line = {
        "id": "m1",
        "role": "user",
        "speaker": "Eve\u202e",
        "text": "the invoice is \u202e0001$\u202c, ok",
    }
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(json.dumps(line) + "\n")
    ws, cfg = str(tmp_path / "ws"), _regex_only(tmp_path)
    assert cli("ingest", "-w", ws, "--config", cfg, str(transcript))[0] == 0
    code, out, err = cli("messages", "-w", ws)
    assert code == 0, err
    assert "\u202e" not in out and "\u202c" not in out
    assert "Eve\\u202e" in out and "\\u202e0001$\\u202c" in out, out
    code, out, _ = cli("messages", "-w", ws, "--json")
    assert json.loads(out)[0]["speaker"] == "Eve\u202e"  # the data itself is unchanged


def test_the_maintenance_daemon_says_its_plan_and_each_run(tmp_path: Path) -> None:
    """It printed only 'running' and 'stopped': under systemd the journal showed no job ever ran."""
    transcript = tmp_path / "t.jsonl"
    transcript.write_text('{"id": "m1", "role": "user", "text": "Mail me at ana@acme.example"}\n')
    cfg, ws = _regex_only(tmp_path), tmp_path / "ws"
    assert cli("ingest", "-w", str(ws), "--config", cfg, str(transcript))[0] == 0
    exe = Path(sys.executable).parent / "knowledge-engine"
    proc = subprocess.Popen(
        [str(exe), "maintain", "--daemon", "-w", str(ws), "--config", cfg],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    out: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [out.put(line) for line in proc.stdout or ()], daemon=True).start()
    lines: list[str] = []
    deadline = time.monotonic() + 120  # every job runs once at start; compact is the last
    try:
        while not lines or lines[-1].split(" ")[1:2] != ["compact"]:
            lines.append(out.get(timeout=max(0.1, deadline - time.monotonic())).rstrip("\n"))
    except queue.Empty:
        pass  # the assertions below say what was missing
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err[-2000:]
    plan = "jobs: decay every 24 h, prune every 6 h, compact every 24 h; one line per run below"
    assert lines[1].startswith(plan), lines
    runs = [line.split(" ")[1:3] for line in lines[2:]]
    assert runs == [["decay", "ok"], ["prune", "ok"], ["compact", "ok"]], lines
    assert "ms: facts_pruned=0, entities_pruned=0" in lines[3]


def test_a_misspelt_workspace_placeholder_is_a_config_error_not_one_folder_for_every_agent(
    tmp_path: Path,
) -> None:
    """`{agent}` for `{agentId}` stayed in the path literally: every agent's knowledge in one folder."""
    cfg = tmp_path / "config.json"
    for key, value, hint in (
        ("workspace", str(tmp_path / "agents" / "{agent}"), "did you mean {agentId}?"),
        ("workspaceTemplate", "{workspacedir}/knowledge/{agentId}", "did you mean {workspaceDir}?"),
    ):
        cfg.write_text(json.dumps({key: value}))
        code, _, err = cli("stats", "--config", str(cfg), "--agent", "main")
        said = " ".join(err.split())
        assert code == 2 and f"{key}: Value error, unknown placeholder" in said and hint in said, said
    with pytest.raises(ConfigError, match="unknown placeholder"):
        register(PluginApi("knowledge-engine", {"workspace": str(tmp_path / "{agent}")}))
    with pytest.raises(ConfigError, match=r"workspaceRoot: .*takes no placeholder"):  # root/<agentId> already
        load_config({"workspaceRoot": str(tmp_path / "{agentId}")})
    cfg.write_text(json.dumps({"workspace": str(tmp_path / "agents" / "{agentId}")}))
    assert "does not exist" in cli("stats", "--config", str(cfg), "--agent", "main")[2]  # the right one loads


def test_ingest_that_could_not_write_the_store_says_so_and_exits_1(tmp_path: Path) -> None:
    """The store write failed (logged), yet ingest said 'added 2 entities' and exited 0: they were lost."""
    cfg, ws = _regex_only(tmp_path), tmp_path / "ws"
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first.write_text('{"id": "m1", "role": "user", "text": "Mail me at ana@acme.example"}\n')
    second.write_text(
        '{"id": "m2", "role": "user", "text": "Mail me at bob@globex.example or bob@initech.example"}\n'
    )
    assert cli("ingest", "-w", str(ws), "--config", cfg, str(first))[0] == 0
    for name in ("facts", "entities"):  # where a write puts its backup link: a folder, so every write fails
        (ws / f".{name}.json.bak.tmp" / "x").mkdir(parents=True)
    code, _, err = cli("ingest", "-w", str(ws), "--config", cfg, str(second))
    said = " ".join(err.split())
    assert code == 1 and f"error: the store in {ws} could not be written" in said, said
    assert "run the same ingest again" in said
    for name in ("facts", "entities"):
        shutil.rmtree(ws / f".{name}.json.bak.tmp")
    assert cli("ingest", "-w", str(ws), "--config", cfg, str(second))[0] == 0  # as the error says: it heals
    code, out, _ = cli("entities", "-w", str(ws), "--json")
    assert {e["value"] for e in json.loads(out)} >= {"bob@globex.example", "bob@initech.example"}


def test_forgetting_a_short_name_ends_final_not_found_in_the_formats_own_words(tmp_path: Path) -> None:
    """'Tom' was "still found" in every workspace: in facts.json's "tombstones", maintenance's
    "tombstones_dropped", Chroma's "automatically_purge"; forget exited 3 however often it ran."""
    ws = str(workspace_copy("sample", tmp_path))
    assert cli("maintain", "-w", ws, "--once", "--job", "compact")[0] == 0  # a run record: tombstones_dropped
    code, out, err = cli("forget", "-w", ws, "--entity", "Tom", "--yes", "--json")
    report = json.loads(out)
    assert code == 0 and report["final"] is True and report["remaining"] == [], (report["remaining"], err)
    assert json.loads(cli("facts", "-w", ws, "--entity", "Tom", "--json")[1]) == []


def test_the_forget_scan_still_finds_a_name_glued_to_other_bytes(tmp_path: Path) -> None:
    (tmp_path / "row.bin").write_bytes(b"\x00userTom\x01")  # SQLite packs columns: role, then speaker
    (tmp_path / "cfg.bin").write_bytes(b'{"automatically_purge":true}')  # Chroma's own config: a key
    (tmp_path / "facts.json").write_text(json.dumps({"tombstones": {"person:tom": "2026-01-01"}}))
    (tmp_path / "runs.json").write_text(json.dumps({"compact": {"tombstones_dropped": 0}}))
    assert scan(tmp_path, ["Tom"]) == ["facts.json", "row.bin"]


def _block_store_writes(ws: Path) -> None:
    """A folder where a store write puts its backup link: every write of facts.json/entities.json fails."""
    for name in ("facts", "entities"):
        (ws / f".{name}.json.bak.tmp" / "x").mkdir(parents=True)


def test_validate_repair_and_forget_that_could_not_write_say_so(tmp_path: Path) -> None:
    """validate --repair said 'repaired ... ok' (exit 0), forget showed a traceback; nothing was written."""
    ws = workspace_copy("sample", tmp_path)
    doc = json.loads((ws / "facts.json").read_text())
    doc["facts"][0]["superseded_by"] = "f-0000000000000000"  # a dangling reference --repair clears
    (ws / "facts.json").write_text(json.dumps(doc))
    _block_store_writes(ws)
    code, out, err = cli("validate", "-w", str(ws), "--repair", "--no-index")
    said = " ".join(err.split())
    assert code == 1 and "could not be written" in said and "the repairs are not saved" in said, said
    assert "ok:" not in out
    code, _, err = cli("forget", "-w", str(ws), "--entity", "Tom", "--yes")
    said = " ".join(err.split())
    assert code == 5 and "error: not final:" in said and "IsADirectoryError" in said, said
    assert "Tom" in (ws / "facts.json").read_text()  # nothing written: the error is the truth


def test_import_that_could_not_write_says_so(tmp_path: Path) -> None:
    """import said 'imported 44 entities, 24 facts' (exit 0) when the store write failed and nothing was."""
    export = tmp_path / "export.jsonl"
    assert cli("export", "-w", str(workspace_copy("sample", tmp_path)), "--output", str(export))[0] == 0
    target = tmp_path / "restored"
    assert cli("import", str(export), "-w", str(target), "--no-sync")[0] == 0  # the store files exist now
    _block_store_writes(target)
    code, _, err = cli("import", str(export), "-w", str(target), "--no-sync")
    said = " ".join(err.split())
    assert code == 1 and f"error: the store in {target} could not be written" in said, said
    assert "imported" not in said


def test_a_hook_that_fails_on_the_disk_logs_the_system_reason(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """'session_start failed: OSError' did not say what to fix (read-only, full disk, a file in its way)."""
    blocker = tmp_path / "agent-dir"
    blocker.write_text("a file where the agent's folder should be")
    api = PluginApi("knowledge-engine", {"extraction": {"spacy": {"enabled": False}}})
    register(api)
    runner = HookRunner(api.registrations)
    ctx = {"agentId": "main", "workspaceDir": str(blocker), "sessionKey": "agent:main:chat"}
    with caplog.at_level(logging.ERROR, logger="knowledge_engine"):
        asyncio.run(runner.run("session_start", {"sessionId": "s1", "sessionKey": "agent:main:chat"}, ctx))
        asyncio.run(runner.run("gateway_stop", {"reason": "shutdown"}, {}))
    said = [r.getMessage() for r in caplog.records if "session_start failed" in r.getMessage()]
    assert said == [f"session_start failed: NotADirectoryError: {os.strerror(errno.ENOTDIR)}"], said


def test_a_tier_role_or_threshold_nothing_can_have_is_an_error_not_an_empty_list(tmp_path: Path) -> None:
    """`facts --tier spaCy`, `messages --role bot`, `facts --min-relevance 50` printed '0 facts' (exit 0)."""
    ws = str(workspace_copy("sample", tmp_path))
    for args, said in (
        (["facts", "--tier", "spaCy"], "--tier must be one of regex, spacy, llm, manual, import"),
        (["messages", "--role", "bot"], "--role must be one of user, assistant, system, tool"),
    ):
        code, out, err = cli(*args, "-w", ws)
        assert code == 1 and out == "" and said in err, (args, err)
    for args in (["facts", "--min-relevance", "50"], ["entities", "--min-importance", "1.5"]):
        code, _, err = cli(*args, "-w", ws)
        assert code == 2 and "Invalid value for '--min-" in err, (args, err)
    code, out, _ = cli("facts", "--tier", "spacy", "-w", ws, "--json")
    assert code == 0 and len(json.loads(out)) > 0
    code, out, _ = cli("messages", "--role", "assistant", "-w", ws, "--json")
    assert code == 0 and {m["role"] for m in json.loads(out)} == {"assistant"}


def test_an_export_file_is_owner_only_as_the_workspace(tmp_path: Path) -> None:
    """It holds every message and fact, yet was written 0644 (the umask) beside 0600 workspace files."""
    ws = str(workspace_copy("sample", tmp_path))
    for fmt in ("jsonl", "html"):
        out = tmp_path / f"export.{fmt}"
        out.with_name(out.name + ".part").write_text("left by a killed run")
        os.chmod(out.with_name(out.name + ".part"), 0o644)
        assert cli("export", "-w", ws, "--format", fmt, "--output", str(out))[0] == 0
        assert stat.S_IMODE(out.stat().st_mode) == 0o600, fmt


def _stored_count(ws: Path) -> int:
    if not (ws / "messages.sqlite3").exists():
        return 0
    db = sqlite3.connect(f"file:{ws / 'messages.sqlite3'}?mode=ro", uri=True, timeout=30)
    try:
        return int(db.execute("SELECT count(*) FROM messages").fetchone()[0])
    except sqlite3.OperationalError:  # the schema is being created
        return 0
    finally:
        db.close()


def test_ctrl_c_during_ingest_stops_cleanly_with_a_summary(tmp_path: Path) -> None:
    """Ctrl-C killed ingest with a C++ 'terminate called without an active exception' and no summary."""
    transcript = tmp_path / "big.jsonl"
    lines = 100_000  # far more than are read before the signal, on any machine
    transcript.write_text(
        "".join(json.dumps({"id": f"b{i}", "role": "user", "text": f"Mail {i} to a{i}@acme.example"}) + "\n"
                for i in range(lines))
    )  # fmt: skip
    ws = tmp_path / "ws"
    exe = Path(sys.executable).parent / "knowledge-engine"
    proc = subprocess.Popen(
        [str(exe), "ingest", "-w", str(ws), "--config", _regex_only(tmp_path), str(transcript), "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while _stored_count(ws) == 0 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 130, err[-2000:]
    assert "terminate called" not in err and "Traceback" not in err
    result = json.loads(out)
    assert result["interrupted"] is True and 0 < result["messages"] < lines
    assert _stored_count(ws) == result["messages"]  # what the summary says is what is stored
    assert f"of {lines} lines; what was read is stored" in " ".join(err.split())


def test_entities_name_filter_matches_a_decomposed_or_upper_case_spelling(tmp_path: Path) -> None:
    """`entities --name` with "Inês" typed decomposed (macOS) found nothing; `show` and `facts` found her."""
    ws = str(workspace_copy("sample", tmp_path))
    for spelling in (unicodedata.normalize("NFD", "Inês"), "INÊS"):
        code, out, err = cli("entities", "-w", ws, "--name", spelling, "--json")
        assert code == 0 and [e["value"] for e in json.loads(out)] == ["Inês"], (spelling, err)


def test_a_shell_default_in_an_env_reference_is_a_config_error_not_a_literal_value(tmp_path: Path) -> None:
    """`${LLM_KEY:-none}` stayed in the config literally: the LLM server got the token '${LLM_KEY:-none}'."""
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps({"extraction": {"llm": {"apiKey": "${LLM_KEY:-hunter2}"}}}))
    code, _, err = cli("stats", "--config", str(cfg), "--agent", "main")
    said = " ".join(err.split())
    assert code == 2 and "extraction.llm.apiKey: only ${NAME} is replaced from the environment" in said, said
    assert "hunter2" not in err  # a default may be a secret: never echoed
    with pytest.raises(ConfigError, match="only"):
        load_config({"pgvector": {"url": "postgres://ke:${ PGPASSWORD }@db/knowledge"}})


def test_table_titles_count_one_as_one(tmp_path: Path) -> None:
    ws = str(workspace_copy("sample", tmp_path))
    for args, title in (
        (["entities", "--name", "inês"], "1 entity"),
        (["facts", "--limit", "1"], "1 fact"),
        (["messages", "--limit", "1"], "1 message"),
        (["facts", "--limit", "2"], "2 facts"),
    ):
        code, out, err = cli(*args, "-w", ws)
        assert code == 0 and out.splitlines()[0].strip() == title, (args, out[:200], err)


def test_a_transcript_that_is_one_json_array_is_refused_with_the_conversion(tmp_path: Path) -> None:
    """A pretty-printed JSON array (a chat export) gave one 'skipped line N' per line and made a workspace."""
    messages = [{"id": f"m{i}", "role": "user", "text": f"hello {i}"} for i in range(5)]
    for name, text in (("chat.json", json.dumps(messages, indent=2)), ("chat.jsonl", json.dumps(messages))):
        path = tmp_path / name
        path.write_text(text)
        ws = tmp_path / f"ws-{name}"
        code, out, err = cli("ingest", "-w", str(ws), "--config", _regex_only(tmp_path), str(path))
        said = " ".join(err.split())
        assert code == 1 and out == "" and "skipped" not in said, said
        assert "is one JSON array (5 items), not JSONL" in said, said
        target = tmp_path / ("chat.lines.jsonl" if name.endswith("l") else "chat.jsonl")  # never its input
        assert f"`jq -c '.[]' {path} > {target}`" in said, said
        assert not ws.exists()


def test_the_gateways_own_config_given_as_config_says_which_file_to_give(tmp_path: Path) -> None:
    """`--config ~/.openclaw/openclaw.json` listed 'gateway: unknown key', 'plugins: unknown key', ..."""
    gateway_cfg = tmp_path / "openclaw.json"
    engine_keys = {"retrieval": {"maxInjectChars": 1500}}
    plugins = {"entries": {"knowledge-engine": {"enabled": True, "config": engine_keys}}}
    gateway_cfg.write_text(json.dumps({"gateway": {"port": 18789}, "plugins": plugins}))
    code, _, err = cli("stats", "--config", str(gateway_cfg), "--agent", "main")
    said = " ".join(err.split())
    assert code == 2 and "this is an OpenClaw gateway config" in said, said
    assert "knowledge-engine/config.json" in said and "unknown key" not in said


def test_a_workspace_that_cannot_be_created_is_one_error_not_a_traceback(tmp_path: Path) -> None:
    """-w under a file: ingest, import and demo ended in a NotADirectoryError traceback."""
    (tmp_path / "a-file").write_text("not a folder")
    under = str(tmp_path / "a-file" / "ws")
    transcript = tmp_path / "t.jsonl"
    transcript.write_text('{"id": "m1", "role": "user", "text": "hello"}\n')
    export = tmp_path / "export.jsonl"
    export.write_text('{"kind": "meta", "format": "knowledge-engine-export", "version": 1}\n')
    for args in (
        ["ingest", str(transcript), "--config", _regex_only(tmp_path)],
        ["import", str(export)],
        ["demo"],
    ):
        code, _, err = cli(*args, "-w", under)
        said = " ".join(err.split())
        assert code == 1 and f"cannot create the workspace folder {under}: Not a directory" in said, said


def test_validate_repair_says_what_it_repaired_on_one_line(tmp_path: Path) -> None:
    """'repaired: ..., index=0, ' broke at 80 columns: 'quarantine_restored=0' went on a line of its own."""
    ws = workspace_copy("sample", tmp_path)
    doc = json.loads((ws / "facts.json").read_text())
    doc["facts"][0]["superseded_by"] = "f-0000000000000000"
    (ws / "facts.json").write_text(json.dumps(doc))
    code, out, err = cli("validate", "-w", str(ws), "--repair", "--no-index")
    assert code == 0, err
    first = out.splitlines()[0]
    assert first.startswith("repaired: ") and "superseded_by=1" in first and "quarantine_restored=0" in first


def test_forget_without_yes_and_without_a_terminal_says_to_pass_yes(tmp_path: Path) -> None:
    """With stdin closed (a script, cron) the question got no answer and click printed only 'Aborted!'."""
    ws = str(workspace_copy("sample", tmp_path))
    code, _, err = cli("forget", "--entity", "Tom", "-w", ws, input="")
    said = " ".join(err.split())
    assert code == 1 and "Forget 3 facts, 1 entity, 4 messages redacted?" in said, said
    assert "nothing forgotten: no answer to the question (stdin is closed); pass --yes in a script" in said
    assert json.loads(cli("facts", "-w", ws, "--entity", "Tom", "--json")[1])  # still there


def test_messages_speaker_filter_ignores_letter_case_and_unicode_form(tmp_path: Path) -> None:
    """`messages --speaker maya` or a decomposed "Inês" found nothing: the match was byte for byte."""
    ws = str(workspace_copy("sample", tmp_path))
    exact = json.loads(cli("messages", "-w", ws, "--speaker", "Maya", "--json", "--limit", "0")[1])
    assert exact and {m["speaker"] for m in exact} == {"Maya"}
    for spelling in ("maya", unicodedata.normalize("NFD", "MAYA")):
        code, out, err = cli("messages", "-w", ws, "--speaker", spelling, "--json", "--limit", "0")
        assert code == 0 and json.loads(out) == exact, (spelling, err)
