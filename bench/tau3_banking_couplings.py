"""Which names τ³'s banking_knowledge shares between documents, DB, gold arguments and tools.py,
measured with τ³'s own code in its own interpreter (no babelflow import):

    .venv-tau3/bin/python bench/tau3_banking_couplings.py [--data DATA] [--json OUT]

Tasks come from τ³'s tasks loader, documents from its knowledge base, discoverable tools from its
toolkit classes, gold-call outputs from replaying the gold actions in its environment; tools.py is
read as source (its dicts, lists, id seeds and json.dumps calls). Prints the counts
docs/tau3_banking_couplings.md reports.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
_TOOL_NAME = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)*_\d{4}\b")
NAME_FIELDS = ("level", "card_type", "account_class", "referred_account_type", "credit_card_type", "account_type")


def _is_name(text: str) -> bool:
    words = text.split()  # "Silver Plus Account", "Crypto-Cash Back"; not "Status: ACTIVE" or a sentence
    return (
        2 <= len(words) <= 5
        and text[0].isupper()
        and all(w[0].isalnum() for w in words)
        and not any(c in text for c in ":.!,")
    )


def _strings(value, key=None):
    """(key, string) for every string leaf."""
    if isinstance(value, str):
        yield key, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(v, k)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v, key)


def tools_source_facts(tools_py: Path) -> dict:
    tree = ast.parse(tools_py.read_text(encoding="utf-8"))
    dict_keys, list_items, dumps, dumps_ascii_off = set(), set(), 0, 0
    seeds: Counter[str] = Counter()
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            dict_keys |= {
                k.value
                for k in node.keys
                if isinstance(k, ast.Constant) and isinstance(k.value, str) and _is_name(k.value)
            }
        elif isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            list_items |= {
                e.value
                for e in node.elts
                if isinstance(e, ast.Constant) and isinstance(e.value, str) and _is_name(e.value)
            }
        elif isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name == "_deterministic_id" or (name.startswith("generate_") and name.endswith("_id")):
                seeds[name] += 1
            if name == "dumps":
                dumps += 1
                dumps_ascii_off += any(k.arg == "ensure_ascii" for k in node.keywords)
    seeded_tools = []  # (method, id generator, the method's parameters that feed the seed)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            params = {a.arg for a in node.args.args} - {"self"}
            for inner in ast.walk(node):
                if isinstance(inner, ast.Call):
                    name = inner.func.attr if isinstance(inner.func, ast.Attribute) else getattr(inner.func, "id", "")
                    if name == "_deterministic_id" or (name.startswith("generate_") and name.endswith("_id")):
                        fed = sorted(
                            {
                                n.id
                                for a in [*inner.args, *(k.value for k in inner.keywords)]
                                for n in ast.walk(a)
                                if isinstance(n, ast.Name) and n.id in params
                            }
                            | _seed_params(node, inner, params)
                        )
                        seeded_tools.append((node.name, name, fed))
    return {
        "dict_keys": sorted(dict_keys),
        "list_items": sorted(list_items),
        "seed_calls": dict(seeds),
        "dumps": dumps,
        "dumps_ensure_ascii_set": dumps_ascii_off,
        "seeded_tools": seeded_tools,
    }


def _seed_params(method: ast.FunctionDef, call: ast.Call, params: set[str]) -> set[str]:
    """Parameters reaching the seed through a local variable (seed = f"account:{user_id}:...")."""
    local = {n.id for a in call.args for n in ast.walk(a) if isinstance(n, ast.Name) and n.id not in params}
    fed = set()
    for node in ast.walk(method):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id in local for t in node.targets):
            fed |= {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name) and n.id in params}
    return fed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", help="τ³'s data/ folder (default: the install's)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    if args.data:
        os.environ["TAU2_DATA_DIR"] = args.data
    elif "TAU2_DATA_DIR" not in os.environ:
        record = ROOT / ".venv-tau3" / "babelflow-tau3.json"
        os.environ["TAU2_DATA_DIR"] = json.loads(record.read_text(encoding="utf-8"))["data_dir"]
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    from loguru import logger

    logger.remove()
    import tau2.domains.banking_knowledge.tools as tools_module
    from tau2.data_model.message import ToolCall
    from tau2.domains.banking_knowledge.environment import get_db, get_knowledge_base
    from tau2.domains.banking_knowledge.tools import KnowledgeTools, KnowledgeUserTools
    from tau2.environment.toolkit import DISCOVERABLE_ATTR
    from tau2.registry import registry
    from tau2.runner.build import _derive_read_log_allowlist

    data_dir = Path(os.environ["TAU2_DATA_DIR"]) / "tau2" / "domains" / "banking_knowledge"
    code = tools_source_facts(Path(tools_module.__file__))
    coded = set(code["dict_keys"]) | set(code["list_items"])
    tasks = registry.get_tasks_loader("banking_knowledge")(None)
    documents = get_knowledge_base().get_all_documents()
    db = json.loads(get_db().model_dump_json())
    discoverable = sorted(
        {
            n
            for cls in (KnowledgeTools, KnowledgeUserTools)
            for n in dir(cls)
            if getattr(getattr(cls, n, None), DISCOVERABLE_ATTR, False)
        }
    )

    # names: product/account-class values in the DB and gold arguments, and where else they occur
    db_names = {v for k, v in _strings(db) if k in NAME_FIELDS and _is_name(v)}
    gold_values: Counter[str] = Counter()
    json_keys: Counter[str] = Counter()
    tool_refs: Counter[str] = Counter()
    json_args = 0
    for task in tasks:
        for action in task.evaluation_criteria.actions or []:
            for key, value in (action.arguments or {}).items():
                if isinstance(value, str) and value.strip().startswith("{"):
                    inner = json.loads(value)
                    json_args += 1
                    json_keys.update(list(inner))
                    gold_values.update(v for _, v in _strings(inner) if isinstance(v, str))
                elif isinstance(value, str):
                    gold_values[value] += 1
                if key in ("agent_tool_name", "discoverable_tool_name") and isinstance(value, str):
                    tool_refs[value] += 1
    gold_names = {v for v in gold_values if _is_name(v)}
    names = sorted(db_names | gold_names | coded)
    texts = [f"{d.title}\n{d.content}" for d in documents]
    instructions = [
        task.user_scenario.instructions
        if isinstance(task.user_scenario.instructions, str)
        else json.dumps(task.user_scenario.model_dump())
        for task in tasks
    ]
    rows = []
    for name in names:
        rows.append(
            {
                "name": name,
                "documents": sum(name in t for t in texts),
                "db": name in db_names,
                "gold": gold_values.get(name, 0),
                "tools_py": name in coded,
                "instructions": sum(name in t for t in instructions),
            }
        )
    everywhere = [r for r in rows if r["documents"] and r["db"] and r["gold"] and r["tools_py"]]
    coupled = {r["name"] for r in rows if r["tools_py"] and (r["documents"] or r["db"] or r["gold"])}

    # discoverable tools and documents
    doc_tools = {d.id: {m.group(0) for m in _TOOL_NAME.finditer(f"{d.title}\n{d.content}")} for d in documents}
    named = Counter(t for ts in doc_tools.values() for t in ts)
    unknown = sorted(t for t in named if t not in discoverable)

    # required_documents
    ids = {d.id for d in documents}
    required = [d for task in tasks for d in (task.required_documents or [])]

    # gold-call outputs: JSON documents, json.dumps'd arguments, ids seeded from the call
    by_string = {m: [p for p in fed if not p.endswith("_id")] for m, _, fed in code["seeded_tools"]}
    by_string = {m: ps for m, ps in by_string.items() if ps}
    outputs: Counter[str] = Counter()
    seeded_args: Counter[str] = Counter()
    constructor = registry.get_env_constructor("banking_knowledge")
    for task in tasks:
        env = constructor(retrieval_variant="no_knowledge", read_log_allowlist=_derive_read_log_allowlist(task))
        state = task.initial_state
        env.set_state(
            initialization_data=state.initialization_data if state else None,
            initialization_actions=state.initialization_actions if state else None,
            message_history=list(state.message_history or []) if state else [],
        )
        for index, action in enumerate(task.evaluation_criteria.actions or []):
            reply = (
                env.get_response(
                    ToolCall(id=f"g{index}", name=action.name, arguments=action.arguments, requestor=action.requestor)
                ).content
                or ""
            )
            outputs["calls"] += 1
            called, given = _executed(action)
            fed = [p for p in by_string.get(called, []) if isinstance(given.get(p), str)]
            outputs["seeded_from_a_string_argument"] += bool(fed)
            seeded_args.update(f"{called}({p})" for p in fed)
            try:
                json.loads(reply)
                outputs["whole_json"] += 1
            except ValueError:
                outputs["embedded_json"] += "{\n" in reply
            outputs["error_reply"] += reply.startswith("Error")
            outputs["names_a_coupled_name"] += any(n in reply for n in coupled)

    tasks_json = json.loads((data_dir / "tasks.json").read_text(encoding="utf-8"))
    folder = {t.id: json.loads(t.model_dump_json()) for t in tasks}
    differing = sorted(
        t["id"] for t in tasks_json if t["id"] in folder and json.loads(json.dumps(t)) != _as_file(data_dir, t["id"])
    )
    report: dict[str, Any] = {
        "tasks": len(tasks),
        "documents": len(documents),
        "gold_actions": sum(len(t.evaluation_criteria.actions or []) for t in tasks),
        "names": {
            "total": len(names),
            "in_tools_py": len(coded),
            "in_tools_py_and_data": len(coupled),
            "db": len(db_names),
            "gold": len(gold_names),
            "in_all_four": len(everywhere),
            "all_four": [r["name"] for r in everywhere],
            "rows": rows,
        },
        "tools_py": code,
        "discoverable": {
            "tools": len(discoverable),
            "named_in_documents": len(named),
            "documents_naming_one": sum(bool(t) for t in doc_tools.values()),
            "mentions": sum(named.values()),
            "named_but_not_a_tool": unknown,
            "gold_references": sum(tool_refs.values()),
            "distinct_in_gold": len(tool_refs),
            "gold_not_in_any_document": sorted(t for t in tool_refs if t not in named),
        },
        "required_documents": {
            "tasks_with": sum(bool(t.required_documents) for t in tasks),
            "ids": len(required),
            "distinct": len(set(required)),
            "unresolved": sorted(set(required) - ids),
        },
        "json_string_arguments": {"actions": json_args, "keys": dict(json_keys.most_common())},
        "gold_outputs": dict(outputs),
        "ids_seeded_from_string_arguments": by_string,
        "gold_calls_seeding_an_id_from_a_string": dict(seeded_args.most_common()),
        "tasks_json_differs_from_task_files": differing,
    }
    print(json.dumps({k: v for k, v in report.items() if k != "names"}, indent=1, ensure_ascii=False))
    print(json.dumps({k: v for k, v in report["names"].items() if k != "rows"}, indent=1, ensure_ascii=False))
    for r in rows:
        if r["tools_py"] or r["db"]:
            print(
                f"  {r['name']:<32} docs {r['documents']:>3}  db {'y' if r['db'] else '-'}  gold {r['gold']:>3}  "
                f"tools.py {'y' if r['tools_py'] else '-'}  instructions {r['instructions']:>3}"
            )
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, ensure_ascii=False), encoding="utf-8")
    return 0


def _executed(action) -> tuple[str, dict]:
    """The method a gold action runs and its arguments (a discoverable call's JSON string parsed)."""
    arguments = action.arguments or {}
    inner = {
        "call_discoverable_agent_tool": "agent_tool_name",
        "call_discoverable_user_tool": "discoverable_tool_name",
    }.get(action.name)
    if inner and isinstance(arguments.get(inner), str):
        try:
            given = json.loads(arguments.get("arguments") or "{}")
        except ValueError:
            given = {}
        return arguments[inner], given if isinstance(given, dict) else {}
    return action.name, arguments


def _as_file(data_dir: Path, task_id: str):
    return json.loads((data_dir / "tasks" / f"{task_id}.json").read_text(encoding="utf-8"))


if __name__ == "__main__":
    sys.exit(main())
