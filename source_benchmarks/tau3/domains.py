"""Static description of τ³-Bench's five domains (tau2-bench 1.0.1): files, models, code, path globals.

τ³ keeps the τ² layout (data/tau2/domains/<d>/, the same module-global file paths), so each domain is
a Tau2DomainSpec and the τ² environment factory builds it. What differs from the 2025 line:
- mock has a user DB and user tools;
- banking_knowledge reads a folder of task files (tasks/task_*.json), a folder of 698 policy
  documents (documents/*.json) and prompt templates (prompts/*.md, prompts/components/*.md) from
  which retrieval.py builds the agent policy; it has no split file.
Code paths are relative to the `tau2` package (src/tau2 in the source tree), as in the τ² family,
so the shared tau2 profile selectors and the code overlay's artifact keys read the same.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from babelflow.errors import BabelflowError
from babelflow.ir import ArtifactRole
from source_benchmarks.tau_common.domains import DOMAINS, Tau2DomainSpec

PREFIX = "tau3-"
BANKING = "tau3-banking_knowledge"

# banking_knowledge's retrieval configuration (which search tools the agent gets and how its policy is
# assembled). τ³'s default, "alltools", needs a dense-embedding API. The tool schemas come from
# bm25_grep, its offline configuration with search (BM25 + grep). Replays and traces use
# no_knowledge: no golden action calls a search tool, the DB and the grading do not involve them, and
# building the BM25 index was 0.28 s of every environment (97 tasks: 32 s instead of ~6 s).
SCHEMA_RETRIEVAL_VARIANT = "bm25_grep"
REPLAY_RETRIEVAL_VARIANT = "no_knowledge"

SHARED_PROMPT_CODE: tuple[tuple[str, ArtifactRole], ...] = (
    ("agent/llm_agent.py", ArtifactRole.PROMPT_CODE),
    ("user/user_simulator.py", ArtifactRole.PROMPT_CODE),
    ("orchestrator/orchestrator.py", ArtifactRole.PROMPT_CODE),
    ("evaluator/evaluator_nl_assertions.py", ArtifactRole.PROMPT_CODE),
)


def _code(domain: str, *extra: tuple[str, ArtifactRole]) -> tuple[tuple[str, ArtifactRole], ...]:
    files = [
        (f"domains/{domain}/tools.py", ArtifactRole.TOOL_CODE),
        (f"domains/{domain}/data_model.py", ArtifactRole.DATA_MODEL_CODE),
    ]
    files += [(f"domains/{domain}/{name}", role) for name, role in extra]
    return tuple(files) + SHARED_PROMPT_CODE


_USER = (("user_tools.py", ArtifactRole.TOOL_CODE), ("user_data_model.py", ArtifactRole.DATA_MODEL_CODE))


def _from_tau2(domain: str, path_globals: tuple[tuple[str, str], ...], **changes: Any) -> Tau2DomainSpec:
    """A τ² domain as τ³ ships it: the same files and models, τ³'s prompt code (no user/base.py) and
    the module globals that bind its file paths; `changes` are what else τ³ changed (mock's user DB)."""
    base = DOMAINS[f"tau2-{domain}"]
    extra = tuple((path.rsplit("/", 1)[-1], role) for path, role in base.code_files[2:] if path.startswith("domains/"))
    extra += tuple(changes.pop("extra_code", ()))
    return dataclasses.replace(
        base, benchmark_id=f"{PREFIX}{domain}", code_files=_code(domain, *extra), path_globals=path_globals, **changes
    )


TAU3_DOMAINS: dict[str, Tau2DomainSpec] = {
    "tau3-mock": _from_tau2(
        "mock",
        (
            ("MOCK_DB_PATH", "db.json"),
            ("MOCK_USER_DB_PATH", "user_db.json"),
            ("MOCK_POLICY_PATH", "policy.md"),
            ("MOCK_POLICY_SOLO_PATH", "policy_solo.md"),
            ("MOCK_TASK_SET_PATH", "tasks.json"),
        ),
        user_db_file="user_db.json",
        user_db_model="tau2.domains.mock.user_data_model:MockUserDB",
        user_tools_class="tau2.domains.mock.user_tools:MockUserTools",
        extra_code=_USER,
    ),
    "tau3-airline": _from_tau2(
        "airline",
        (("AIRLINE_DB_PATH", "db.json"), ("AIRLINE_POLICY_PATH", "policy.md"), ("AIRLINE_TASK_SET_PATH", "tasks.json")),
    ),
    "tau3-retail": _from_tau2(
        "retail",
        (("RETAIL_DB_PATH", "db.json"), ("RETAIL_POLICY_PATH", "policy.md"), ("RETAIL_TASK_SET_PATH", "tasks.json")),
    ),
    "tau3-telecom": _from_tau2(
        "telecom",
        (
            ("TELECOM_DB_PATH", "db.toml"),
            ("TELECOM_USER_DB_PATH", "user_db.toml"),
            ("TELECOM_MAIN_POLICY_PATH", "main_policy.md"),
            ("TELECOM_TECH_SUPPORT_POLICY_MANUAL_PATH", "tech_support_manual.md"),
            ("TELECOM_TECH_SUPPORT_POLICY_WORKFLOW_PATH", "tech_support_workflow.md"),
            ("TELECOM_MAIN_POLICY_SOLO_PATH", "main_policy_solo.md"),
            ("TELECOM_TECH_SUPPORT_POLICY_MANUAL_SOLO_PATH", "tech_support_manual.md"),
            ("TELECOM_TECH_SUPPORT_POLICY_WORKFLOW_SOLO_PATH", "tech_support_workflow_solo.md"),
            ("TELECOM_TASK_SET_PATH", "tasks.json"),
        ),
    ),
    BANKING: Tau2DomainSpec(
        benchmark_id=BANKING,
        domain="banking_knowledge",
        db_file="db.json",
        db_model="tau2.domains.banking_knowledge.data_model:TransactionalDB",
        tools_class="tau2.domains.banking_knowledge.tools:KnowledgeTools",
        policy_files=(),
        default_split=None,
        code_files=_code(
            "banking_knowledge",
            ("retrieval.py", ArtifactRole.PROMPT_CODE),
            ("retrieval_toolkits.py", ArtifactRole.TOOL_CODE),
        ),
        path_globals=(
            ("KNOWLEDGE_DB_PATH", "db.json"),
            ("KNOWLEDGE_DOCUMENTS_DIR", "documents"),
            ("KNOWLEDGE_TASK_SET_PATH", "tasks"),
        ),
    ),
}

USER_GUIDELINES = (
    "data/tau2/user_simulator/simulation_guidelines.md",
    "data/tau2/user_simulator/simulation_guidelines_tools.md",
)


def task_folder(spec: Tau2DomainSpec) -> bool:
    """banking_knowledge keeps one file per task (tasks/task_*.json); the others one tasks.json."""
    return spec.domain == "banking_knowledge"


def tau3_domain(benchmark_id: str) -> Tau2DomainSpec:
    """The τ³ domain `benchmark_id` names; an unknown id is refused."""
    if benchmark_id not in TAU3_DOMAINS:
        raise BabelflowError(
            f"Unknown τ³ benchmark {benchmark_id!r}", field="benchmark", fix=f"use one of {', '.join(TAU3_DOMAINS)}"
        )
    return TAU3_DOMAINS[benchmark_id]
