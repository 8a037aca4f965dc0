#!/usr/bin/env bash
# Ground truth for the kernel-extraction corpus measure.
#
# usage: tests/corpus/ground_truth.sh <corpus-dir> <out.tsv>
#
# For every *.cu file under <corpus-dir> (laid out as <owner>__<repo>/<path>),
# compile the device side with nvcc to a cubin and list the kernel entry
# symbols that the cubin holds.  Writes
#   <out.tsv>               file<TAB>mangled<TAB>demangled<TAB>origin  (one row per kernel)
#   <out.tsv>.nvcc-failed   file<TAB>first error line        (files nvcc rejects)
# "file" is the path relative to <corpus-dir>.  "origin" is "toolkit" for kernels
# that CUDA's own headers instantiate (namespaces cub::, thrust::, cuda::,
# cooperative_groups::, e.g. behind a thrust::remove call) and "project" for
# all others; the measure may count either set.  Template kernels appear as the
# instantiations the file makes.  Files in .nvcc-failed are not part of the
# measure's denominator.
#
# Environment: NVCC (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc),
#              ARCH (default sm_90), NVCC_TIMEOUT (seconds per file, default 600).
set -u -o pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 <corpus-dir> <out.tsv>" >&2
  exit 2
fi
corpus=$(cd "$1" && pwd) || exit 2
out=$2
failed="$out.nvcc-failed"

NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
ARCH=${ARCH:-sm_90}
NVCC_TIMEOUT=${NVCC_TIMEOUT:-600}
cuda_home=$(cd "$(dirname "$NVCC")/.." && pwd)

# Demangler: cu++filt if the toolkit ships it, else binutils/LLVM c++filt
# (CUDA kernels use the Itanium C++ ABI mangling, so these agree).
DEMANGLE=""
for d in "$cuda_home/bin/cu++filt" cu++filt c++filt llvm-cxxfilt; do
  if command -v "$d" >/dev/null 2>&1; then DEMANGLE=$d; break; fi
done
[ -n "$DEMANGLE" ] || { echo "no demangler (cu++filt/c++filt) found" >&2; exit 2; }
command -v python3 >/dev/null 2>&1 || { echo "python3 is needed to read the cubin" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Kernel entries of a cubin (an ELF file): symbols of type FUNC that carry the
# CUDA entry flag (st_other & 0x10, STO_CUDA_ENTRY) and live in ".text.<name>".
# This is the list `cuobjdump -elf` / `cuobjdump -sass` ("Function : ") shows.
cat > "$work/kernels.py" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
assert data[:4] == b"\x7fELF" and data[4] == 2, "not an ELF64 cubin"
end = "<" if data[5] == 1 else ">"
shoff, = struct.unpack_from(end + "Q", data, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from(end + "HHH", data, 0x3A)
secs = [struct.unpack_from(end + "IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
def cstr(off):
    return data[off:data.index(b"\0", off)].decode()
shstr = secs[shstrndx][4]
names = [cstr(shstr + s[0]) for s in secs]
found = set()
for s in secs:
    if s[1] != 2:                      # SHT_SYMTAB
        continue
    strtab = secs[s[6]][4]
    for k in range(s[5] // 24):
        name_off, info, other, shndx, value, size = struct.unpack_from(end + "IBBHQQ", data, s[4] + k * 24)
        if info & 0xF != 2 or not (other & 0x10) or shndx == 0 or shndx >= len(secs):
            continue                   # not STT_FUNC, not an entry, or undefined
        name = cstr(strtab + name_off)
        if names[shndx] == ".text." + name:
            found.add(name)
for n in sorted(found):
    print(n)
PY

: > "$out.tmp"
: > "$failed.tmp"
nfiles=0; nok=0
while IFS= read -r -d '' f; do
  rel=${f#"$corpus"/}
  repo_root="$corpus/${rel%%/*}"
  nfiles=$((nfiles + 1))
  incs=(-I"$(dirname "$f")" -I"$repo_root")
  # common per-repository include folders (cuda-samples keeps its helpers in Common/)
  for extra in Common common include inc; do
    [ -d "$repo_root/$extra" ] && incs+=(-I"$repo_root/$extra")
  done
  [ -d "$cuda_home/include/cccl" ] && incs+=(-I"$cuda_home/include/cccl")
  if (cd "$(dirname "$f")" && timeout "$NVCC_TIMEOUT" "$NVCC" -std=c++17 -arch="$ARCH" -cubin \
        --expt-relaxed-constexpr --extended-lambda -w "${incs[@]}" \
        -o "$work/tmp.cubin" "$f") >"$work/log" 2>&1; then
    nok=$((nok + 1))
    python3 "$work/kernels.py" "$work/tmp.cubin" > "$work/syms" || { echo "cannot read cubin of $rel" >&2; exit 1; }
    if [ -s "$work/syms" ]; then
      "$DEMANGLE" < "$work/syms" > "$work/dem"
      paste "$work/syms" "$work/dem" | awk -F'\t' -v OFS='\t' -v f="$rel" '{
        d = $2; sub(/^void /, "", d)
        o = (d ~ /^(cub|thrust|cuda|cooperative_groups)::/) ? "toolkit" : "project"
        print f, $1, $2, o }' >> "$out.tmp"
    fi
  else
    msg=$(grep -m1 -E 'error|fatal' "$work/log" || head -n1 "$work/log")
    [ -n "$msg" ] || msg="nvcc failed (exit status, no message)"
    msg=${msg//$corpus\//}
    printf '%s\t%s\n' "$rel" "$(printf '%s' "$msg" | tr '\t' ' ')" >> "$failed.tmp"
  fi
  rm -f "$work/tmp.cubin"
done < <(find "$corpus" -type f -name '*.cu' -print0 | LC_ALL=C sort -z)

LC_ALL=C sort -u "$out.tmp" > "$out"; rm -f "$out.tmp"
LC_ALL=C sort "$failed.tmp" > "$failed"; rm -f "$failed.tmp"
nk=$(wc -l < "$out"); nf=$(wc -l < "$failed")
np=$(awk -F'\t' '$4 == "project"' "$out" | wc -l)
echo "files: $nfiles  compiled: $nok  nvcc-failed: $nf  kernel symbols: $nk (project: $np, toolkit: $((nk - np)))" >&2
echo "per repository (kernel symbols, files with kernels):" >&2
awk -F'\t' '{ split($1, p, "/"); n[p[1]]++; if (!seen[$1]++) f[p[1]]++ }
  END { for (r in n) printf "  %5d %3d  %s\n", n[r], f[r], r }' "$out" | sort -rn >&2
