"""Steps 1-2: runtime data-flow analysis and translation-type assignment."""

# Bump whenever inventory, evidence, linking or typing logic changes: saved IRs are then re-derived.
# 3: instrumented replay + differential evidence (issue 13); 4: code trials, non-tool docstrings left out
ANALYZER_VERSION = "7"  # 7: id templates without spaces stay Preserve (issue 26)
