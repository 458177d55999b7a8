"""End to end through the real OpenClaw gateway (issue 12 section 4).

One gateway for the module (tests/fixtures/openclaw.py): our plugin installed with the documented commands,
the sidecar spawned by it, a loopback OpenAI-compatible model server that records every request. Turns go
through the three ways a conversation reaches an agent: `openclaw agent` (CLI), `chat.send` (webchat) and the
A2A JSON-RPC endpoint. The model is told to state a fact of its own, so the assistant's side is checked as
well as the user's: both must end up in the agent's workspace files, and the system prompt the model receives
in a later turn must carry the injected knowledge block with them. Then faults: the sidecar SIGKILLed
mid-session, `plugins reload`, and gateway SIGTERM. Tests run in file order and share the gateway; the last
one stops it.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.openclaw import (
    Gateway,
    engine_test_config,
    has_fact,
    has_message,
    running_gateway,
    stored_messages,
    unavailable_reason,
    wait_for,
)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]


def _engine_config(root: Path) -> dict[str, Any]:
    """The test engine with embeddings on, as users run it: the local model and an embedded Chroma index."""
    return {**engine_test_config(root), "embeddings": {"enabled": True}}


@pytest.fixture(scope="module")
def openclaw_gateway() -> Iterator[Gateway]:
    """This module's gateway (the shared fixture's, with embeddings on)."""
    reason = unavailable_reason()
    if reason is not None:
        pytest.skip(reason)
    with running_gateway(engine_config=_engine_config) as gw:
        yield gw


STORE_TIMEOUT_S = 180.0  # extraction runs on a worker behind the hook; two shared cores can be busy
BEGIN, END = "<<<knowledge-engine:BEGIN", "<<<knowledge-engine:END"


def injected_block(system_prompt: str) -> str | None:
    """The knowledge block inside a system prompt (None when absent)."""
    start = system_prompt.find(BEGIN)
    if start < 0:
        return None
    end = system_prompt.find(END, start)
    return system_prompt[start : end if end >= 0 else len(system_prompt)]


def wait_stored(gw: Gateway, facts: list[tuple[str, str]], messages: list[tuple[str, str]]) -> None:
    """Wait until every (subject, object) fact and every (role, text) message is in the agent's workspace."""
    ws = gw.ke_workspace

    def missing() -> list[str]:
        out = [f"fact {s} -> {o}" for s, o in facts if not has_fact(ws, s, o)]
        return out + [f"{role} message" for role, text in messages if not has_message(ws, role, text)]

    try:
        wait_for("facts and messages in the workspace", lambda: not missing(), STORE_TIMEOUT_S, 0.5)
    except TimeoutError:
        folders = sorted(str(p.relative_to(gw.root)) for p in gw.root.rglob("messages.sqlite3"))
        pytest.fail(
            f"missing in {ws}: {missing()}; message logs in the scratch folder: {folders}\n{gw.tail()}"
        )


def assert_stored_once(gw: Gateway, messages: list[tuple[str, str]]) -> None:
    """Each (role, text) is in the message log exactly once (a turn is seen by several hooks)."""
    stored = stored_messages(gw.ke_workspace)
    counts = {f"{role}: {text}": sum(r == role and text in t for r, t in stored) for role, text in messages}
    assert all(c == 1 for c in counts.values()), f"messages not stored exactly once: {counts}"


def block_seen_by_model(gw: Gateway, marker: str) -> str:
    """The knowledge block in the system prompt of the model request for the turn tagged `marker`."""
    requests = gw.llm.requests_with(marker)
    assert requests, f"the model server got no request for the turn {marker}"
    block = injected_block(requests[-1].system_prompt)
    assert block is not None, f"no knowledge block in the system prompt of turn {marker}"
    return block


def test_agent_cli_turns_store_both_sides_and_inject_them(openclaw_gateway: Gateway) -> None:
    gw = openclaw_gateway
    gw.llm.reply_when("KE-CLI-1", "Good to know. By the way, Rafael Ortiz works at Quantix Labs in Oslo.")
    reply = gw.agent_turn("agent:main:cli-1", "Maya works at Helix Robotics in Berlin. KE-CLI-1")
    assert "Rafael Ortiz" in reply

    wait_stored(
        gw,
        facts=[("Maya", "Helix Robotics"), ("Rafael Ortiz", "Quantix Labs")],
        messages=[
            ("user", "Maya works at Helix Robotics"),
            ("assistant", "Rafael Ortiz works at Quantix Labs"),
        ],
    )
    gw.agent_turn("agent:main:cli-2", "Where do Maya and Rafael Ortiz work? KE-CLI-2")
    block = block_seen_by_model(gw, "KE-CLI-2")
    assert "Helix Robotics" in block  # from the user's earlier message
    assert "Quantix Labs" in block  # from the assistant's earlier reply
    assert_stored_once(gw, [("user", "Maya works at Helix"), ("assistant", "Rafael Ortiz works at")])


