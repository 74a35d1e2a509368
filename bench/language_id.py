"""Precision and recall of `judge_language` (babelflow/language_id.py) refusing a translation target
left in English, per unit (one text field: a short name, a sentence, a paragraph), tuned on some
languages and reported on held-out ones.

Labels are by construction, from which file and language a text came, never from the check: they
were fixed by the people who wrote or translated those files, not by whoever wrote the check.

- τ² retail, real model translations (SEATauBench vi, th, id, tl; ../shared/corpora/seatau-retail):
  positives (should be refused) are the English source's texts presented as the target for L (English
  left in place); negatives are L's translations of the same fields, task texts, policy paragraphs and
  product names, with the entity values of the task's golden actions as `kept` (names, ids, zips,
  reasons), as the pipeline passes them. `kept` negatives are fields the translator left exactly as
  in English (tl keeps all 47 product names, "Smart Thermostat"; values such as "Suite 356"): the
  translator's choice, which a refusal would overrule. `mixed` negatives are L task texts whose product names were put
  back in English (a policy that keeps catalogue names), judged with those names in `kept`; `mixed,
  unkept` the same texts without them (a caller that forgot its kept values: informative, counted).
- es, ca, gl: Apertium drafts (eng-spa, eng-cat, en-gl, as translators/apertium.py runs it) of a seeded
  sample of the English τ² retail texts are negatives, both for their own tag and for the two sibling tags
  (`sibling`: a Spanish draft judged as Catalan must not be refused); the English texts are positives.
- zh-Hans: VitaBench delivery (../shared/vendor/vitabench-b0850e5.tar.gz, Chinese source written by its
  authors): its Chinese task texts, rubrics, profiles, store and product names are negatives; the authors'
  English of the same tasks (tasks_en.json) are positives.

Tuned on vi, id, es (`--sweep` prints the grid); reported on th, tl, ca, gl, zh-Hans, held out.
Precision = refused positives / refused; recall = refused positives / positives judged (and / all
positives: a text with too little prose is not judged, "skipped").

    python -m bench.language_id [--sweep] [--export tests/data/language_id] [--units N]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import tarfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from rich.console import Console
from rich.table import Table

from babelflow.apertium import apertium_binary, blocks_document, installed_modes, mode_for, read_blocks, run_apertium
from babelflow.language_id import DEFAULT_THRESHOLDS, LanguageThresholds, judge_language

ROOT = Path(__file__).resolve().parent.parent
SEATAU = ROOT.parent / "shared" / "corpora" / "seatau-retail"
VITABENCH = ROOT.parent / "shared" / "vendor" / "vitabench-b0850e5.tar.gz"
TUNE = ("vi", "id", "es")
HELD_OUT = ("th", "tl", "ca", "gl", "zh-Hans")
APERTIUM = ("es", "ca", "gl")
SEED = 39
_SKIP_KEYS = {"id", "domain", "reward_basis", "actions", "action_id", "issues"}  # issues: maintainers' notes, kept


class Unit(BaseModel):
    """One target text, the language it is a target for, and its label by construction."""

    text: str
    language: str  # the tag judged against (vi, zh-Hans)
    kept: list[str] = []
    wrong: bool  # True: English presented as the target (should be refused)
    group: str  # english | translation | kept | mixed | mixed, unkept | draft | sibling
    origin: str  # file or tool it came from


# ---- data ---------------------------------------------------------------------------------------


def _leaves(value: Any, path: tuple = ()) -> Iterator[tuple[tuple, str]]:
    if isinstance(value, dict):
        for key, item in value.items():
            if key not in _SKIP_KEYS:
                yield from _leaves(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _leaves(item, (*path, index))
    elif isinstance(value, str) and value.strip():
        yield path, value


def _argument_values(task: dict) -> list[str]:
    """The entity values of a task's golden actions (names, ids, zips, reasons): what a pipeline keeps."""
    values: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, str):
            values.append(value)

    for action in (task.get("evaluation_criteria") or {}).get("actions") or []:
        walk(action.get("arguments") or {})
    return sorted(set(values))


def _paragraphs(markdown: str) -> list[str]:
    return [block.strip() for block in re.split(r"\n\s*\n", markdown) if block.strip()]


def _retail(corpus: Path, language: str) -> Path:
    return corpus / language / "tau2" / "domains" / "retail"


def _product_names(corpus: Path, language: str) -> dict[str, tuple[str, str]]:
    english = json.loads((_retail(corpus, "en") / "db.json").read_text())["products"]
    target = json.loads((_retail(corpus, language) / "db.json").read_text())["products"]
    return {pid: (english[pid]["name"], target[pid]["name"]) for pid in english if pid in target}


