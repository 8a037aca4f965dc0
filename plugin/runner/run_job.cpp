#include "runner/run_job.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "core/compare.h"
#include "core/fill.h"
#include "core/stats.h"

namespace klineage::runner {

namespace {

enum class Which { Original, Variant };
const char* whichName(Which w) { return w == Which::Original ? "original" : "variant"; }

struct Buffer {
  const ParamSpec* spec = nullptr;
  unsigned param_index = 0;
  unsigned long long count = 0;       // elements + offset_elements: the whole allocation
  size_t bytes = 0;
  CUdeviceptr base = 0;
  CUdeviceptr pristine = 0;           // device copy of the initial contents; 0 if it did not fit
  std::vector<unsigned char> host;    // initial contents for the current seed
  std::vector<unsigned char> expected, actual;  // after the original / after the variant
};

std::string dims(const Dim3& d) {
  return "[" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + "]";
}

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

void progress(const std::string& line) { std::fprintf(stderr, "klineage-runner: %s\n", line.c_str()); }

// The process ends right after one job, and the driver frees the context's memory and modules
// with it, so nothing here is freed by hand (after a sticky error it could not be anyway).
class JobRun {
 public:
  JobRun(const CudaApi& cu, const Device& dev, const RunnerJob& job) : cu_(cu), dev_(dev), job_(job) {}

  RunnerResult run() {
    res_.device = dev_.describe();
    if (!loadKernel(Which::Original) || !loadKernel(Which::Variant) || !allocate()) return failed();
    for (uint64_t seed : job_.seeds) {
      if (!prepareSeed(seed) || !runAndKeep(Which::Original) || !runAndKeep(Which::Variant)) return failed();
      if (!compareSeed(seed)) return res_;
    }
    progress("outputs match on " + std::to_string(job_.seeds.size()) + " seed(s)");
    if (!job_.profile.enabled) {
      res_.outcome = Outcome::Passed;
      res_.reason = "outputs match on " + std::to_string(job_.seeds.size()) + " seed(s); not profiled";
      return res_;
    }
    if (!profile()) return failed();
    return res_;
  }

 private:
  const CudaApi& cu_;
  const Device& dev_;
  const RunnerJob& job_;
  RunnerResult res_;
  std::string failure_;
  CUfunction fn_[2] = {nullptr, nullptr};
  std::vector<Buffer> buffers_;
  std::vector<std::array<unsigned char, 8>> values_;  // each kernel argument's bytes
  std::vector<void*> argv_;                             // cuLaunchKernel's kernelParams

  const LaunchSpec& spec(Which w) const { return w == Which::Original ? job_.original : job_.variant; }

  bool call(CUresult r, const std::string& what) {
    if (r == CUDA_SUCCESS) return true;
    failure_ = what + ": " + cudaErrorText(cu_, r);
    return false;
  }

  RunnerResult failed() {
    res_.outcome = Outcome::RuntimeFailed;
    res_.reason = failure_;
    progress("runtime-failed: " + failure_);
    return res_;
  }

  bool loadKernel(Which w) {
    const LaunchSpec& l = spec(w);
    CUmodule m = nullptr;
    if (!call(cu_.cuModuleLoad(&m, l.cubin.c_str()), std::string("loading the ") + whichName(w) + " cubin " + l.cubin))
      return false;
    CUfunction& f = fn_[static_cast<int>(w)];
    if (!call(cu_.cuModuleGetFunction(&f, m, l.function.c_str()),
              std::string("no function ") + l.function + " in the " + whichName(w) + " cubin " + l.cubin))
      return false;
    // Above 48 KiB of dynamic shared memory a kernel must opt in, as its program would have.
    if (l.shmem > 48 * 1024)
      return call(cu_.cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(l.shmem)),
                  std::string("allowing ") + std::to_string(l.shmem) + " bytes of shared memory for the " +
                      whichName(w) + " kernel " + l.function);
    return true;
  }

