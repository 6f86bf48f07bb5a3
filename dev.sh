#!/usr/bin/env bash
# The project's single entry script.
#   bash dev.sh book   create/reuse .venv, install, execute every chapter (quick), build _build/html
#   bash dev.sh test   create/reuse .venv, install, check the format and types, build the book
#                      once (the chapters two at a time), then run the whole test suite on both
#                      cores against that build (the book and browser tests read it); prints the 25
#                      slowest tests and each stage's time, and writes them to
#                      _build/test/timings.json (benchmarks/suite_times.py compares)
#   bash dev.sh bench  create/reuse .venv, install, run every benchmark in benchmarks/
# Extra arguments are passed on (e.g. `bash dev.sh book --only balle2016`); `bash dev.sh test ARGS`
# runs only pytest with ARGS (e.g. `-k sweep`), in one process, building the book only if a test
# needs it.
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

# stage NAME CMD...: run CMD and keep its wall time for print_stages; a failing stage stops the
# run after the times are printed, with the stage's exit code.
STAGES=()
stage() {
  local name="$1" start rc=0
  shift
  echo "== dev.sh: stage $name" >&2
  start=$(date +%s%N)
  "$@" || rc=$?
  STAGES+=("$name=$((($(date +%s%N) - start) / 1000000))")
  if [ "$rc" -ne 0 ]; then
    print_stages
    echo "== dev.sh: stage $name failed (exit code $rc)" >&2
    exit "$rc"
  fi
}

# The stage times (milliseconds) into _build/test/timings.json beside the tests' own, and printed.
print_stages() {
  if [ -x "$VENV/bin/python" ]; then
    "$VENV/bin/python" benchmarks/suite_times.py stages "$PRIVRL_TIMINGS" "${STAGES[@]}"
  else
    printf '%s\n' "${STAGES[@]}"
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
    if [ "$#" -gt 0 ]; then
      ensure_venv
      ensure_chromium
      exec "$VENV/bin/python" -m pytest -ra "$@"
    fi
    out="_build/test"
    rm -rf "$out" && mkdir -p "$out"
    export PRIVRL_TIMINGS="$PWD/$out/timings.json"
    stage install ensure_venv
    # The formatter's check ([tool.ruff.format]), then the type checker on the API, the core and
    # the chapter layer ([tool.mypy] in pyproject.toml).
    stage lint "$VENV/bin/ruff" format --check privrl tests benchmarks
    stage types "$VENV/bin/python" -m mypy
    stage browser ensure_chromium
    # The book, once: every chapter executed (two at a time) and the site built; the book, page and
    # browser tests read this build instead of making their own.
    stage book "$VENV/bin/privrl" book --output "$out" --jobs 2
    export PRIVRL_BUILT_BOOK="$PWD/$out/_build"
    stage tests "$VENV/bin/python" -m pytest -ra -n 2 --durations=25 -p no:cacheprovider
    print_stages
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