def english_units(corpus: Path) -> list[tuple[str, list[str], str]]:
    """(text, kept, origin) of every English τ² retail task text and policy paragraph."""
    units = []
    for task in json.loads((_retail(corpus, "en") / "tasks.json").read_text()):
        kept = _argument_values(task)
        units += [(text, kept, "tasks.json") for _, text in _leaves(task)]
    units += [(p, [], "policy.md") for p in _paragraphs((_retail(corpus, "en") / "policy.md").read_text())]
    return units


def seatau_units(corpus: Path, language: str) -> list[Unit]:
    """English left in place vs. the real translation, per field; mixed: product names kept in English."""
    en_tasks = json.loads((_retail(corpus, "en") / "tasks.json").read_text())
    l_tasks = {t["id"]: t for t in json.loads((_retail(corpus, language) / "tasks.json").read_text())}
    products = _product_names(corpus, language)
    units: list[Unit] = []
    for en_task in en_tasks:
        l_task = l_tasks.get(en_task["id"])
        if l_task is None:
            continue
        kept = _argument_values(en_task)
        targets = dict(_leaves(l_task))
        for path, source in _leaves(en_task):
            target = targets.get(path)
            if target is None:
                continue
            if target == source:  # kept as written by the translator (a value, a name): must not be refused
                units.append(Unit(text=target, language=language, kept=kept, wrong=False, group="kept", origin="tasks"))
                continue
            units.append(Unit(text=source, language=language, kept=kept, wrong=True, group="english", origin="tasks"))
            units.append(
                Unit(text=target, language=language, kept=kept, wrong=False, group="translation", origin="tasks")
            )
            swapped, names = target, []
            for english, translated in products.values():
                if english != translated and translated.lower() in swapped.lower():
                    swapped = re.sub(re.escape(translated), english, swapped, flags=re.I)
                    names.append(english)
            if names:
                units.append(
                    Unit(text=swapped, language=language, kept=kept + names, wrong=False, group="mixed", origin="tasks")
                )
                units.append(
                    Unit(text=swapped, language=language, kept=kept, wrong=False, group="mixed, unkept", origin="tasks")
                )
    for english, translated in products.values():
        if english == translated:  # Taglish keeps "Smart Thermostat": the translator's choice, not English left
            units.append(Unit(text=translated, language=language, wrong=False, group="kept", origin="db products"))
        else:
            units.append(Unit(text=english, language=language, wrong=True, group="english", origin="db products"))
            units.append(
                Unit(text=translated, language=language, wrong=False, group="translation", origin="db products")
            )
    english_policy = _paragraphs((_retail(corpus, "en") / "policy.md").read_text())
    target_policy = _paragraphs((_retail(corpus, language) / "policy.md").read_text())
    units += [Unit(text=p, language=language, wrong=True, group="english", origin="policy.md") for p in english_policy]
    units += [
        Unit(text=p, language=language, wrong=False, group="translation", origin="policy.md") for p in target_policy
    ]
    return units


def apertium_units(corpus: Path, count: int) -> list[Unit]:
    """Apertium drafts of a seeded sample of English τ² texts, for es, ca, gl and each sibling tag."""
    binary = apertium_binary()
    if binary is None:
        raise SystemExit("Apertium is not installed (apt-get install apertium-eng-spa apertium-eng-cat apertium-en-gl)")
    modes = installed_modes(binary)
    english = sorted({text: (text, tuple(kept), origin) for text, kept, origin in english_units(corpus)}.values())
    sample = random.Random(SEED).sample(english, min(count, len(english)))
    units: list[Unit] = []
    for tag in APERTIUM:
        mode = mode_for("en", tag, modes)
        if mode is None:
            raise SystemExit(f"No Apertium en->{tag} pair installed ({', '.join(modes)})")
        done = run_apertium(binary, mode, blocks_document([text for text, _, _ in sample]), timeout=600)
        drafts = read_blocks(done.stdout)
        for index, (text, kept, origin) in enumerate(sample):
            draft = drafts.get(index, "").strip()
            if not draft or draft == text:
                continue  # nothing translated (an amount, an id): neither English left nor a draft
            units.append(Unit(text=text, language=tag, kept=list(kept), wrong=True, group="english", origin=origin))
            for judged_as in APERTIUM:
                group = "draft" if judged_as == tag else "sibling"
                units.append(
                    Unit(
                        text=draft,
                        language=judged_as,
                        kept=list(kept),
                        wrong=False,
                        group=group,
                        origin=f"apertium {mode}",
                    )
                )
    return units


