"""Shared CLI plumbing: options, resolving the workspace, printing tables or JSON."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn

import orjson
import typer
from rich.console import Console
from rich.table import Table

from knowledge_engine.config import ConfigError, EngineConfig, load_config, load_config_file

console = Console()
err_console = Console(stderr=True)

WorkspaceOpt = Annotated[
    Path | None, typer.Option("--workspace", "-w", help="Workspace folder of one agent.", show_default=False)
]
ConfigOpt = Annotated[
    Path | None, typer.Option("--config", "-c", help="JSON config file (as config.example.json).", show_default=False)
]
AgentOpt = Annotated[
    str | None, typer.Option("--agent", help="Agent id; with --config, resolves the workspace like the plugin.")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for scripts instead of a table.")]


def fail(message: str, code: int = 1) -> NoReturn:
    err_console.print(f"[bold red]error:[/] {message}", highlight=False)
    raise typer.Exit(code)


def load_cfg(config: Path | None) -> EngineConfig:
    try:
        return load_config_file(config) if config else load_config({})
    except ConfigError as exc:
        fail(str(exc), 2)


def resolve_folder(cfg: EngineConfig, workspace: Path | None, agent: str | None) -> Path:
    """--workspace wins; else --agent with the config's template (as the plugin resolves it)."""
    if workspace is not None:
        return workspace.expanduser().resolve()
    if agent is not None:
        from knowledge_engine.store.workspace import resolve_workspace_dir

        return resolve_workspace_dir(cfg, agent, None)
    fail("give --workspace DIR, or --config FILE with --agent ID")


def existing_folder(folder: Path) -> Path:
    if not folder.is_dir():
        fail(f"workspace {folder} does not exist")
    return folder


def print_json(data: Any) -> None:
    sys.stdout.buffer.write(orjson.dumps(data, option=orjson.OPT_INDENT_2, default=str) + b"\n")
    sys.stdout.flush()


def table(title: str, columns: list[str], rows: list[list[Any]]) -> None:
    t = Table(title=title, show_lines=False)
    for c in columns:
        t.add_column(c, overflow="fold")
    for r in rows:
        t.add_row(*["" if v is None else str(v) for v in r])
    console.print(t)
