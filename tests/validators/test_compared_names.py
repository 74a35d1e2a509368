"""A name an AgentDojo task's prompt quotes and its check compares keeps one rendering in the prompt,
the environment and the check (validators/probes/prompt_entities.py `compared_name_rendered_apart`).

The kind the other checks missed: a calendar event's title ('Yoga Class', held by three events)
rendered one new way in every environment field, the prompt and the check unchanged. The policy
inference took it for the variant's own rendering (a note) and no replay failed, so nothing was
reported above note, in es as in en-XA. A channel, a file or a contact renamed the same way breaks
the data's keys, an identifier or a replay and was caught already."""

from __future__ import annotations

from rich.console import Console

from bench.defects import caught_by
from bench.inject_defects import Prepared
from validators.findings import Severity

KIND = "compared_name_rendered_apart"


def test_an_event_title_the_environment_renders_apart_is_critical(tmp_path, analyzed):
    prepared = Prepared(
        "agentdojo-workspace", "en-XA", tmp_path, Console(quiet=True), ir=analyzed("agentdojo-workspace")
    )
    assert [f for f in prepared.clean.findings if f.kind == KIND] == []

    defect, failures = prepared.plant("agentdojo_compared_name_renamed_in_environment", tmp_path / "planted")

    hits = [f for f in caught_by(failures, defect) if f.kind == KIND]
    assert hits and hits[0].severity is Severity.CRITICAL
    assert hits[0].message.startswith("'Yoga Class', which UserTask")
    # every other finding is a note: without this check the defect passed for the variant's own policy
    assert [f.kind for f in failures.findings if f.severity is not Severity.NOTE and f.kind != KIND] == []
    assert len([f for f in failures.findings if f.kind == KIND]) == 3  # one per event holding the title