def test_webchat_chat_send_stores_both_sides_and_injects_them(openclaw_gateway: Gateway) -> None:
    gw = openclaw_gateway
    gw.llm.reply_when("KE-WEB-1", "Noted. Also, Ines Duarte lives in Porto.")
    run = gw.chat_send("agent:main:web-1", "Tomas Berg works at Nordwind Energy. KE-WEB-1", "ke-web-1")
    assert "Ines Duarte" in gw.wait_run(run)

    wait_stored(
        gw,
        facts=[("Tomas Berg", "Nordwind Energy"), ("Ines Duarte", "Porto")],
        messages=[
            ("user", "Tomas Berg works at Nordwind Energy"),
            ("assistant", "Ines Duarte lives in Porto"),
        ],
    )
    run = gw.chat_send(
        "agent:main:web-2", "What do you know about Tomas Berg and Ines Duarte? KE-WEB-2", "ke-web-2"
    )
    gw.wait_run(run)
    block = block_seen_by_model(gw, "KE-WEB-2")
    assert "Nordwind Energy" in block
    assert "Porto" in block
    assert_stored_once(gw, [("user", "Tomas Berg works at"), ("assistant", "Ines Duarte lives in")])


def test_a2a_turns_store_both_sides_and_inject_them(openclaw_gateway: Gateway) -> None:
    gw = openclaw_gateway
    gw.llm.reply_when("KE-A2A-1", "Thanks. Lena Vogel works at Orbital Freight.")
    reply = gw.a2a_send("ke-ctx-1", "ke-a2a-1", "Jonas Weber works at Kestrel Systems. KE-A2A-1")
    assert "Lena Vogel" in reply

    wait_stored(
        gw,
        facts=[("Jonas Weber", "Kestrel Systems"), ("Lena Vogel", "Orbital Freight")],
        messages=[
            ("user", "Jonas Weber works at Kestrel Systems"),
            ("assistant", "Lena Vogel works at Orbital"),
        ],
    )
    gw.a2a_send("ke-ctx-1", "ke-a2a-2", "Where do Jonas Weber and Lena Vogel work? KE-A2A-2")
    block = block_seen_by_model(gw, "KE-A2A-2")
    assert "Kestrel Systems" in block
    assert "Orbital Freight" in block
    assert_stored_once(gw, [("user", "Jonas Weber works at"), ("assistant", "Lena Vogel works at")])


def test_a_turn_is_recalled_by_meaning_on_a_later_turn(openclaw_gateway: Gateway) -> None:
    """The question shares no word with the earlier turn, so only the vector arm can find it, and no sync runs
    in between (the scheduled one is every 15 minutes): the live indexer (index/live.py) must have put it in
    the index. Asked again until the block holds it: indexing runs moments after the turn is stored."""
    gw = openclaw_gateway
    said = "We finally adopted a beagle puppy called Biscuit"
    # Markers share no word with each other either (a shared "KE" would let the keyword arm find the turn).
    gw.llm.reply_when("MEANX1", "Lovely, congratulations on the new family member.")
    gw.agent_turn("agent:main:mean-1", f"{said}. MEANX1")
    wait_stored(gw, facts=[], messages=[("user", said)])
    asked: list[str] = []

    def recalled() -> bool:
        marker = f"PETQ{len(asked)}"
        asked.append(marker)
        gw.agent_turn("agent:main:mean-2", f"Do I have any pets? {marker}")
        return said in block_seen_by_model(gw, marker)

    try:
        wait_for("the earlier turn in the block", recalled, STORE_TIMEOUT_S, 1.0)
    except TimeoutError:
        pytest.fail(f"not recalled after {len(asked)} turns\n{gw.tail()}")


