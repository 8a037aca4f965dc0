#!/usr/bin/env bash
# Opens a report.html in headless Chromium: takes a screenshot, dumps the DOM after the page's
# self-check ran, and checks (check_page.py) that the page is not blank, every chart rendered
# with a size, and there were no console errors.
#   chromium.sh <test_report binary> <work dir>
# Chromium is installed by scripts/setup-env.sh; without it this test fails, unless
# KLINEAGE_ALLOW_NO_CHROMIUM=1, when it reports itself skipped (77).
set -euo pipefail
test_report=$1
work=$2
here=$(cd "$(dirname "$0")" && pwd)

browser=""
for b in chromium chromium-browser google-chrome; do
  if command -v "$b" >/dev/null 2>&1; then browser=$(command -v "$b"); break; fi
done
if [ -z "$browser" ]; then
  if [ "${KLINEAGE_ALLOW_NO_CHROMIUM:-}" = 1 ]; then
    echo "skipped: chromium not installed"
    exit 77
  fi
  echo "FAIL: chromium not installed (scripts/setup-env.sh installs the Debian package 'chromium'; set KLINEAGE_ALLOW_NO_CHROMIUM=1 to skip)" >&2
  exit 1
fi

rm -rf "$work"
mkdir -p "$work"
page="$work/report.html"
KLINEAGE_REPORT_HTML="$page" "$test_report" "[.make-report]" >"$work/make-report.log" 2>&1 ||
  { cat "$work/make-report.log"; echo "FAIL: could not write the report"; exit 1; }

# As root in a container Chromium needs --no-sandbox; a throwaway profile; no GPU.
run_chromium() {
  local profile=$1
  shift
  timeout 60 "$browser" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$profile" \
    --enable-logging=stderr --v=0 "$@" "file://$page"
}
run_chromium "$work/profile-shot" --window-size=1280,2000 --screenshot="$work/report.png" \
  >"$work/screenshot.log" 2>"$work/screenshot.err" || { cat "$work/screenshot.err"; echo "FAIL: chromium --screenshot"; exit 1; }
run_chromium "$work/profile-dom" --window-size=1280,2000 --dump-dom >"$work/dom.html" 2>"$work/dom.err" ||
  { cat "$work/dom.err"; echo "FAIL: chromium --dump-dom"; exit 1; }
[ -s "$work/report.png" ] || { echo "FAIL: no screenshot"; exit 1; }

# The fixture's report: 2 kernels x (speedups, distribution, lineage), the overview, the CI bars
# and one CI distribution per kernel.
python3 "$here/check_page.py" "$work/report.png" "$work/dom.html" <(cat "$work/screenshot.err" "$work/dom.err") 10
echo "screenshot: $work/report.png"
