#include "runner/run_job.h"
#include "runner/device_diff.h"
#include "runner/device_fill.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <list>
#include <memory>
#include <new>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/compare.h"
#include "core/cubin.h"
#include "core/fill.h"
#include "core/stats.h"
#include "core/parallel.h"

namespace klineage::runner {

namespace {

// The oracle (docs/runner-job.md, "The oracle") is the original promoted one precision level: it
// runs with the original's geometry, on the same inputs, before the variant.
enum class Which { Original, Variant, Oracle };
const char* whichName(Which w) { return w == Which::Original ? "original" : w == Which::Variant ? "variant" : "oracle"; }
// Where a kernel's launch geometry is kept: the oracle launches as the original does.
int geomIndex(Which w) { return w == Which::Variant ? 1 : 0; }

// One device allocation the kernels see. Declared workloads: one per buffer parameter. Replays:
// one per recorded allocation.
struct Buffer {
  std::string name;                   // for messages: "y", "allocation 2"
  std::string label;                  // replays: "x, y (allocation 1)"; else the name
  ElemType type = ElemType::U8;       // compared as; replays compare untyped memory as bytes (u8, exact)
  bool as_bytes = false;              // messages count bytes, not elements
  unsigned long long count = 0;       // elements of `type` in the whole allocation
  unsigned long long shift = 0;       // elements before the pointer the kernel got (messages count from it)
  size_t bytes = 0;
  bool output = false;                // read back and compared after each run
  CUdeviceptr raw = 0;                // the allocation: [padding], guard, the buffer at `base`, guard
  CUdeviceptr base = 0;
  size_t guard = 0;                   // bytes of guard pattern on each side
  size_t misalign = 0;                // replay.misalign_bytes, for the allocations that take it
  CUdeviceptr pristine = 0;           // device copy of the initial contents; 0 if it did not fit
  std::vector<unsigned char> host;    // initial contents (replays: emptied once `pristine` holds them)
  bool host_stale = false;            // `host` not made yet: the GPU filled `pristine` (hostInitial)
  std::vector<unsigned char> expected, actual;  // after the original / after the variant
  std::vector<unsigned char> oracle;  // after the oracle (float outputs judged against it)
  // Outputs: the original's outputs of the current input set on the device (0: none; declared
  // workloads keep them there from the original's run, replays upload `expected` for timing).
  CUdeviceptr expected_dev = 0;
  bool expected_stale = false;        // `expected` not downloaded yet: expected_dev holds the current outputs
  // declared workloads
  const ParamSpec* spec = nullptr;
  unsigned param_index = 0;
};
using Contents = std::vector<unsigned char> Buffer::*;

std::string dims(const Dim3& d) {
  return "[" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + "]";
}

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

// With the seconds since the process started (static initialization: before the driver is
// loaded), so a runner.log shows where a job spends its time, CUDA's start-up included; a serving
// runner counts from the start of each job (restartProgressClock).
std::chrono::steady_clock::time_point g_clock_start = std::chrono::steady_clock::now();

void progress(const std::string& line) {
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - g_clock_start).count();
  std::fprintf(stderr, "klineage-runner: [%.2f s] %s\n", s, line.c_str());
}

// Runs fn(i) for i in [0, count) on up to one thread per core: filling and comparing buffers of
// hundreds of MB on one core would take longer than the kernels being gated.
template <typename Fn>
void parallelFor(size_t count, Fn fn) {
  klineage::parallelFor(count, std::thread::hardware_concurrency(), fn);
}

constexpr unsigned long long kChunk = 1ull << 20;  // elements per piece of parallel work
// How far (relative) a float output of a kernel with atomics may differ from its capture and still
// be the capture's own order of the same additions (checkFidelity): a float sum reordered differs
// by a few units in the last place per addition that changed order, far below 1e-4 for the sums
// of a few thousand block partials that atomics make; a wrong input or a missed write is not.
constexpr double kCaptureOrderRtol = 1e-4;

// Adds the comparison of a chunk that starts `offset` elements into the buffer.
void mergeCompare(BufferCompare& r, const BufferCompare& c, unsigned long long offset) {
  r.mismatches += c.mismatches;
  r.max_abs_err = std::max(r.max_abs_err, c.max_abs_err);
  r.max_rel_err = std::max(r.max_rel_err, c.max_rel_err);
  for (const auto& smp : c.samples)
    if (r.samples.size() < kMismatchSamples) r.samples.push_back({offset + smp.index, smp.expected, smp.actual});
  if (c.first_mismatch && !r.first_mismatch) {
    r.first_mismatch = offset + *c.first_mismatch;
    r.expected = c.expected;
    r.actual = c.actual;
  }
}

// Replayed memory holds whatever the program left there, NaNs included, and compareBuffers fails
// every NaN but the poison pattern. So here elements equal bit for bit pass: a chunk equal as a
// whole is skipped; in the others such float elements are set to the poison pattern on both sides
// of a copy of the chunk before comparing it.
BufferCompare compareChunkBitwise(const std::string& name, ElemType type, const unsigned char* pe,
                                  const unsigned char* pa, unsigned long long m, Tolerance tol) {
  const unsigned es = elemSize(type);
  if (std::memcmp(pe, pa, m * es) == 0) {
    BufferCompare ok;
    ok.param = name;
    return ok;
  }
  std::vector<unsigned char> ce, ca;
  if (isFloat(type)) {
    ce.assign(pe, pe + m * es);
    ca.assign(pa, pa + m * es);
    for (unsigned long long i = 0; i < m; ++i)
      if (std::memcmp(&ce[i * es], &ca[i * es], es) == 0) {
        poison(&ce[i * es], es);
        poison(&ca[i * es], es);
      }
    pe = ce.data();
    pa = ca.data();
  }
  return compareBuffers(name, type, pe, pa, m, tol);
}

// Every element compared, in chunks on every core; the result is the same as one pass.
BufferCompare compareChunked(const std::string& name, ElemType type, const unsigned char* e, const unsigned char* a,
                             unsigned long long n, Tolerance tol, bool bitwise_first) {
  const unsigned es = elemSize(type);
  std::vector<BufferCompare> parts(static_cast<size_t>((n + kChunk - 1) / kChunk));
  parallelFor(parts.size(), [&](size_t c) {
    const unsigned long long at = c * kChunk, m = std::min(kChunk, n - at);
    parts[c] = bitwise_first ? compareChunkBitwise(name, type, e + at * es, a + at * es, m, tol)
                             : compareBuffers(name, type, e + at * es, a + at * es, m, tol);
  });
  BufferCompare r;
  r.param = name;
  for (size_t c = 0; c < parts.size(); ++c) mergeCompare(r, parts[c], c * kChunk);
  r.ok = r.mismatches == 0;
  return r;
}

BufferCompare compareBitwiseFirst(const std::string& name, ElemType type, const unsigned char* e,
                                  const unsigned char* a, unsigned long long n, Tolerance tol) {
  return compareChunked(name, type, e, a, n, tol, /*bitwise_first=*/true);
}

// Reads a whole blob of known size.
bool readBlob(const std::string& path, size_t bytes, std::vector<unsigned char>& out, std::string* why) {
  out.resize(bytes);
  std::ifstream in(path, std::ios::binary);
  if (in && bytes) in.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(bytes));
  if (in && in.gcount() == static_cast<std::streamsize>(bytes) && in.peek() == std::ifstream::traits_type::eof())
    return true;
  *why = path + ": cannot read " + std::to_string(bytes) + " bytes (changed since the record was checked?)";
  return false;
}

// Replayed memory's blobs, read and checked against the record's CRC-32 once per use: a one-job
// runner reads each blob it needs once; a serving runner keeps them (up to a share of the host's
// memory, least recently used dropped first), since a kernel's variants replay the same record one
// after another.
class BlobCache {
 public:
  void limit(size_t max_bytes) { max_ = max_bytes; }
  // The blob's bytes, or null with *why (unreadable, another size, another CRC-32).
  std::shared_ptr<const std::vector<unsigned char>> get(const std::string& path, size_t bytes, uint32_t crc,
                                                         std::string* why) {
    std::error_code ec;
    const auto mtime = std::filesystem::last_write_time(path, ec);
    for (auto it = held_.begin(); it != held_.end(); ++it)
      if (it->path == path && it->bytes == bytes && it->crc == crc && !ec && it->mtime == mtime) {
        held_.splice(held_.begin(), held_, it);
        return it->data;
      }
    auto data = std::make_shared<std::vector<unsigned char>>();
    if (!readBlob(path, bytes, *data, why)) return nullptr;
    if (crc32Of(data->data(), data->size()) != crc) {
      *why = path + ": CRC-32 does not match the record (changed since the capture?)";
      return nullptr;
    }
    if (max_ > 0 && bytes <= max_ && !ec) {
      held_.push_front({path, bytes, crc, mtime, data});
      total_ += bytes;
      while (total_ > max_) {
        total_ -= held_.back().bytes;
        held_.pop_back();
      }
    }
    return data;
  }

