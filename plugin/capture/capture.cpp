// libklineage_capture.so: the CUPTI injection library of `klineage capture` (docs/capture.md).
//
// The CUDA driver loads it into the user's unmodified program when CUDA_INJECTION64_PATH names it
// and calls InitializeInjection(). It subscribes to the driver's kernel-launch callbacks and, for
// the first launches of each listed kernel with a new (grid, block, shmem) shape, records the
// parameters and snapshots every device allocation a parameter points into, before the launch
// (entry callback) and after it (exit callback, after a synchronize).
//
// Environment (read once, then removed so that CUDA programs the program starts are not captured):
//   KLINEAGE_CAPTURE_DIR         output directory (required)
//   KLINEAGE_CAPTURE_KERNELS     file: one mangled name a line, optionally "<TAB>manifest name";
//                                "*" records every kernel. Unset: nothing is recorded.
//   KLINEAGE_CAPTURE_MAX_SHAPES  distinct shapes recorded per kernel (default 3)
//   KLINEAGE_CAPTURE_MAX_BYTES   cap on all blob bytes written (default 4 GiB)
//   KLINEAGE_CAPTURE_STATS=1     print snapshot time and throughput to stderr at exit
//
// Never changes what the program does: every error of ours goes to stderr prefixed
// "klineage capture:", recording stops, and the program carries on.
#include <cuda.h>
#include <cupti.h>
#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/fs.h"
#include "core/launch_record.h"

namespace {
namespace fs = std::filesystem;
using klineage::LaunchRecord;
using klineage::RecordedAllocation;
using klineage::RecordedParam;
using klineage::RecordedPointer;
using Clock = std::chrono::steady_clock;

constexpr size_t kChunk = 32u << 20;  // staging buffer size (two of them)

struct Shape {
  unsigned gx, gy, gz, bx, by, bz, shmem;
  bool operator<(const Shape& o) const {
    return std::tie(gx, gy, gz, bx, by, bz, shmem) < std::tie(o.gx, o.gy, o.gz, o.bx, o.by, o.bz, o.shmem);
  }
};

struct Launch {
  CUfunction f = nullptr;
  Shape shape{};
  CUstream stream = nullptr;
  void** params = nullptr;
  void** extra = nullptr;
};

struct Settings {
  std::string dir;
  bool all = false;
  std::map<std::string, std::string> listed;  // mangled -> manifest name ("" if not given)
  unsigned max_shapes = 3;
  unsigned long long max_bytes = 4ull << 30;
  bool stats = false;
};

struct State {
  Settings cfg;
  CUpti_SubscriberHandle subscriber = nullptr;

  // Summary (seen.json); `mu` is held only briefly.
  std::mutex mu;
  std::set<std::string> seen;
  std::vector<std::string> records, skipped, errors;
  std::set<std::string> skipped_once;
  unsigned long long bytes = 0;  // blob bytes written (and reserved by a launch in flight)

  // Held from a recorded launch's entry callback to its exit callback.
  std::mutex record_mu;
  std::map<std::string, std::set<Shape>> shapes;  // mangled -> shapes recorded or given up on
  std::map<std::string, unsigned> dir_counter;
  void* staging[2] = {nullptr, nullptr};
  void* compare = nullptr;  // a chunk of a before blob, read back to see an allocation unchanged

