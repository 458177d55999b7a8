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
