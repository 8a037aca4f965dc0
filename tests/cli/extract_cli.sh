#!/usr/bin/env bash
# `klineage extract --source FILE... -- <nvcc flags>`: the documented form, with one and with
# several files; the flags after -- reach clang's parse; --source without a file is a clear error.
# usage: extract_cli.sh <klineage> <work-dir>
set -uo pipefail
klineage=$1; work=$2
rm -rf "$work"; mkdir -p "$work"; cd "$work"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
cat > a.cu <<'CU'
#ifndef WIDTH
#error WIDTH must be given with -DWIDTH=... after --
#endif
__global__ void wide(float* c) { c[threadIdx.x] = WIDTH; }
CU
cat > b.cu <<'CU'
__global__ void other(int n, float* c) { if (threadIdx.x < n) c[threadIdx.x] = 1; }
CU

# one file, flags right after the separator
"$klineage" extract --source a.cu -- -arch=sm_90 -std=c++17 -DWIDTH=4 > one.json 2> one.err
rc=$?
[ $rc -eq 0 ] || fail "one file: exit $rc: $(cat one.err)"
grep -q '"name": "wide"' one.json || fail "one file: kernel 'wide' not in the manifest"
grep -q 'WIDTH must be given' one.err && fail "one file: -DWIDTH=4 did not reach the parse"

# several files
"$klineage" extract --source a.cu b.cu -- -DWIDTH=4 > two.json 2> two.err || fail "two files: exit $?: $(cat two.err)"
grep -q '"name": "wide"' two.json && grep -q '"name": "other"' two.json || fail "two files: not both kernels listed"

# the flags really are used: without -DWIDTH the #error shows in the parse diagnostics
"$klineage" extract --source a.cu -- -std=c++17 > none.json 2> none.err
grep -q 'WIDTH must be given' none.err || fail "without -DWIDTH the parse error is not reported: $(cat none.err)"

# an option between --source and -- still works
"$klineage" extract --source a.cu -o out.json -- -DWIDTH=4 2> mid.err || fail "-o between: exit $?: $(cat mid.err)"
grep -q '"name": "wide"' out.json || fail "-o between: manifest missing the kernel"

# --source with no file
"$klineage" extract --source -- -DWIDTH=4 > /dev/null 2> empty.err
rc=$?
[ $rc -eq 2 ] || fail "--source without a file: exit $rc, expected 2"
grep -q -- '--source' empty.err || fail "--source without a file: message does not name --source: $(cat empty.err)"

# a subcommand that takes nothing after --
"$klineage" skills list -- x > /dev/null 2> extra.err
[ $? -eq 2 ] || fail "skills list -- x: expected exit 2"
grep -q 'after --' extra.err || fail "skills list -- x: unclear message: $(cat extra.err)"

if [ $failures -ne 0 ]; then echo "$failures check(s) failed"; exit 1; fi
echo "extract-cli: all checks passed"
