"""Small frictions a new user met in the CLI (a silent empty answer to a typo, ...), each pinned down."""

from __future__ import annotations

import json
from pathlib import Path

from tests.test_cli_support import cli, workspace_copy


def test_entities_of_a_type_no_entity_has_says_which_types_there_are(tmp_path: Path) -> None:
    ws = str(workspace_copy("sample", tmp_path))
    code, out, err = cli("entities", "-w", ws, "--type", "persons", "--json")
    assert code == 0 and json.loads(out) == []  # still an answer, for scripts
    note = " ".join(err.split())
    assert "no entity has type 'persons'; types here:" in note and "person," in note, err
    code, out, err = cli("entities", "-w", ws, "--type", "person", "--name", "nobody-of-that-name")
    assert code == 0 and "no entity has type" not in err  # the type exists: nothing to say


def test_out_of_range_numbers_are_usage_errors_not_tracebacks(tmp_path: Path) -> None:
    ws = str(workspace_copy("sample", tmp_path))
    for args in (
        ["facts", "--limit", "-1"],  # was an IndexError traceback
        ["entities", "--limit", "-5"],
        ["messages", "--limit", "-1"],
        ["search", "maya", "--no-semantic", "--limit", "0"],  # was an empty answer (0 means none here)
        ["forget", "--below-relevance", "5", "--dry-run"],  # relevance is 0..1: 5 selected every fact
    ):
        code, out, err = cli(*args, "-w", ws)
        assert code == 2, (args, out, err)
        assert "Invalid value for '--" in err, (args, err)
    code, out, _ = cli("facts", "--limit", "0", "-w", ws, "--json")
    assert code == 0 and len(json.loads(out)) > 0  # 0 still means no limit


def _fact(ws: str, fid: str) -> dict[str, object]:
    code, out, err = cli("show", fid, "-w", ws, "--json")
    assert code == 0, err
    fact: dict[str, object] = json.loads(out)["fact"]
    return fact


def test_edit_refuses_a_contradiction_instead_of_storing_it(tmp_path: Path) -> None:
    ws = str(workspace_copy("sample", tmp_path))
    code, out, _ = cli("facts", "-w", ws, "--json", "--limit", "1")
    fid = json.loads(out)[0]["id"]
    code, _, err = cli("edit", "-w", ws, "--fact", fid, "--valid-from", "2020-01-01")
    assert code == 0, err
    before = _fact(ws, fid)
    assert before["source"] == "manual"
    for args, said in (
        (["--valid-from", "2030-01-01", "--valid-until", "2020-01-01"], "before it became true"),
        (["--valid-until", "2019-06-01"], "before it became true"),  # ends before its stored start
        (["--object", "  "], "--object is empty"),
        (["--still-valid", "--valid-until", "2030-01-01"], "contradict each other"),
    ):
        code, _, err = cli("edit", "-w", ws, "--fact", fid, *args)
        assert code == 1 and said in " ".join(err.split()), (args, err)
    assert _fact(ws, fid) == before  # nothing was written


def test_maintain_daemon_with_a_job_is_refused_not_ignored(tmp_path: Path) -> None:
    ws = str(workspace_copy("sample", tmp_path))  # before the fix this started the daemon (every job)
    code, _, err = cli("maintain", "-w", ws, "--daemon", "--job", "decay")
    assert code == 1 and "--job works with --once only" in err, err


def test_import_of_something_that_is_not_an_export_is_refused_and_bad_lines_say_why(tmp_path: Path) -> None:
    transcript = tmp_path / "chat.jsonl"
    transcript.write_text('{"id": "m1", "role": "user", "text": "I live in Oslo"}\n')
    csv = tmp_path / "facts.csv"
    csv.write_text("id,subject,predicate,object\nf-1,Maya,lives-in,Berlin\n")
    for path in (transcript, csv):
        target = tmp_path / f"ws-{path.suffix[1:]}"
        code, _, err = cli("import", str(path), "-w", str(target))
        assert code == 1 and "is not a jsonl export" in " ".join(err.split()) and "ingest" in err, err
        assert not target.exists()  # nothing made
    export = tmp_path / "export.jsonl"
    export.write_text(
        '{"kind": "meta", "format": "knowledge-engine-export", "version": 1}\n'
        "{not json\n"
        '{"id": "m2", "role": "user", "text": "a transcript line in an export"}\n'
        '{"kind": "gadget"}\n'
        '{"kind": "fact", "id": 3}\n'
    )
    code, out, err = cli("import", str(export), "-w", str(tmp_path / "ws"), "--json")
    assert code == 3, err  # as `ingest`: lines were skipped, so the restore is not whole
    errors = json.loads(out)["errors"]
    assert errors[:3] == [
        "line 2: not valid JSON",
        'line 3: no "kind": not a record of `export --format jsonl` (a transcript goes in with `ingest`)',
        "line 4: unknown kind (one of meta, entity, fact, message)",
    ]
    assert errors[3].startswith("line 5: id: ") and len(errors) == 4


def test_a_workspace_path_that_is_a_file_is_said_so(tmp_path: Path) -> None:
    not_a_folder = tmp_path / "facts.json"
    not_a_folder.write_text("{}")
    transcript = tmp_path / "chat.jsonl"
    transcript.write_text('{"id": "m1", "role": "user", "text": "I live in Oslo"}\n')
    export = tmp_path / "export.jsonl"
    export.write_text('{"kind": "meta", "format": "knowledge-engine-export", "version": 1}\n')
    for args in (["stats"], ["ingest", str(transcript)], ["import", str(export)]):  # the last two: tracebacks
        code, _, err = cli(*args, "-w", str(not_a_folder))
        assert code == 1 and "is a file, not a folder" in " ".join(err.split()), (args, err)
    assert not_a_folder.read_text() == "{}"
