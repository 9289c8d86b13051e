#!/usr/bin/env bash
# Every test suite, in one command (the README's; .ci/run ends with it word for word):
#   lint (ruff, eslint, duplicate blocks) → types (mypy) → the view's unit tests (node --test) → pytest with every marker (model,
#   widgets, files, notebooks, packaging, and JupyterLab in headless Chromium).
# It first installs what the setup command cannot: Debian's chromium and poppler-utils (as root, or
# with sudo when it needs no password; otherwise it says exactly what to install and stops), the
# test extras (with jax and dace, for Workload.from_jax / from_dace) at the versions pinned in constraints.txt, and PyTorch's CPU build (profiler tests, notebook 04). The dev loop's quick pass is
# plain `python -m pytest` (browser, notebook and slow tests deselected); see CONTRIBUTING.md.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive PIP_DISABLE_PIP_VERSION_CHECK=1

need_apt=()
[ -x /usr/bin/chromium ] || need_apt+=(chromium)
command -v pdftoppm >/dev/null || need_apt+=(poppler-utils)
{ command -v node >/dev/null && command -v npm >/dev/null; } || need_apt+=(nodejs npm)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ]; then
    as_root=()
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    as_root=(sudo)
  else
    echo "run-all: these Debian packages are missing: ${need_apt[*]}" >&2
    echo "run-all: install them, then run this again:  sudo apt-get install ${need_apt[*]}" >&2
    exit 3
  fi
  echo "run-all: installing ${need_apt[*]} (apt-get)"
  "${as_root[@]}" apt-get update -qq
  "${as_root[@]}" apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

echo "run-all: installing the package with its test extras, at the versions of constraints.txt (pip; builds the view with npm)"
python -m pip install -q -c constraints.txt -e ".[lab,test,jax,dace]"  # jax, dace: Workload.from_jax / from_dace
# The profiler-trace tests and notebook 04 profile a small model on the CPU. This exact version is
# the CPU build these machines carry; elsewhere pick the CPU wheel for your platform.
python -c "import torch" 2>/dev/null || python -m pip install -q "torch==2.13.0"
{ [ -d node_modules/esbuild ] && [ -d node_modules/jscpd ]; } || npm ci --no-audit --no-fund  # a checkout from before jscpd needs it too
npm run build --silent   # the bundle the browser tests load is the one of these sources

# The type check (minutes with no cache, one core) runs beside the lint and the view's unit tests;
# its report is printed, and its failure fails the run, before pytest starts.
mypy_log=$(mktemp)
echo "run-all: types (mypy, [tool.mypy] in pyproject.toml), beside the lint and the view's unit tests"
python -m mypy >"$mypy_log" 2>&1 &
mypy_pid=$!
trap 'kill "$mypy_pid" 2>/dev/null || true; rm -f "$mypy_log"' EXIT  # a failed lint stops it too

echo "run-all: lint"
ruff check .
ruff format --check .
npm run lint --silent
npm run dupes --silent   # copies of one block across the view's sources (package.json's "dupes")

echo "run-all: the view's unit tests (node --test)"
npm test --silent

mypy_status=0
wait "$mypy_pid" || mypy_status=$?
cat "$mypy_log"
rm -f "$mypy_log"
[ "$mypy_status" -eq 0 ] || { echo "run-all: mypy failed" >&2; exit "$mypy_status"; }

# The ten slowest tests are listed at the end (--durations in pyproject's addopts).
echo "run-all: pytest, every marker"
python -m pytest -m ""