def vitabench_units(tarball: Path, count: int) -> list[Unit]:
    """VitaBench delivery: its Chinese texts (negatives for zh-Hans) and the authors' English (positives)."""
    wanted = {"tasks.json": False, "tasks_en.json": True}
    found: dict[bool, list[str]] = {}
    with tarfile.open(tarball) as archive:
        for member in archive.getmembers():
            name = member.name.rsplit("/", 1)[-1]
            if "/domains/delivery/" not in member.name or name not in wanted:
                continue
            file = archive.extractfile(member)
            assert file is not None
            texts: set[str] = set()
            for task in json.loads(file.read()):
                fields = [task.get("instructions"), task.get("user_scenario"), task.get("evaluation_criteria")]
                fields.append(
                    [
                        [store.get("name"), store.get("tags"), [p.get("name") for p in store.get("products", [])]]
                        for store in (task.get("environment") or {}).get("stores", {}).values()
                    ]
                )
                texts |= {text for _, text in _leaves(fields) if not re.fullmatch(r"[\w:.\- ]*\d[\w:.\- ]*", text)}
            found[wanted[name]] = sorted(texts)
    rng = random.Random(SEED)
    return [
        Unit(
            text=text,
            language="zh-Hans",
            wrong=wrong,
            group="english" if wrong else "translation",
            origin="vitabench " + ("tasks_en.json" if wrong else "tasks.json"),
        )
        for wrong, texts in sorted(found.items())
        for text in rng.sample(texts, min(count, len(texts)))
    ]


def all_units(corpus: Path, tarball: Path, count: int) -> list[Unit]:
    units: list[Unit] = []
    for language in ("vi", "th", "id", "tl"):
        units += seatau_units(corpus, language)
    units += apertium_units(corpus, count)
    units += vitabench_units(tarball, count)
    return units


# ---- measure ------------------------------------------------------------------------------------


class Row(BaseModel):
    language: str
    positives: int = 0
    positives_skipped: int = 0
    refused_positives: int = 0
    negatives: int = 0
    negatives_skipped: int = 0
    refused_negatives: dict[str, int] = {}

    @property
    def false_positives(self) -> int:
        return sum(self.refused_negatives.values())

    @property
    def precision(self) -> float | None:
        refused = self.refused_positives + self.false_positives
        return self.refused_positives / refused if refused else None

    @property
    def recall_judged(self) -> float | None:
        judged = self.positives - self.positives_skipped
        return self.refused_positives / judged if judged else None

    @property
    def recall_all(self) -> float | None:
        return self.refused_positives / self.positives if self.positives else None

    def add(self, other: Row) -> None:
        self.positives += other.positives
        self.positives_skipped += other.positives_skipped
        self.refused_positives += other.refused_positives
        self.negatives += other.negatives
        self.negatives_skipped += other.negatives_skipped
        for group, n in other.refused_negatives.items():
            self.refused_negatives[group] = self.refused_negatives.get(group, 0) + n


def measure(units: list[Unit], thresholds: LanguageThresholds, errors: list | None = None) -> dict[str, Row]:
    rows: dict[str, Row] = {}
    for unit in units:
        row = rows.setdefault(unit.language, Row(language=unit.language))
        verdict = judge_language(unit.text, unit.language, unit.kept, thresholds=thresholds)
        refused = verdict is not None and verdict.wrong
        if unit.wrong:
            row.positives += 1
            row.positives_skipped += verdict is None
            row.refused_positives += refused
            if errors is not None and verdict is not None and not refused:
                errors.append(("missed", unit, verdict))
        else:
            row.negatives += 1
            row.negatives_skipped += verdict is None
            if refused:
                row.refused_negatives[unit.group] = row.refused_negatives.get(unit.group, 0) + 1
                if errors is not None:
                    errors.append(("false refusal", unit, verdict))
    return rows


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def _table(title: str, rows: list[Row], total: Row | None) -> Table:
    table = Table(title=title)
    for column in (
        "language",
        "positives",
        "skipped",
        "refused",
        "recall judged",
        "recall all",
        "negatives",
        "skipped ",
        "false refusals",
        "precision",
    ):
        table.add_column(column, justify="left" if column == "language" else "right")
    for row in [*rows, *([total] if total else [])]:
        wrong = ", ".join(f"{g}: {n}" for g, n in sorted(row.refused_negatives.items())) or "0"
        table.add_row(
            row.language,
            str(row.positives),
            str(row.positives_skipped),
            str(row.refused_positives),
            _share(row.recall_judged),
            _share(row.recall_all),
            str(row.negatives),
            str(row.negatives_skipped),
            wrong,
            _share(row.precision),
            style="bold" if row is total else None,
        )
    return table


def _groups(units: list[Unit], rows: dict[str, Row]) -> Table:
    """Negatives per kind: how many, how many judged, how many refused."""
    counts: dict[str, list[int]] = {}
    for unit in units:
        if not unit.wrong:
            counts.setdefault(unit.group, [0, 0])[0] += 1
    for row in rows.values():
        for group, n in row.refused_negatives.items():
            counts[group][1] += n
    table = Table(title="Negatives by kind, all languages")
    for column in ("kind", "units", "refused"):
        table.add_column(column, justify="left" if column == "kind" else "right")
    for group, (n, refused) in sorted(counts.items()):
        table.add_row(group, str(n), str(refused))
    return table


