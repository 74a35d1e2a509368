"""Versioned prompt files: ``<name>.v<N>.md`` inside the package of the stage that owns them
(``translators/prompts``, ``validators/prompts``). A prompt's id (``prompt-translate.v1``) is part
of the translator or reviewer id and so of every cache key derived from it: change a prompt's
wording by adding a new version file and selecting it, never by editing a released one."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources

import babel

from babelflow.errors import BabelflowError


@dataclass(frozen=True)
class Prompt:
    name: str
    version: str
    text: str

    @property
    def id(self) -> str:
        return f"prompt-{self.name}.{self.version}"

    def model_id(self, provider: str, model: str) -> str:
        """``<provider>:<model>/<prompt id>``: who answered with this prompt, part of every cache key."""
        return f"{provider}:{model}/{self.id}"

    def render(self, **values: str) -> str:
        """Replace ``{{name}}`` slots (double braces, so JSON examples in the prompt stay literal)."""
        text = self.text
        for key, value in values.items():
            text = text.replace("{{" + key + "}}", value)
        return text


@cache
def load_prompt_from(package: str, name: str, version: str) -> Prompt:
    path = resources.files(package) / f"{name}.{version}.md"
    if not path.is_file():
        raise BabelflowError(
            f"No prompt {name}.{version}", file=str(path), fix=f"add {package.replace('.', '/')}/{name}.{version}.md"
        )
    return Prompt(name, version, path.read_text(encoding="utf-8"))


class PromptLibrary:
    """One stage's prompt files and the version of each it uses by default."""

    def __init__(self, package: str, defaults: dict[str, str]):
        self.package, self.defaults = package, dict(defaults)

    def load(self, name: str, version: str | None = None) -> Prompt:
        return load_prompt_from(self.package, name, version or self.defaults[name])


def language_name(tag: str) -> str:
    """'Chinese (Simplified) (zh-Hans)' where CLDR knows the tag, else the tag itself."""
    try:
        return f"{babel.Locale.parse(tag, sep='-').english_name} ({tag})"
    except Exception:  # noqa: BLE001 - unknown to CLDR (pseudo-locales, private use)
        return tag
