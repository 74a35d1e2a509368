"""Play a task's scripted calls (scripted_calls.py) through VitaBench's own environment and tools.

The "golden" outcome of a VitaBench task is its scripted calls; "do nothing" is none. Neither has a
reward: VitaBench scores with an LLM judge reading rubrics, which no offline replay can stand in
for, and the outcome says so. What the replays compare is each call's output and error and the
final order states: the orders, bookings and reservations with their ids, statuses, counts, prices
and times, without their texts (a variant's texts differ from the source's by design; a text that
breaks a lookup shows as an error or a different state).
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

import orjson

from source_benchmarks.protocol import ReplayOutcome, ToolCallObserver, ToolCallRecord
from source_benchmarks.vita.domains import VitaDomain
from source_benchmarks.vita.harness import LOCK, environment, probe_clock, vita
from source_benchmarks.vita.scripted_calls import play, scripted_calls

NO_JUDGE = "VitaBench's judge reads the rubrics with an LLM: not run offline; outputs and order states compared"
STATE_COLLECTIONS = ("orders", "books", "reservations")
# the fields of an order state that are not text: what the same calls must leave equal in any language
STATE_FIELDS = frozenset(
    {
        "order_id", "order_type", "user_id", "store_id", "shop_id", "product_id", "status", "quantity",
        "price", "total_price", "shipping_time", "dispatch_time", "delivery_time", "create_time",
        "update_time", "reservation_id", "reservation_time", "book_id", "book_time", "book_price",
        "customer_id", "customer_count", "longitude", "latitude",
    }
)  # fmt: skip


def _skeleton(value: Any) -> Any:
    if isinstance(value, dict):
        kept = {}
        for key, item in value.items():
            if isinstance(item, (dict, list)):
                kept[key] = _skeleton(item)
            elif key in STATE_FIELDS:
                kept[key] = item
        return kept
    if isinstance(value, list):
        return [_skeleton(item) for item in value]
    return value


def order_states(db: Any) -> dict[str, Any]:
    dumped = db.model_dump()
    return {name: _skeleton(dumped.get(name) or {}) for name in STATE_COLLECTIONS if name in dumped}


def state_digest(db: Any) -> str:
    encoded = orjson.dumps(order_states(db), option=orjson.OPT_SORT_KEYS, default=str)
    return hashlib.sha256(encoded).hexdigest()


_RECORD_ID = re.compile(r"\b[SU]\d+_[A-Z]\d+\b")


def ranked_output(name: str, output: str) -> str:
    """A search's answer as the probe compares it: the top hit where VitaBench ranked it, the other hits by
    id. The search ranks by fuzzy scores over the names, which a translation changes for the hits the
    keywords do not name (on vita-instore → en-XA: the searched record is first in all 610 searches, in
    both; only the order of the rest moved)."""
    if not name.endswith("_search_recommend"):
        return output
    top, *rest = output.split("\n")
    return "\n".join([top, *sorted(rest, key=lambda line: (_RECORD_ID.findall(line)[:1], line))])


def _call(env: Any, index: int, name: str, arguments: dict[str, Any]) -> ToolCallRecord:
    message = vita().tool_call(id=f"scripted_{index}", name=name, arguments=arguments, requestor="assistant")
    reply = env.get_response(message)
    kind = env.tools.tool_type(name) if env.tools.has_tool(name) else None
    return ToolCallRecord(
        name=name,
        requestor="assistant",
        arguments=arguments,
        output=ranked_output(name, reply.content or ""),
        error=bool(reply.error),
        is_write=getattr(kind, "value", kind) == "write",
    )


def play_scripted(domain: VitaDomain, task: Any, observer: ToolCallObserver | None = None) -> ReplayOutcome:
    records: list[ToolCallRecord] = []

    def record(name: str, arguments: dict[str, Any]) -> bool:
        done = _call(env, len(records), name, arguments)
        records.append(done)
        if observer is not None:
            observer(task.id, done)
        return not done.error

    with LOCK, probe_clock(task):
        env = environment(domain, task)
        play(scripted_calls(domain, task), env.tools.db, record)
        digest = state_digest(env.tools.db)
    return ReplayOutcome(
        task_id=task.id, trajectory="golden", replayable=True, tool_calls=records, final_db_sha256=digest, note=NO_JUDGE
    )


def play_nothing(domain: VitaDomain, task: Any) -> ReplayOutcome:
    with LOCK:
        digest = state_digest(environment(domain, task).tools.db)
    return ReplayOutcome(
        task_id=task.id, trajectory="do_nothing", replayable=True, final_db_sha256=digest, note=NO_JUDGE
    )