 private:
  struct Entry {
    std::string path;
    size_t bytes;
    uint32_t crc;
    std::filesystem::file_time_type mtime;
    std::shared_ptr<const std::vector<unsigned char>> data;
  };
  std::list<Entry> held_;  // most recently used first
  size_t total_ = 0, max_ = 0;
};

BlobCache& blobCache() {
  static BlobCache cache;
  return cache;
}

int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// A __device__ variable of a loaded module and its contents at load time.
struct Global {
  std::string name;
  CUdeviceptr ptr = 0;
  size_t bytes = 0;
  std::vector<unsigned char> initial;
};

uint64_t randomSeed() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd();
}

// A job frees every allocation and unloads every module it made when it ends (the probes' buffers
// earlier, to make room): a serving runner (--serve) runs the next job in the same context, and
// checks that the device's free memory came back.
class JobRun {
 public:
  JobRun(const CudaApi& cu, const Device& dev, const RunnerJob& job, const LaunchRecord* record, Watchdog* watchdog)
      : cu_(cu), dev_(dev), job_(job), record_(record), watchdog_(watchdog), tol_(job.tolerance), rng_(randomSeed()) {
    geom_[0] = {job.original.grid, job.original.block, job.original.shmem};
    geom_[1] = {job.variant.grid, job.variant.block, job.variant.shmem};
    guard_pattern_.resize(job.guard_bytes);
    for (size_t i = 0; i < guard_pattern_.size(); ++i) guard_pattern_[i] = static_cast<unsigned char>(kGuardWord >> (8 * (i % 4)));
  }
  ~JobRun() {
    freeBuffers();
    for (CUmodule& m : module_)
      if (m) cu_.cuModuleUnload(m);
  }
  JobRun(const JobRun&) = delete;
  JobRun& operator=(const JobRun&) = delete;

  RunnerResult run() {
    res_.device = dev_.describe();
    RunnerResult r = job_.replay ? runReplay() : runDeclared();
    r.oracle = oracle_on_ ? "promoted" : "none: " + (oracle_none_.empty() ? std::string("not given") : oracle_none_);
    return r;
  }

 private:
  const CudaApi& cu_;
  const Device& dev_;
  const RunnerJob& job_;
  const LaunchRecord* record_;
  Watchdog* watchdog_;
  Tolerance tol_;                     // the job's; widened for a nondeterministic replay
  RunnerResult res_;
  std::string failure_;               // a CUDA call failed (runtime-failed)
  CUresult last_error_ = CUDA_SUCCESS;  // that call's result
  bool rejected_ = false;             // res_ holds a verdict (guard, input, state, mismatch)
  bool mismatch_rejected_ = false;    // ... and it is only that outputs differ (compareVariant)
  bool original_failed_ = false;      // the original kernel itself failed to launch or run (runtime-failed)
  std::string nondeterminism_;        // replays: what differed between the original's runs
  std::string misaligned_;            // replays: the allocations placed off a 16-byte boundary
  std::string replay_where_ = "replayed launch: ";  // how a replay's messages name the launch
  CUmodule module_[3] = {nullptr, nullptr, nullptr};
  CUfunction fn_[3] = {nullptr, nullptr, nullptr};
  std::vector<Global> globals_[3];
  LaunchSpec oracle_spec_;            // job_.oracle as a launch (the original's geometry)
  bool oracle_on_ = false;            // the oracle loaded and judges float outputs
  std::string oracle_none_;           // why not (result.oracle "none: ...")
  bool errors_reported_ = false;      // a host comparison has given the errors for the result
  unsigned input_sets_ = 0;           // input sets prepared so far (chooses the outputs' pre-fill)
  Geometry geom_[2];                  // how each is launched now (the job's, or a probe's)
  std::vector<Buffer> buffers_;
  std::vector<unsigned char> argbuf_;  // the kernel arguments' bytes
  std::vector<void*> argv_;            // cuLaunchKernel's kernelParams, pointing into argbuf_
  std::vector<unsigned char> guard_pattern_, scratch_;
  std::mt19937_64 rng_;
  DeviceDiff diff_{cu_};              // timed runs' checks on the GPU first
  DeviceFill fill_{cu_};              // input sets written on the GPU first

  // --- the declared workload: generated inputs, one run each per seed --------------------------

  RunnerResult runDeclared() {
    if (!loadKernel(Which::Original) || !loadKernel(Which::Variant) || !loadOracle() || !allocateDeclared(job_.params))
      return stop();
    progress("kernels loaded, " + std::to_string(buffers_.size()) + " buffer(s) of " + mib(buffers_) + " allocated");
    std::vector<uint64_t> seeds = job_.seeds;
    for (unsigned i = 0; i < job_.random_seeds; ++i) seeds.push_back(randomSeed());
    for (uint64_t seed : seeds) {
      res_.seeds_used.push_back(seed);
      bool on_gpu = false;
      if (!checkSeed(seed, "seed " + std::to_string(seed) + ": ", &on_gpu)) return stop();
      res_.input_sets_checked_on_gpu += on_gpu ? 1 : 0;
    }
    const std::string matched = "outputs match on " + std::to_string(seeds.size()) + " input set(s)";
    progress(matched + " (" + std::to_string(res_.input_sets_checked_on_gpu) + " checked on the GPU" + diffNote() +
             (fill_.unavailable().empty() ? "" : "; inputs made on the host: " + fill_.unavailable()) + ")");
    if (!checkProbes()) return stop();
    if (!job_.probes.empty())
      progress(std::to_string(res_.probes_checked) + " probe shape(s) match (" + std::to_string(res_.probes_checked_on_gpu) +
               " checked on the GPU" + diffNote() + ")");
    return profileIfAsked(matched + probesText());
  }

  // One input set: the original, then the variant, then their outputs compared. The original's
  // outputs stay on the device (expected_dev) and the variant's buffers are compared with them
  // there first (checkVariantRun; *on_gpu: nothing was copied to the host).
  bool checkSeed(uint64_t seed, const std::string& context, bool* on_gpu) {
    if (!prepareSeed(seed) || !runOriginalKeepingOutputs() || !runOracle()) return false;
    if (!restore() || !launch(Which::Variant) || !finished(Which::Variant, cu_.cuCtxSynchronize()) ||
        !checkVariantRun(context, on_gpu))
      return false;
    // Bit for bit the original's: the compares say so, unless they hold the errors against the
    // oracle an earlier input set's host comparison found (this one's are the original's own).
    if (*on_gpu && !oracle_on_) {
      res_.compares.clear();
      for (const Buffer& b : buffers_) {
        if (!b.output) continue;
        BufferCompare same;  // what compareVariant gives for equal bits: ok, no mismatch, no error
        same.param = b.name;
        res_.compares.push_back(std::move(same));
      }
    }
    return true;
  }

  // The variant's run just finished: its guards and state are checked, then every buffer on the
  // GPU first (*on_gpu: each holds exactly what it must, nothing is copied to the host); when
  // anything may differ, its inputs and outputs on the host, which gives the verdict.
  bool checkVariantRun(const std::string& context, bool* on_gpu) {
    *on_gpu = false;
    mismatch_rejected_ = false;
    if (!checkGuards(Which::Variant) || !checkGlobals(Which::Variant)) return false;
    // Bit for bit the original's outputs: as accurate as the original, so it passes either rule;
    // the first input set is still compared on the host once for the errors the result reports.
    if ((!oracle_on_ || errors_reported_) && sameOnDevice()) {
      *on_gpu = true;
      return true;
    }
    return checkInputs(Which::Variant) && downloadOutputs(&Buffer::actual) && compareVariant(context);
  }

  // The original's run of an input set, checked like any run; its outputs are kept on the device
  // (a device-to-device copy into expected_dev, allocated once per buffer) or, where that does not
  // fit, downloaded into `expected` as before.
  bool runOriginalKeepingOutputs() {
    if (!runAndCheck(Which::Original)) return false;
    for (Buffer& b : buffers_)
      if (b.output && !(b.bytes && keepExpectedOnDevice(b)) && !downloadOutput(b, &Buffer::expected)) return false;
    return true;
  }

  bool keepExpectedOnDevice(Buffer& b) {
    if (!b.expected_dev && cu_.cuMemAlloc(&b.expected_dev, b.bytes) != CUDA_SUCCESS) {
      b.expected_dev = 0;
      return false;
    }
    if (cu_.cuMemcpyDtoD(b.expected_dev, b.base, b.bytes) != CUDA_SUCCESS) {
      cu_.cuMemFree(b.expected_dev);
      b.expected_dev = 0;
      return false;  // downloaded instead (where a dead context shows as the copy's error)
    }
    b.expected_stale = true;
    return true;
  }

