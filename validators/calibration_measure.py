"""Measure a calibration language's variant (validators/calibration.py says what is calibrated).

Apart from calibration.py because it reads the leak check's own notions of a literal and a word
(validators/probes/language_checks.py), which itself reads the calibration."""

from __future__ import annotations

from validators.calibration import LanguageMeasure, keep_counts, prose_pairs, ratio
from validators.probes.language_checks import _WORD, _literal_vocabulary


def measure(ctx) -> LanguageMeasure:
    """A calibration language's variant: its length ratios and how often it keeps each literal."""
    ratios = [round(r, 4) for e, t in prose_pairs(ctx) if (r := ratio(e.source_text, t)) is not None]
    return LanguageMeasure(language=ctx.language, ratios=ratios, kept=keep_counts(ctx, _literal_vocabulary(ctx), _WORD))
