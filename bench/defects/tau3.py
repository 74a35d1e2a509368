"""τ³ banking_knowledge coupling defects (issue 26): names the data shares with τ³'s code.

- `tau3_class_name_renamed_in_data`: an account-class or product name that tools.py keys a dict or
  a validation list with ("Silver Plus Account") rendered in every data file (DB, task files with
  their JSON-string arguments, documents) but not in tools.py. Golden reward stays 1.0 (both sides
  of τ³'s DB check replay the same calls); the gold calls return something else (a fee no longer
  found, an account id seeded from the name, a later call that names that id failing).
- `tau3_tool_name_translated_in_document`: a discoverable tool name
  (`submit_credit_limit_increase_request_7392`) translated in one document: an agent that follows
  the document unlocks a tool tools.py does not have.

Both work on a variant folder (adapted/tau3-banking_knowledge/<lang>, τ³'s data/ layout). The
catalogue kinds (run through the project's validators by bench/inject_defects.py) read the names
from the source's tools.py (the IR holds its texts, not a local dict's keys nor every tool) and
record the IR field they planted the defect in: a data value holding the name, the document's
content. `python -m bench.defects.tau3` proves them without an IR on a copy of τ³'s data or of a
given variant, with the independent check (bench/tau3_independent_check.py, τ³'s own code in its
own interpreter): caught and located.
"""

from __future__ import annotations

import argparse
import ast
import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from babelflow.ir import IRDocument, TranslationType
from bench.defects._common import (
    BEHAVIOR,
    CONSISTENCY,
    FIDELITY,
    DefectNotApplicable,
    InjectedDefect,
    _accent,
    json_path,
    variant_language,
)
from source_benchmarks import get_benchmark

ROOT = Path(__file__).resolve().parents[2]
DOMAIN = "data/tau2/domains/banking_knowledge"
TOOLS = "domains/banking_knowledge/tools.py"
_TOOL_NAME = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)*_\d{4}\b")


# ---- the edits ----------------------------------------------------------------------------


def data_files(variant_dir: Path) -> list[Path]:
    """The variant's banking data files (DB, task files, documents), in name order."""
    domain = Path(variant_dir) / DOMAIN
    if not domain.is_dir():
        raise DefectNotApplicable(f"{variant_dir} holds no {DOMAIN}")
    return sorted(p for p in domain.rglob("*.json") if p.is_file())


def rename_in_data(variant_dir: Path, name: str, rendering: str) -> list[str]:
    """`name` -> `rendering` in every data file, textually: a JSON-string argument holds the name
    verbatim too. Returns the files changed (relative to the variant)."""
    changed = []
    for path in data_files(variant_dir):
        text = path.read_text(encoding="utf-8")
        if name in text:
            path.write_text(text.replace(name, rendering), encoding="utf-8")
            changed.append(str(path.relative_to(variant_dir)))
    if not changed:
        raise DefectNotApplicable(f"{name!r} is in no data file of {variant_dir}")
    return changed


def translate_tool_in_document(document: Path, tool: str, rendering: str) -> None:
    """`tool` -> `rendering` in one document's content (JSON, re-written as τ³ ships it)."""
    value = json.loads(document.read_text(encoding="utf-8"))
    if tool not in value.get("content", ""):
        raise DefectNotApplicable(f"{document.name} does not name {tool}")
    value["content"] = value["content"].replace(tool, rendering)
    document.write_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def tool_rendering(tool: str, language: str) -> str:
    """What a translator that took the name for words writes: the words translated, the number kept."""
    words, _, number = tool.rpartition("_")
    return _accent(words, language).replace(" ", "_") + "_" + number


# ---- choosing targets from τ³'s tools.py (no IR) ---------------------------------------------


def coupled_names(tools_py: Path) -> list[str]:
    """String keys of dicts and elements of lists in tools.py that read as names (two or more
    words, a capital): the account classes and products the code looks data up by."""
    names = set()
    for node in ast.walk(ast.parse(tools_py.read_text(encoding="utf-8"))):
        items = (
            node.keys
            if isinstance(node, ast.Dict)
            else node.elts
            if isinstance(node, (ast.List, ast.Tuple, ast.Set))
            else []
        )
        for item in items:
            if isinstance(item, ast.Constant) and isinstance(item.value, str) and _is_name(item.value):
                names.add(item.value)
    return sorted(names)


def _is_name(text: str) -> bool:
    words = text.split()  # "Silver Plus Account", "Crypto-Cash Back"; not "Status: ACTIVE" or a sentence
    return (
        2 <= len(words) <= 5
        and text[0].isupper()
        and all(w[0].isalnum() for w in words)
        and not any(c in text for c in ":.!,")
    )


