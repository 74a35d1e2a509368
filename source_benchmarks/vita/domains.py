"""VitaBench's domains as babelflow ids: which task file is the source, in which language.

delivery's source is Chinese (tasks.json; tasks_en.json is its authors' English). instore ships only
its English file in the vendored snapshot (its Chinese file is too large for it), so its source is
English. The harness language is what VitaBench's own code is told (`language=`): its prompts, tool
texts and weekday names follow it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from babelflow.errors import BabelflowError

HarnessLanguage = Literal["chinese", "english"]


@dataclass(frozen=True)
class VitaDomain:
    benchmark_id: str
    domain: str  # VitaBench's own domain name (its registry key; its tools' names: get_delivery_store_info, …)
    tasks_file: str  # relative to the VitaBench tree
    source_language: str  # BCP 47
    harness_language: HarnessLanguage
    stores_key: str  # where a task's environment keeps its stores: how a task file of another domain shows


def _domain(domain: str, file: str, language: str, harness: HarnessLanguage, stores: str) -> VitaDomain:
    return VitaDomain(f"vita-{domain}", domain, f"data/vita/domains/{domain}/{file}", language, harness, stores)


VITA_DOMAINS: dict[str, VitaDomain] = {
    d.benchmark_id: d
    for d in (
        _domain("delivery", "tasks.json", "zh", "chinese", "stores"),
        _domain("instore", "tasks_en.json", "en", "english", "shops"),
    )
}


def vita_domain(benchmark_id: str) -> VitaDomain:
    try:
        return VITA_DOMAINS[benchmark_id]
    except KeyError:
        raise BabelflowError(
            f"unknown VitaBench benchmark {benchmark_id!r}",
            field="benchmark",
            fix=f"use one of {', '.join(VITA_DOMAINS)}",
        ) from None
