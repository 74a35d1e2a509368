"""Steps 1-2: runtime data-flow analysis and translation-type assignment."""

# Bump whenever inventory, evidence, linking or typing logic changes: saved IRs are then re-derived.
ANALYZER_VERSION = "3"  # 3: instrumented replay + differential evidence (issue 13)
