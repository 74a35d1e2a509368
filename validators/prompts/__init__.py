"""The validator agents' versioned prompts (``review.v1.md``: probe findings only; ``review.v2.md``: the translation too); loading and rendering:
``babelflow.llm.prompts``."""

from __future__ import annotations

from babelflow.llm.prompts import Prompt, load_prompt_from

DEFAULT_VERSIONS = {"review": "v2"}  # v2 reads the translation itself (tasks and units)


def load_prompt(name: str, version: str | None = None) -> Prompt:
    return load_prompt_from(__package__, name, version or DEFAULT_VERSIONS[name])
