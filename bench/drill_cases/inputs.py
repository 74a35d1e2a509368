"""Bad-input drill cases: inputs (issue 28)."""

from __future__ import annotations

from bench.drill_cases import Case, Check

CASES: list[Case] = []
CHECKS: list[Check] = []