  bool allocate() {
    for (unsigned i = 0; i < job_.params.size(); ++i) {
      const ParamSpec& p = job_.params[i];
      std::array<unsigned char, 8> v{};
      if (p.is_buffer) {
        Buffer b;
        b.spec = &p;
        b.param_index = i;
        b.count = p.elements + p.offset_elements;
        b.bytes = static_cast<size_t>(b.count) * elemSize(p.type);
        if (!call(cu_.cuMemAlloc(&b.base, b.bytes), "allocating " + std::to_string(b.bytes) + " bytes for " + p.name))
          return false;
        // A device-side copy makes restoring before each timed run cheap; without room for it,
        // restore from the host copy instead.
        CUresult r = cu_.cuMemAlloc(&b.pristine, b.bytes);
        if (r == CUDA_ERROR_OUT_OF_MEMORY) b.pristine = 0;
        else if (!call(r, "allocating the initial copy of " + p.name)) return false;
        const CUdeviceptr arg = b.base + p.offset_elements * elemSize(p.type);
        std::memcpy(v.data(), &arg, sizeof arg);
        buffers_.push_back(std::move(b));
      } else if (p.type == ElemType::F32) {
        const float f = static_cast<float>(p.fvalue);
        std::memcpy(v.data(), &f, 4);
      } else if (p.type == ElemType::F64) {
        std::memcpy(v.data(), &p.fvalue, 8);
      } else {
        std::memcpy(v.data(), &p.ivalue, p.size_bytes);  // little-endian: the low bytes
      }
      values_.push_back(v);
    }
    for (auto& v : values_) argv_.push_back(v.data());
    return true;
  }

  bool prepareSeed(uint64_t seed) {
    for (Buffer& b : buffers_) {
      b.host.resize(b.bytes);
      fillBuffer(b.host.data(), b.spec->type, b.count, b.spec->init, seed, b.param_index);
      if (b.pristine && !call(cu_.cuMemcpyHtoD(b.pristine, b.host.data(), b.bytes), "uploading " + b.spec->name))
        return false;
    }
    return true;
  }

  // Every buffer back to its initial contents, inputs too: a kernel may update in place.
  bool restore() {
    for (Buffer& b : buffers_) {
      CUresult r = b.pristine ? cu_.cuMemcpyDtoD(b.base, b.pristine, b.bytes)
                              : cu_.cuMemcpyHtoD(b.base, b.host.data(), b.bytes);
      if (!call(r, "restoring " + b.spec->name)) return false;
    }
    return true;
  }

  bool launch(Which w) {
    const LaunchSpec& l = spec(w);
    CUresult r = cu_.cuLaunchKernel(fn_[static_cast<int>(w)], static_cast<unsigned>(l.grid.x),
                                    static_cast<unsigned>(l.grid.y), static_cast<unsigned>(l.grid.z),
                                    static_cast<unsigned>(l.block.x), static_cast<unsigned>(l.block.y),
                                    static_cast<unsigned>(l.block.z), l.shmem, nullptr, argv_.data(), nullptr);
    return call(r, std::string("launching the ") + whichName(w) + " kernel " + l.function + " (grid " + dims(l.grid) +
                       ", block " + dims(l.block) + ", shmem " + std::to_string(l.shmem) + ")");
  }

  bool finished(Which w, CUresult r) {
    return call(r, std::string("the ") + whichName(w) + " kernel " + spec(w).function + " failed");
  }

  bool runAndKeep(Which w) {
    if (!restore() || !launch(w) || !finished(w, cu_.cuCtxSynchronize())) return false;
    for (Buffer& b : buffers_) {
      if (!b.spec->output) continue;
      auto& dst = w == Which::Original ? b.expected : b.actual;
      dst.resize(b.bytes);
      if (!call(cu_.cuMemcpyDtoH(dst.data(), b.base, b.bytes), "reading back " + b.spec->name)) return false;
    }
    return true;
  }

