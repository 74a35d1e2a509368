"""The whole CLI against the fakes: `babelflow adapt tau2-mock --lang zh-Hans --translator
dashscope:M --validators openai:M,dashscope:M,anthropic:M`, then `babelflow validate` with the
same validators. The variant validates clean, the cost reports equal the usage the fakes returned,
and no key appears in any file, log or output the runs produced."""

from __future__ import annotations

import logging
import re

import orjson
from fakes import KEYS, MODELS, SDKS, FakeLLMServer
from typer.testing import CliRunner

from flows.cli.app import app

TRANSLATOR = f"dashscope:{MODELS['dashscope']}"
VALIDATORS = ",".join(f"{p}:{MODELS[p]}" for p in ("openai", "dashscope", "anthropic"))


def _totals(path, stage: str) -> dict[str, tuple[int, int]]:
    report = orjson.loads(path.read_bytes())
    out: dict[str, tuple[int, int]] = {}
    for row in report["rows"]:
        assert row["stage"] == stage and row["language"] == "zh-Hans" and row["estimated_requests"] == 0
        tin, tout = out.get(row["provider"], (0, 0))
        out[row["provider"]] = (tin + row["input_tokens"], tout + row["output_tokens"])
    return out


def test_full_run_adapt_then_validate_with_three_provider_agents(
    project, fake, caplog, seed_analysis_cache, monkeypatch
):
    seed_analysis_cache(project, "tau2-mock")  # these runs are about providers and keys, not a cold analysis
    caplog.set_level(logging.DEBUG)  # every SDK's debug logging is captured and scanned below
    runner = CliRunner()

    adapt = runner.invoke(
        app, ["adapt", "tau2-mock", "--lang", "zh-Hans", "--translator", TRANSLATOR, "--validators", VALIDATORS]
    )
    assert adapt.exit_code == 0, adapt.output
    variant = project / "adapted" / "tau2-mock" / "zh-Hans"
    manifest = orjson.loads((variant / "babelflow_manifest.json").read_bytes())
    assert manifest["translator_id"] == f"{TRANSLATOR}/prompt-translate.v1"
    assert "0 findings" in adapt.output and "model usage" in adapt.output
    tasks = (variant / "data" / "tau2" / "domains" / "mock" / "tasks.json").read_text(encoding="utf-8")
    assert "任务" in tasks and "⟦" not in tasks

    translate_usage = fake.state.usage("dashscope", "translate")
    review_usage = {p: fake.state.usage(p, "review") for p in SDKS}
    assert translate_usage[0] > 0 and all(u[0] > 0 for u in review_usage.values())
    reads = [len(fake.state.requests(p, "review")) for p in SDKS]
    assert (
        len(set(reads)) == 1 and reads[0] > 1
    )  # one isolated agent per provider, each reading the whole translation in batches
    report = orjson.loads((project / ".babelflow" / "costs" / "tau2-mock" / "zh-Hans" / "adapt.json").read_bytes())
    translate_rows = [r for r in report["rows"] if r["stage"] == "translate"]
    assert [(r["provider"], r["model"]) for r in translate_rows] == [("dashscope", MODELS["dashscope"])]
    assert (translate_rows[0]["input_tokens"], translate_rows[0]["output_tokens"]) == translate_usage
    validate_rows = {
        r["provider"]: (r["input_tokens"], r["output_tokens"]) for r in report["rows"] if r["stage"] == "validate"
    }
    assert validate_rows == review_usage
    assert fake.state.credentials() == {p: {KEYS[p]} for p in SDKS}  # each API got its own key and no other

    fake.reset()
    validate = runner.invoke(
        app,
        [
            "validate",
            "tau2-mock",
            "--lang",
            "zh-Hans",
            "--validators",
            VALIDATORS,
            "--json",
            str(project / "reports" / "failures.json"),
        ],
    )
    assert validate.exit_code == 0, validate.output
    failures = orjson.loads((project / "reports" / "failures.json").read_bytes())
    assert failures["findings"] == [] and failures["validators"] == [
        "probes",
        "validator-1-openai",
        "validator-2-dashscope",
        "validator-3-anthropic",
    ]
    assert _totals(project / ".babelflow" / "costs" / "tau2-mock" / "zh-Hans" / "validate.json", "validate") == {
        p: fake.state.usage(p, "review") for p in SDKS
    }
    # each agent read the variant during adapt and kept what it read: nothing changed, nothing is sent again
    memory = project / ".babelflow" / "agent_memory" / "tau2-mock" / "zh-Hans"
    assert sorted(f.name for f in memory.iterdir()) == [
        "validator-1-openai.json",
        "validator-2-dashscope.json",
        "validator-3-anthropic.json",
    ]
    again = [s.payload for p in SDKS for s in fake.state.requests(p, "review")]
    assert again and all(not r.get("tasks") and not r.get("units") for r in again)
    assert "not sent again" in " ".join(failures["notes"])

    # a reviewer without the keys lists what the keyed run made: reading calls no model
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "DASHSCOPE_API_KEY"):
        monkeypatch.delenv(name)
    before = len(fake.state.seen)
    listed = runner.invoke(app, ["units", "tau2-mock", "--lang", "zh-Hans", "--limit", "0"], env={"COLUMNS": "250"})
    assert listed.exit_code == 0, listed.output
    summary = re.search(r"\(of \d+: ([^)]*)\)", " ".join(listed.output.split()))
    assert summary and "draft" in summary.group(1) and "pending" not in summary.group(1)  # read from the memory
    assert f"{TRANSLATOR}/prompt-translate.v1" in listed.output
    assert len(fake.state.seen) == before
    assert fake.state.credentials() == {p: {KEYS[p]} for p in SDKS}

    # ---- no key anywhere: files (state, TM, IR, costs, variant, maps, reports), logs, output ----
    files = [p for p in project.rglob("*") if p.is_file()]
    assert any(".babelflow/tm" in str(p) for p in files) and any("canonical_maps" in str(p) for p in files)
    leaks = [(str(p), name) for p in files for name, key in KEYS.items() if key.encode() in p.read_bytes()]
    assert leaks == []
    logged = caplog.text + "\n".join(str(r.__dict__) for r in caplog.records)
    assert len(caplog.records) > 0
    for name, key in KEYS.items():
        assert key not in logged, name
        assert key not in adapt.output and key not in validate.output, name


