"""host/capture.py: hook payloads -> messages, for the fields the 2026.9 gateway does and does not send."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from knowledge_engine.host.capture import outbound_message

CTX = {"sessionKey": "s"}


def test_a_sent_reply_keeps_the_timestamp_its_host_gives() -> None:
    when = datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)
    ms = int(when.timestamp() * 1000)
    event = {"content": "Noted.", "success": True, "messageId": "m-1", "timestamp": ms}
    msg = outbound_message(event, CTX)
    assert msg is not None
    assert msg.timestamp == when


def test_a_sent_reply_without_a_timestamp_is_dated_now() -> None:
    # the real gateway's message_sent payload has no timestamp key
    msg = outbound_message({"content": "Noted.", "success": True, "messageId": "m-2"}, CTX)
    assert msg is not None
    assert abs(msg.timestamp - datetime.now(UTC)) < timedelta(minutes=5)


def test_a_sent_reply_with_a_sender_name_keeps_it() -> None:
    # hosts that relay a second person through message_sent (and the LoCoMo bench) name the sender
    sent = {"content": "Sounds good.", "success": True}
    msg = outbound_message({**sent, "messageId": "m-3", "metadata": {"senderName": "Melanie"}}, CTX)
    assert msg is not None
    assert (msg.speaker, msg.role) == ("Melanie", "assistant")
    plain = outbound_message({**sent, "messageId": "m-4"}, CTX)
    assert plain is not None and plain.speaker == "assistant"
