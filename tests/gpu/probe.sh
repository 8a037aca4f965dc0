#!/usr/bin/env bash
# runner-probe: `klineage-runner --probe` names the device on a GPU machine (one JSON line) and
# says why not elsewhere. Exit 0: well-formed "ok" line; 77: skipped (no CUDA device); 1: malformed.
#   usage: probe.sh <klineage-runner>
line=$("$1" --probe)
rc=$?
echo "$line"
if [ $rc -eq 3 ] && grep -Eq '^\{"status":"no-device","reason":"[^"]+' <<<"$line"; then
  echo "skipped: no CUDA device"
  exit 77
fi
# more keys may follow l2_bytes (count, driver, driver_version, serve: docs/runner-job.md)
if [ $rc -eq 0 ] && grep -Eq '^\{"status":"ok","device":"[^"]+","sm":"[0-9]+","l2_bytes":[0-9]+[,}]' <<<"$line" &&
   grep -q '"serve":true' <<<"$line"; then
  exit 0
fi
echo "FAIL: unexpected probe answer (exit $rc)"
exit 1
