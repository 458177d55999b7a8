"""`migrate`: move one agent's workspace between a folder (file backend) and PostgreSQL, losslessly.

The URL may hold a password: it is never printed (messages name host, port and database only), and
it can be given as `'${KE_PG_URL}'` (single quotes: the CLI expands it, so the password is not in the
process list) or taken from the config's storage.postgres.url with `--to postgres`.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from knowledge_engine.cli.common import (
    AgentOpt,
    ConfigOpt,
    JsonOpt,
    agent_of,
    fail,
    load_cfg,
    print_json,
    progress,
    say,
    table,
)
from knowledge_engine.config import EngineConfig

if TYPE_CHECKING:
    from knowledge_engine.transfer import FileSide, PgSide

_ENV = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_SCHEMES = ("postgres://", "postgresql://")
_FROM_CONFIG = ("postgres", "postgresql")
WHERE_HELP = (
    "A workspace folder, a postgres:// URL (or '${ENV}' holding one), or `postgres` for the config's "
    "storage.postgres.url."
)


def _expand(value: str) -> str:
    def repl(m: re.Match[str]) -> str:
        if m.group(1) not in os.environ:
            fail(f"environment variable ${{{m.group(1)}}} is not set", 2)
        return os.environ[m.group(1)]

    return _ENV.sub(repl, value)


def _url(value: str, cfg: EngineConfig) -> str | None:
    """The PostgreSQL URL `value` names, or None for a folder."""
    if value.strip().lower() in _FROM_CONFIG:
        if not cfg.storage.postgres.url:
            fail(
                f"`{value}` takes the URL from the config's storage.postgres.url, which is empty "
                "(give --config)"
            )
        return cfg.storage.postgres.url
    expanded = _expand(value)
    return expanded if expanded.startswith(_SCHEMES) else None


def _side(value: str, cfg: EngineConfig, agent: str) -> FileSide | PgSide:
    from knowledge_engine.transfer import FileSide, PgSide

    url = _url(value, cfg)
    if url is None:
        return FileSide(Path(_expand(value)).expanduser().resolve(), cfg.memory)
    pg = cfg.storage.postgres.model_copy(update={"url": url})
    return PgSide(pg, agent, cfg.memory)


def _agent(from_: str, to: str, cfg: EngineConfig, agent: str | None) -> str:
    """--agent, else the folder's agent (the one its Chroma index names), else `default`."""
    folder = next((v for v in (from_, to) if _url(v, cfg) is None), None)
    if folder is None:
        from knowledge_engine.store.workspace import safe_agent_id

        return safe_agent_id(agent)
    return agent_of(Path(_expand(folder)).expanduser().resolve(), cfg, agent)


def migrate(
    from_: Annotated[str, typer.Option("--from", help=f"Where the workspace is now. {WHERE_HELP}")],
    to: Annotated[str, typer.Option("--to", help=f"Where it goes. {WHERE_HELP}")],
    config: ConfigOpt = None,
    agent: AgentOpt = None,
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="Replace what the target holds for this agent (else a non-empty target is refused).",
        ),
    ] = False,
    json: JsonOpt = False,
) -> None:
    """Copy a workspace between a folder and PostgreSQL (either way): facts with their history and
    evidence, entities with aliases, messages, deletion markers, quarantined records, applied-message
    keys and maintenance run records. The source is not changed; run it again with --force to redo it."""
    import psycopg

    from knowledge_engine.store.messages import MessageLogError
    from knowledge_engine.store.persistence import StoreUnreadableError
    from knowledge_engine.store.postgres.connect import StoreDatabaseError, describe
    from knowledge_engine.store.postgres.schema import SchemaTooNewError
    from knowledge_engine.transfer import FileSide, TransferError, copy, count_work

    cfg = load_cfg(config)
    who = _agent(from_, to, cfg, agent)
    source, target = _side(from_, cfg, who), _side(to, cfg, who)
    if isinstance(source, FileSide) == isinstance(target, FileSide):
        fail("one side must be a workspace folder and the other PostgreSQL")
    if isinstance(source, FileSide) and not source.folder.is_dir():
        fail(f"workspace {source.folder} does not exist")
    try:
        content, total = count_work(source)
        with progress(f"migrating to {target.describe()}", total, quiet=json) as bar:
            summary = copy(source, target, force, bar.advance, content)
    except TransferError as exc:
        fail(str(exc))
    except (StoreDatabaseError, SchemaTooNewError, MessageLogError, StoreUnreadableError) as exc:
        fail(str(exc), 4)
    except psycopg.Error as exc:  # its text may quote stored values: the class and the server only
        fail(
            f"the PostgreSQL store at {describe(pg_url(source, target))} refused the copy: "
            f"{type(exc).__name__}",
            4,
        )
    _show(summary.to_dict(), json)


def pg_url(*sides: FileSide | PgSide) -> str:
    from knowledge_engine.transfer import PgSide

    return next((s.cfg.url for s in sides if isinstance(s, PgSide)), "")


def _show(data: dict[str, Any], json: bool) -> None:
    if json:
        print_json(data)
        return
    table("migrated", ["what", "count"], [[k, v] for k, v in data["counts"].items()])
    say("copied from ", (data["from"], "bold"), " to ", (data["to"], "bold"))
