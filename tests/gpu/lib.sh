# Shared by the GPU test scripts and scripts/gpu-*.sh (sourced): a tally of named checks.
#   check <description> <command...>   runs the command; "ok: ..." or "FAIL: ..." (counted)
#   val <file.json> <python expr over d>  prints the expression's value
#   is <file.json> <python condition over d>  true when it holds
#   finish <name>                      "<name>: N checks, M failed"; returns 1 when any failed
failures=0
checks=0
check() {
  local what=$1
  shift
  checks=$((checks + 1))
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; failures=$((failures + 1)); fi
}
val() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>/dev/null; }
is() { test "$(val "$1" "bool($2)")" = True; }
finish() {
  echo "$1: $checks checks, $failures failed"
  [ "$failures" -eq 0 ]
}