  // The host copy of the original's outputs, for a host comparison: downloaded now if only the
  // device holds it.
  bool expectedOnHost(Buffer& b) {
    if (!b.expected_stale) return true;
    b.expected.resize(b.bytes);
    if (!call(cu_.cuMemcpyDtoH(b.expected.data(), b.expected_dev, b.bytes), "reading back the original's " + b.label))
      return false;
    b.expected_stale = false;
    return true;
  }

  // The host copy of a buffer's initial contents, downloaded now if only the GPU fill made it.
  bool hostInitial(Buffer& b) {
    if (!b.host_stale) return true;
    b.host.resize(b.bytes);
    if (!call(cu_.cuMemcpyDtoH(b.host.data(), b.pristine, b.bytes), "reading back the initial " + b.label)) return false;
    b.host_stale = false;
    return true;
  }

  // Frees the device copies of expected outputs (keeping them on the host): room for a probe.
  bool releaseExpectedDev(std::vector<Buffer>& bs) {
    for (Buffer& b : bs) {
      if (!b.expected_dev) continue;
      if (!expectedOnHost(b)) return false;
      cu_.cuMemFree(b.expected_dev);
      b.expected_dev = 0;
    }
    return true;
  }

  bool allocateDeclared(const std::vector<ParamSpec>& params) {
    argbuf_.assign(8 * params.size(), 0);  // each argument in its own 8-byte slot
    argv_.clear();
    for (unsigned i = 0; i < params.size(); ++i) {
      const ParamSpec& p = params[i];
      unsigned char* v = &argbuf_[8 * i];
      if (p.is_buffer && !p.alias_of.empty()) {
        argv_.push_back(v);  // set below, once the buffer it points into is allocated
      } else if (p.is_buffer) {
        Buffer b;
        b.spec = &p;
        b.param_index = i;
        b.name = b.label = p.name;
        b.type = p.type;
        b.count = p.elements + p.offset_elements;
        b.shift = p.offset_elements;
        b.bytes = static_cast<size_t>(b.count) * elemSize(p.type);
        b.output = p.output;
        if (!allocateBuffer(b)) return false;
        const CUdeviceptr arg = b.base + p.offset_elements * elemSize(p.type);
        std::memcpy(v, &arg, sizeof arg);
        buffers_.push_back(std::move(b));
      } else if (p.type == ElemType::F32) {
        const float f = static_cast<float>(p.fvalue);
        std::memcpy(v, &f, 4);
      } else if (p.type == ElemType::F64) {
        std::memcpy(v, &p.fvalue, 8);
      } else {
        std::memcpy(v, &p.ivalue, p.size_bytes);  // little-endian: the low bytes
      }
      argv_.push_back(v);
    }
    return aliasDeclared(params);
  }

  // Buffers with alias_of point into another buffer's allocation (checked: same type, in range).
  // That buffer is compared like an output when the alias is one, and says so in messages.
  bool aliasDeclared(const std::vector<ParamSpec>& params) {
    for (unsigned i = 0; i < params.size(); ++i) {
      const ParamSpec& p = params[i];
      if (!p.is_buffer || p.alias_of.empty()) continue;
      Buffer* t = nullptr;
      for (Buffer& b : buffers_)
        if (b.name == p.alias_of) t = &b;
      if (!t) return call(CUDA_ERROR_INVALID_VALUE, p.name + " aliases " + p.alias_of + ", which is not allocated");
      const CUdeviceptr arg = t->base + p.offset_elements * elemSize(p.type);
      std::memcpy(&argbuf_[8 * i], &arg, sizeof arg);
      t->output = t->output || p.output;
      t->label += " (" + p.name + " points into it)";
    }
    return true;
  }

  // An input set's initial contents: written on the GPU straight into `pristine` where it can
  // (the host copy is then downloaded only if a host comparison needs it), else made on the host
  // and uploaded.
  bool prepareSeed(uint64_t seed) {
    const Prefill prefill = static_cast<Prefill>(input_sets_++ % 3);
    for (Buffer& b : buffers_) {
      if (b.output && b.spec->init.kind == InitSpec::Poison && prefill != Prefill::Poison) {
        if (!prefillOutput(b, prefill, seed)) return false;
        continue;
      }
      if (b.pristine && fill_.fill(b.pristine, b.spec->type, b.count, b.spec->init, seed, b.param_index)) {
        b.host_stale = true;
        continue;
      }
      b.host_stale = false;
      b.host.resize(b.bytes);
      parallelFor(static_cast<size_t>((b.count + kChunk - 1) / kChunk), [&](size_t c) {
        const unsigned long long at = c * kChunk;
        fillBufferRange(b.host.data(), b.spec->type, at, std::min(kChunk, b.count - at), b.spec->init, seed, b.param_index);
      });
      if (b.pristine && !call(cu_.cuMemcpyHtoD(b.pristine, b.host.data(), b.bytes), "uploading " + b.name))
        return false;
    }
    return true;
  }

  // Write-only outputs (init poison) are pre-filled differently from one input set to the next, the
  // same for every kernel of a set: the poison pattern, random values, or the original's results of
  // the input set before. A variant that writes only where it recognizes the pre-fill, or leaves
  // an element as it found it, then returns what it found: a difference from the original's.
  enum class Prefill { Poison, RandomValues, Stale };

  // The buffer's initial copy (`pristine`, else `host`) set to the pre-fill; false only for a
  // failed CUDA call.
  bool prefillOutput(Buffer& b, Prefill prefill, uint64_t seed) {
    if (!b.bytes) return true;
    if (prefill == Prefill::Stale && b.expected_dev && b.pristine) {
      b.host_stale = true;
      return call(cu_.cuMemcpyDtoD(b.pristine, b.expected_dev, b.bytes), "pre-filling " + b.label);
    }
    if (prefill == Prefill::Stale && b.expected.size() == b.bytes && !b.expected_stale) {
      b.host = b.expected;
    } else {  // random values, never a NaN: an element neither kernel writes compares equal
      InitSpec garbage;
      garbage.kind = InitSpec::Uniform;
      garbage.lo = isFloat(b.spec->type) ? -1e6 : 0;
      garbage.hi = isFloat(b.spec->type) ? 1e6 : elemSize(b.spec->type) == 1 ? 255 : 32767;
      const uint64_t key = seed ^ 0x5EEDF111u;
      if (b.pristine && fill_.fill(b.pristine, b.spec->type, b.count, garbage, key, b.param_index)) {
        b.host_stale = true;
        return true;
      }
      b.host.resize(b.bytes);
      fillBuffer(b.host.data(), b.spec->type, b.count, garbage, key, b.param_index);
    }
    b.host_stale = false;
    return !b.pristine || call(cu_.cuMemcpyHtoD(b.pristine, b.host.data(), b.bytes), "pre-filling " + b.label);
  }

  // --- the oracle -------------------------------------------------------------------------------

  // Loads the oracle's module. A module that does not load (or lacks the function) is no reason
  // to reject the variant: the job falls back to its tolerance and the result says why.
  bool loadOracle() {
    if (!job_.oracle) {
      oracle_none_ = job_.oracle_none;
      return true;
    }
    oracle_spec_ = job_.original;
    oracle_spec_.cubin = job_.oracle->cubin;
    oracle_spec_.function = job_.oracle->function;
    oracle_spec_.globals.reset();
    if (!loadKernel(Which::Oracle)) {
      oracle_none_ = "the oracle did not load: " + failure_;
      failure_.clear();
      progress("note: " + oracle_none_ + "; outputs are compared with the tolerance");
      return true;
    }
    oracle_on_ = true;
    return true;
  }

  // The oracle's run of the current input set (after the original's): its outputs downloaded into
  // `oracle`. A launch the device refuses, or a run that writes outside its buffers, turns the
  // oracle off (the tolerance decides) rather than failing the variant; a fault that kills the
  // context fails the job, naming the oracle.
  bool runOracle() {
    if (!oracle_on_) return true;
    if (!restore()) return false;
    if (!launch(Which::Oracle)) return oracleOff("its launch failed: " + failure_);
    if (!finished(Which::Oracle, cu_.cuCtxSynchronize())) return false;
    const bool was_rejected = rejected_;
    if (!checkGuards(Which::Oracle)) {
      rejected_ = was_rejected;
      const std::string what = res_.reason;
      // Guards are written once: the oracle's write must not count against the variant.
      for (const Buffer& b : buffers_)
        if (!writeGuards(b)) return false;
      return oracleOff("it wrote outside its buffers (" + what + ")");
    }
    for (Buffer& b : buffers_)
      if (b.output && isFloat(b.type) && !downloadOutput(b, &Buffer::oracle)) return false;
    return true;
  }

