"""Deterministic probes, one module per layer. Each returns typed findings with evidence."""
