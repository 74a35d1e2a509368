"""Steps 1-2: runtime data-flow analysis and translation-type assignment."""

# Bump whenever inventory, evidence, linking or typing logic changes: saved IRs are then re-derived.
# 3: instrumented replay + differential evidence (issue 13); 4: code trials, non-tool docstrings left out
ANALYZER_VERSION = "14"  # 7: id templates without spaces stay Preserve (issue 26); 8: τ³ evidence beyond the
# gold calls (golden-retrieval lookups, the user tool list, a coverage replay of the read tools, group field paths)
# 9: entity classes decided by the evidence (issue 23): keys kept, per-class decisions in the IR
# 10: code texts carry their format slots and the reply keys their code reads (issue 38); f-string escapes resolved
# 11: keys that are text (issue 43: keys_are_text), one rendering per text across entity classes, a free text
# equal to a canonical value linked to it; 12: the IR records its source language, unspaced-script text is no id
# 13: the IR says whether tasks are worlds (VitaBench: values of two tasks never meet); 14: one unspaced-script
# letter beside a digit is a word, not an id ("8个")