def test_missing_key_is_exit_2_before_any_work(project, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    runner = CliRunner()
    result = runner.invoke(
        app, ["adapt", "tau2-mock", "--lang", "zh-Hans", "--translator", TRANSLATOR, "--validators", VALIDATORS]
    )
    output = " ".join(result.output.split())  # rich wraps long lines
    assert result.exit_code == 2
    assert "ANTHROPIC_API_KEY is not set" in output and "fix: export ANTHROPIC_API_KEY=" in output
    # nothing started: the CLI may create the empty state folders, but no run wrote anything
    assert [p for p in project.rglob("*") if p.is_file()] == [] and not (project / "adapted").exists()

    monkeypatch.delenv("DASHSCOPE_API_KEY")
    result = runner.invoke(app, ["adapt", "tau2-mock", "--lang", "zh-Hans", "--translator", TRANSLATOR])
    assert result.exit_code == 2 and "DASHSCOPE_API_KEY is not set" in " ".join(result.output.split())
    assert [p for p in project.rglob("*") if p.is_file()] == []


def test_rejected_key_is_exit_2_without_the_key_in_the_message(project, monkeypatch, fake, seed_analysis_cache):
    seed_analysis_cache(project, "tau2-mock")  # about the rejected key, not a cold analysis
    wrong = "sk-wrong-key-0123456789abcdef"
    monkeypatch.setenv("DASHSCOPE_API_KEY", wrong)
    result = CliRunner().invoke(app, ["adapt", "tau2-mock", "--lang", "zh-Hans", "--translator", TRANSLATOR])
    assert result.exit_code == 2
    output = " ".join(result.output.split())
    assert "rejected the API key (HTTP 401 InvalidApiKey)" in output and wrong not in result.output
    assert (
        "DASHSCOPE_HTTP_BASE_URL" in output and "dashscope-intl.aliyuncs.com" in output
    )  # keys are per region: say so


def test_full_run_with_a_local_server_translator_keeps_every_key_at_home(
    project, fake, monkeypatch, caplog, seed_analysis_cache
):
    """`adapt --translator openai-compatible:M@http://localhost:P/v1 --validators openai:M`: the
    local server hears nothing of the OpenAI account, OpenAI hears only its own key."""
    seed_analysis_cache(project, "tau2-mock")  # about where keys go, not a cold analysis
    account = {
        "OPENAI_ADMIN_KEY": "sk-admin-private-000111",
        "OPENAI_ORG_ID": "org-private-123",
        "OPENAI_PROJECT_ID": "proj-private-456",
    }
    for name, value in account.items():
        monkeypatch.setenv(name, value)
    caplog.set_level(logging.DEBUG)
    with FakeLLMServer({"openai": None}, host="localhost", official=False) as local:
        translator = f"openai-compatible:local-llm@{local.base_urls()['openai']}"
        result = CliRunner().invoke(
            app,
            [
                "adapt",
                "tau2-mock",
                "--lang",
                "zh-Hans",
                "--translator",
                translator,
                "--validators",
                f"openai:{MODELS['openai']}",
            ],
        )
        assert result.exit_code == 0, result.output
        assert local.state.rejected == [] and len(local.state.requests("openai")) > 0
        assert {s.host.rsplit(":", 1)[0] for s in local.state.seen} == {"localhost"} and local.state.credentials() == {
            "openai": {None}
        }
        sent_local = "".join(str(s.headers) + str(s.body) for s in local.state.seen)
    assert {s.host.rsplit(":", 1)[0] for s in fake.state.seen} == {"127.0.0.1"} and fake.state.credentials() == {
        "openai": {KEYS["openai"]}
    }
    secrets = [*KEYS.values(), *account.values()]
    assert [v for v in secrets if v in sent_local] == []
    files = [p for p in project.rglob("*") if p.is_file()]
    assert [
        (str(p), v)
        for p in files
        for v in (*KEYS.values(), account["OPENAI_ADMIN_KEY"])
        if v.encode() in p.read_bytes()
    ] == []
    assert not [v for v in KEYS.values() if v in caplog.text or v in result.output]