  bool oracleOff(const std::string& why) {
    oracle_on_ = false;
    oracle_none_ = "the oracle could not be run: " + why;
    failure_.clear();
    res_.reason.clear();
    res_.outcome = Outcome::NotRun;
    progress("note: " + oracle_none_ + "; outputs are compared with the tolerance");
    return true;
  }

  // The probes: other sizes of the same kernel, each in buffers of its own, freed afterwards;
  // the job's buffers and geometry are back in place when this returns.
  bool checkProbes() {
    const Geometry saved_geom[2] = {geom_[0], geom_[1]};
    for (const ProbeSpec& probe : job_.probes) {
      // Swapped, not copied: argv_ points into argbuf_'s storage, which a swap leaves in place.
      std::vector<Buffer> saved;
      std::vector<unsigned char> saved_args;
      std::vector<void*> saved_argv;
      std::swap(saved, buffers_);
      std::swap(saved_args, argbuf_);
      std::swap(saved_argv, argv_);
      geom_[0] = probe.original;
      geom_[1] = probe.variant;
      const uint64_t seed = randomSeed();
      bool ok = allocateDeclared(probe.params);
      if (!ok && last_error_ == CUDA_ERROR_OUT_OF_MEMORY && holdsExpectedDev(saved)) {
        // The job's device copies of its expected outputs take room the probe needs: they go to
        // the host (profile() uploads them again if they fit then).
        progress("note: probe " + probe.name + " needs the room of the original's outputs kept on the device: "
                 "they are kept on the host instead");
        freeBuffers();
        ok = releaseExpectedDev(saved) && allocateDeclared(probe.params);
      }
      bool on_gpu = false;
      ok = ok && checkSeed(seed, "probe " + probe.name + " (seed " + std::to_string(seed) + "): ", &on_gpu);
      freeBuffers();
      std::swap(saved, buffers_);
      std::swap(saved_args, argbuf_);
      std::swap(saved_argv, argv_);
      geom_[0] = saved_geom[0];
      geom_[1] = saved_geom[1];
      if (!ok && original_failed_ && !rejected_) {
        // Our own probe shape is outside what the original itself runs on: the gate leaves it out.
        res_.original_failed_probe = probe.name;
        failure_ = "probe " + probe.name + ": " + failure_;
      }
      if (!ok) return false;
      ++res_.probes_checked;
      res_.probes_checked_on_gpu += on_gpu ? 1 : 0;
    }
    return true;  // the job's buffers still hold its last input set in their initial copies
  }

  std::string probesText() const {
    return res_.probes_checked ? " and " + std::to_string(res_.probes_checked) + " probe shape(s)" : "";
  }

  static bool holdsExpectedDev(const std::vector<Buffer>& bs) {
    for (const Buffer& b : bs)
      if (b.expected_dev) return true;
    return false;
  }

  // ": why" when the GPU comparison is not used, else "".
  std::string diffNote() const { return diff_.unavailable().empty() ? "" : ": " + diff_.unavailable(); }

  void freeBuffers() {
    for (Buffer& b : buffers_) {
      if (b.raw) cu_.cuMemFree(b.raw);
      if (b.pristine) cu_.cuMemFree(b.pristine);
      if (b.expected_dev) cu_.cuMemFree(b.expected_dev);
    }
    buffers_.clear();
  }

  // --- replaying a captured launch --------------------------------------------------------------

  RunnerResult runReplay() {
    const LaunchRecord& rec = *record_;
    if (!(rec.grid == job_.original.grid) || !(rec.block == job_.original.block))
      progress("note: the original is launched with grid " + dims(job_.original.grid) + ", block " +
               dims(job_.original.block) + "; the record's launch had grid " + dims(rec.grid) + ", block " +
               dims(rec.block));
    std::string why;
    if (!loadKernel(Which::Original)) return stop();
    if (!allocateReplay(&why)) return why.empty() ? stop() : inputError(why);
    progress("kernel loaded, " + std::to_string(buffers_.size()) + " recorded allocation(s) of " + mib(buffers_) +
             " read and uploaded");
    if (!runOnce(Which::Original, &Buffer::expected) || !checkDeterminism()) return stop();
    if (job_.replay->check_fidelity) {
      bool reproduced = false;
      if (!checkFidelity(&reproduced, &why)) return inputError(why);
      if (!reproduced) return res_;
    }
    if (!nondeterminism_.empty() && job_.oracle) {
      oracleOffNondeterministic();
    } else if (!loadOracle() || !runOracle()) {
      return stop();
    }
    if (!loadKernel(Which::Variant) || !runOnce(Which::Variant, &Buffer::actual)) return stop();
    if (!compareVariant(replay_where_)) {
      if (!nondeterminism_.empty()) res_.reason += "; " + nondeterminism_;
      return res_;
    }
    if (!checkProbes()) return stop();
    RunnerResult r = profileIfAsked("every allocation matches on the " +
                                    replay_where_.substr(0, replay_where_.size() - 2) + probesText());
    if (!nondeterminism_.empty() && r.status == RunStatus::Ok) r.reason += "; " + nondeterminism_;
    return r;
  }

  void oracleOffNondeterministic() {
    oracle_none_ = "the original is nondeterministic: the widened tolerance decides";
    progress("note: " + oracle_none_);
  }

  bool allocateReplay(std::string* why) {
    const LaunchRecord& rec = *record_;
    const ReplaySpec& spec = *job_.replay;
    auto paramName = [&](unsigned i) {
      return i < spec.param_names.size() && !spec.param_names[i].empty() ? spec.param_names[i]
                                                                          : "param " + std::to_string(i);
    };
    std::vector<const RecordedParam*> by_index(rec.params.size(), nullptr);
    for (const RecordedParam& p : rec.params) by_index.at(p.index) = &p;  // indices checked by loadReplayRecord

    // Each allocation is named and typed after the first pointer parameter into it.
    buffers_.resize(rec.allocations.size());
    std::vector<std::string> names(rec.allocations.size());
    std::vector<bool> typed(rec.allocations.size(), false);
    // Misaligned only where every pointer into it has a known element type under 16 bytes (8 is
    // a multiple of each one's alignment), and only allocations some parameter points into.
    std::vector<bool> can_shift(rec.allocations.size(), false), cannot_shift(rec.allocations.size(), false);
    for (const RecordedParam* p : by_index) {
      if (!p->pointer) continue;
      const unsigned a = p->pointer->allocation;
      Buffer& b = buffers_[a];
      names[a] += (names[a].empty() ? "" : ", ") + paramName(p->index);
      const std::optional<ElemType> t =
          p->index < spec.param_elem_types.size() ? spec.param_elem_types[p->index] : std::nullopt;
      (t && elemSize(*t) < 16 ? can_shift : cannot_shift)[a] = true;
      if (!b.name.empty()) continue;
      b.name = paramName(p->index);
      const unsigned long long size = rec.allocations[a].size;
      if (t && size % elemSize(*t) == 0 && p->pointer->offset % elemSize(*t) == 0) {
        typed[a] = true;
        b.type = *t;
        b.shift = p->pointer->offset / elemSize(*t);
      } else {
        b.shift = p->pointer->offset;  // compared as bytes
      }
    }
    for (size_t a = 0; a < rec.allocations.size(); ++a) {
      const RecordedAllocation& ra = rec.allocations[a];
      Buffer& b = buffers_[a];
      const std::string id = "allocation " + std::to_string(a);
      if (b.name.empty()) b.name = id;  // reached by no parameter (e.g. only through a struct)
      b.label = names[a].empty() ? id : names[a] + " (" + id + ")";
      if (!typed[a]) {
        b.type = ElemType::U8;
        b.as_bytes = true;
      }
      b.bytes = static_cast<size_t>(ra.size);
      b.count = ra.size / elemSize(b.type);
      b.output = true;  // every allocation is compared: a kernel may write any memory it reaches
      if (spec.misalign_bytes && can_shift[a] && !cannot_shift[a]) {
        b.misalign = spec.misalign_bytes;
        misaligned_ += (misaligned_.empty() ? "" : ", ") + b.label;
      }
      const auto before = blobCache().get((std::filesystem::path(rec.dir) / ra.before).string(), b.bytes, ra.before_crc32, why);
      if (!before) return false;
      if (!allocateBuffer(b)) return false;
      if (b.pristine) {  // restored from the device copy
        if (b.bytes && !call(cu_.cuMemcpyHtoD(b.pristine, before->data(), b.bytes), "uploading " + b.label)) return false;
      } else {
        b.host = *before;
      }
    }

    // The parameter buffer as recorded, each pointer patched to its new allocation + offset.
    size_t total = 0;
    for (const RecordedParam& p : rec.params) total = std::max<size_t>(total, size_t{p.offset} + p.size);
    argbuf_.assign(total, 0);
    for (const RecordedParam* p : by_index) {
      unsigned char* v = &argbuf_[p->offset];
      for (unsigned i = 0; i < p->size; ++i) {
        const int hi = hexDigit(p->bytes_hex[2 * i]), lo = hexDigit(p->bytes_hex[2 * i + 1]);
        if (hi < 0 || lo < 0) {
          *why = rec.dir + "/record.json: param " + std::to_string(p->index) + ": bytes are not hexadecimal";
          return false;
        }
        v[i] = static_cast<unsigned char>(hi * 16 + lo);
      }
      if (p->pointer) {
        const CUdeviceptr arg = buffers_[p->pointer->allocation].base + p->pointer->offset;
        std::memcpy(v, &arg, sizeof arg);  // size 8, checked by loadReplayRecord
      }
    }
    for (const RecordedParam* p : by_index) argv_.push_back(&argbuf_[p->offset]);
    if (spec.misalign_bytes) {
      replay_where_ = misaligned_.empty() ? "replayed launch (no allocation could be misaligned): "
                                          : "replayed launch, " + misaligned_ + " " + std::to_string(spec.misalign_bytes) +
                                                " bytes past a 16-byte boundary: ";
      progress(replay_where_.substr(0, replay_where_.size() - 2));
    }
    return true;
  }