def test_sidecar_killed_mid_session_loses_nothing(openclaw_gateway: Gateway) -> None:
    gw = openclaw_gateway
    before = gw.wait_sidecar()
    session = "agent:main:kill-1"
    gw.llm.reply_when("KE-KILL-1", "Understood. Carla Mendes works at Lumen Bank.")
    gw.llm.reply_when("KE-KILL-2", "Understood. Pavel Novak lives in Brno.")
    gw.llm.reply_when("KE-KILL-3", "Understood. Hana Ito works at Seiko Labs.")

    gw.wait_run(gw.chat_send(session, "Olga Petrova works at Arctic Mining. KE-KILL-1", "ke-kill-1"))
    wait_stored(gw, [("Olga Petrova", "Arctic Mining")], [("user", "Olga Petrova works at Arctic Mining")])
    # The second turn's hooks are acknowledged (or still in flight) when the sidecar dies.
    gw.wait_run(gw.chat_send(session, "Bruno Costa lives in Recife. KE-KILL-2", "ke-kill-2"))
    os.kill(int(before["pid"]), signal.SIGKILL)
    # A turn while the sidecar is down or restarting still answers.
    reply = gw.wait_run(gw.chat_send(session, "Dmitri Volkov works at Baltic Rail. KE-KILL-3", "ke-kill-3"))
    assert "Hana Ito" in reply

    after = gw.wait_sidecar(not_pid=int(before["pid"]))
    assert after["pid"] != before["pid"]
    wait_stored(
        gw,
        facts=[
            ("Bruno Costa", "Recife"),
            ("Dmitri Volkov", "Baltic Rail"),
            ("Carla Mendes", "Lumen Bank"),
            ("Pavel Novak", "Brno"),
            ("Hana Ito", "Seiko Labs"),
        ],
        messages=[
            ("user", "Bruno Costa lives in Recife"),
            ("user", "Dmitri Volkov works at Baltic Rail"),
            ("assistant", "Carla Mendes works at Lumen Bank"),
            ("assistant", "Pavel Novak lives in Brno"),
            ("assistant", "Hana Ito works at Seiko Labs"),
        ],
    )
    # Stored once each: the replayed journal, the plugin's redelivered buffer and later agent_end histories
    # (which repeat every earlier turn of the session) must not add a second copy.
    assert_stored_once(
        gw,
        [
            ("user", "Olga Petrova works at"),
            ("user", "Bruno Costa lives in"),
            ("user", "Dmitri Volkov works"),
            ("assistant", "Carla Mendes works"),
            ("assistant", "Pavel Novak lives"),
            ("assistant", "Hana Ito works"),
        ],
    )


def test_plugins_reload_loses_no_message(openclaw_gateway: Gateway) -> None:
    gw = openclaw_gateway
    before = gw.wait_sidecar()
    gw.llm.reply_when("KE-RELOAD-1", "Right. Marta Silva works at Tejo Ports.")
    gw.llm.reply_when("KE-RELOAD-2", "Right. Omar Haddad lives in Amman.")
    run1 = gw.chat_send(
        "agent:main:reload-1", "Yusuf Demir works at Anadolu Steel. KE-RELOAD-1", "ke-reload-1"
    )
    gw.cli("plugins", "reload", "knowledge-engine")  # while the first turn may still be running
    run2 = gw.chat_send("agent:main:reload-2", "Sofia Rossi lives in Torino. KE-RELOAD-2", "ke-reload-2")
    assert "Marta Silva" in gw.wait_run(run1)
    assert "Omar Haddad" in gw.wait_run(run2)

    gw.wait_sidecar(not_pid=int(before["pid"]))  # the replacement stopped the old sidecar and started one
    wait_stored(
        gw,
        facts=[
            ("Yusuf Demir", "Anadolu Steel"),
            ("Marta Silva", "Tejo Ports"),
            ("Sofia Rossi", "Torino"),
            ("Omar Haddad", "Amman"),
        ],
        messages=[
            ("user", "Yusuf Demir works at Anadolu Steel"),
            ("assistant", "Marta Silva works at Tejo"),
            ("user", "Sofia Rossi lives in Torino"),
            ("assistant", "Omar Haddad lives in Amman"),
        ],
    )


def test_gateway_sigterm_flushes_the_workspace(openclaw_gateway: Gateway) -> None:
    """Last test: it stops the module's gateway. The facts must be on disk once the sidecar has exited."""
    gw = openclaw_gateway
    sidecar_pid = int(gw.wait_sidecar()["pid"])
    gw.llm.reply_when("KE-TERM-1", "Okay. Ayla Kaya works at Bosphorus Media.")
    assert "Ayla Kaya" in gw.a2a_send("ke-ctx-term", "ke-term-1", "Emre Aksoy lives in Izmir. KE-TERM-1")

    t0 = time.monotonic()
    gw.stop(timeout_s=120)
    wait_for("the sidecar to exit", lambda: not _alive(sidecar_pid), 60)
    elapsed = time.monotonic() - t0
    ws = gw.ke_workspace  # checked once, without waiting: the flush must be complete by now
    missing = [
        what
        for what, ok in [
            ("fact Emre Aksoy -> Izmir", has_fact(ws, "Emre Aksoy", "Izmir")),
            ("fact Ayla Kaya -> Bosphorus Media", has_fact(ws, "Ayla Kaya", "Bosphorus Media")),
            ("user message", has_message(ws, "user", "Emre Aksoy lives in Izmir")),
            ("assistant message", has_message(ws, "assistant", "Ayla Kaya works at Bosphorus Media")),
        ]
        if not ok
    ]
    assert not missing, f"not on disk {elapsed:.1f} s after SIGTERM: {missing}\n{gw.tail()}"
    out = gw.out_path.read_text(errors="replace")
    assert '"type":"sidecar.stopped","drained":true' in out, (
        "the sidecar did not drain within its stop budget"
    )


def _alive(pid: int) -> bool:
    """The process exists and is not a zombie (an exited child nobody has reaped yet)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"
