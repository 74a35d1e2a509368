"""Every check module, in the order their checks run within a layer (integrity's first: what it finds
suppresses the others'). Importing this module registers every check and declares every kind."""

from __future__ import annotations

import importlib

MODULES = (
    "validators.probes.integrity",
    "validators.probes.consistency",
    "validators.probes.preserved_values",
    "validators.probes.references",
    "validators.probes.prose_references",
    "validators.probes.code_texts",
    "validators.probes.prompt_entities",
    "validators.probes.fidelity",
    "validators.probes.language_checks",
    "validators.probes.pseudo_checks",
    "validators.probes.pair_checks",
    "validators.probes.behavior",
    "validators.probes.rendered_outputs",
    # not checks, but they declare kinds: the failed translations, the back-translation and the agents
    "validators.translation_failures",
    "validators.backtranslation",
    "validators.agents",
)

for _module in MODULES:
    importlib.import_module(_module)