  // Runs the original determinism_runs - 1 more times, comparing each with the first run. If they
  // differ, the original is nondeterministic (float atomics, ...): the tolerance for the fidelity
  // check and the variant widens to twice the differences seen.
  bool checkDeterminism() {
    double max_abs = 0, max_rel = 0;
    std::string first;
    for (unsigned run = 1; run < job_.replay->determinism_runs; ++run) {
      if (!runOnce(Which::Original, &Buffer::actual)) return false;
      for (const Buffer& b : buffers_) {
        BufferCompare c = compareOne(b, &Buffer::expected, &Buffer::actual, job_.tolerance);
        max_abs = std::max(max_abs, c.max_abs_err);
        max_rel = std::max(max_rel, c.max_rel_err);
        if (!c.ok && first.empty()) first = mismatchText(b, c, "run 1 gave", "run " + std::to_string(run + 1) + " gave");
      }
    }
    if (first.empty()) return true;
    widenForNondeterminism("the original is nondeterministic (" + first + ")", max_abs, max_rel);
    return true;
  }

  // The original differs from itself by up to max_abs / max_rel: it is nondeterministic, and the
  // tolerance from then on widens to twice that; `why` starts the note the result carries.
  void widenForNondeterminism(const std::string& why, double max_abs, double max_rel) {
    res_.nondeterministic = true;
    tol_.atol = std::max(tol_.atol, 2 * max_abs);
    tol_.rtol = std::max(tol_.rtol, 2 * max_rel);
    res_.widened_atol = tol_.atol;
    res_.widened_rtol = tol_.rtol;
    nondeterminism_ = why + ": tolerance widened to atol " + fmt("%g", tol_.atol) + ", rtol " + fmt("%g", tol_.rtol);
    progress(nondeterminism_);
  }

  // Whether the original's replay (its first run) reproduces every recorded `after` snapshot.
  // False only when an `after` blob cannot be read (why set).
  bool checkFidelity(bool* reproduced, std::string* why) {
    const LaunchRecord& rec = *record_;
    std::vector<BufferCompare> compares;
    std::string first, others;
    // Whether every mismatch is a float output off by no more than reordering its sum (below).
    bool order_only = true;
    double order_abs = 0, order_rel = 0;
    for (size_t a = 0; a < buffers_.size(); ++a) {
      const Buffer& b = buffers_[a];
      const RecordedAllocation& ra = rec.allocations[a];
      if (ra.after.empty()) continue;  // not snapshotted after the launch
      const auto captured = blobCache().get((std::filesystem::path(rec.dir) / ra.after).string(), b.bytes, ra.after_crc32, why);
      if (!captured) return false;
      BufferCompare c = compareBitwiseFirst(b.name, b.type, captured->data(), b.expected.data(), b.count, tol_);
      if (!c.ok && first.empty()) {
        first = b.label + ": " + std::to_string(c.mismatches) + " of " + std::to_string(b.count) +
                (b.as_bytes ? " bytes" : " elements") + " differ, first at " + indexText(b, c) + ": captured " +
                c.expected + ", replayed " + c.actual;
      } else if (!c.ok) {
        others += (others.empty() ? "" : ", ") + b.label;
      }
      if (!c.ok) {
        order_only = order_only && isFloat(b.type) && !b.as_bytes && c.max_rel_err <= kCaptureOrderRtol;
        order_abs = std::max(order_abs, c.max_abs_err);
        order_rel = std::max(order_rel, c.max_rel_err);
      }
      compares.push_back(std::move(c));
    }
    // Float atomics: the capture ran under CUPTI, whose timing gives the blocks' atomics another
    // order than the replays on an idle GPU, which then agree with each other (checkDeterminism saw
    // nothing). A kernel with atomics (determinism_runs > 1) whose float outputs differ from the
    // capture by no more than a reordered sum does (kCaptureOrderRtol) reproduces one of the
    // original's own results: the tolerance widens to twice the difference, as for a replay that
    // differs from itself. Anything further off, any integer or byte output, stays "not replayable".
    if (!first.empty() && order_only && job_.replay->determinism_runs > 1 && nondeterminism_.empty()) {
      widenForNondeterminism("the original's float atomics added in another order under capture (" + first +
                                 "; the replays agree with each other)",
                             order_abs, order_rel);
      first.clear();
    }
    *reproduced = first.empty();
    res_.fidelity_ok = *reproduced;
    if (*reproduced) {
      progress("the original's replay reproduces the capture");
      return true;
    }
    res_.compares = std::move(compares);
    res_.outcome = Outcome::NotRun;
    res_.fidelity_reason =
        "replaying the original does not reproduce " + first + (others.empty() ? "" : "; also differ: " + others) +
        " \u2014 the kernel may read __constant__/__device__ globals, textures or pointers inside structs";
    if (!nondeterminism_.empty()) res_.fidelity_reason += " (" + nondeterminism_ + ")";
    res_.reason = res_.fidelity_reason;
    progress("not replayable: " + res_.reason);
    return true;
  }

  // --- shared by both: kernels, memory, runs, checks after each run, comparison, timing ----------

  const LaunchSpec& spec(Which w) const {
    return w == Which::Original ? job_.original : w == Which::Variant ? job_.variant : oracle_spec_;
  }

  bool call(CUresult r, const std::string& what) {
    if (r == CUDA_SUCCESS) return true;
    last_error_ = r;
    failure_ = what + ": " + cudaErrorText(cu_, r);
    return false;
  }

  // After a check failed: the verdict it recorded, or runtime-failed for a failed CUDA call.
  RunnerResult stop() {
    if (rejected_) return res_;
    res_.outcome = Outcome::RuntimeFailed;
    res_.reason = failure_;
    progress("runtime-failed: " + failure_);
    return res_;
  }

  bool reject(Outcome o, const std::string& reason) {
    rejected_ = true;
    res_.outcome = o;
    res_.reason = reason;
    progress(std::string(outcomeName(o)) + ": " + reason);
    return false;
  }

  RunnerResult inputError(const std::string& why) {
    res_.status = RunStatus::Error;
    res_.outcome = Outcome::NotRun;
    res_.reason = why;
    progress("error: " + why);
    return res_;
  }