  // False (and the result set to wrong-result) when any output differs.
  bool compareSeed(uint64_t seed) {
    res_.compares.clear();
    std::string first, others;
    for (Buffer& b : buffers_) {
      if (!b.spec->output) continue;
      BufferCompare c = compareBuffers(b.spec->name, b.spec->type, b.expected.data(), b.actual.data(), b.count,
                                       job_.tolerance);
      if (!c.ok && first.empty()) {
        // the index as the kernel sees it: counted from the pointer it was passed
        const long long at = static_cast<long long>(*c.first_mismatch) - static_cast<long long>(b.spec->offset_elements);
        first = "seed " + std::to_string(seed) + ": " + c.param + "[" + std::to_string(at) + "]: expected " +
                c.expected + ", got " + c.actual + " (" + std::to_string(c.mismatches) + " of " +
                std::to_string(b.count) + " elements differ" +
                (c.max_abs_err > 0 ? ", max abs err " + fmt("%g", c.max_abs_err) : std::string()) + ")";
      } else if (!c.ok) {
        others += (others.empty() ? "" : ", ") + c.param;
      }
      res_.compares.push_back(std::move(c));
    }
    if (first.empty()) return true;
    res_.outcome = Outcome::WrongResult;
    res_.reason = first + (others.empty() ? "" : "; also differ: " + others);
    progress("wrong-result: " + res_.reason);
    return false;
  }

  bool profile() {
    const ProfileSpec& p = job_.profile;
    const unsigned long long flush_bytes = p.flush_bytes ? p.flush_bytes : 2ull * static_cast<unsigned long long>(dev_.l2_bytes);
    CUdeviceptr flush = 0;
    if (flush_bytes && !call(cu_.cuMemAlloc(&flush, flush_bytes), "allocating the L2 flush buffer")) return false;
    CUevent start = nullptr, stop = nullptr;
    if (!call(cu_.cuEventCreate(&start, CU_EVENT_DEFAULT), "creating a timing event") ||
        !call(cu_.cuEventCreate(&stop, CU_EVENT_DEFAULT), "creating a timing event"))
      return false;

    for (unsigned i = 0; i < p.warmup; ++i)
      for (Which w : {Which::Original, Which::Variant})
        if (!restore() || !launch(w) || !finished(w, cu_.cuCtxSynchronize())) return false;

    std::vector<double> times[2];
    double total[2] = {0, 0};
    for (unsigned run = 0; run < p.max_runs; ++run) {
      if (run >= p.min_runs && std::min(total[0], total[1]) >= p.min_ms) break;
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
      }
    }

    res_.original_time = summarize(times[0]);
    res_.variant_time = summarize(times[1]);
    const bool faster = fasterBeyondNoise(*res_.original_time, *res_.variant_time, &res_.speedup, &res_.noise);
    res_.outcome = faster ? Outcome::Passed : Outcome::Slower;
    const std::string x = fmt("%.2fx", res_.speedup), noise = fmt("%.1f%%", 100 * res_.noise);
    res_.reason = faster ? x + " (noise " + noise + ")" : x + ", not faster beyond noise " + noise;
    progress(std::to_string(times[0].size()) + " timed runs each: original median " +
             fmt("%.4f ms", res_.original_time->median_ms) + ", variant " + fmt("%.4f ms", res_.variant_time->median_ms) +
             ": " + res_.reason);
    return true;
  }
};

}  // namespace

RunnerResult runJob(const CudaApi& api, const Device& device, const RunnerJob& job) {
  try {
    return JobRun(api, device, job).run();
  } catch (const std::bad_alloc&) {
    RunnerResult r;
    r.device = device.describe();
    r.outcome = Outcome::RuntimeFailed;
    r.reason = "out of host memory for the buffers' initial contents";
    return r;
  }
}

}  // namespace klineage::runner
