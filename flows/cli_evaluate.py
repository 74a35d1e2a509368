"""`babelflow evaluate`: run agents on a variant with tau2's own orchestrator (see flows/evaluate.py)."""

from __future__ import annotations
