"""The validator agents' versioned prompts (``review.v1.md``: probe findings only;
``review.v2.md``: the translation too); loading and rendering: ``babelflow.llm.prompts``."""

from babelflow.llm.prompts import Prompt, PromptLibrary

load_prompt = PromptLibrary(__package__, {"review": "v2"}).load  # v2 reads the translation itself (tasks and units)

__all__ = ["Prompt", "load_prompt"]