def discoverable_tools(tools_py: Path) -> list[str]:
    """Methods of tools.py decorated with @is_discoverable_tool(...)."""
    found = []
    for node in ast.walk(ast.parse(tools_py.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef):
            for decorator in node.decorator_list:
                call = decorator.func if isinstance(decorator, ast.Call) else decorator
                if isinstance(call, ast.Name) and call.id == "is_discoverable_tool":
                    found.append(node.name)
    return sorted(found)


# ---- the catalogue kinds (IR-chosen targets) -----------------------------------------------


def _source_tools_py(ir: IRDocument) -> Path:
    """The source's tools.py: the IR inventories the code's texts (docstrings, outputs, compared
    constants), not the keys of a function's local dict (PERSONAL_SAVINGS_EARLY_CLOSURE's "Silver
    Plus Account") nor every tool (one without a text is not in it)."""
    source = get_benchmark(ir.benchmark)
    paths = [source.artifact_path(s) for s in source.artifacts() if s.path.endswith(TOOLS)]
    if not paths:
        raise DefectNotApplicable(f"{ir.benchmark} has no {TOOLS}")
    return Path(paths[0])


def _tools_literals(ir: IRDocument) -> set[str]:
    return set(coupled_names(_source_tools_py(ir)))


def _tools_methods(ir: IRDocument) -> set[str]:
    return set(discoverable_tools(_source_tools_py(ir)))


def tau3_class_name_renamed_in_data(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """An account-class/product name tools.py keys a dict or list with, renamed in all data (not in tools.py)."""
    language = variant_language(variant_dir)
    names = _tools_literals(ir)
    # a name inside a longer one the data holds ('Green Account' in 'Light Green Account') would be
    # renamed there too, several classes at once: only names no other name contains
    known = names | {e.source_text for e in ir.elements if e.locator.kind == "data_value" and _is_name(e.source_text)}
    unambiguous = {n for n in names if not any(n != other and n in other for other in known)}
    # the field recorded is one the data holds the name in as a value of its own (an account's class,
    # a card type, a referral's account type: DB or a task's initial state and gold arguments); the
    # same rendering everywhere reads as the variant's naming policy unless the code is consulted
    holders: dict[str, list] = {}
    for e in ir.elements:
        if (
            e.locator.kind == "data_value"
            and e.source_text in unambiguous
            and e.translation_type is TranslationType.PRESERVE
            and not e.artifact.startswith(DOMAIN + "/documents/")
        ):
            holders.setdefault(e.source_text, []).append(e)
    if not holders:
        raise DefectNotApplicable("no data field holds a name tools.py looks data up by")
    name = sorted(holders)[rng.randrange(len(holders))]
    candidates = sorted(holders[name], key=lambda e: e.id)
    element = candidates[rng.randrange(len(candidates))]
    rendering = _accent(name, language)
    files = rename_in_data(variant_dir, name, rendering)
    return InjectedDefect(
        kind="tau3_class_name_renamed_in_data",
        description=f"{name!r} -> {rendering!r} in {len(files)} data files, not in tools.py",
        artifact=element.artifact,
        element_id=element.id,
        location=json_path(getattr(element.locator, "path", ())),
        expected_layers=[CONSISTENCY, BEHAVIOR],
        task_id=Path(element.artifact).stem if "/tasks/" in element.artifact else None,
    )


def tau3_tool_name_translated_in_document(variant_dir: Path, ir: IRDocument, rng: random.Random) -> InjectedDefect:
    """A discoverable tool name (submit_credit_limit_increase_request_7392) translated in one document."""
    language = variant_language(variant_dir)
    tools = {name for name in _tools_methods(ir) if _TOOL_NAME.fullmatch(name)}
    candidates = sorted(
        (
            (e, tool)
            for e in ir.elements
            if e.locator.kind == "data_value"
            and e.artifact.startswith(DOMAIN + "/documents/")
            and list(getattr(e.locator, "path", ())) == ["content"]
            for tool in tools
            if tool in e.source_text
        ),
        key=lambda pair: (pair[0].id, pair[1]),
    )
    if not candidates:
        raise DefectNotApplicable("no document names a discoverable tool of tools.py")
    element, tool = candidates[rng.randrange(len(candidates))]
    rendering = tool_rendering(tool, language)
    translate_tool_in_document(Path(variant_dir) / element.artifact, tool, rendering)
    return InjectedDefect(
        kind="tau3_tool_name_translated_in_document",
        description=f"{tool} -> {rendering} in {Path(element.artifact).name}",
        artifact=element.artifact,
        element_id=element.id,
        location="$['content']",
        expected_layers=[CONSISTENCY, FIDELITY],
    )


# ---- the proof with the independent check ----------------------------------------------------


def _tau3_install() -> tuple[Path, Path]:
    """τ³'s interpreter and data/ folder, from the install record."""
    record = ROOT / ".venv-tau3" / "babelflow-tau3.json"
    if not record.is_file():
        raise SystemExit("τ³ not installed: bash scripts/install.sh --tau3")
    return ROOT / ".venv-tau3" / "bin" / "python", Path(json.loads(record.read_text(encoding="utf-8"))["data_dir"])


def _copy_clean(variant: Path | None, data: Path, into: Path, language: str) -> Path:
    if variant is not None:
        shutil.copytree(variant, into)
    else:  # τ³'s own banking files as a variant that changed nothing
        shutil.copytree(data / "tau2" / "domains" / "banking_knowledge", into / DOMAIN)
        (into / "babelflow_manifest.json").write_text(
            json.dumps({"benchmark": "tau3-banking_knowledge", "language": language}), encoding="utf-8"
        )
    return into


def _run_check(python: Path, variant: Path, report: Path) -> tuple[int, dict, float]:
    started = time.perf_counter()
    done = subprocess.run(
        [
            str(python),
            str(ROOT / "bench" / "tau3_independent_check.py"),
            str(variant),
            "--show",
            "differ",
            "--json",
            str(report),
        ],
        capture_output=True,
        text=True,
        timeout=1800,
        cwd=ROOT,
    )
    seconds = time.perf_counter() - started
    if done.returncode == 2 or not report.is_file():
        raise SystemExit(f"the independent check refused {variant}:\n{done.stderr or done.stdout}")
    return done.returncode, json.loads(report.read_text(encoding="utf-8")), seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Prove the τ³ coupling defects with the independent check.")
    parser.add_argument(
        "--variant", type=Path, help="a clean adapted/tau3-banking_knowledge/<lang> (default: τ³'s own files)"
    )
    parser.add_argument("--lang", default="en-XA", help="rendering of the planted names (default en-XA)")
    parser.add_argument("--name", default="Silver Plus Account", help="the name renamed in the data")
    parser.add_argument(
        "--tool", default="submit_credit_limit_increase_request_7392", help="the tool translated in a document"
    )
    args = parser.parse_args(argv)
    python, data = _tau3_install()
    tools_py = data.parent / "src" / "tau2" / "domains" / "banking_knowledge" / "tools.py"
    if args.name not in coupled_names(tools_py) or args.tool not in discoverable_tools(tools_py):
        raise SystemExit(f"{args.name!r} is not a name tools.py looks up, or {args.tool} not a discoverable tool")
    ok = True
    with tempfile.TemporaryDirectory(prefix="tau3-defects-") as tmp:
        base = Path(tmp)
        clean = _copy_clean(args.variant, data, base / "clean", args.lang)
        code, result, seconds = _run_check(python, clean, base / "clean.json")
        print(
            f"clean: exit {code}, {sum(r['agree'] for r in result['rows'])}/{len(result['rows'])} tasks agree, "
            f"{len(result['differences'])} differences ({seconds:.0f} s)"
        )
        ok &= code == 0
        renamed = _copy_clean(args.variant, data, base / "renamed", args.lang)
        files = rename_in_data(renamed, args.name, _accent(args.name, args.lang))
        code, result, seconds = _run_check(python, renamed, base / "renamed.json")
        tasks = sorted({d["task_id"] for d in result["differences"] if d["what"] in ("output", "error_flags")})
        golden = sum(r["golden"].endswith("-> 1") for r in result["rows"])
        planted = sorted({Path(f).stem for f in files if "/tasks/" in f})
        print(
            f"class name renamed in {len(files)} data files (tasks {', '.join(planted)}): exit {code}, "
            f"golden 1.0 still {golden}/{len(result['rows'])}; "
            f"gold calls differ in {len(tasks)} tasks: {', '.join(tasks)} ({seconds:.0f} s)"
        )
        for d in result["differences"][:8]:
            print(f"  {d['task_id']} {d['what']}: {d['detail'][:140]}")
        ok &= code == 1 and bool(tasks) and set(tasks) <= set(planted)
        translated = _copy_clean(args.variant, data, base / "translated", args.lang)
        documents = sorted(
            p for p in (translated / DOMAIN / "documents").glob("*.json") if args.tool in p.read_text(encoding="utf-8")
        )
        if not documents:
            raise SystemExit(f"no document names {args.tool}")
        translate_tool_in_document(documents[0], args.tool, tool_rendering(args.tool, args.lang))
        code, result, seconds = _run_check(python, translated, base / "translated.json")
        located = [d for d in result["differences"] if d["what"] == "document_tools"]
        print(
            f"{args.tool} translated in {documents[0].name}: exit {code}; document differences: "
            + "; ".join(f"{d['task_id']}: {d['detail']}" for d in located)
            + f" ({seconds:.0f} s)"
        )
        ok &= code == 1 and [d["task_id"] for d in located] == [documents[0].stem]
    print("caught and located" if ok else "NOT caught or not located")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
