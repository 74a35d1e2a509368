"""The scripted calls that stand in for golden actions: VitaBench has none, its judge reads rubrics.

For each task, from its own embedded environment and its first expected state:
- every read tool on the records the task names: each store (shop) and product by id and by name
  search, each address through the geocoder and the weather, each existing order, reservation and
  booking by id, the user's history and orders;
- the writes its `required_orders` imply: create each new order, booking or reservation with the
  records, address, time and counts the order names, then pay or cancel it as its status says;
  cancel or re-note an existing one.

The same calls on the source and on a variant must give the same outputs modulo the canonical map
and the same final order states. What the calls cannot show is how VitaBench's judge reads the
rubrics: that is never verified offline.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import Field

from babelflow.ir import Record
from source_benchmarks.vita.domains import VitaDomain

PAID = frozenset({"paid", "processed", "in-progress", "delivered", "unconsumed"})  # reached through payment


class FollowUp(Record):
    """A call on the record the previous call created (its id found in the DB afterwards)."""

    name: str
    id_argument: str


class ScriptedCall(Record):
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    creates: str | None = Field(default=None, description="the DB collection the call adds a record to")
    follow_ups: list[FollowUp] = Field(default_factory=list)


def _stores(environment: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return environment.get("stores") or environment.get("shops") or {}


def _name(record: dict[str, Any]) -> str:
    return str(record.get("name") or record.get("shop_name") or "")


def read_calls(domain: VitaDomain, environment: dict[str, Any]) -> list[ScriptedCall]:
    d = domain.domain
    calls = [ScriptedCall(name="get_user_historical_behaviors"), ScriptedCall(name="get_user_all_orders")]
    for store_id, store in _stores(environment).items():
        if d == "delivery":
            calls.append(ScriptedCall(name="get_delivery_store_info", arguments={"store_id": store_id}))
        if _name(store).strip():
            search = "delivery_store_search_recommend" if d == "delivery" else "instore_shop_search_recommend"
            calls.append(ScriptedCall(name=search, arguments={"keywords": [_name(store)]}))
        for product in store.get("products") or []:
            if d == "delivery":
                calls.append(
                    ScriptedCall(name="get_delivery_product_info", arguments={"product_id": product["product_id"]})
                )
    for place in environment.get("location") or []:
        address = place.get("address")
        if address:
            calls.append(ScriptedCall(name="address_to_longitude_latitude", arguments={"address": address}))
    date = str(environment.get("time") or "")[:10]
    for weather in environment.get("weather") or []:
        calls.append(
            ScriptedCall(
                name="weather", arguments={"address": weather.get("city", ""), "date_start": date, "date_end": date}
            )
        )
    user_id = environment.get("user_id", "")
    for order_id in environment.get("orders") or {}:
        if d == "delivery":
            calls.append(ScriptedCall(name="get_delivery_order_detail", arguments={"order_id": order_id}))
    if d == "instore":
        calls += [
            ScriptedCall(name=f"get_instore_{kind}", arguments={"user_id": user_id})
            for kind in ("orders", "reservations", "books")
        ]
        calls += [
            ScriptedCall(name="search_instore_book", arguments={"user_id": user_id, "book_id": book_id})
            for book_id in environment.get("books") or {}
        ]
        calls += [
            ScriptedCall(name="search_instore_reservation", arguments={"user_id": user_id, "reservation_id": rid})
            for rid in environment.get("reservations") or {}
        ]
    return calls


def _status_follow_ups(status: str, pay: str | None, cancel: str, id_argument: str) -> list[FollowUp]:
    if status == "cancelled":
        return [FollowUp(name=cancel, id_argument=id_argument)]
    if status in PAID and pay is not None:
        return [FollowUp(name=pay, id_argument=id_argument)]
    return []


def _delivery_writes(order: dict[str, Any], environment: dict[str, Any], existing: bool) -> list[ScriptedCall]:
    order_id, status = order.get("order_id", ""), order.get("status", "")
    if existing:
        calls = []
        current = (environment.get("orders") or {}).get(order_id, {})
        if order.get("note", "") != current.get("note", ""):
            calls.append(
                ScriptedCall(
                    name="modify_delivery_order", arguments={"order_id": order_id, "note": order.get("note", "")}
                )
            )
        if status == "cancelled" and current.get("status") != "cancelled":
            calls.append(ScriptedCall(name="cancel_delivery_order", arguments={"order_id": order_id}))
        return calls
    products = order.get("products") or []
    location = order.get("location") or {}
    arguments = {
        "user_id": order.get("user_id", ""),
        "store_id": order.get("store_id", ""),
        "product_ids": [p.get("product_id", "") for p in products],
        "product_cnts": [p.get("quantity", 1) for p in products],
        "address": location.get("address", ""),
        "dispatch_time": order.get("dispatch_time") or environment.get("time", ""),
        "attributes": [p.get("attributes", "") or "" for p in products],
        "note": order.get("note", "") or "",
    }
    follow = _status_follow_ups(status, "pay_delivery_order", "cancel_delivery_order", "order_id")
    return [ScriptedCall(name="create_delivery_order", arguments=arguments, creates="orders", follow_ups=follow)]


def _seat(order: dict[str, Any], time_key: str) -> dict[str, Any]:
    """The arguments of a new booking or reservation (instore_book / instore_reservation take the same)."""
    return {
        "user_id": order.get("customer_id", ""),
        "shop_id": order.get("shop_id", ""),
        "time": order.get(time_key, ""),
        "customer_count": order.get("customer_count", 1),
    }


def _instore_writes(order: dict[str, Any], environment: dict[str, Any], existing: bool) -> list[ScriptedCall]:
    status = order.get("status", "")
    if "reservation_id" in order:
        rid = order["reservation_id"]
        if existing:
            current = (environment.get("reservations") or {}).get(rid, {})
            if status == "cancelled" and current.get("status") != "cancelled":
                return [ScriptedCall(name="instore_cancel_reservation", arguments={"reservation_id": rid})]
            if (order.get("reservation_time"), order.get("customer_count")) != (
                current.get("reservation_time"),
                current.get("customer_count"),
            ):
                arguments = {
                    "reservation_id": rid,
                    "time": order.get("reservation_time", ""),
                    "customer_count": order.get("customer_count", 1),
                }
                return [ScriptedCall(name="instore_modify_reservation", arguments=arguments)]
            return []
        follow = _status_follow_ups(status, None, "instore_cancel_reservation", "reservation_id")
        seat = _seat(order, "reservation_time")
        return [ScriptedCall(name="instore_reservation", arguments=seat, creates="reservations", follow_ups=follow)]
    if "book_id" in order:
        book_id = order["book_id"]
        if existing:
            current = (environment.get("books") or {}).get(book_id, {})
            if status == "cancelled" and current.get("status") != "cancelled":
                return [ScriptedCall(name="instore_cancel_book", arguments={"book_id": book_id})]
            return []
        follow = _status_follow_ups(status, "pay_instore_book", "instore_cancel_book", "book_id")
        return [
            ScriptedCall(name="instore_book", arguments=_seat(order, "book_time"), creates="books", follow_ups=follow)
        ]
    order_id = order.get("order_id", "")
    if existing:
        current = (environment.get("orders") or {}).get(order_id, {})
        if status == "cancelled" and current.get("status") != "cancelled":
            return [ScriptedCall(name="instore_cancel_order", arguments={"order_id": order_id})]
        return []
    follow = _status_follow_ups(status, "pay_instore_order", "instore_cancel_order", "order_id")
    return [
        ScriptedCall(
            name="create_instore_product_order",
            arguments={
                "user_id": order.get("user_id", ""),
                "shop_id": order.get("store_id", ""),
                "product_id": product.get("product_id", ""),
                "quantity": product.get("quantity", 1),
            },
            creates="orders",
            follow_ups=follow,
        )
        for product in order.get("products") or []
    ]


def write_calls(domain: VitaDomain, environment: dict[str, Any], expected_states: list[Any]) -> list[ScriptedCall]:
    """The writes of the first expected state (the others are alternatives the judge also accepts)."""
    if not expected_states:
        return []
    state = expected_states[0]
    orders = state.required_orders if hasattr(state, "required_orders") else state.get("required_orders", [])
    known = (
        set(environment.get("orders") or {})
        | set(environment.get("books") or {})
        | set(environment.get("reservations") or {})
    )
    writes = _delivery_writes if domain.domain == "delivery" else _instore_writes
    calls: list[ScriptedCall] = []
    for order in orders:
        record_id = order.get("order_id") or order.get("reservation_id") or order.get("book_id")
        calls += writes(order, environment, record_id in known)
    return calls


def scripted_calls(domain: VitaDomain, task: Any) -> list[ScriptedCall]:
    criteria = task.evaluation_criteria
    states = list(criteria.expected_states or []) if criteria is not None else []
    return read_calls(domain, task.environment) + write_calls(domain, task.environment, states)


def play(calls: list[ScriptedCall], db: Any, run: Callable[[str, dict[str, Any]], bool]) -> None:
    """Each call through `run` (True: it succeeded), then its follow-ups on every record it created: the ids
    new in `db`'s collection afterwards (VitaBench names them itself)."""
    for call in calls:
        before = set(getattr(db, call.creates) or {}) if call.creates else set()
        if run(call.name, call.arguments) and call.creates:
            created = [str(key) for key in getattr(db, call.creates) or {} if key not in before]
            for follow in call.follow_ups:
                for record_id in created:
                    run(follow.name, {follow.id_argument: record_id})
