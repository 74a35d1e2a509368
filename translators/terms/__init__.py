"""The terms stage: canonical renderings as a term base, signalled, scored and reviewed before prose."""
