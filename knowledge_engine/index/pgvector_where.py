"""Chroma `where` filters as SQL over a jsonb metadata column (the pgvector index's filters).

Why a translation and not filtering in Python: pgvector's iterative HNSW scan applies the WHERE
while it walks the graph, so a filtered query still returns k rows. Only the subset of Chroma's
syntax the engine uses is accepted (equality, $eq $ne $gt $gte $lt $lte $in $nin, $and, $or);
anything else is an UnsupportedFilterError, never a silently different result. Semantics follow
`index.chroma.matches`: $ne and $nin match only records that have the key, ordered comparisons
take numbers only, and a record whose value has another type does not match. Keys and values are
always parameters, never SQL text.
"""

from __future__ import annotations

from typing import Any

from psycopg import sql
from psycopg.types.json import Jsonb

_ORDERED = {"$gt": ">", "$gte": ">=", "$lt": "<", "$lte": "<="}
_SCALAR = (str, int, float, bool)


class UnsupportedFilterError(ValueError):
    """A `where` filter outside the subset the pgvector index translates."""


def where_sql(where: dict[str, Any] | None) -> tuple[sql.Composable, list[Any]]:
    """(condition, parameters) for `where`; no filter is TRUE. Several top-level keys are an AND."""
    if not where:
        return sql.SQL("TRUE"), []
    if not isinstance(where, dict):
        raise UnsupportedFilterError(f"a where filter is a dict, not {type(where).__name__}")
    params: list[Any] = []
    parts = [_clause(key, cond, params) for key, cond in where.items()]
    return _join(parts, "AND"), params


def _join(parts: list[sql.Composable], op: str) -> sql.Composable:
    return sql.SQL("(") + sql.SQL(f" {op} ").join(parts) + sql.SQL(")")


def _clause(key: str, cond: Any, params: list[Any]) -> sql.Composable:
    if key in ("$and", "$or"):
        if not isinstance(cond, list) or not cond or not all(isinstance(c, dict) and c for c in cond):
            raise UnsupportedFilterError(f"{key} takes a non-empty list of filters")
        subs: list[sql.Composable] = []
        for item in cond:
            sub, sub_params = where_sql(item)
            subs.append(sub)
            params.extend(sub_params)
        return _join(subs, key[1:].upper())
    if key.startswith("$"):
        raise UnsupportedFilterError(f"unsupported filter operator {key!r}")
    if not isinstance(cond, dict):
        return _compare(key, "$eq", cond, params)
    if not cond:
        raise UnsupportedFilterError(f"empty condition for {key!r}")
    return _join([_compare(key, op, arg, params) for op, arg in cond.items()], "AND")


def _scalar(key: str, value: Any) -> Any:
    if value is None or not isinstance(value, _SCALAR):
        raise UnsupportedFilterError(f"filter value for {key!r} must be a string, number or bool")
    return value


def _compare(key: str, op: str, arg: Any, params: list[Any]) -> sql.Composable:
    """One `key op arg` test: jsonb equality is type-aware (True is not 1, "1" is not 1)."""
    if op in ("$eq", "$ne"):
        params.extend([key, Jsonb({key: _scalar(key, arg)})])
        test = "metadata @> %s" if op == "$eq" else "NOT metadata @> %s"
        return sql.SQL(f"(metadata ? %s AND {test})")
    if op in ("$in", "$nin"):
        if not isinstance(arg, list):
            raise UnsupportedFilterError(f"{op} for {key!r} takes a list")
        values = [Jsonb(_scalar(key, v)) for v in arg]
        params.extend([key, key, values])
        test = "" if op == "$in" else "NOT "
        return sql.SQL(f"(metadata ? %s AND {test}(metadata -> %s = ANY(%s::jsonb[])))")
    if op in _ORDERED:
        if isinstance(arg, bool) or not isinstance(arg, int | float):
            raise UnsupportedFilterError(f"{op} for {key!r} takes a number")
        params.extend([key, key, Jsonb(arg)])
        return sql.SQL(f"(jsonb_typeof(metadata -> %s) = 'number' AND metadata -> %s {_ORDERED[op]} %s)")
    raise UnsupportedFilterError(f"unsupported filter operator {op!r}")
