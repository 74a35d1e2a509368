"""`babelflow review` (decide findings from the terminal, group by group) and `babelflow server`
(the project's Prefect UI and API)."""

from __future__ import annotations

import getpass
from enum import Enum
from pathlib import Path

import typer
from rich.prompt import Prompt

from babelflow.errors import BabelflowError
from babelflow.settings import BabelflowSettings
from flows.cli.common import cli_errors, console, shown_text
from flows.cli.options import BENCHMARK, NOTE, REVIEWER, takes
from flows.review.signoff import Signer
from flows.review.store import Decision, ReviewDecision, ReviewStore, Route, review_folder
from flows.server.auth import auth_path
from validators.finding_kinds import suggested_route
from validators.findings import Severity, group_findings


class ReviewRoute(str, Enum):
    TRANSLATION = "translation"
    ANALYSIS = "analysis"


def _decision(choice: str) -> Decision:
    """A choice the prompt or --decide has already checked is confirm or dismiss."""
    return "confirm" if choice == "confirm" else "dismiss"


@cli_errors
@takes(
    "signer",
    (REVIEWER, NOTE),
    lambda given: Signer(reviewer=given["reviewer"] or getpass.getuser(), note=given["note"]),
)
def review(
    signer: Signer,
    benchmark: str = BENCHMARK.info,
    lang: str = typer.Option(..., "--lang", "-l", help="Language of the variant under review."),
    decide: list[str] = typer.Option(
        [],
        "--decide",
        help=(
            "ID=confirm|dismiss, ID a finding (F-…) or a whole group (G-…); repeatable. "
            "Without it, asks group by group in the terminal."
        ),
    ),
    route: ReviewRoute | None = typer.Option(
        None,
        "--route",
        help=(
            "Where confirmed findings go: translation, or analysis (mistyped field). "
            "Default: what each finding's kind suggests (analysis for profile_contradicts_evidence)."
        ),
    ),
    sign: bool = typer.Option(
        False,
        "--sign",
        help="Sign the variant off (only when no findings are open): shows the sample of units to read"
        " (ISO 2859-1 level II, stratified by role and risk) side by side and records it.",
    ),
    fail: list[str] = typer.Option(
        [],
        "--fail",
        help="With --sign: a sampled unit that fails, UNIT=CATEGORY:SEVERITY[:note] (MQM core: accuracy, fluency,"
        " terminology, locale_convention, style; minor, major, critical); repeatable.",
    ),
    verdicts: Path | None = typer.Option(
        None,
        "--verdicts",
        help="With --sign: a JSON list of unit verdicts ({unit_key, verdict pass|fail, category, severity, note}).",
    ),
    yes: bool = typer.Option(
        False,
        "--yes",
        help="With --sign: I read every sampled unit; those without a verdict pass (else each is asked).",
    ),
    variant: Path | None = typer.Option(
        None,
        "--variant",
        help="A variant made elsewhere, queued with `babelflow validate --variant DIR --review`"
        " (default: the project's adapted/<benchmark>/<lang>/).",
    ),
) -> None:
    """Review the open findings from the terminal; decisions are appended to the log, never overwritten."""
    settings = BabelflowSettings()
    folder, own = review_folder(settings, benchmark, lang, variant)
    store = ReviewStore(folder)
    queue = store.queue()
    if queue is None:
        named = "" if own else f" --variant {variant}"
        raise BabelflowError(
            "No review queue yet",
            file=store.queue_path,
            fix=f"run `babelflow flow {benchmark} --lang {lang}` first, or queue a validation:"
            f" `babelflow validate {benchmark} --lang {lang}{named} --review`",
        )
    if sign and not own:
        raise BabelflowError(
            "A variant made elsewhere is not signed off here",
            field="--sign",
            fix="sign the project's own variants (without --variant); review this one's findings and give them"
            " to its makers",
        )
    reviewer, note = signer.reviewer, signer.note
    if sign:
        # notes record a policy (values kept as they are): read at sign-off, no decision (as the flow counts)
        notes = [f for f in queue.findings if f.severity is Severity.NOTE]
        still_open = [f for f in queue.findings if f.severity is not Severity.NOTE]
        if still_open:
            raise BabelflowError(
                f"{len(still_open)} findings are still open",
                file=store.queue_path,
                fix="review them and rerun the flow first",
            )
        for finding in notes:
            console.print(f"note {finding.id}: {shown_text(finding.message)}", highlight=False)
        from flows.cli.signing import parsed_failures, read_verdicts, sign_sampled  # noqa: PLC0415

        given = (read_verdicts(verdicts) if verdicts else []) + parsed_failures(fail)
        sign_sampled(settings, benchmark, lang, store, signer, given, yes=yes)
        return
    groups = group_findings(queue.findings)
    by_group = {g.id: g for g in groups}
    by_finding = {f.id: f for f in queue.findings}
    decided: list[ReviewDecision] = []
    if decide:
        for item in decide:
            target_id, _, choice = item.partition("=")
            if choice not in ("confirm", "dismiss"):
                raise BabelflowError(
                    f"Bad decision {item!r}",
                    field="--decide",
                    fix="write ID=confirm or ID=dismiss (ID: a finding F-… or a group G-…)",
                )
            targets = by_group[target_id].finding_ids if target_id in by_group else [target_id]
            decided += [
                ReviewDecision(
                    finding_id=f,
                    decision=_decision(choice),
                    reviewer=reviewer,
                    note=note or (f"group {target_id}" if target_id in by_group else ""),
                    route=route.value
                    if route
                    else suggested_route(by_finding[f].layer, by_finding[f].kind)
                    if f in by_finding
                    else "translation",
                )
                for f in targets
            ]
        decided = store.append_many(decided, queue)  # checked against the queue first: a typo writes nothing
    else:
        console.print(f"{len(queue.findings)} open findings in {len(groups)} groups, most severe first")
        for group in groups:
            console.rule(f"{group.id} · {len(group.finding_ids)} finding(s)")
            console.print(shown_text(group.summary), highlight=False)
            first = by_finding[group.finding_ids[0]]
            for evidence in first.evidence[:1]:
                console.print(
                    f"  source: {shown_text(str(evidence.source))}\n  target: {shown_text(str(evidence.target))}",
                    highlight=False,
                )
            if first.element_id:  # the finding -> unit link: a replacement text fixes it and confirms it
                console.print(
                    f'  replace its text: babelflow correct {benchmark} --lang {lang} --finding {first.id} --text "…"',
                    highlight=False,
                )
            choice = Prompt.ask(
                "decision for the group",
                choices=["confirm", "dismiss", "open", "skip"],
                default="skip",
                console=console,
            )
            members: list[list[str]] = [group.finding_ids] if choice != "open" else [[f] for f in group.finding_ids]
            for ids in members:
                if choice == "open":
                    finding = by_finding[ids[0]]
                    console.print(
                        f"[bold]{finding.id}[/] "
                        f"{shown_text(f'{finding.artifact} {finding.location}: {finding.message}')}",
                        highlight=False,
                    )
                    one = Prompt.ask(
                        "decision", choices=["confirm", "dismiss", "skip"], default="skip", console=console
                    )
                else:
                    one = choice
                if one in ("skip",):
                    continue
                reason = Prompt.ask("note", default="", console=console)
                offered = suggested_route(group.layer, group.kind)
                where: Route = (
                    "analysis"
                    if one == "confirm"
                    and Prompt.ask("route", choices=["translation", "analysis"], default=offered, console=console)
                    == "analysis"
                    else "translation"
                )
                decided += store.append_many(
                    [
                        ReviewDecision(
                            finding_id=f, decision=_decision(one), reviewer=reviewer, note=reason, route=where
                        )
                        for f in ids
                    ],
                    queue,
                )
    console.print(
        f"{len(decided)} decisions appended to {store.log}; "
        + (
            f"rerun `babelflow flow {benchmark} --lang {lang}` to apply them"
            if own
            else "this variant was made elsewhere: its makers fix the confirmed findings, then validate it again"
        ),
        soft_wrap=True,
    )