  std::atomic<bool> stopped{false};
  double snapshot_s = 0, sync_s = 0;
  unsigned long long snapshot_bytes = 0;
};
State* g = nullptr;  // never destroyed: callbacks may run during the program's static destruction

thread_local bool t_inside = false;  // our own driver calls (no callback of ours re-enters)

struct Pending {
  std::unique_lock<std::mutex> lock;  // record_mu
  LaunchRecord rec;
  fs::path dir;
  std::string dir_name;
  std::vector<CUdeviceptr> bases;
  unsigned long long reserved = 0;
};

std::string cuErr(CUresult r) {
  const char* name = nullptr;
  const char* text = nullptr;
  cuGetErrorName(r, &name);
  cuGetErrorString(r, &text);
  return std::string(name ? name : "CUDA error " + std::to_string(static_cast<int>(r))) + (text ? std::string(": ") + text : "");
}

void message(const std::string& m) { std::fprintf(stderr, "klineage capture: %s\n", m.c_str()); }

std::string displayName(const std::string& mangled) {
  auto it = g->cfg.listed.find(mangled);
  return it != g->cfg.listed.end() && !it->second.empty() ? it->second : mangled;
}

// A directory name: the manifest name with anything but [A-Za-z0-9_.-] replaced.
std::string dirBase(const std::string& name) {
  std::string s;
  for (char c : name) s += (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.') ? c : '_';
  if (s.size() > 120) s.resize(120);
  return s.empty() ? "kernel" : s;
}

// Writes seen.json (caller holds g->mu).
void writeSeenLocked(bool at_exit) {
  nlohmann::json j = {{"format", "klineage-capture-seen-1"},
                      {"pid", ::getpid()},
                      {"complete", at_exit},
                      {"kernels_seen", std::vector<std::string>(g->seen.begin(), g->seen.end())},
                      {"records", g->records},
                      {"skipped", g->skipped},
                      {"errors", g->errors},
                      {"bytes", g->bytes},
                      {"snapshot_bytes", g->snapshot_bytes},
                      {"snapshot_seconds", g->snapshot_s},
                      {"sync_seconds", g->sync_s}};
  try {
    klineage::atomicWrite(fs::path(g->cfg.dir) / "seen.json", j.dump(2) + "\n");
  } catch (const std::exception& e) {
    if (!g->stopped.exchange(true)) message(std::string("cannot write seen.json: ") + e.what() + "; recording stops");
  }
}

void writeSeen() {
  std::lock_guard<std::mutex> l(g->mu);
  writeSeenLocked(false);
}

// An error of ours: report it, stop recording, keep the program going.
void fatal(const std::string& m) {
  std::lock_guard<std::mutex> l(g->mu);
  if (!g->stopped.exchange(true)) message(m + "; recording stops (the program continues)");
  g->errors.push_back(m);
  writeSeenLocked(false);
}

// A launch not recorded (over the cap, ...): once per key.
void skip(const std::string& key, const std::string& m) {
  std::lock_guard<std::mutex> l(g->mu);
  if (!g->skipped_once.insert(key).second) return;
  message("skipped " + m);
  g->skipped.push_back(m);
  writeSeenLocked(false);
}

// Lets our synchronize and copies run while some stream of the program is being captured into a
// graph (they would otherwise invalidate that capture).
struct RelaxedCaptureMode {
  CUstreamCaptureMode old = CU_STREAM_CAPTURE_MODE_RELAXED;
  bool ok;
  RelaxedCaptureMode() { ok = cuThreadExchangeStreamCaptureMode(&old) == CUDA_SUCCESS; }
  ~RelaxedCaptureMode() {
    if (ok) cuThreadExchangeStreamCaptureMode(&old);
  }
};

struct InsideGuard {
  InsideGuard() { t_inside = true; }
  ~InsideGuard() { t_inside = false; }
};

template <class P>
void decodePlain(const void* p, Launch& l) {
  auto* a = static_cast<const P*>(p);
  l.f = a->f;
  l.shape = {a->gridDimX, a->gridDimY, a->gridDimZ, a->blockDimX, a->blockDimY, a->blockDimZ, a->sharedMemBytes};
  l.stream = a->hStream;
  l.params = a->kernelParams;
  l.extra = a->extra;
}

template <class P>
bool decodeEx(const void* p, Launch& l) {
  auto* a = static_cast<const P*>(p);
  if (!a->config) return false;
  const CUlaunchConfig& c = *a->config;
  l.f = a->f;
  l.shape = {c.gridDimX, c.gridDimY, c.gridDimZ, c.blockDimX, c.blockDimY, c.blockDimZ, c.sharedMemBytes};
  l.stream = c.hStream;
  l.params = a->kernelParams;
  l.extra = a->extra;
  return true;
}

bool decode(CUpti_CallbackId cbid, const void* p, Launch& l) {
  if (!p) return false;
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel: decodePlain<cuLaunchKernel_params>(p, l); return true;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: decodePlain<cuLaunchKernel_ptsz_params>(p, l); return true;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx: return decodeEx<cuLaunchKernelEx_params>(p, l);
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: return decodeEx<cuLaunchKernelEx_ptsz_params>(p, l);
    default: return false;
  }
}

// The parameter layout (offset, size) of the launched function. The CUDA 13 runtime passes a
// CUkernel where the params struct says CUfunction; a driver-API program passes a CUfunction.
bool paramLayout(CUfunction f, std::vector<std::pair<size_t, size_t>>& out, std::string& why) {
  out.clear();
  size_t off = 0, size = 0;
  CUresult rk = cuKernelGetParamInfo(reinterpret_cast<CUkernel>(f), 0, &off, &size);
  bool as_kernel = rk == CUDA_SUCCESS;
  CUresult rf = CUDA_SUCCESS;
  if (!as_kernel) {
    rf = cuFuncGetParamInfo(f, 0, &off, &size);
    if (rf != CUDA_SUCCESS) {
      if (rk == CUDA_ERROR_INVALID_VALUE || rf == CUDA_ERROR_INVALID_VALUE) return true;  // no parameters
      why = "cannot read its parameter layout (cuKernelGetParamInfo: " + cuErr(rk) + "; cuFuncGetParamInfo: " + cuErr(rf) + ")";
      return false;
    }
  }
  for (size_t i = 0;; ++i) {
    if (i > 0) {
      CUresult r = as_kernel ? cuKernelGetParamInfo(reinterpret_cast<CUkernel>(f), i, &off, &size)
                             : cuFuncGetParamInfo(f, i, &off, &size);
      if (r != CUDA_SUCCESS) break;
    }
    out.emplace_back(off, size);
    if (i > 4096) break;
  }
  return true;
}

// The argument buffer when the launch passes its parameters through `extra`.
const unsigned char* extraBuffer(void** extra, size_t* size) {
  if (!extra) return nullptr;
  const unsigned char* buf = nullptr;
  *size = 0;
  for (size_t i = 0; extra[i] != CU_LAUNCH_PARAM_END && i < 64; i += 2) {
    if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) buf = static_cast<const unsigned char*>(extra[i + 1]);
    if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE && extra[i + 1]) *size = *static_cast<size_t*>(extra[i + 1]);
  }
  return buf;
}

