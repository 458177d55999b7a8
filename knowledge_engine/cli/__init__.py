"""The command line.

One module per command group, all under `knowledge-engine` (typer), tables for people, `--json` for scripts.
"""
