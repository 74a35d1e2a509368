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

from babelflow.ir import ArtifactRole
from source_benchmarks.tau2.domains import Tau2DomainSpec

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

TAU3_DOMAINS: dict[str, Tau2DomainSpec] = {
    "tau3-mock": Tau2DomainSpec(
        benchmark_id="tau3-mock",
        domain="mock",
        db_file="db.json",
        db_model="tau2.domains.mock.data_model:MockDB",
        tools_class="tau2.domains.mock.tools:MockTools",
        policy_files=("policy.md", "policy_solo.md"),
        default_split=None,
        user_db_file="user_db.json",
        user_db_model="tau2.domains.mock.user_data_model:MockUserDB",
        user_tools_class="tau2.domains.mock.user_tools:MockUserTools",
        code_files=_code("mock", *_USER),
        path_globals=(
            ("MOCK_DB_PATH", "db.json"),
            ("MOCK_USER_DB_PATH", "user_db.json"),
            ("MOCK_POLICY_PATH", "policy.md"),
            ("MOCK_POLICY_SOLO_PATH", "policy_solo.md"),
            ("MOCK_TASK_SET_PATH", "tasks.json"),
        ),
    ),
    "tau3-airline": Tau2DomainSpec(
        benchmark_id="tau3-airline",
        domain="airline",
        db_file="db.json",
        db_model="tau2.domains.airline.data_model:FlightDB",
        tools_class="tau2.domains.airline.tools:AirlineTools",
        policy_files=("policy.md",),
        default_split="base",
        code_files=_code("airline"),
        path_globals=(
            ("AIRLINE_DB_PATH", "db.json"),
            ("AIRLINE_POLICY_PATH", "policy.md"),
            ("AIRLINE_TASK_SET_PATH", "tasks.json"),
        ),
    ),
    "tau3-retail": Tau2DomainSpec(
        benchmark_id="tau3-retail",
        domain="retail",
        db_file="db.json",
        db_model="tau2.domains.retail.data_model:RetailDB",
        tools_class="tau2.domains.retail.tools:RetailTools",
        policy_files=("policy.md",),
        default_split="base",
        code_files=_code("retail"),
        path_globals=(
            ("RETAIL_DB_PATH", "db.json"),
            ("RETAIL_POLICY_PATH", "policy.md"),
            ("RETAIL_TASK_SET_PATH", "tasks.json"),
        ),
    ),
    "tau3-telecom": Tau2DomainSpec(
        benchmark_id="tau3-telecom",
        domain="telecom",
        db_file="db.toml",
        db_model="tau2.domains.telecom.data_model:TelecomDB",
        tools_class="tau2.domains.telecom.tools:TelecomTools",
        policy_files=(
            "main_policy.md",
            "tech_support_manual.md",
            "tech_support_workflow.md",
            "main_policy_solo.md",
            "tech_support_workflow_solo.md",
        ),
        default_split="base",
        user_db_file="user_db.toml",
        user_db_model="tau2.domains.telecom.user_data_model:TelecomUserDB",
        user_tools_class="tau2.domains.telecom.user_tools:TelecomUserTools",
        code_files=_code("telecom", *_USER, ("environment.py", ArtifactRole.PROMPT_CODE)),
        path_globals=(
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
