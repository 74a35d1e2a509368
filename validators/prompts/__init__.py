"""The validator agents' versioned prompts (``review.v1.md``: probe findings only;
``review.v2.md``: the translation too; ``backtranslate.v1.md``: a translation read back into
English); loading and rendering: ``babelflow.llm.prompts``."""

from babelflow.llm.prompts import Prompt, PromptLibrary

# review v2 reads the translation itself (tasks and units); backtranslate: a model reads a translation back
load_prompt = PromptLibrary(__package__, {"review": "v2", "backtranslate": "v1"}).load

__all__ = ["Prompt", "load_prompt"]
