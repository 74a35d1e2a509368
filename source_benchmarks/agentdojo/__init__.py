"""AgentDojo (PyPI `agentdojo`, MIT): the second benchmark family, driven through its own suites."""
