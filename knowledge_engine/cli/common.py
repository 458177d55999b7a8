"""Shared CLI plumbing: options, resolving the workspace, printing tables or JSON."""

from __future__ import annotations

import contextlib
import re
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import orjson
import typer
from rich import box
from rich.cells import cell_len
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from knowledge_engine.config import ConfigError, EngineConfig, load_config, load_config_file
from knowledge_engine.store.messages import MESSAGES_FILE

if TYPE_CHECKING:
    from knowledge_engine.store.workspace import Workspace

# Stored text (messages, names, facts, paths) is data, never rich markup or emoji codes: a message with
# "[/]" must not crash a listing, "[link=...]" must not become a hyperlink. Emphasis is added with styled
# `Text` parts (see `say`), so the consoles themselves interpret nothing.
console = Console(markup=False, emoji=False, highlight=False)
err_console = Console(stderr=True, markup=False, emoji=False, highlight=False)
# all control characters but tab and newline, and the bidi embeddings, overrides and isolates, which
# reorder what follows them on the line (a speaker named "Eve\u202e" would flip the rest of its row)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# `ingest` and `import` did their work but skipped some lines: a script must not take that for success
EXIT_SKIPPED = 3
# Columns whose values are identifiers or single words (ids, predicates, types, numbers): never broken
# inside a word; the others (names, message text, ...) wrap at spaces.
KEY_COLUMNS = frozenset(
    {"id", "predicate", "type", "tier", "role", "kind", "conf", "rel", "score", "count", "time", "session",
     "last seen", "what", "job", "status", "ms", "changed", "embedded", "updated", "deleted", "unchanged",
     "fixable", "severity", "superseded by"}
)  # fmt: skip

