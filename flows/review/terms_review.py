"""The flow's term review, between the terms stage and the prose: the doubtful renderings in one wrapping
table (term, rendering, confidence, why, where it is used: a Markdown artifact, since Prefect's table
artifacts scroll sideways) and a decisions-only form (approve, correct with a rendering, or skip), as the
findings review does.

The policy (`--terms`): `review` waits while any rendering is doubtful and the run is attended
(`--review-timeout` > 0); unattended, or when nobody answers in time, the run goes on with the
proposed renderings and says how to review them (`babelflow terms … --doubtful`). `approve-all`
approves every proposed rendering unread: for tests, logged as such, and the map keeps the
translator as the entries' origin, so a sign-off never counts them as reviewed. Pseudo-locales have
no signals, so they never wait.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import orjson
from prefect import get_run_logger
from prefect.artifacts import create_markdown_artifact
from prefect.exceptions import FlowPauseTimeout
from prefect.flow_runs import pause_flow_run
from prefect.input import RunInput
from pydantic import Field, create_model

from babelflow.adaptation_run import AdaptationRun
from babelflow.atomic_io import write_bytes_atomic
from babelflow.ir import Record
from babelflow.saved_records import load_saved_record
from flows.review.forms import summary_field
from flows.review.html_cells import cell
from flows.review.named_pause import pause_named
from translators.terms.review import TermDecision, now, record_decisions
from translators.terms.term_base import TermEntry, as_decided, load_term_base

TERMS_PAGE = 100  # entries per form at most: a form's schema is one run input, which thousands of fields exceed
SKIPPED_FILE = "terms_skipped.json"
TERMS_PER_ROUND = 200  # the most doubtful entries a round asks (two forms' worth); the rest wait for the next


class SkippedTerms(Record):
    """Doubtful renderings a reviewer skipped in this run's forms, as (class, term, rendering): a later round
    does not ask them again while their rendering stays the same. A reviewer of the VitaBench instore es
    flow met the same 121 skipped terms in every round (44 of 73 minutes spent in terms forms)."""

    skipped: list[tuple[str, str, str]] = Field(default_factory=list)


def _skipped_path(run: AdaptationRun) -> Path:
    return run.paths.review_dir / SKIPPED_FILE


def load_skipped(run: AdaptationRun) -> set[tuple[str, str, str]]:
    path = _skipped_path(run)
    if not path.is_file():
        return set()
    fix = f"delete {path}: the skipped terms are asked again"
    return set(load_saved_record(path, SkippedTerms, what="Skipped terms", fix=fix).skipped)


def _remember_skipped(run: AdaptationRun, skipped: set[tuple[str, str, str]]) -> None:
    path = _skipped_path(run)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_bytes_atomic(path, orjson.dumps(SkippedTerms(skipped=sorted(skipped)).model_dump(mode="json")))


def _key(entry: TermEntry) -> tuple[str, str, str]:
    return (entry.group, entry.source, entry.rendering)


def still_to_ask(
    doubtful: list[TermEntry], skipped: set[tuple[str, str, str]], limit: int | None = None
) -> list[TermEntry]:
    """The doubtful entries a round asks, in form order: less those skipped before with the rendering they
    still have (a rendering that changed since is asked again), and at most `limit`, the most doubtful first.
    Apertium's drafts of VitaBench instore leave 11,665 of 14,937 terms doubtful: 121 forms in one round,
    which a reviewer skipped through; a round now asks the worst ones, and the next round the next ones."""
    left = sorted((e for e in doubtful if _key(e) not in skipped), key=lambda e: (-e.chance_wrong, e.group, e.source))
    return in_form_order(left[:limit] if limit is not None else left)


class TermsForm(RunInput):
    reviewer: str = Field(default="", title="Your name", description="recorded with every decision")


def term_field(number: int) -> str:
    return f"term_{number}"


def terms_form(entries: list[TermEntry], description: str, first: int) -> type[TermsForm]:
    fields: dict = {}
    for number, entry in enumerate(entries, start=first):
        title = f"{number}. {entry.group}: {entry.source} → {entry.rendering}"
        about = "; ".join(s.kind.value for s in entry.signals) or "no signal"
        fields[term_field(number)] = (
            Literal["skip", "approve", "correct"],
            Field(default="skip", title=title, description=f"{round(100 * (1 - entry.chance_wrong))}% sure · {about}"),
        )
        fields[f"{term_field(number)}_rendering"] = (
            str,
            Field(default="", title="rendering if you correct it", description="used everywhere the term occurs"),
        )
    fields = summary_field(description, "Your name is recorded with every decision.") | fields
    return create_model("TermsForm", __base__=TermsForm, **fields)


def terms_material_markdown(entries: list[TermEntry], benchmark: str, language: str, round_no: int) -> str:
    """The doubtful renderings as one wrapping table, numbered as the form numbers them: the term and its
    rendering, how sure babelflow is, why it doubts it and where the term is used. Readable at 1,280 px: its
    columns share the width and every cell wraps (a Prefect table artifact does not wrap: it scrolls)."""
    rows = []
    for number, entry in enumerate(entries, start=1):
        why = "\n".join(f"{s.kind.value}: {s.evidence}" for s in entry.signals)
        used = "\n".join(entry.context.records[:1] + entry.context.examples[:1])
        term = f"{number}. {entry.source}\n→ {entry.rendering}\n({entry.group})"
        sure = f"{round(100 * (1 - entry.chance_wrong))}%"
        rows.append(
            f'<tr><td valign="top">{cell(term)}</td><td valign="top">{sure}</td>'
            f'<td valign="top">{cell(why)}</td><td valign="top">{cell(used)}</td></tr>'
        )
    head = (
        '<table width="100%"><colgroup><col width="26%"><col width="6%"><col width="38%"><col width="30%">'
        "</colgroup><thead><tr><th>term → rendering</th><th>sure</th><th>why doubtful</th><th>where used</th>"
        "</tr></thead><tbody>"
    )
    return "\n".join(
        [
            f"# Terms of {benchmark} → {language}: {len(entries)} doubtful renderings (round {round_no})",
            "",
            "Decide each in the paused run's form (numbered as here): approve, or correct with the rendering to use"
            " everywhere (DB, tasks, golden arguments, prose). `babelflow terms` shows the same in the terminal.",
            "",
            head + "".join(rows) + "</tbody></table>",
            "",
        ]
    )


def form_pages(doubtful: list[TermEntry]) -> list[list[TermEntry]]:
    """One form per class (one screen of one kind of term), a class of more than TERMS_PAGE in parts."""
    by_class: dict[str, list[TermEntry]] = {}
    for entry in doubtful:
        by_class.setdefault(entry.group, []).append(entry)
    return [entries[i : i + TERMS_PAGE] for entries in by_class.values() for i in range(0, len(entries), TERMS_PAGE)]


def in_form_order(entries: list[TermEntry]) -> list[TermEntry]:
    """How the table and the form number the doubtful entries: by class, the most doubtful first."""
    return sorted(entries, key=lambda e: (e.group, -e.chance_wrong, e.source))


def settle_terms(run: AdaptationRun, round_no: int) -> int:
    """Apply the terms policy to the run's term base; returns the decisions recorded."""
    logger = get_run_logger()
    from babelflow.canonical_map import load_canonical_map  # noqa: PLC0415 - read once the stage wrote it

    cmap = load_canonical_map(run.paths.canonical_map, run.benchmark, run.language)
    base = as_decided(load_term_base(run.paths.term_base), cmap)
    proposed = [e for e in base.entries if e.state == "proposed"]
    policy = run.request.review.terms
    if policy == "approve-all" and proposed:
        decisions = [_decision(e, "approve-all", e.rendering, "--terms approve-all", "") for e in proposed]
        record_decisions(run.paths.canonical_map, _log(run), run.benchmark, run.language, decisions)
        logger.warning(f"--terms approve-all: {len(decisions)} renderings approved unread (logged; not a review)")
        return len(decisions)
    command = f"babelflow terms {run.benchmark} --lang {run.language} --doubtful"
    skipped = load_skipped(run)
    all_doubtful = base.doubtful()
    waiting = still_to_ask(all_doubtful, skipped)
    if (asked_before := len(all_doubtful) - len(waiting)) > 0:
        logger.info(f"{asked_before} doubtful term renderings skipped before are not asked again: `{command}`")
    if not waiting:
        return 0
    doubtful = still_to_ask(waiting, set(), TERMS_PER_ROUND)
    if len(waiting) > len(doubtful):
        logger.info(f"this round asks the {len(doubtful)} most doubtful of {len(waiting)} term renderings: `{command}`")
    if run.request.review.timeout <= 0:
        logger.warning(f"{len(waiting)} doubtful term renderings go on unreviewed (unattended run): `{command}`")
        return 0
    key = f"{run.benchmark}-{run.language}-terms".lower().replace("_", "-")
    create_markdown_artifact(
        key=key,
        markdown=terms_material_markdown(doubtful, run.benchmark, run.language, round_no),
        description=f"round {round_no}: doubtful terms",
    )
    recorded = 0
    pages = form_pages(doubtful)
    first = 1  # the forms number on from each other, as the table numbers them
    for page_no, page in enumerate(pages, start=1):
        form = terms_form(
            page,
            f"**{page[0].group}: {len(page)} of {len(doubtful)} doubtful term renderings** (form {page_no} of"
            f" {len(pages)}, one per class"
            + (
                f"; the most doubtful of {len(waiting)}, the next ones come next round"
                if len(waiting) > len(doubtful)
                else ""
            )
            + "), numbered as in the"
            f" `{key}` artifact, which shows why each is doubtful and where it is used. Approve, or correct"
            " with the rendering to use everywhere (DB, tasks, golden arguments, prose); skipped ones go on as"
            f" proposed and are not asked again in this project (`{command}` lists them).",
            first,
        )
        try:
            with pause_named("AwaitingTermReview"):
                answer = pause_flow_run(
                    wait_for_input=form,
                    timeout=run.request.review.timeout,
                    poll_interval=2,
                    key=f"terms-{round_no}-{page_no}",
                )
        except FlowPauseTimeout:
            logger.warning(f"terms review timed out: the proposed renderings go on (`{command}`)")
            break
        decisions = _answers(answer, page, first)
        decided = {(d.group, d.source) for d in decisions}
        skipped |= {_key(e) for e in page if (e.group, e.source) not in decided}
        _remember_skipped(run, skipped)
        first += len(page)
        if decisions:
            record_decisions(run.paths.canonical_map, _log(run), run.benchmark, run.language, decisions)
            recorded += len(decisions)
    return recorded


def _answers(answer: TermsForm, entries: list[TermEntry], first: int) -> list[TermDecision]:
    values = answer.model_dump()
    who = answer.reviewer or "anonymous"
    decisions = []
    for number, entry in enumerate(entries, start=first):
        choice = values.get(term_field(number), "skip")
        rendering = (values.get(f"{term_field(number)}_rendering") or "").strip()
        if choice == "approve":
            decisions.append(_decision(entry, "approve", entry.rendering, who, ""))
        elif choice == "correct" and rendering:
            decisions.append(_decision(entry, "correct", rendering, who, ""))
    return decisions


def _decision(entry: TermEntry, action, rendering: str, author: str, note: str) -> TermDecision:
    return TermDecision(
        at=now(),
        author=author,
        action=action,
        group=entry.group,
        source=entry.source,
        rendering=rendering,
        previous=entry.rendering,
        note=note,
    )


def _log(run: AdaptationRun):
    return run.settings.layout.term_decisions(run.benchmark, run.language)
