"""Stored text is printed as plain text by every command: rich markup, emoji codes and terminal escapes
in messages, names and facts are shown literally, never interpreted (issue 18)."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from knowledge_engine.cli import common
from knowledge_engine.config import load_config
from knowledge_engine.model.records import Evidence, Message
from knowledge_engine.store.workspace import Workspace
from tests.test_cli_support import cli, workspace_copy

# Each a single "word" so a table never wraps inside one; together they cover what rich would act on.
CLOSE = "[/]"  # a closing tag with nothing open: MarkupError
SINCE = "[since-2020]"  # looks like a style tag: silently dropped
BOX = "[x]"
LINK = "[link=https://evil.example/]click[/link]"  # would become a terminal hyperlink
EMOJI = ":thumbs_up:"
STYLE = "[bold_red]loud[/]"
HOSTILE = [CLOSE, SINCE, BOX, LINK, EMOJI, STYLE]
ESC = "\x1b]8;;https://evil.example/\x1b\\"  # an OSC 8 hyperlink in the raw bytes
WIDE = 400


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A real workspace in a folder whose name is markup, holding hostile messages, facts and entities."""
    monkeypatch.setattr(common.console, "_width", WIDE)  # no wrapping: each token stays on one line
    monkeypatch.setattr(common.err_console, "_width", WIDE)
    folder = tmp_path / f"ws {CLOSE} {BOX}"
    shutil.move(workspace_copy("sample", tmp_path), folder)
    host = Workspace(folder, load_config({}))
    t0 = datetime(2026, 11, 9, 9, 0, tzinfo=UTC)
    text = "Maya wrote " + " ".join(HOSTILE) + " and [since 2020] " + ESC + "end"
    who, session = f"Mallory{BOX}", f"s{CLOSE}"
    msg = Message(id="h-01", text=text, role="user", speaker=who, session=session, timestamp=t0)
    host.messages.append_many([msg])
    ev = Evidence(message_id="h-01", timestamp=t0)
    host.entities.observe(f"Mallory{CLOSE}{SINCE}", "person", "manual", evidence=ev)
    host.facts.add(f"Maya{CLOSE}", "likes", f"{STYLE} {LINK} {EMOJI}", source="manual", evidence=[ev])
    host.flush()
    host.close()
    return folder


def _ids(ws: Path) -> tuple[str, str]:
    facts = json.loads(cli("facts", "-w", str(ws), "--subject", f"Maya{CLOSE}", "--json")[1])
    ents = json.loads(cli("entities", "-w", str(ws), "--name", "Mallory", "--json")[1])
    return facts[0]["id"], ents[0]["id"]


def _literal(out: str, *tokens: str) -> None:
    for t in tokens:
        assert t in out, f"{t!r} not printed literally in:\n{out}"
    assert "\x1b" not in out  # no hyperlink from [link=...], no stored escape reaching the terminal


def test_listings_print_stored_markup_literally(ws: Path) -> None:
    w = str(ws)
    code, out, err = cli("messages", "-w", w)
    assert code == 0, err
    _literal(out, *HOSTILE, "[since 2020]", f"Mallory{BOX}", f"s{CLOSE}", "\\x1b]8;;https://evil.example/")
    code, out, err = cli("messages", "-w", w, "--text", "Maya wrote")
    assert code == 0, err
    _literal(out, *HOSTILE)
    code, out, err = cli("facts", "-w", w)
    assert code == 0, err
    _literal(out, f"Maya{CLOSE}", STYLE, LINK, EMOJI)
    code, out, err = cli("entities", "-w", w)
    assert code == 0, err
    _literal(out, f"Mallory{CLOSE}{SINCE}")
    code, out, err = cli("stats", "-w", w)
    assert code == 0, err
    _literal(out, f"ws {CLOSE} {BOX}")


def test_search_and_show_print_stored_markup_literally(ws: Path) -> None:
    w = str(ws)
    code, out, err = cli("search", "Maya wrote likes", "-w", w, "--no-semantic")
    assert code == 0, err
    _literal(out, *HOSTILE, f"Maya{CLOSE} likes {STYLE} {LINK} {EMOJI}")
    fact_id, entity_id = _ids(ws)
    code, out, err = cli("show", fact_id, "-w", w)
    assert code == 0, err
    _literal(out, f"Maya{CLOSE} likes {STYLE} {LINK} {EMOJI}", *HOSTILE)
    code, out, err = cli("show", entity_id, "-w", w)
    assert code == 0, err
    _literal(out, f"Mallory{CLOSE}{SINCE}", *HOSTILE)
    code, out, err = cli("show", f"nobody{CLOSE}{LINK}", "-w", w)
    assert code == 1
    _literal(err, f"nobody{CLOSE}{LINK}", f"ws {CLOSE} {BOX}")


def test_change_and_export_commands_print_stored_markup_literally(ws: Path) -> None:
    w = str(ws)
    fact_id, _ = _ids(ws)
    code, out, err = cli("context", "What did Maya write?", "-w", w, "--no-semantic")
    assert code == 0, err
    assert "\x1b]8;" not in out + err
    target = ws / f"out{BOX}{SINCE}{EMOJI}.jsonl"  # names without "/": CLOSE and LINK would make folders
    code, _, err = cli("export", "-w", w, "-o", str(target))
    assert code == 0, err
    _literal(err, str(target))
    code, _, err = cli("import", str(target), "-w", str(ws / f"copy{BOX}{SINCE}"))
    assert code == 0, err
    _literal(err, f"copy{BOX}{SINCE}")
    code, out, err = cli("forget", "--entity", f"Mallory{CLOSE}{SINCE}", "-w", w, "--dry-run")
    assert code == 0, err
    code, out, err = cli("edit", "--fact", fact_id, "--object", f"{LINK} {CLOSE}\x1b[2J", "-w", w)
    assert code == 0, err
    _literal(out, f"Maya{CLOSE} likes {LINK} {CLOSE}\\x1b[2J")
    code, out, err = cli("validate", "-w", w, "--no-index")
    assert "Traceback" not in out + err and code in (0, 1), err


@pytest.mark.slow
def test_ingest_prints_hostile_paths_and_lines_literally(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ingest loads spaCy (slow); its summary names the transcript and the workspace."""
    monkeypatch.setattr(common.console, "_width", WIDE)
    transcript = tmp_path / f"t{BOX}{SINCE}.jsonl"
    line = json.dumps({"id": "a1", "role": "user", "text": f"Maya wrote {LINK} {CLOSE}", "speaker": STYLE})
    transcript.write_text(line + "\nnot json " + CLOSE + "\n", encoding="utf-8")
    target = tmp_path / f"ws{BOX}{EMOJI}"
    code, out, err = cli("ingest", "-w", str(target), str(transcript), "--no-wait-llm")
    assert code == 3, err  # one line skipped
    _literal(out + err, str(transcript), str(target))
    code, out, err = cli("messages", "-w", str(target))
    assert code == 0, err
    _literal(out, STYLE)
