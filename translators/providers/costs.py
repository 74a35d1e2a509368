"""Moved to ``babelflow.llm.costs`` (one model layer for translators and validators). Re-exported
here only so that callers in flows/ keep working until their imports name the new place."""

from babelflow.llm.costs import CostLedger, CostReport, CostRow, cost_rows, cost_table, estimate_tokens, publish_costs, report_costs, save_costs

__all__ = ["CostLedger", "CostReport", "CostRow", "cost_rows", "cost_table", "estimate_tokens", "publish_costs", "report_costs", "save_costs"]
