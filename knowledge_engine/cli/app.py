"""The `knowledge-engine` command line: inspect, edit and maintain a workspace offline.

Command modules are imported lazily by the functions they register, so `stats` and the list
commands start without loading spaCy, chromadb or an embedding model.
"""

from __future__ import annotations

import importlib.util
import logging
import sys
from typing import Annotated

import typer

from knowledge_engine.cli import demo as demo_mod
from knowledge_engine.cli import edit as edit_mod
from knowledge_engine.cli import export as export_mod
from knowledge_engine.cli import forget as forget_mod
from knowledge_engine.cli import ingest as ingest_mod
from knowledge_engine.cli import inspect as inspect_mod
from knowledge_engine.cli import migrate as migrate_mod
from knowledge_engine.cli import search as search_mod
from knowledge_engine.cli import serve as serve_mod
from knowledge_engine.cli import show as show_mod
from knowledge_engine.cli import sync as sync_mod
from knowledge_engine.cli import validate as validate_mod

app = typer.Typer(
    name="knowledge-engine",
    help="See, search, correct, export and maintain what an agent knows, offline. Every command takes "
    "--workspace DIR (or --config FILE --agent ID, resolved like the plugin does) and most take --json.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _print_version(value: bool) -> None:
    if value:
        from knowledge_engine import __version__

        typer.echo(f"knowledge-engine {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit."),
    ] = False,
) -> None:
    pass


app.command(rich_help_panel="Inspect")(inspect_mod.stats)
app.command(rich_help_panel="Inspect")(inspect_mod.entities)
app.command(rich_help_panel="Inspect")(inspect_mod.facts)
app.command(rich_help_panel="Inspect")(inspect_mod.messages)
app.command(rich_help_panel="Inspect")(show_mod.show)
app.command(rich_help_panel="Inspect")(search_mod.search)
app.command(rich_help_panel="Inspect")(search_mod.context)
app.command(rich_help_panel="Change")(forget_mod.forget)
app.command(rich_help_panel="Change")(edit_mod.edit)
app.command(rich_help_panel="Change")(ingest_mod.ingest)
app.command(rich_help_panel="Export")(export_mod.export)
app.command("import", rich_help_panel="Export")(export_mod.import_)
app.command(rich_help_panel="Maintain")(validate_mod.validate)
app.command(rich_help_panel="Maintain")(sync_mod.sync)
app.command(rich_help_panel="Maintain")(migrate_mod.migrate)
app.add_typer(sync_mod.docs_app, name="docs", rich_help_panel="Maintain")
app.command(rich_help_panel="Try it")(demo_mod.demo)
app.command(rich_help_panel="Serve")(serve_mod.serve)


def _register_maintenance() -> None:
    """decay/prune/compact/maintain come from the maintenance module when it is installed."""
    if importlib.util.find_spec("knowledge_engine.cli.maintain") is not None:
        maintain_mod = importlib.import_module("knowledge_engine.cli.maintain")
        register = getattr(maintain_mod, "register", None)
        if callable(register):
            register(app)


_register_maintenance()


def main() -> None:
    logging.basicConfig(
        level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr
    )
    try:
        app()
    except Exception as exc:
        _store_unreachable(exc)
        _message_log_unusable(exc)
        raise


def _store_unreachable(exc: Exception) -> None:
    """A shared store that cannot be reached is one error line and exit 4 (as `migrate`), not a traceback."""
    from knowledge_engine.cli.common import say
    from knowledge_engine.store.postgres.connect import StoreDatabaseError

    if isinstance(exc, StoreDatabaseError):
        say(("error:", "bold red"), f" {exc}; is the server up, and storage.postgres.url right?", err=True)
        sys.exit(4)


def _message_log_unusable(exc: Exception) -> None:
    """A message log that cannot be opened (not a database, a newer schema, a read-only folder) is one
    error line with what to do and exit 4, as a store file that is not the engine's, not a traceback."""
    import errno
    import os

    from knowledge_engine.cli.common import say
    from knowledge_engine.store.messages import MessageLogError

    if not isinstance(exc, MessageLogError):
        return
    if str(exc).endswith((os.strerror(errno.EROFS), os.strerror(errno.EACCES))):
        hint = (
            "this command writes to the workspace, which cannot be written here (stats, messages,"
            " search and show can still read it): work on a writable copy (cp -a)"
        )
    else:
        hint = "the engine leaves it untouched: fix it, or move it away to start a new message log"
    say(("error:", "bold red"), f" {exc}; {hint}", err=True)
    sys.exit(4)


if __name__ == "__main__":
    main()