std::string hexAddr(unsigned long long v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", v);
  return b;
}

std::string toHex(const unsigned char* p, size_t n) {
  static const char* d = "0123456789abcdef";
  std::string s(2 * n, '0');
  for (size_t i = 0; i < n; ++i) {
    s[2 * i] = d[p[i] >> 4];
    s[2 * i + 1] = d[p[i] & 15];
  }
  return s;
}

bool writeAll(int fd, const void* p, size_t n) {
  const char* c = static_cast<const char*>(p);
  while (n > 0) {
    ssize_t w = ::write(fd, c, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    c += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

// Two host staging buffers: plain memory page-locked with cuMemHostRegister, so they stay valid
// (merely pageable) if the program destroys its context.
bool staging(std::string& why) {
  if (g->staging[0]) return true;
  for (void*& b : g->staging) {
    b = std::aligned_alloc(4096, kChunk);
    if (!b) {
      why = "out of host memory for the staging buffers";
      return false;
    }
    cuMemHostRegister(b, kChunk, CU_MEMHOSTREGISTER_PORTABLE);  // optional: faster copies
  }
  return true;
}

// Copies [src, src+size) of device memory to `path`, computing its CRC-32. Chunked, with the copy
// of one chunk overlapping the CRC and write of the previous one.
//
// With `same_as` (the allocation's before blob), each chunk is first compared with that file and
// nothing is written while they agree: an allocation the launch left unchanged (the kernel's
// inputs) gets no after blob of its own (`*unchanged`, the record names the before blob twice).
// At the first chunk that differs the file is created, the equal chunks copied into it from
// `same_as`, and the rest written as usual.
bool snapshot(const fs::path& path, CUdeviceptr src, size_t size, uint32_t* crc, std::string& why,
              const fs::path* same_as = nullptr, bool* unchanged = nullptr) {
  if (!staging(why)) return false;
  auto t0 = Clock::now();
  int fd = -1;
  auto openOut = [&] {
    fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    return fd >= 0 ? 0 : errno;
  };
  int ref = -1;  // same_as, while every chunk so far equals it
  if (same_as) {
    ref = ::open(same_as->c_str(), O_RDONLY | O_CLOEXEC);
    if (!g->compare) g->compare = std::aligned_alloc(4096, kChunk);
    if (!g->compare && ref >= 0) {
      ::close(ref);
      ref = -1;
    }
  }
  if (ref < 0 && openOut() != 0) {
    why = "cannot write " + path.string() + ": " + std::strerror(errno);
    return false;
  }
  // Chunk [at, at + n) of same_as equals buf? Else: the file is created with [0, at) of same_as.
  auto stillSame = [&](const void* buf, size_t at, size_t n) -> int {
    size_t got = 0;
    while (got < n) {
      ssize_t r = ::pread(ref, static_cast<char*>(g->compare) + got, n - got, static_cast<off_t>(at + got));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) break;
      got += static_cast<size_t>(r);
    }
    if (got == n && std::memcmp(buf, g->compare, n) == 0) return 0;
    if (int e = openOut(); e != 0) return e;
    for (size_t off = 0; off < at;) {  // the equal prefix, from same_as
      size_t m = std::min(kChunk, at - off);
      ssize_t r = ::pread(ref, g->compare, m, static_cast<off_t>(off));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return r < 0 ? errno : EIO;
      if (!writeAll(fd, g->compare, static_cast<size_t>(r))) return errno;
      off += static_cast<size_t>(r);
    }
    ::close(ref);
    ref = -1;
    return -1;  // different: write buf
  };
  uLong c = ::crc32(0L, Z_NULL, 0);
  std::future<int> writing;  // 0 or the errno of the write of the previous chunk
  auto wait = [&] {
    int e = writing.valid() ? writing.get() : 0;
    if (e != 0 && why.empty()) why = "cannot write " + path.string() + ": " + std::strerror(e);
    return e == 0;
  };
  why.clear();
  bool ok = true;
  size_t done = 0;
  for (unsigned k = 0; done < size; ++k) {
    size_t n = std::min(kChunk, size - done);
    void* buf = g->staging[k % 2];  // the other one may still be being written
    CUresult r = cuMemcpyDtoH(buf, src + done, n);
    if (!wait()) {
      ok = false;
      break;
    }
    if (r != CUDA_SUCCESS) {
      why = "cuMemcpyDtoH of " + std::to_string(n) + " bytes at " + hexAddr(src + done) + " failed: " + cuErr(r);
      ok = false;
      break;
    }
    writing = std::async(std::launch::async, [&, buf, n, at = done] {
      c = ::crc32(c, static_cast<const Bytef*>(buf), static_cast<uInt>(n));
      if (ref >= 0) {
        int e = stillSame(buf, at, n);
        if (e >= 0) return e;  // equal so far (0), or an error
      }
      return writeAll(fd, buf, n) ? 0 : errno;
    });
    done += n;
  }
  if (!wait()) ok = false;
  if (unchanged) *unchanged = ok && ref >= 0;
  if (ref >= 0) ::close(ref);
  if (fd >= 0 && ::close(fd) != 0 && ok) {
    why = "cannot write " + path.string() + ": " + std::strerror(errno);
    ok = false;
  }
  *crc = static_cast<uint32_t>(c);
  g->snapshot_s += std::chrono::duration<double>(Clock::now() - t0).count();
  if (ok) g->snapshot_bytes += size;
  return ok;
}

bool synchronize(std::string& why) {
  auto t0 = Clock::now();
  CUresult r = cuCtxSynchronize();
  g->sync_s += std::chrono::duration<double>(Clock::now() - t0).count();
  if (r != CUDA_SUCCESS) why = cuErr(r);
  return r == CUDA_SUCCESS;
}

void removeDir(const fs::path& d) {
  std::error_code ec;
  fs::remove_all(d, ec);
}

std::string shapeText(const Shape& s) {
  return "grid (" + std::to_string(s.gx) + "," + std::to_string(s.gy) + "," + std::to_string(s.gz) + "), block (" +
         std::to_string(s.bx) + "," + std::to_string(s.by) + "," + std::to_string(s.bz) + "), shmem " + std::to_string(s.shmem);
}

std::string kernelName(const CUpti_CallbackData* cb, CUfunction f) {
  if (cb->symbolName && *cb->symbolName) return cb->symbolName;
  const char* n = nullptr;
  if (cuKernelGetName(&n, reinterpret_cast<CUkernel>(f)) == CUDA_SUCCESS && n) return n;
  if (cuFuncGetName(&n, f) == CUDA_SUCCESS && n) return n;
  return "";
}

void onEnter(CUpti_CallbackId cbid, const CUpti_CallbackData* cb) {
  Launch l;
  if (!decode(cbid, cb->functionParams, l)) return;
  InsideGuard inside;
  std::string mangled = kernelName(cb, l.f);
  if (mangled.empty()) return;
  {
    std::lock_guard<std::mutex> lk(g->mu);
    if (g->seen.insert(mangled).second) writeSeenLocked(false);
  }
  if (g->stopped || (!g->cfg.all && !g->cfg.listed.count(mangled))) return;

  std::unique_lock<std::mutex> lock(g->record_mu);
  if (g->stopped) return;
  auto& shapes = g->shapes[mangled];
  if (shapes.count(l.shape) || shapes.size() >= g->cfg.max_shapes) return;
  std::string name = displayName(mangled);

  CUstreamCaptureStatus cs = CU_STREAM_CAPTURE_STATUS_NONE;
  if (cuStreamIsCapturing(l.stream, &cs) == CUDA_SUCCESS && cs != CU_STREAM_CAPTURE_STATUS_NONE) {
    skip(mangled + "/graph", name + ": launched into a stream being captured into a CUDA graph; not recorded");
    return;
  }
  RelaxedCaptureMode relaxed;

  std::vector<std::pair<size_t, size_t>> layout;
  std::string why;
  if (!paramLayout(l.f, layout, why)) {
    shapes.insert(l.shape);
    skip(mangled + "/layout", name + ": " + why);
    return;
  }
  size_t extra_size = 0;
  const unsigned char* extra = l.params ? nullptr : extraBuffer(l.extra, &extra_size);
  if (!l.params && !extra && !layout.empty()) {
    shapes.insert(l.shape);
    skip(mangled + "/noparams", name + ": the launch passes neither kernelParams nor an argument buffer");
    return;
  }

  auto p = std::make_unique<Pending>();
  LaunchRecord& r = p->rec;
  r.kernel = name;
  r.mangled = mangled;
  r.grid = {l.shape.gx, l.shape.gy, l.shape.gz};
  r.block = {l.shape.bx, l.shape.by, l.shape.bz};
  r.shmem = l.shape.shmem;
  r.stream = reinterpret_cast<unsigned long long>(l.stream);
  unsigned long long alloc_bytes = 0;
  for (size_t i = 0; i < layout.size(); ++i) {
    RecordedParam q;
    q.index = static_cast<unsigned>(i);
    q.offset = static_cast<unsigned>(layout[i].first);
    q.size = static_cast<unsigned>(layout[i].second);
    const unsigned char* bytes = nullptr;
    if (l.params) {
      bytes = static_cast<const unsigned char*>(l.params[i]);
    } else if (layout[i].first + layout[i].second <= extra_size) {
      bytes = extra + layout[i].first;
    }
    if (!bytes) {
      shapes.insert(l.shape);
      skip(mangled + "/params", name + ": parameter " + std::to_string(i) + " is missing from the launch");
      return;
    }
    q.bytes_hex = toHex(bytes, q.size);
    if (q.size == sizeof(CUdeviceptr)) {
      CUdeviceptr v;
      std::memcpy(&v, bytes, sizeof v);
      CUdeviceptr base = 0;
      size_t range = 0;
      if (v != 0 && cuPointerGetAttribute(&base, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, v) == CUDA_SUCCESS &&
          cuPointerGetAttribute(&range, CU_POINTER_ATTRIBUTE_RANGE_SIZE, v) == CUDA_SUCCESS && base <= v && v < base + range) {
        unsigned id = 0;
        while (id < r.allocations.size() && r.allocations[id].base != base) ++id;
        if (id == r.allocations.size()) {
          RecordedAllocation a;
          a.id = id;
          a.base = base;
          a.size = range;
          a.before = "a" + std::to_string(id) + ".before.bin";
          a.after = "a" + std::to_string(id) + ".after.bin";
          r.allocations.push_back(a);
          p->bases.push_back(base);
          alloc_bytes += range;
        }
        q.pointer = RecordedPointer{id, v - base};
      }
    }
    r.params.push_back(q);
  }

  unsigned long long need = 2 * alloc_bytes;
  {
    std::lock_guard<std::mutex> lk(g->mu);
    if (g->bytes + need > g->cfg.max_bytes) {
      shapes.insert(l.shape);
      std::string m = name + ": " + std::to_string(need) + " bytes would exceed the cap of " + std::to_string(g->cfg.max_bytes);
      if (g->skipped_once.insert(mangled + "/cap/" + shapeText(l.shape)).second) {
        message("skipped " + m);
        g->skipped.push_back(m);
        writeSeenLocked(false);
      }
      return;
    }
    g->bytes += need;
  }
  p->reserved = need;
  shapes.insert(l.shape);

  // A fresh directory <name>.<n> (mkdir fails if another process of the capture took it).
  std::string base = dirBase(name);
  for (;;) {
    unsigned n = g->dir_counter[base]++;
    p->dir_name = base + "." + std::to_string(n);
    p->dir = fs::path(g->cfg.dir) / p->dir_name;
    std::error_code ec;
    if (fs::create_directory(p->dir, ec)) break;
    if (ec) {
      fatal("cannot create " + p->dir.string() + ": " + ec.message());
      return;
    }
  }

  if (!synchronize(why)) {
    removeDir(p->dir);
    fatal("synchronizing before " + name + " failed (" + why + ")");
    return;
  }
  for (auto& a : r.allocations) {
    if (!snapshot(p->dir / a.before, a.base, a.size, &a.before_crc32, why)) {
      removeDir(p->dir);
      fatal("snapshot of allocation " + std::to_string(a.id) + " before " + name + " failed: " + why);
      return;
    }
  }
  p->lock = std::move(lock);
  *cb->correlationData = reinterpret_cast<uint64_t>(p.release());
}

void onExit(const CUpti_CallbackData* cb) {
  if (!cb->correlationData || *cb->correlationData == 0) return;
  std::unique_ptr<Pending> p(reinterpret_cast<Pending*>(*cb->correlationData));
  *cb->correlationData = 0;
  InsideGuard inside;
  LaunchRecord& r = p->rec;
  auto unreserve = [&] {
    std::lock_guard<std::mutex> lk(g->mu);
    g->bytes -= p->reserved;
  };
  CUresult launched = cb->functionReturnValue ? *static_cast<CUresult*>(cb->functionReturnValue) : CUDA_SUCCESS;
  if (launched != CUDA_SUCCESS) {
    removeDir(p->dir);
    unreserve();
    skip(r.mangled + "/failed/" + p->dir_name, r.kernel + ": the launch itself failed (" + cuErr(launched) + ")");
    return;
  }
  RelaxedCaptureMode relaxed;
  std::string why;
  if (!synchronize(why)) {
    removeDir(p->dir);
    unreserve();
    fatal(r.kernel + " failed on the GPU (" + why + ")");
    return;
  }
  for (auto& a : r.allocations) {
    const fs::path before = p->dir / a.before;
    bool unchanged = false;
    if (!snapshot(p->dir / a.after, a.base, a.size, &a.after_crc32, why, &before, &unchanged)) {
      removeDir(p->dir);
      unreserve();
      fatal("snapshot of allocation " + std::to_string(a.id) + " after " + r.kernel + " failed: " + why);
      return;
    }
    if (unchanged) {  // the record names the before blob as the after one too
      a.after = a.before;
      std::lock_guard<std::mutex> lk(g->mu);
      g->bytes -= a.size;
      p->reserved -= a.size;
    }
  }
  try {
    klineage::saveRecord(p->dir.string(), r);
  } catch (const std::exception& e) {
    removeDir(p->dir);
    unreserve();
    fatal(e.what());
    return;
  }
  std::lock_guard<std::mutex> lk(g->mu);
  g->records.push_back(p->dir_name);
  writeSeenLocked(false);
}

void CUPTIAPI callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  if (!g || domain != CUPTI_CB_DOMAIN_DRIVER_API || !data) return;
  auto* cb = static_cast<const CUpti_CallbackData*>(data);
  // Only our entry callback passes data to the exit one; start from nothing.
  if (cb->callbackSite == CUPTI_API_ENTER && cb->correlationData) *cb->correlationData = 0;
  if (t_inside) return;
  try {
    if (cb->callbackSite == CUPTI_API_ENTER)
      onEnter(cbid, cb);
    else
      onExit(cb);
  } catch (const std::exception& e) {
    fatal(std::string("internal error: ") + e.what());
  } catch (...) {
    fatal("internal error");
  }
}

void atExit() {
  if (!g) return;
  std::lock_guard<std::mutex> l(g->mu);
  writeSeenLocked(true);
  if (g->cfg.stats) {
    double gbps = g->snapshot_s > 0 ? g->snapshot_bytes / g->snapshot_s / 1e9 : 0;
    std::fprintf(stderr,
                 "klineage capture: stats: records=%zu snapshot_bytes=%llu snapshot_seconds=%.6f sync_seconds=%.6f "
                 "throughput_GBps=%.3f\n",
                 g->records.size(), g->snapshot_bytes, g->snapshot_s, g->sync_s, gbps);
  }
}

bool parseUnsigned(const char* name, unsigned long long& v) {
  const char* s = std::getenv(name);
  if (!s || !*s) return true;
  char* end = nullptr;
  errno = 0;
  unsigned long long x = std::strtoull(s, &end, 10);
  if (errno || *end || *s == '-') {
    message(std::string(name) + "='" + s + "' is not a non-negative integer");
    return false;
  }
  v = x;
  return true;
}

bool readSettings(Settings& c) {
  const char* dir = std::getenv("KLINEAGE_CAPTURE_DIR");
  if (!dir || !*dir) {
    message("KLINEAGE_CAPTURE_DIR is not set; nothing is captured");
    return false;
  }
  c.dir = dir;
  unsigned long long shapes = c.max_shapes;
  if (!parseUnsigned("KLINEAGE_CAPTURE_MAX_SHAPES", shapes) || !parseUnsigned("KLINEAGE_CAPTURE_MAX_BYTES", c.max_bytes))
    return false;
  c.max_shapes = static_cast<unsigned>(std::min<unsigned long long>(shapes, 1u << 20));
  const char* st = std::getenv("KLINEAGE_CAPTURE_STATS");
  c.stats = st && std::strcmp(st, "1") == 0;
  if (const char* k = std::getenv("KLINEAGE_CAPTURE_KERNELS"); k && *k) {
    std::ifstream in(k);
    if (!in) {
      message(std::string("cannot read the kernel list ") + k + ": " + std::strerror(errno));
      return false;
    }
    std::string line;
    while (std::getline(in, line)) {
      while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
      if (line.empty() || line[0] == '#') continue;
      if (line == "*") {
        c.all = true;
        continue;
      }
      size_t tab = line.find('\t');
      if (tab == std::string::npos)
        c.listed[line] = "";
      else
        c.listed[line.substr(0, tab)] = line.substr(tab + 1);
    }
  }
  std::error_code ec;
  fs::create_directories(c.dir, ec);
  if (ec) {
    message("cannot create " + c.dir + ": " + ec.message());
    return false;
  }
  return true;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection() {
  static std::once_flag once;
  std::call_once(once, [] {
    try {
      Settings cfg;
      bool ok = readSettings(cfg);
      // CUDA programs this program starts run without capture, as they would without us.
      for (const char* v : {"CUDA_INJECTION64_PATH", "KLINEAGE_CAPTURE_DIR", "KLINEAGE_CAPTURE_KERNELS",
                            "KLINEAGE_CAPTURE_MAX_SHAPES", "KLINEAGE_CAPTURE_MAX_BYTES", "KLINEAGE_CAPTURE_STATS"})
        ::unsetenv(v);
      if (!ok) return;
      auto* s = new State;
      s->cfg = std::move(cfg);
      auto failed = [&](const std::string& what, CUptiResult r) {
        const char* text = nullptr;
        cuptiGetResultString(r, &text);
        std::string m = what + " failed (" + (text ? text : "CUPTI error " + std::to_string(static_cast<int>(r))) + ")";
        if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) m += "; another CUPTI tool (Nsight, a profiler) is attached";
        message(m + "; nothing is captured");
        s->errors.push_back(m);
        s->stopped = true;
      };
      CUptiResult r = cuptiSubscribe(&s->subscriber, callback, nullptr);
      if (r != CUPTI_SUCCESS) {
        failed("cuptiSubscribe", r);
      } else {
        for (CUpti_CallbackId id : {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
                                    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz}) {
          r = cuptiEnableCallback(1, s->subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id);
          if (r != CUPTI_SUCCESS) {
            failed("cuptiEnableCallback", r);
            cuptiUnsubscribe(s->subscriber);
            break;
          }
        }
      }
      g = s;
      writeSeen();  // its presence says the library was loaded (and whether it could subscribe)
      std::atexit(atExit);
    } catch (const std::exception& e) {
      message(std::string("initialization failed: ") + e.what());
    }
  });
  return 1;
}
