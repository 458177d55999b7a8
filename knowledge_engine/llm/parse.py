"""Defensive parsing of what an LLM server sends back.

Two layers: `check_body` looks at the HTTP body (error objects, truncation, the wire
format of each API) and yields the model's content string; `parse_output` turns that
content into an `LlmOutput`, repairing the usual damage (markdown fences, a `response`
wrapper, invalid escapes, trailing garbage) and validating items one by one so one bad
fact never costs the whole batch.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import ValidationError

from knowledge_engine.llm.errors import LlmBadOutput, LlmHttpError, LlmTruncated
from knowledge_engine.llm.schema import LlmEntity, LlmFact, LlmFactById, LlmOutput
from knowledge_engine.observe import counters, emit

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)
_BAD_ESCAPE = re.compile(r'\\(?!["\\/bfnrtu])|\\u(?![0-9a-fA-F]{4})')
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


def load_body(raw: bytes) -> list[dict[str, Any]]:
    """The body as JSON objects: one for stream:false, several if a server streamed NDJSON anyway."""
    try:
        obj = json.loads(raw)
    except RecursionError:
        raise LlmBadOutput("body nested too deeply") from None
    except ValueError:
        objs: list[dict[str, Any]] = []
        for line in raw.splitlines():
            if line.strip():
                try:
                    item = json.loads(line)
                except ValueError:
                    raise LlmBadOutput("body is not JSON") from None
                if isinstance(item, dict):
                    objs.append(item)
        if not objs:
            raise LlmBadOutput("empty body") from None
        return objs
    if not isinstance(obj, dict):
        raise LlmBadOutput("body is not a JSON object")
    return [obj]


def raise_for_error(obj: dict[str, Any], status: int) -> None:
    """`{"error": "..."}` (Ollama, any status) or `{"error": {"message": ...}}` (OpenAI)."""
    err = obj.get("error")
    if err:
        msg = err.get("message") if isinstance(err, dict) else err
        raise LlmHttpError(f"server error: {str(msg)[:200]}", status=status)


def ollama_content(objs: list[dict[str, Any]], status: int, *, generate: bool) -> str:
    """Concatenate `message.content` (chat) or `response` (generate); check done_reason."""
    parts: list[str] = []
    done_reason = None
    for obj in objs:
        raise_for_error(obj, status)
        if generate:
            piece = obj.get("response")
        else:
            msg = obj.get("message")
            piece = msg.get("content") if isinstance(msg, dict) else None
        if isinstance(piece, str):
            parts.append(piece)
        if obj.get("done_reason"):
            done_reason = obj["done_reason"]
    if done_reason == "length":
        raise LlmTruncated("done_reason=length")
    text = "".join(parts)
    if not text.strip():
        raise LlmBadOutput("empty content")
    return text


def openai_content(obj: dict[str, Any], status: int) -> str:
    raise_for_error(obj, status)
    choices = obj.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise LlmBadOutput("no choices")
    choice = choices[0]
    if choice.get("finish_reason") == "length":
        raise LlmTruncated("finish_reason=length")
    msg = choice.get("message")
    content = msg.get("content") if isinstance(msg, dict) else None
    if not isinstance(content, str) or not content.strip():
        raise LlmBadOutput("empty content")
    return content


def _decode_first_object(text: str) -> Any:
    """Decode the first JSON value starting at the first `{`, ignoring anything after it."""
    start = text.find("{")
    if start < 0:
        raise ValueError("no JSON object")
    try:
        value, _end = json.JSONDecoder(strict=False).raw_decode(text, start)
    except RecursionError:  # absurdly deep nesting: bad output, not a crash
        raise ValueError("JSON nested too deeply") from None
    return value


def _repairs(text: str) -> list[str]:
    fenced = _FENCE.search(text)
    base = fenced.group(1) if fenced else text
    fixed = _TRAILING_COMMA.sub(r"\1", _BAD_ESCAPE.sub(r"\\\\", base))
    return [base, fixed] if fixed != base else [base]


def decode_json(text: str) -> dict[str, Any]:
    """The model's content as a dict, after fences, repairs and an optional `response` wrapper."""
    last_error: Exception | None = None
    for candidate in _repairs(text):
        try:
            value = _decode_first_object(candidate)
        except ValueError as exc:
            last_error = exc
            continue
        if candidate is not text:
            counters.inc("llm.repaired_output")
        if isinstance(value, dict) and isinstance(value.get("response"), str) and "facts" not in value:
            return decode_json(value["response"])
        if isinstance(value, dict):
            return value
        last_error = ValueError("top level is not an object")
    raise LlmBadOutput(f"content is not JSON ({type(last_error).__name__})")


def _items(data: dict[str, Any], key: str) -> list[Any]:
    value = data.get(key)
    if value is None:
        return []
    if isinstance(value, list):
        return value
    counters.inc("llm.invalid_items")
    return []


def parse_output(text: str) -> LlmOutput:
    """Validate every entity and fact on its own; invalid ones are dropped and counted."""
    data = decode_json(text)
    if "entities" not in data and "facts" not in data:
        raise LlmBadOutput("neither entities nor facts in the output")
    entities: list[LlmEntity] = []
    facts: list[LlmFact] = []
    invalid = 0
    for raw in _items(data, "entities"):
        try:
            entities.append(LlmEntity.model_validate(raw))
        except ValidationError:
            invalid += 1
    for raw in _items(data, "facts"):
        fact = _validate_fact(raw)
        if fact is None:
            invalid += 1
        else:
            facts.append(fact)
    if invalid:
        counters.inc("llm.invalid_items", invalid)
        emit("llm.invalid_items", count=invalid, kept_facts=len(facts), kept_entities=len(entities))
    return LlmOutput(entities=entities, facts=facts)


def _validate_fact(raw: Any) -> LlmFact | None:
    try:
        return LlmFact.model_validate(raw)
    except ValidationError:
        pass
    try:
        fact = LlmFactById.model_validate(raw)
    except ValidationError:
        return None
    return fact if fact.message_id else None
