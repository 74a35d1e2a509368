"""Agent and user-simulator classes that read a variant's translated prompts, for tau2's registry.

tau2 formats the agent's system prompt from module constants and the user simulator's from the
global guideline files. A variant registers subclasses that take the translated instruction (from
the code overlay, plus the language pack's agent clause) and the variant's guideline files;
tau2's own classes and the source benchmark are left untouched.
"""

from __future__ import annotations

from pathlib import Path

from babelflow.variant import CodeOverlay


def localized_agent_class(overlay: CodeOverlay | None, language_clause: str):
    from tau2.agent import llm_agent

    translated = overlay.translated("agent/llm_agent.py", llm_agent.AGENT_INSTRUCTION) if overlay else None
    instruction = (translated or llm_agent.AGENT_INSTRUCTION) + "\n" + language_clause

    class LocalizedLLMAgent(llm_agent.LLMAgent):
        @property
        def system_prompt(self) -> str:
            return llm_agent.SYSTEM_PROMPT.format(domain_policy=self.domain_policy, agent_instruction=instruction)

    return LocalizedLLMAgent


def localized_user_class(guidelines_dir: Path):
    from tau2.user.user_simulator import UserSimulator

    class LocalizedUserSimulator(UserSimulator):
        @property
        def global_simulation_guidelines(self) -> str:
            name = "simulation_guidelines_tools.md" if self.tools is not None else "simulation_guidelines.md"
            return (Path(guidelines_dir) / name).read_text(encoding="utf-8")

    return LocalizedUserSimulator