@cli_errors
def server(
    port: int = typer.Option(4200, help="Port on 127.0.0.1 (UI and API; the UI is pointed at this port's API)."),
    stop: bool = typer.Option(
        False, "--stop", help="Stop the background server that `babelflow flow` started for this project."
    ),
    status: bool = typer.Option(False, "--status", help="Print the background server's address, if one runs."),
) -> None:
    """The project's Prefect server (UI + API) on 127.0.0.1, telemetry off, state in .babelflow/prefect.

    `babelflow flow` starts one in the background on first use and reuses it; without options this
    command runs one in the foreground instead (Ctrl-C or SIGTERM ends it). Runs, artifacts and
    review forms live in the project's database either way. Every API call needs the project's
    auth string (the UI asks for it at login): it is in .babelflow/prefect/auth/, readable only by
    you; only 127.0.0.1/localhost on that port are answered."""
    # the server's process code (urllib.request, http.client, the launcher: ~70 ms) stays off `babelflow --help`
    from flows.server.local_server import (  # noqa: PLC0415
        ServerRecord,
        check_port,
        run_foreground,
        running_server,
        stop_background,
    )

    settings = BabelflowSettings()
    if stop:
        _, outcome = stop_background(settings)
        console.print(outcome, highlight=False)
        return
    running = running_server(settings)
    if status:
        said = f"project server: {running.ui_url} (pid {running.pid}, log {running.log})" if running else ""
        console.print(said or "no server runs for this project", highlight=False)
        return
    check_port(port)
    if running:
        raise BabelflowError(
            f"This project's background server already serves the UI at {running.ui_url}",
            file=running.log,
            fix="open that address, or stop it first with `babelflow server --stop`",
        )

    def announce(record: ServerRecord) -> None:
        console.print(
            f"Prefect UI: {record.ui_url}  ·  API: {record.api_url}  ·  state: {record.prefect_home}\n"
            f"log in with the auth string in {auth_path(settings)} (owner-only; `babelflow flow` reads it there)",
            highlight=False,
            soft_wrap=True,
        )

    console.print(f"starting the project's Prefect server on 127.0.0.1:{port} …", highlight=False)
    raise typer.Exit(run_foreground(settings, port, announce))