def _sweep(units: list[Unit], console: Console) -> None:
    table = Table(title=f"Sweep on the tuning languages {', '.join(TUNE)}")
    for column in ("min letters", "min words", "min p", "precision", "recall judged", "recall all", "skipped"):
        table.add_column(column, justify="right")
    tune = [u for u in units if u.language in TUNE]
    for letters in (10, 15, 20, 30):
        for words in (2, 3, 4):
            for p in (0.5, 0.8, 0.9, 0.95, 0.99, 0.999):
                total = Row(language="tune")
                for row in measure(
                    tune, LanguageThresholds(min_letters=letters, min_words=words, min_probability=p)
                ).values():
                    total.add(row)
                table.add_row(
                    str(letters),
                    str(words),
                    str(p),
                    _share(total.precision),
                    _share(total.recall_judged),
                    _share(total.recall_all),
                    str(total.positives_skipped + total.negatives_skipped),
                )
    console.print(table)


_SLICE = {"english": 30, "translation": 30, "draft": 30, "kept": 20, "mixed": 15, "sibling": 10}


def export(units: list[Unit], folder: Path) -> None:
    """A seeded slice per (language, kind) for tests/babelflow/test_language_id.py (no ../shared needed):
    `_SLICE` units of each kind, siblings per Apertium pair, one unit a line."""
    rng = random.Random(SEED)
    chosen: list[Unit] = []
    groups: dict[tuple[str, str, str], list[Unit]] = {}
    for unit in units:
        if unit.group in _SLICE:  # `mixed, unkept` holds the same texts as `mixed`
            groups.setdefault((unit.language, unit.group, unit.origin if unit.group == "sibling" else ""), []).append(
                unit
            )
    for key in sorted(groups):
        members = groups[key]
        for unit in rng.sample(members, min(_SLICE[key[1]], len(members))):
            lowered = unit.text.lower()  # only the kept values the text holds: the rest strip nothing
            chosen.append(unit.model_copy(update={"kept": [k for k in unit.kept if k.lower() in lowered]}))
    folder.mkdir(parents=True, exist_ok=True)
    lines = ",\n".join(json.dumps(u.model_dump(), ensure_ascii=False) for u in chosen)
    (folder / "units.json").write_text(f"[\n{lines}\n]\n", encoding="utf-8")
    print(f"{len(chosen)} units written to {folder / 'units.json'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=SEATAU, help="the seatau-retail corpus folder")
    parser.add_argument("--vitabench", type=Path, default=VITABENCH, help="the VitaBench tarball")
    parser.add_argument(
        "--units",
        type=int,
        default=500,
        help="units sampled per Apertium pair (of 416 English texts) and VitaBench side",
    )
    parser.add_argument("--sweep", action="store_true", help="print the threshold grid on the tuning languages")
    parser.add_argument("--errors", type=int, default=0, help="print up to N misjudged units")
    parser.add_argument("--export", type=Path, help="write a seeded test slice (units.json) to this folder")
    args = parser.parse_args()
    console = Console()
    started = time.perf_counter()
    judge_language("Load the model before timing.", "es")
    load = time.perf_counter() - started
    started = time.perf_counter()
    units = all_units(args.corpus, args.vitabench, args.units)
    console.print(f"{len(units)} units built in {time.perf_counter() - started:.1f} s")
    if args.export:
        export(units, args.export)
    if args.sweep:
        _sweep(units, console)
    errors: list = []
    started = time.perf_counter()
    rows = measure(units, DEFAULT_THRESHOLDS, errors)
    elapsed = time.perf_counter() - started
    for title, languages in (("tuning", TUNE), ("held out", HELD_OUT)):
        total = Row(language=f"{title}, all")
        for language in languages:
            total.add(rows[language])
        console.print(
            _table(
                f"English left in place, {title} languages ({DEFAULT_THRESHOLDS})",
                [rows[lang] for lang in languages],
                total,
            )
        )
    console.print(_groups(units, rows))
    for kind, unit, verdict in errors[: args.errors]:
        console.print(
            f"[bold]{kind}[/] {unit.language} {unit.group} p={verdict.probability} "
            f"{verdict.detected}: {verdict.judged[:200]!r}",
            markup=True,
            highlight=False,
        )
    console.print(
        f"model load {load:.2f} s; {len(units)} units judged in {elapsed:.2f} s "
        f"({elapsed / len(units) * 1e3:.3f} ms per unit)"
    )
    console.print(
        "command: python -m bench.language_id "
        + " ".join(
            f"--{k} {v}" for k, v in vars(args).items() if v not in (None, False, 0) and k in ("units", "errors")
        )
    )


if __name__ == "__main__":
    main()
