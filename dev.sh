#!/usr/bin/env bash
# The project's single entry script.
#   bash dev.sh book   create/reuse .venv, install, execute every chapter (quick), build _build/html
#   bash dev.sh test   create/reuse .venv, install, run the whole test suite (includes the book build
#                      and the browser test; installs Debian's chromium first if it is missing)
#   bash dev.sh bench  create/reuse .venv, install, run every benchmark in benchmarks/
# Extra arguments are passed on (e.g. `bash dev.sh book --only balle2016`, `bash dev.sh test -k sweep`).
set -euo pipefail
cd "$(dirname "$0")"
VENV="${PRIVRL_VENV:-.venv}"
PYTHON="${PYTHON:-python3}"

ensure_venv() {
  if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV"
  fi
  local stamp="$VENV/.privrl-installed"
  if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    "$VENV/bin/python" -m pip install --quiet --upgrade pip
    # The CPU build of torch first, pinned, so nothing pulls a CUDA build.
    "$VENV/bin/python" -m pip install --quiet "torch==2.13.0"
    # Every extra: the deep-RL and Atari chapters, the book, Dask sweeps, the tests, benchmarks.
    "$VENV/bin/python" -m pip install --quiet -e ".[deep,atari,book,cluster,test,bench]"
    "$VENV/bin/python" -m ipykernel install --sys-prefix --name python3 --display-name "Python 3" >/dev/null
    touch "$stamp"
  fi
}

ensure_chromium() {
  # tests/test_browser.py opens every built page in Debian's Chromium (driven by playwright's
  # Python API; playwright's own browser download is not used).
  if [ ! -x /usr/bin/chromium ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      apt-get update && apt-get install -y chromium
    else
      echo "dev.sh: /usr/bin/chromium is missing and the browser test needs it:" \
        "run 'sudo apt-get update && sudo apt-get install -y chromium'" >&2
    fi
  fi
}

cmd="${1:-}"
shift || true
case "$cmd" in
  book)
    ensure_venv
    exec "$VENV/bin/privrl" book "$@"
    ;;
  test)
    ensure_venv
    ensure_chromium
    exec "$VENV/bin/python" -m pytest -ra "$@"
    ;;
  bench)
    ensure_venv
    for b in benchmarks/bench_*.py; do
      echo "== $b"
      "$VENV/bin/python" "$b" "$@"
    done
    ;;
  *)
    echo "usage: bash dev.sh {book|test|bench} [args...]" >&2
    exit 2
    ;;
esac
