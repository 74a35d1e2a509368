"""The translator's versioned prompts (``translate.v1.md``); loading and rendering:
``babelflow.llm.prompts``."""

from babelflow.llm.prompts import Prompt, PromptLibrary

load_prompt = PromptLibrary(__package__, {"translate": "v1"}).load

__all__ = ["Prompt", "load_prompt"]