WorkspaceOpt = Annotated[
    Path | None, typer.Option("--workspace", "-w", help="Workspace folder of one agent.", show_default=False)
]
ConfigOpt = Annotated[
    Path | None,
    typer.Option("--config", "-c", help="JSON config file (as config.example.json).", show_default=False),
]
AgentOpt = Annotated[
    str | None,
    typer.Option("--agent", help="Agent id; with --config, resolves the workspace like the plugin."),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for scripts instead of a table.")]


def plain(value: Any) -> Text:
    """Stored data as literal text: no markup, no emoji codes, control characters shown as \\xNN and
    bidi controls as \\uNNNN (an escape sequence in a message must not drive the terminal)."""
    s = "" if value is None else str(value)
    return Text(_CONTROL.sub(_escaped, s))


def _escaped(m: re.Match[str]) -> str:
    code = ord(m.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def counted(n: int, one: str, many: str = "") -> str:
    """'1 fact', '3 facts' for titles and summaries ("1 entities" read as a slip)."""
    return f"{n} {one if n == 1 else many or one + 's'}"


def say(*parts: Any, err: bool = False) -> None:
    """Print one line made of parts: a `(text, style)` pair is the program's own emphasis, anything
    else is printed literally (see `plain`)."""
    line = Text()
    for p in parts:
        if isinstance(p, tuple):
            part = plain(p[0])
            part.stylize(p[1])
            line.append_text(part)
        else:
            line.append_text(plain(p))
    (err_console if err else console).print(line, soft_wrap=True)  # a long path stays one line


def fail(message: str, code: int = 1) -> NoReturn:
    err_console.print(Text.assemble(("error:", "bold red"), " ", plain(message)), soft_wrap=True)
    raise typer.Exit(code)


def fail_if_unwritten(ws: Workspace, folder: Path, consequence: str) -> None:
    """The store's last write failed too (a success resets `flush_errors`): say what is not on disk,
    or the user believes a result that is lost."""
    if ws.flush_errors:
        fail(f"the store in {folder} could not be written (see the error above), so {consequence}")


@contextlib.contextmanager
def readable_store() -> Iterator[None]:
    """A store file the engine cannot read as its own ends the command with a clear error (exit 4)."""
    from knowledge_engine.store.persistence import StoreUnreadableError

    try:
        yield
    except StoreUnreadableError as exc:
        refuse_unreadable(exc)


def refuse_unreadable(exc: BaseException) -> NoReturn:
    fail(f"{exc}. The engine leaves it untouched: fix it, or move it away to start a new store.", 4)


def check_readable(ws: Workspace) -> None:
    """Refuse to work on a workspace whose store files are not the engine's (they are never written)."""
    for table in (ws.facts.table, ws.entities.table):
        if table.unreadable is not None:
            ws.closed = True  # no flush at exit either
            refuse_unreadable(table.unreadable)


def agent_of(folder: Path, cfg: EngineConfig, agent: str | None) -> str:
    """The workspace's agent id: --agent made folder-safe, else the id stored in its Chroma index
    (already safe: escaping it again would name other collections)."""
    from knowledge_engine.store.workspace import safe_agent_id

    return safe_agent_id(agent) if agent else infer_agent(folder, cfg)


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
        fail(f"workspace {folder} does not exist" if not folder.exists() else not_a_folder(folder))
    return folder


def workspace_folder(folder: Path) -> Path:
    """An existing folder that is a workspace, for the commands that open one. A folder of other files
    (`-w .` in a project) is a wrong path: opening it would make it owner-only and leave a store in it."""
    from knowledge_engine.store.persistence import holds_a_workspace

    existing_folder(folder)
    if not holds_a_workspace(folder):
        nested = nested_workspaces(folder)
        fail(
            f"{folder} is not a workspace: it holds other files but no facts.json or message log"
            + (
                f"; did you mean {' or '.join(nested)}?"
                if nested
                else "; name the folder that holds facts.json"
            )
        )
    return folder


STORE_FILES = ("facts.json", "entities.json", MESSAGES_FILE)


def nested_hint(folder: Path) -> str | None:
    """For a folder that holds no store file but whose subfolders do (the demo's `demo-workspace/knowledge`,
    a host's `<workspaceDir>/knowledge-engine`): a `hint` naming them, where `stats` would show only zeros."""
    if any((folder / name).exists() for name in STORE_FILES):
        return None
    nested = nested_workspaces(folder)
    return f"no workspace files in {folder}; did you mean {' or '.join(nested)}?" if nested else None


def nested_workspaces(folder: Path) -> list[str]:
    """Up to five subfolders of `folder` that hold a store file."""
    try:
        subs = sorted(p for p in folder.iterdir() if p.is_dir())
    except OSError:
        return []
    return [str(p) for p in subs if any((p / name).is_file() for name in STORE_FILES)][:5]


def node_folder(cfg: EngineConfig, workspace: Path | None, agent: str | None) -> Path:
    """The workspace folder the options name. Files: it must exist (a typo must not make an empty
    store). Shared store: the records are in the database and the folder holds only this node's
    journal and caches, so a node that has none (it never ran the engine) reads through a throwaway
    folder removed at exit, as `stats` and `validate` do; the CLI makes no folder there (one made by
    another user would lock the gateway out of that agent)."""
    import atexit
    import shutil
    import tempfile

    from knowledge_engine.store.backend import is_shared

    folder = resolve_folder(cfg, workspace, agent)
    if folder.is_dir() or folder.exists() or not is_shared(cfg.storage):
        return workspace_folder(folder)
    tmp = Path(tempfile.mkdtemp(prefix="ke-node-"))
    atexit.register(shutil.rmtree, tmp, True)
    return tmp


def not_a_folder(folder: Path) -> str:
    return f"workspace {folder} is a file, not a folder: a workspace is the folder holding facts.json"


def creatable_folder(folder: Path) -> Path:
    """For commands that create the workspace (ingest, import): a path that is a file, or a folder of
    other files, is an error."""
    if folder.exists():
        workspace_folder(folder)
    return folder


def make_folder(folder: Path) -> Path:
    """Create the workspace folder (owner-only) or end with why not: a path under a file, a read-only
    or missing place. It was a NotADirectoryError traceback from ingest, import and demo."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        fail(f"cannot create the workspace folder {folder}: {exc.strerror or type(exc).__name__}")
    return folder


def print_json(data: Any) -> None:
    sys.stdout.buffer.write(orjson.dumps(data, option=orjson.OPT_INDENT_2, default=str) + b"\n")
    sys.stdout.flush()


def print_raw_json(data: bytes) -> None:
    sys.stdout.buffer.write(data + b"\n")
    sys.stdout.flush()


def when(value: Any) -> str:
    """A time for a table cell: "2026-03-01 12:00" (UTC), short enough to stay on one line."""
    if value in (None, ""):
        return ""
    dt = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    if dt.tzinfo is not None:
        dt = dt.astimezone(UTC)
    return dt.strftime("%Y-%m-%d %H:%M")


def table(title: str, columns: list[str], rows: list[list[Any]], optional: tuple[str, ...] = ()) -> None:
    """Rows as a table of plain text; key columns (KEY_COLUMNS) never break inside a word. `optional`
    columns are left out (the caption says so) when the others could not keep their words whole."""
    cells = [[plain(v) for v in r] for r in rows]
    gap, widths = layout(columns, cells, console.width)
    dropped = []
    for name in reversed(optional):
        if _fits(columns, cells, widths):
            break
        i = columns.index(name)
        columns = columns[:i] + columns[i + 1 :]
        cells = [r[:i] + r[i + 1 :] for r in cells]
        dropped.append(name)
        gap, widths = layout(columns, cells, console.width)
    t = Table(
        title=plain(title),
        caption=plain(f"({', '.join(dropped)} left out at this width: see --json)") if dropped else None,
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        collapse_padding=True,
        padding=(0, 1) if gap == 2 else (0, 0),
    )
    for i, c in enumerate(columns):
        t.add_column(plain(c), overflow="fold", width=widths[i] if widths else None)
    for r in cells:
        t.add_row(*r)
    console.print(t)


def layout(columns: list[str], cells: list[list[Text]], total: int) -> tuple[int, list[int] | None]:
    """(gap between columns, widths or None for rich's own): key columns stay whole, text columns
    share the rest, each at least its longest word (capped) when that fits. A narrow terminal first
    costs the space between columns, then only the longest values of a key column (a URL entity id)
    are folded, then words in text columns."""
    n = len(columns)
    want = [_widest(columns[i], [r[i] for r in cells]) for i in range(n)]
    if sum(want) + 2 * (n - 1) <= total:
        return 2, None
    floor = {i: min(want[i], _longest_word(c, [r[i] for r in cells]), 24) for i, c in enumerate(columns)}
    keys = {i: want[i] for i, c in enumerate(columns) if c in KEY_COLUMNS}
    text = {i: f for i, f in floor.items() if i not in keys}
    for gap in (2, 1):
        if total - gap * (n - 1) - sum(keys.values()) >= sum(text.values()):
            break
    else:  # text columns may fold their long words (URLs) down to 12 before key columns give way
        _narrow_keys(keys, cells, total - (n - 1) - sum(min(f, 12) for f in text.values()))
    rest = total - gap * (n - 1) - sum(keys.values())
    if rest < sum(text.values()):
        if rest < 4 * len(text):
            return 1, None
        text = {i: max(4, f * rest // sum(text.values())) for i, f in text.items()}
    return gap, _share(want, keys, text, rest)


def _narrow_keys(keys: dict[int, int], cells: list[list[Text]], room: int) -> None:
    """Narrow the widest key column to its next-longest value, in turn, until the keys fit in `room`
    (the few longer values fold) or no column can narrow below 12."""
    while sum(keys.values()) > room:
        i = max(keys, key=lambda j: keys[j])
        shorter = [w for w in (cell_len(r[i].plain) for r in cells) if 12 <= w < keys[i]]
        if not shorter:
            return
        keys[i] = max(shorter)


def _fits(columns: list[str], cells: list[list[Text]], widths: list[int] | None) -> bool:
    """Whether the table fits as it is, or each text column is at least as wide as its longest word
    (capped as in `layout`)."""
    if widths is None:
        want = sum(_widest(c, [r[i] for r in cells]) for i, c in enumerate(columns))
        return want + 2 * (len(columns) - 1) <= console.width
    return all(
        widths[i] >= min(_widest(c, [r[i] for r in cells]), _longest_word(c, [r[i] for r in cells]), 24)
        for i, c in enumerate(columns)
        if c not in KEY_COLUMNS
    )


def _widest(header: str, column: list[Text]) -> int:
    return max([cell_len(header), *(cell_len(line) for c in column for line in c.plain.split("\n"))])


def _longest_word(header: str, column: list[Text]) -> int:
    words = [w for c in column for w in c.plain.split()] + header.split()
    return max((cell_len(w) for w in words), default=1)


def _share(want: list[int], keys: dict[int, int], widths: dict[int, int], room: int) -> list[int]:
    """Give the text columns' spare room, one cell at a time, to the one furthest from its want."""
    spare = room - sum(widths.values())
    while spare > 0:
        i = max(widths, key=lambda j: (want[j] - widths[j]) / want[j])
        if widths[i] >= want[i]:
            break
        widths[i] += 1
        spare -= 1
    return [keys[i] if i in keys else widths[i] for i in range(len(want))]


def open_workspace(workspace: Path | None, config: Path | None, agent: str | None) -> Workspace:
    """The existing workspace the options name (never creates one: a typo must not make an empty store)."""
    from knowledge_engine.store.workspace import Workspace

    cfg = load_cfg(config)
    folder = node_folder(cfg, workspace, agent)
    try:
        ws = Workspace(folder, cfg, agent_of(folder, cfg, agent))
    except (RuntimeError, OSError) as exc:
        open_failed(folder, cfg, exc)
    check_readable(ws)
    return ws


def open_failed(folder: Path, cfg: EngineConfig, exc: Exception) -> NoReturn:
    """A shared store that cannot be reached is main's one line and exit 4 (it names the server; the
    folder may be a throwaway one); anything else names the folder."""
    from knowledge_engine.store.backend import is_shared

    if is_shared(cfg.storage):
        from knowledge_engine.store.postgres.connect import StoreDatabaseError

        if isinstance(exc, StoreDatabaseError):
            raise exc
    fail(f"cannot open workspace {folder}: {exc}")


def infer_agent(folder: Path, cfg: EngineConfig) -> str:
    """The agent whose Chroma collections live here (read from Chroma's sqlite, without importing chromadb).

    The plugin names collections after the agent id; with only --workspace, the CLI would otherwise
    look at the `default` agent's (empty) collections.
    """
    import sqlite3

    db = folder / "chroma" / "chroma.sqlite3"
    if cfg.chroma.url or not db.exists():
        return "default"
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            rows = conn.execute(
                "SELECT m.str_value FROM collections c JOIN collection_metadata m ON m.collection_id = c.id"
                " WHERE m.key = 'agent_id' AND c.name LIKE ?",
                (f"{cfg.embeddings.collection_name}-%-facts",),
            ).fetchall()
        finally:
            conn.close()
    except sqlite3.Error:
        return "default"
    agents = {r[0] for r in rows if r[0]}
    return agents.pop() if len(agents) == 1 else "default"


def parse_time(value: str | None, option: str) -> datetime | None:
    """An ISO 8601 date or date-time; naive values are UTC."""
    if value is None:
        return None
    try:
        dt = datetime.fromisoformat(value)
    except ValueError:
        fail(f"{option} {value!r} is not an ISO 8601 date or date-time (e.g. 2026-03-01 or 2026-03-01T12:00)")
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)


def has_messages(ws: Any) -> bool:
    return bool(ws.has_message_log)


def open_engine(workspace: Path | None, config: Path | None, agent: str | None) -> tuple[Any, Any]:
    """(KnowledgeEngine, Workspace) for commands that need Chroma, the embedder or the retriever."""
    from knowledge_engine.engine import KnowledgeEngine

    cfg = load_cfg(config)
    folder = node_folder(cfg, workspace, agent)
    engine = KnowledgeEngine(cfg, ingest_owner=False)  # a host may be running on this workspace
    try:
        ws = engine.open_workspace(folder, agent_of(folder, cfg, agent))
    except (RuntimeError, OSError) as exc:
        open_failed(folder, cfg, exc)
    check_readable(ws)
    return engine, ws


class ProgressTask:
    """The one task of a `progress` bar; every method is a no-op when the bar is off."""

    def __init__(self, bar: Progress | None, label: str, total: int | None) -> None:
        self._bar = bar
        self._task = bar.add_task(label, total=total) if bar is not None else None

    @property
    def shown(self) -> bool:
        return self._bar is not None

    def advance(self, n: int = 1) -> None:
        if self._bar is not None and self._task is not None:
            self._bar.advance(self._task, n)

    def update(self, done: int, total: int | None = None) -> None:
        """Absolute position (and the total, once known): fits `progress(done, total)` callbacks."""
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, completed=done, total=total)

    def phase(self, label: str) -> None:
        """What is happening now, e.g. "loading the embedding model" before the count is known."""
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, description=label)


def progress_shown(quiet: bool) -> bool:
    """A bar is drawn only on an interactive stderr and never with --json (scripts read clean streams)."""
    return not quiet and err_console.is_terminal


@contextlib.contextmanager
def progress(label: str, total: int | None = None, *, quiet: bool = False) -> Iterator[ProgressTask]:
    """A progress bar on stderr for long work: spinner, label, bar, done/total, elapsed, time left.

    Nothing is drawn (and nothing costs) when `quiet` (--json) or stderr is not a terminal. Without
    a total the bar pulses until `update(done, total)` gives one.
    """
    if not progress_shown(quiet):
        yield ProgressTask(None, label, total)
        return
    bar = Progress(
        SpinnerColumn(),
        TextColumn("{task.description}", markup=False),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err_console,
    )
    task = ProgressTask(bar, label, total)  # before start: the first frame already has the label
    with bar:
        yield task
