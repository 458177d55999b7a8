"""The `knowledge-engine` command line: inspect, edit and maintain a workspace offline."""

from __future__ import annotations

import logging
import sys

import typer

from knowledge_engine.cli import demo as demo_mod
from knowledge_engine.cli import ingest as ingest_mod
from knowledge_engine.cli import inspect as inspect_mod

app = typer.Typer(
    name="knowledge-engine",
    help="Inspect, search, correct and maintain what an agent knows. Every command takes --workspace DIR "
    "(or --config FILE --agent ID) and --json.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
)
app.command()(inspect_mod.stats)
app.command()(inspect_mod.entities)
app.command()(inspect_mod.facts)
app.command()(ingest_mod.ingest)
app.command()(demo_mod.demo)


def main() -> None:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    app()


if __name__ == "__main__":
    main()
