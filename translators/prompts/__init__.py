"""Versioned prompt files: ``<name>.v<N>.md``. A prompt's id (``prompt-translate.v1``) is part of
the translator id and so of every translation-memory key: change a prompt's wording by adding a
new version file (``translate.v2.md``) and selecting it, never by editing a released one."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from babelflow.errors import BabelflowError

DEFAULT_VERSIONS = {"translate": "v1", "review": "v1"}


@dataclass(frozen=True)
class Prompt:
    name: str
    version: str
    text: str

    @property
    def id(self) -> str:
        return f"prompt-{self.name}.{self.version}"

    def render(self, **values: str) -> str:
        """Replace ``{{name}}`` slots (double braces, so JSON examples in the prompt stay literal)."""
        text = self.text
        for key, value in values.items():
            text = text.replace("{{" + key + "}}", value)
        return text


@lru_cache(maxsize=None)
def load_prompt(name: str, version: str | None = None) -> Prompt:
    version = version or DEFAULT_VERSIONS[name]
    path = resources.files(__package__) / f"{name}.{version}.md"
    if not path.is_file():
        raise BabelflowError(f"No prompt {name}.{version}", file=str(path), fix=f"add translators/prompts/{name}.{version}.md")
    return Prompt(name, version, path.read_text(encoding="utf-8"))