  bool loadKernel(Which w) {
    const LaunchSpec& l = spec(w);
    CUmodule& m = module_[static_cast<int>(w)];
    if (!call(cu_.cuModuleLoad(&m, l.cubin.c_str()), std::string("loading the ") + whichName(w) + " cubin " + l.cubin))
      return false;
    CUfunction& f = fn_[static_cast<int>(w)];
    if (!call(cu_.cuModuleGetFunction(&f, m, l.function.c_str()),
              std::string("no function ") + l.function + " in the " + whichName(w) + " cubin " + l.cubin))
      return false;
    if (!loadGlobals(w)) return false;
    // Above 48 KiB of dynamic shared memory a kernel must opt in, as its program would have.
    const unsigned most_shmem = shmemOf(w, std::max(geom_[geomIndex(w)].shmem, maxProbeShmem(w)));
    if (most_shmem > 48 * 1024)
      return call(cu_.cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(most_shmem)),
                  std::string("allowing ") + std::to_string(most_shmem) + " bytes of shared memory for the " +
                      whichName(w) + " kernel " + l.function);
    return true;
  }

  // The oracle's dynamic shared memory: twice the original's, since promote-precision turns an
  // `extern __shared__ float` array into doubles (docs/runner-job.md, "The oracle"). A kernel whose
  // dynamic shared memory holds no floats only reserves more; past the device's limit the oracle's
  // launch fails and the tolerance decides.
  static unsigned shmemOf(Which w, unsigned bytes) { return w == Which::Oracle ? 2 * bytes : bytes; }

  unsigned maxProbeShmem(Which w) const {
    unsigned m = 0;
    for (const ProbeSpec& p : job_.probes) m = std::max(m, w == Which::Variant ? p.variant.shmem : p.original.shmem);
    return m;
  }

  // The module's __device__ variables and their contents at load (restored before every run).
  bool loadGlobals(Which w) {
    const LaunchSpec& l = spec(w);
    std::vector<DeviceGlobal> list;
    if (l.globals) {
      list = *l.globals;
    } else {
      try {
        list = cubinDeviceGlobals(l.cubin);
      } catch (const std::exception& e) {
        progress(std::string("note: cannot list the ") + whichName(w) + " module's __device__ variables: " + e.what());
      }
    }
    for (const DeviceGlobal& d : list) {
      Global g;
      g.name = d.name;
      if (!call(cu_.cuModuleGetGlobal(&g.ptr, &g.bytes, module_[static_cast<int>(w)], d.name.c_str()),
                std::string("finding the ") + whichName(w) + " module's __device__ variable " + d.name))
        return false;
      g.initial.resize(g.bytes);
      if (g.bytes && !call(cu_.cuMemcpyDtoH(g.initial.data(), g.ptr, g.bytes), "reading __device__ variable " + d.name))
        return false;
      globals_[static_cast<int>(w)].push_back(std::move(g));
    }
    return true;
  }

  // The guard pattern on both sides of a buffer (once at allocation; again after an oracle wrote
  // into one, so that the write does not count against the variant).
  bool writeGuards(const Buffer& b) {
    return !b.guard ||
           (call(cu_.cuMemcpyHtoD(b.base - b.guard, guard_pattern_.data(), b.guard), "writing the guard before " + b.label) &&
            call(cu_.cuMemcpyHtoD(b.base + b.bytes, guard_pattern_.data(), b.guard), "writing the guard after " + b.label));
  }

  // The allocation: a guard region, the buffer, another guard region; and, when there is room, a
  // device-side copy of its initial contents, which makes restoring before each run cheap.
  bool allocateBuffer(Buffer& b) {
    b.guard = static_cast<size_t>(job_.guard_bytes);
    // Allocations are 256-byte aligned: `pad` puts base `misalign` bytes past a 16-byte boundary.
    const size_t pad = b.misalign ? (b.misalign + 16 - b.guard % 16) % 16 : 0;
    const size_t n = std::max<size_t>(pad + b.bytes + 2 * b.guard, 1);
    if (!call(cu_.cuMemAlloc(&b.raw, n), "allocating " + std::to_string(b.bytes) + " bytes for " + b.label))
      return false;
    b.base = b.raw + pad + b.guard;
    if (!writeGuards(b)) return false;
    CUresult r = cu_.cuMemAlloc(&b.pristine, std::max<size_t>(b.bytes, 1));
    if (r == CUDA_ERROR_OUT_OF_MEMORY) b.pristine = 0;
    else if (!call(r, "allocating the initial copy of " + b.label)) return false;
    return true;
  }

  // Every buffer back to its initial contents (inputs too: a kernel may update in place; outputs
  // to the poison pattern) and every __device__ variable to its value at load: nothing a run
  // leaves behind reaches the next.
  bool restore() {
    for (Buffer& b : buffers_) {
      if (!b.bytes) continue;
      CUresult r = b.pristine ? cu_.cuMemcpyDtoD(b.base, b.pristine, b.bytes)
                              : cu_.cuMemcpyHtoD(b.base, b.host.data(), b.bytes);
      if (!call(r, "restoring " + b.label)) return false;
    }
    for (auto& list : globals_)
      for (Global& g : list)
        if (g.bytes && !call(cu_.cuMemcpyHtoD(g.ptr, g.initial.data(), g.bytes), "restoring __device__ variable " + g.name))
          return false;
    return true;
  }

  // Arms the watchdog until finished(): a kernel that does not finish in time ends the job as a
  // timeout naming it.
  bool launch(Which w) {
    if (watchdog_) watchdog_->arm(std::string("the ") + whichName(w) + " kernel " + spec(w).function);
    const Geometry& g = geom_[geomIndex(w)];
    const unsigned shmem = shmemOf(w, g.shmem);
    CUresult r = cu_.cuLaunchKernel(fn_[static_cast<int>(w)], static_cast<unsigned>(g.grid.x),
                                    static_cast<unsigned>(g.grid.y), static_cast<unsigned>(g.grid.z),
                                    static_cast<unsigned>(g.block.x), static_cast<unsigned>(g.block.y),
                                    static_cast<unsigned>(g.block.z), shmem, nullptr, argv_.data(), nullptr);
    const bool ok = call(r, std::string("launching the ") + whichName(w) + " kernel " + spec(w).function + " (grid " +
                                dims(g.grid) + ", block " + dims(g.block) + ", shmem " + std::to_string(shmem) + ")");
    if (!ok && watchdog_) watchdog_->disarm();
    if (!ok && w == Which::Original) original_failed_ = true;
    return ok;
  }

  bool finished(Which w, CUresult r) {
    if (watchdog_) watchdog_->disarm();
    const bool ok = call(r, std::string("the ") + whichName(w) + " kernel " + spec(w).function + " failed");
    if (!ok && w == Which::Original) original_failed_ = true;
    return ok;
  }

  // Restore, launch, wait, and check what the run touched (guards, inputs, state).
  bool runAndCheck(Which w) {
    return restore() && launch(w) && finished(w, cu_.cuCtxSynchronize()) && checkGuards(w) && checkInputs(w) &&
           checkGlobals(w);
  }

  // runAndCheck, then every output buffer copied into `dst`.
  bool runOnce(Which w, Contents dst) { return runAndCheck(w) && downloadOutputs(dst); }

  bool downloadOutputs(Contents dst) {
    for (Buffer& b : buffers_)
      if (b.output && !downloadOutput(b, dst)) return false;
    return true;
  }

  bool downloadOutput(Buffer& b, Contents dst) {
    auto& v = b.*dst;
    v.resize(b.bytes);
    if (dst == &Buffer::expected) b.expected_stale = false;
    return !b.bytes || call(cu_.cuMemcpyDtoH(v.data(), b.base, b.bytes), "reading back " + b.label);
  }

  // The guard regions must still hold the pattern: a write outside a buffer is runtime-failed,
  // named by buffer and element ("y[67108864], 1 element past the end").
  bool checkGuards(Which w) {
    for (const Buffer& b : buffers_) {
      if (!b.guard) continue;
      for (int side = 0; side < 2; ++side) {
        scratch_.resize(b.guard);
        const CUdeviceptr at = side == 0 ? b.base - b.guard : b.base + b.bytes;
        if (!call(cu_.cuMemcpyDtoH(scratch_.data(), at, b.guard), "reading the guard of " + b.label)) return false;
        if (std::memcmp(scratch_.data(), guard_pattern_.data(), b.guard) == 0) continue;
        size_t first = 0, last = b.guard - 1;
        while (scratch_[first] == guard_pattern_[first]) ++first;
        while (scratch_[last] == guard_pattern_[last]) --last;
        // byte offset from the buffer's start (negative before it)
        const long long off = side == 0 ? static_cast<long long>(first) - static_cast<long long>(b.guard)
                                        : static_cast<long long>(b.bytes + first);
        const unsigned es = b.as_bytes ? 1 : elemSize(b.type);
        const long long elem = (off >= 0 ? off : off - static_cast<long long>(es) + 1) / static_cast<long long>(es) -
                               static_cast<long long>(b.shift);
        const std::string where = side == 0 ? std::to_string(b.guard - first) + " bytes before the start"
                                            : "byte " + std::to_string(first) + " past the end";
        return reject(Outcome::RuntimeFailed,
                      std::string("the ") + whichName(w) + " wrote outside " + b.label + ": " + b.name + "[" +
                          std::to_string(elem) + "] (" + where + "), " + std::to_string(last - first + 1) +
                          " guard bytes changed");
      }
    }
    return true;
  }

  // Buffers that are not outputs must come back as they went in. The original may write one
  // (then it is compared like an output from here on); the variant may not, beyond that.
  bool checkInputs(Which w) {
    if (job_.replay) return true;  // every allocation of a replay is compared already
    for (Buffer& b : buffers_) {
      if (b.output || !b.bytes) continue;
      // Bit for bit its initial contents on the device: unchanged, no copy needed.
      if (b.pristine && diff_.same(b.base, b.pristine, b.bytes, b.type)) continue;
      scratch_.resize(b.bytes);
      if (!call(cu_.cuMemcpyDtoH(scratch_.data(), b.base, b.bytes), "reading back input " + b.label)) return false;
      if (!hostInitial(b)) return false;
      if (std::memcmp(scratch_.data(), b.host.data(), b.bytes) == 0) continue;
      if (w == Which::Original) {
        progress("note: the original writes " + b.label + ", which is not marked as an output: compared like one");
        b.output = true;
        b.expected = scratch_;
        b.expected_stale = false;
        continue;
      }
      BufferCompare c = compareBuffers(b.name, b.type, b.host.data(), scratch_.data(), b.count, Tolerance{0, 0});
      std::string at = c.first_mismatch ? " (first at " + indexText(b, c) + ": was " + c.expected + ", now " + c.actual + ")"
                                        : " (bit patterns only)";
      return reject(Outcome::WrongResult, "the variant wrote to input " + b.label + ", which the original leaves unchanged" + at);
    }
    return true;
  }

  // The variant's __device__ variables must be back at their values from load after a run:
  // otherwise the next launch in the program would start from other state than the gate's.
  bool checkGlobals(Which w) {
    if (w != Which::Variant) return true;
    for (const Global& g : globals_[1]) {
      if (!g.bytes) continue;
      scratch_.resize(g.bytes);
      if (!call(cu_.cuMemcpyDtoH(scratch_.data(), g.ptr, g.bytes), "reading __device__ variable " + g.name)) return false;
      if (std::memcmp(scratch_.data(), g.initial.data(), g.bytes) == 0) continue;
      size_t first = 0;
      while (scratch_[first] == g.initial[first]) ++first;
      return reject(Outcome::WrongResult, "the variant keeps state between launches: __device__ variable '" + g.name +
                                              "' (" + std::to_string(g.bytes) + " bytes) changed during a run, first at byte " +
                                              std::to_string(first) + "; the program's later launches would start from it");
    }
    return true;
  }

  BufferCompare compareOne(const Buffer& b, Contents expected, Contents actual, Tolerance tol) const {
    const unsigned char* e = (b.*expected).data();
    const unsigned char* a = (b.*actual).data();
    return compareChunked(b.name, b.type, e, a, b.count, tol, /*bitwise_first=*/job_.replay.has_value());
  }

  // compareWithOracle over the buffer in chunks on every core: the stats first, then the elements
  // over the bound the whole buffer's stats give.
  // *trusted: false when the oracle was not trusted (kOracleTrustUlps) and the tolerance decided.
  BufferCompare compareWithOracleChunked(const Buffer& b, bool* trusted) const {
    const unsigned es = elemSize(b.type);
    const unsigned char *r = b.oracle.data(), *o = b.expected.data(), *v = b.actual.data();
    const size_t chunks = static_cast<size_t>((b.count + kChunk - 1) / kChunk);
    const bool equal_bits_pass = job_.replay.has_value();  // captured memory may hold NaNs nobody computed
    std::vector<OracleStats> stats(chunks);
    parallelFor(chunks, [&](size_t c) {
      const unsigned long long at = c * kChunk, m = std::min(kChunk, b.count - at);
      stats[c] = oracleStats(b.type, r + at * es, o + at * es, v + at * es, m, tol_, equal_bits_pass);
    });
    OracleStats whole;
    for (const auto& st : stats) whole.merge(st);
    std::vector<BufferCompare> parts(chunks);
    parallelFor(chunks, [&](size_t c) {
      const unsigned long long at = c * kChunk, m = std::min(kChunk, b.count - at);
      parts[c] = oracleChunk(b.name, b.type, r + at * es, o + at * es, v + at * es, m, whole, job_.oracle->rule, tol_,
                             equal_bits_pass);
    });
    BufferCompare out;
    out.param = b.name;
    for (size_t c = 0; c < chunks; ++c) mergeCompare(out, parts[c], c * kChunk);
    *trusted = oracleVerdict(out, b.type, whole, job_.oracle->rule);
    if (*trusted) return out;
    // Not trusted: the tolerance decides, the errors and why stay in the compare.
    BufferCompare t = compareOne(b, &Buffer::expected, &Buffer::actual, tol_);
    t.error_original = out.error_original;
    t.error_variant = out.error_variant;
    t.oracle_detail = out.oracle_detail;
    return t;
  }

  // An index as the kernel sees it: counted from the pointer it was passed.
  static std::string indexAt(const Buffer& b, unsigned long long index) {
    const long long at = static_cast<long long>(index) - static_cast<long long>(b.shift);
    return b.name + "[" + std::to_string(at) + "]" + (b.as_bytes ? " (byte)" : "");
  }
  static std::string indexText(const Buffer& b, const BufferCompare& c) { return indexAt(b, *c.first_mismatch); }

  // "y[17]: expected 1.5, got nan (3 of 1048576 elements differ, max abs err 0.5; also y[18]: ...)"
  static std::string mismatchText(const Buffer& b, const BufferCompare& c, const std::string& expected_word = "expected",
                                  const std::string& actual_word = "got") {
    std::string more;
    for (size_t i = 1; i < c.samples.size(); ++i)
      more += (more.empty() ? "; also " : ", ") + indexAt(b, c.samples[i].index) + ": " + c.samples[i].expected + " vs " +
              c.samples[i].actual;
    return indexText(b, c) + ": " + expected_word + " " + c.expected + ", " + actual_word + " " + c.actual + " (" +
           std::to_string(c.mismatches) + " of " + std::to_string(b.count) + (b.as_bytes ? " bytes" : " elements") +
           " differ" + (c.max_abs_err > 0 ? ", max abs err " + fmt("%g", c.max_abs_err) : std::string()) + more + ")";
  }

  // "y[17]: the original gives 1.5, the variant 1.7 (3 of 4096 elements differ ...); error against
  // the oracle ...": elements off the oracle by more than the bound, or the L2 norm alone.
  static std::string oracleText(const Buffer& b, const BufferCompare& c) {
    const std::string head = c.first_mismatch ? mismatchText(b, c, "the original gives", "the variant") : b.label;
    return head + ": less accurate than the original; " + c.oracle_detail;
  }

  // The variant's outputs against the original's. False (and the result set to wrong-result)
  // when any differs; `context` starts the reason ("seed 2: ").
  bool compareVariant(const std::string& context) {
    res_.compares.clear();
    std::string first, others;
    for (Buffer& b : buffers_) {
      if (!b.output) continue;
      if (!expectedOnHost(b)) return false;
      const bool by_oracle = oracle_on_ && isFloat(b.type) && b.oracle.size() == b.bytes;
      bool trusted = false;
      BufferCompare c = by_oracle ? compareWithOracleChunked(b, &trusted)
                                  : compareOne(b, &Buffer::expected, &Buffer::actual, tol_);
      if (!c.ok && first.empty())
        first = context + (trusted     ? oracleText(b, c)
                           : by_oracle ? mismatchText(b, c) + "; " + c.oracle_detail
                                       : mismatchText(b, c));
      else if (!c.ok) others += (others.empty() ? "" : ", ") + c.param;
      res_.compares.push_back(std::move(c));
    }
    if (oracle_on_) errors_reported_ = true;
    if (first.empty()) return true;
    mismatch_rejected_ = true;
    return reject(Outcome::WrongResult, first + (others.empty() ? "" : "; also differ: " + others));
  }

  static std::string mib(const std::vector<Buffer>& bs) {
    size_t bytes = 0;
    for (const Buffer& b : bs) bytes += b.bytes;
    return fmt("%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  }

  RunnerResult profileIfAsked(const std::string& matched) {
    progress(matched);
    if (!job_.profile.enabled) {
      res_.outcome = Outcome::Passed;
      res_.reason = matched + "; not profiled";
      return res_;
    }
    if (!profile()) return stop();
    res_.reason = matched + ", " + std::to_string(res_.timed_runs_checked) + " timed run(s) checked";
    return res_;
  }

  // A timed variant run, checked like an input set's (checkVariantRun).
  bool checkTimedRun(unsigned run) {
    ++res_.timed_runs_checked;
    bool on_gpu = false;
    const std::string context = "timed run " + std::to_string(run + 1) + ": ";
    if (checkVariantRun(context, &on_gpu)) {
      res_.timed_runs_checked_on_gpu += on_gpu ? 1 : 0;
      return true;
    }
    return confirmAgainstSpread(context);
  }

  // A replayed original whose first runs agreed may still differ from itself later (float atomics
  // add in another order now and then: seen on an H100, a dot product's atomicAdd partials, timed
  // run 104 of a correct variant off by 1e-5 relative). So a timed run's mismatch of a replay
  // without an oracle is judged once against the original's own spread first: the original runs
  // kSpreadRuns more times; if it differs from its first run too, the tolerance widens to twice what
  // it showed (as checkDeterminism does) and the variant's run is compared again. A deterministic
  // original leaves the verdict as it was.
  static constexpr unsigned kSpreadRuns = 16;
  bool spread_checked_ = false;
  bool confirmAgainstSpread(const std::string& context) {
    // only outputs that differ: guards, inputs and state stay rejected
    if (res_.outcome != Outcome::WrongResult || !mismatch_rejected_ || !job_.replay || oracle_on_ || spread_checked_ ||
        !nondeterminism_.empty())
      return false;
    spread_checked_ = true;
    const RunnerResult verdict = res_;
    std::vector<std::vector<unsigned char>> kept;  // the variant's outputs of this run
    for (const Buffer& b : buffers_) kept.push_back(b.output ? b.actual : std::vector<unsigned char>{});
    double max_abs = 0, max_rel = 0;
    std::string first;
    for (unsigned run = 0; run < kSpreadRuns; ++run) {
      if (!restore() || !launch(Which::Original) || !finished(Which::Original, cu_.cuCtxSynchronize()) ||
          !downloadOutputs(&Buffer::actual))
        return false;
      for (Buffer& b : buffers_) {
        if (!b.output) continue;
        if (!expectedOnHost(b)) return false;
        BufferCompare c = compareOne(b, &Buffer::expected, &Buffer::actual, job_.tolerance);
        max_abs = std::max(max_abs, c.max_abs_err);
        max_rel = std::max(max_rel, c.max_rel_err);
        if (!c.ok && first.empty()) first = mismatchText(b, c, "run 1 gave", "a later run gave");
      }
    }
    for (size_t i = 0; i < buffers_.size(); ++i)
      if (buffers_[i].output) buffers_[i].actual = std::move(kept[i]);
    if (first.empty()) {
      res_ = verdict;  // the original is deterministic: the mismatch stands
      return false;
    }
    widenForNondeterminism("the original is nondeterministic (" + first + ", in " + std::to_string(kSpreadRuns) +
                               " more runs after a timed run differed)",
                           max_abs, max_rel);
    rejected_ = false;
    res_.outcome = verdict.outcome == Outcome::WrongResult ? Outcome::NotRun : verdict.outcome;
    res_.reason.clear();
    return compareVariant(context);
  }

  // Every buffer holds, bit for bit, what a correct run leaves: outputs the original's outputs
  // (expected_dev), other buffers their initial contents (pristine).
  bool sameOnDevice() {
    for (const Buffer& b : buffers_) {
      if (!b.bytes) continue;
      const CUdeviceptr want = b.output ? b.expected_dev : b.pristine;
      if (!want || !diff_.same(b.base, want, b.bytes, b.type)) return false;
    }
    return true;
  }

  // The original's outputs of the current input set, uploaded for sameOnDevice() where the device
  // does not hold them yet (replays; a declared buffer whose copy did not fit, or was given up for
  // a probe); a buffer that does not fit keeps expected_dev 0 (its checks go to the host).
  void uploadExpected() {
    for (Buffer& b : buffers_) {
      if (!b.output || !b.bytes || b.expected.size() != b.bytes || b.expected_dev) continue;
      if (cu_.cuMemAlloc(&b.expected_dev, b.bytes) != CUDA_SUCCESS) {
        b.expected_dev = 0;
        continue;
      }
      if (cu_.cuMemcpyHtoD(b.expected_dev, b.expected.data(), b.bytes) != CUDA_SUCCESS) {
        cu_.cuMemFree(b.expected_dev);
        b.expected_dev = 0;
      }
    }
  }

  bool profile() {
    const ProfileSpec& p = job_.profile;
    uploadExpected();
    const unsigned long long flush_bytes = p.flush_bytes ? p.flush_bytes : 2ull * static_cast<unsigned long long>(dev_.l2_bytes);
    // released on every way out: a serving runner's next job finds the memory free
    struct Held {
      const CudaApi& cu;
      CUdeviceptr flush = 0;
      CUevent start = nullptr, stop = nullptr;
      ~Held() {
        if (flush) cu.cuMemFree(flush);
        if (start) cu.cuEventDestroy(start);
        if (stop) cu.cuEventDestroy(stop);
      }
    } held{cu_};
    CUdeviceptr& flush = held.flush;
    if (flush_bytes && !call(cu_.cuMemAlloc(&flush, flush_bytes), "allocating the L2 flush buffer")) return false;
    CUevent &start = held.start, &stop = held.stop;
    if (!call(cu_.cuEventCreate(&start, CU_EVENT_DEFAULT), "creating a timing event") ||
        !call(cu_.cuEventCreate(&stop, CU_EVENT_DEFAULT), "creating a timing event"))
      return false;

    for (unsigned i = 0; i < p.warmup; ++i)
      for (Which w : {Which::Original, Which::Variant})
        if (!restore() || !launch(w) || !finished(w, cu_.cuCtxSynchronize())) return false;

    // Which timed runs are checked is drawn at random, so no fixed pattern tells a variant
    // whether this run counts; the last one always does.
    // Run r is checked with probability c / (c + r): about c * ln(1 + runs / c) checks in all, so
    // short kernels timed thousands of times are not checked thousands of times.
    std::uniform_real_distribution<double> coin(0, 1);
    const double c = p.check_runs;
    std::vector<double> times[2];
    double total[2] = {0, 0};
    unsigned run = 0;
    for (; run < p.max_runs; ++run) {
      if (run >= p.min_runs && (std::min(total[0], total[1]) >= p.min_ms || std::max(total[0], total[1]) >= p.max_ms))
        break;
      for (Which w : {Which::Original, Which::Variant}) {
        // Restoring and flushing L2 happen before the start event: only the kernel is timed.
        if (!restore()) return false;
        if (flush && !call(cu_.cuMemsetD8Async(flush, static_cast<unsigned char>(run), flush_bytes, nullptr),
                           "flushing L2"))
          return false;
        float ms = 0;
        if (!call(cu_.cuEventRecord(start, nullptr), "recording a timing event") || !launch(w) ||
            !call(cu_.cuEventRecord(stop, nullptr), "recording a timing event") ||
            !finished(w, cu_.cuEventSynchronize(stop)) ||
            !call(cu_.cuEventElapsedTime(&ms, start, stop), "reading a timing event"))
          return false;
        times[static_cast<int>(w)].push_back(ms);
        total[static_cast<int>(w)] += ms;
        // Guards are written once and never restored, so a write into one stays until it is
        // checked: at the sampled runs and after the last.
        if (w == Which::Variant && c > 0 && coin(rng_) < c / (c + run) && !checkTimedRun(run)) return false;
      }
    }
    // The variant ran last: its buffers still hold the last timed run's results.
    if (run > 0 && !checkTimedRun(run - 1)) return false;

    res_.original_time = summarize(times[0]);
    res_.variant_time = summarize(times[1]);
    // Measurements only: whether this is faster is the gate's judge() to decide.
    fasterBeyondNoise(*res_.original_time, *res_.variant_time, &res_.speedup, &res_.noise);
    res_.outcome = Outcome::Passed;
    progress(std::to_string(times[0].size()) + " timed runs each (" + std::to_string(res_.timed_runs_checked) +
             " of the variant's checked, " + std::to_string(res_.timed_runs_checked_on_gpu) + " on the GPU" +
             diffNote() + "): original median " + fmt("%.4f ms", res_.original_time->median_ms) +
             ", variant " + fmt("%.4f ms", res_.variant_time->median_ms) + fmt(": %.2fx", res_.speedup) +
             fmt(", noise %.1f%%", 100 * res_.noise));
    return true;
  }
};

}  // namespace

void restartProgressClock() { g_clock_start = std::chrono::steady_clock::now(); }

void keepReplayBlobs(size_t max_bytes) { blobCache().limit(max_bytes); }

RunnerResult runJob(const CudaApi& api, const Device& device, const RunnerJob& job, const LaunchRecord* record,
                    Watchdog* watchdog) {
  try {
    if (job.replay && !record) {
      RunnerResult r;
      r.status = RunStatus::Error;
      r.reason = "a replay job needs its launch record";
      return r;
    }
    return JobRun(api, device, job, record, watchdog).run();
  } catch (const std::bad_alloc&) {
    RunnerResult r;
    r.device = device.describe();
    r.outcome = Outcome::RuntimeFailed;
    r.reason = job.replay ? "out of host memory for the recorded allocations' contents"
                          : "out of host memory for the buffers' initial contents";
    return r;
  }
}

}  // namespace klineage::runner
