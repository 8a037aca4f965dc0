#include "fake_cuda.h"

#include <cstring>

#include "core/fill_element.h"
#include <memory>

namespace klineage::fake {

namespace {

struct Allocation {
  std::vector<unsigned char> bytes;
};
struct LoadedModule {
  Module m;
  std::map<std::string, CUdeviceptr> globals;
};
struct Function {
  Kernel k;
  LoadedModule* module;
};

struct State {
  std::map<std::string, Module> registered;
  std::map<CUdeviceptr, Allocation> memory;
  CUdeviceptr next = 0x100000000ull;
  std::vector<std::unique_ptr<LoadedModule>> modules;
  std::vector<std::unique_ptr<Function>> functions;
  std::vector<std::unique_ptr<float>> events;
  float last_ms = 0;
  CUresult sticky = CUDA_SUCCESS;
  unsigned diff_modules = 0;
  std::map<size_t, unsigned> dtoh_sizes;  // bytes -> cuMemcpyDtoH calls of that size
  unsigned long long memory_limit = 0;    // 0: none
};
State& st() {
  static State s;
  return s;
}

std::pair<Allocation*, size_t> find(CUdeviceptr p, size_t bytes) {
  auto& mem = st().memory;
  auto it = mem.upper_bound(p);
  if (it == mem.begin()) return {nullptr, 0};
  --it;
  const size_t off = p - it->first;
  if (off + bytes > it->second.bytes.size()) return {nullptr, 0};
  return {&it->second, off};
}

unsigned long long live() {
  unsigned long long n = 0;
  for (const auto& [p, a] : st().memory) n += a.bytes.size();
  return n;
}

CUresult memAlloc(CUdeviceptr* p, size_t bytes) {
  if (st().memory_limit && live() + bytes > st().memory_limit) return CUDA_ERROR_OUT_OF_MEMORY;
  *p = st().next;
  st().memory[*p].bytes.assign(bytes, 0xCD);  // like the driver: old contents, not zeros
  st().next += (bytes + 4095) / 4096 * 4096 + 4096;
  return CUDA_SUCCESS;
}
CUresult memFree(CUdeviceptr p) { return st().memory.erase(p) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE; }
CUresult htod(CUdeviceptr d, const void* h, size_t n) {
  auto [a, off] = find(d, n);
  if (!a) return CUDA_ERROR_INVALID_VALUE;
  std::memcpy(a->bytes.data() + off, h, n);
  return CUDA_SUCCESS;
}
CUresult dtoh(void* h, CUdeviceptr d, size_t n) {
  ++st().dtoh_sizes[n];
  auto [a, off] = find(d, n);
  if (!a) return CUDA_ERROR_INVALID_VALUE;
  std::memcpy(h, a->bytes.data() + off, n);
  return CUDA_SUCCESS;
}
CUresult dtod(CUdeviceptr d, CUdeviceptr s, size_t n) {
  auto [sa, so] = find(s, n);
  auto [da, dof] = find(d, n);
  if (!sa || !da) return CUDA_ERROR_INVALID_VALUE;
  std::memmove(da->bytes.data() + dof, sa->bytes.data() + so, n);
  return CUDA_SUCCESS;
}
CUresult memsetAsync(CUdeviceptr d, unsigned char v, size_t n, CUstream) {
  auto [a, off] = find(d, n);
  if (!a) return CUDA_ERROR_INVALID_VALUE;
  std::memset(a->bytes.data() + off, v, n);
  return CUDA_SUCCESS;
}
CUresult moduleLoad(CUmodule* m, const char* path) {
  auto it = st().registered.find(path);
  if (it == st().registered.end()) return CUDA_ERROR_FILE_NOT_FOUND;
  auto lm = std::make_unique<LoadedModule>();
  lm->m = it->second;
  for (const auto& [name, init] : lm->m.globals) {  // each load gets fresh variables
    CUdeviceptr p;
    memAlloc(&p, init.size());
    htod(p, init.data(), init.size());
    lm->globals[name] = p;
  }
  *m = reinterpret_cast<CUmodule>(lm.get());
  st().modules.push_back(std::move(lm));
  return CUDA_SUCCESS;
}
// The runner's device comparison (runner/device_diff.cu) on the host, with its rule: count the
// words whose bits differ, or (float rule) that hold a NaN other than the all-0xFF poison.
template <typename W>
CUresult diffKernel(const Launch& l, W exp_mask, W man_mask) {
  const W* a = l.ptr<W>(0);
  const W* b = l.ptr<W>(1);
  const auto n = l.arg<unsigned long long>(2);
  const int float_rule = l.arg<int>(3);
  auto* count = l.ptr<unsigned long long>(4);
  if (!a || !b || !count) return CUDA_ERROR_ILLEGAL_ADDRESS;
  for (unsigned long long i = 0; i < n; ++i) {
    const W x = a[i], y = b[i];
    const bool nan = (x & exp_mask) == exp_mask && (x & man_mask) != 0 && x != static_cast<W>(~W(0));
    if (x != y || (float_rule && nan)) ++*count;
  }
  return CUDA_SUCCESS;
}
unsigned fills = 0;  // GPU fill launches since reset()

// The runner's GPU fill (runner/device_fill.cu) on the host, from the same launch arguments.
template <typename T>
void storeLow(unsigned char* out, unsigned long long i, unsigned long long v) {
  const T t = static_cast<T>(v);
  std::memcpy(out + i * sizeof(T), &t, sizeof(T));
}
void storeSized(unsigned char* out, unsigned long long i, int size, unsigned long long v) {
  if (size == 1) storeLow<uint8_t>(out, i, v);
  else if (size == 2) storeLow<uint16_t>(out, i, v);
  else if (size == 4) storeLow<uint32_t>(out, i, v);
  else storeLow<uint64_t>(out, i, v);
}
template <typename F>
CUresult fillFloatKernel(const Launch& l) {
  namespace fe = klineage::fill_element;
  F* out = l.ptr<F>(0);
  const auto n = l.arg<unsigned long long>(1);
  const int mode = l.arg<int>(2);
  const auto key = l.arg<unsigned long long>(3);
  const double lo = l.arg<double>(4), hi = l.arg<double>(5);
  if (!out) return CUDA_ERROR_ILLEGAL_ADDRESS;
  for (unsigned long long i = 0; i < n; ++i) out[i] = mode == 0 ? fe::uniformAs<F>(fe::bitsAt(key, i), lo, hi) : static_cast<F>(i);
  ++fills;
  return CUDA_SUCCESS;
}
CUresult fillIntKernel(const Launch& l) {
  namespace fe = klineage::fill_element;
  auto* out = l.ptr<unsigned char>(0);
  const auto n = l.arg<unsigned long long>(1);
  const int size = l.arg<int>(2), mode = l.arg<int>(3);
  const auto key = l.arg<unsigned long long>(4), lo = l.arg<unsigned long long>(5), span = l.arg<unsigned long long>(6);
  if (!out) return CUDA_ERROR_ILLEGAL_ADDRESS;
  for (unsigned long long i = 0; i < n; ++i) storeSized(out, i, size, mode == 0 ? fe::uniformInt(fe::bitsAt(key, i), lo, span) : i);
  ++fills;
  return CUDA_SUCCESS;
}
CUresult fillPatternKernel(const Launch& l) {
  auto* out = l.ptr<unsigned char>(0);
  const auto n = l.arg<unsigned long long>(1);
  const int size = l.arg<int>(2);
  const auto pattern = l.arg<unsigned long long>(3);
  if (!out) return CUDA_ERROR_ILLEGAL_ADDRESS;
  for (unsigned long long i = 0; i < n; ++i) storeSized(out, i, size, pattern);
  ++fills;
  return CUDA_SUCCESS;
}
bool jit_available = true;
CUresult moduleLoadData(CUmodule* m, const void*) {
  if (!jit_available) return CUDA_ERROR_INVALID_PTX;
  auto lm = std::make_unique<LoadedModule>();
  lm->m.kernels["kl_diff32"] = [](const Launch& l, float*) { return diffKernel<uint32_t>(l, 0x7f800000u, 0x007fffffu); };
  lm->m.kernels["kl_diff64"] = [](const Launch& l, float*) {
    return diffKernel<uint64_t>(l, 0x7ff0000000000000ull, 0x000fffffffffffffull);
  };
  lm->m.kernels["kl_fill_f32"] = [](const Launch& l, float*) { return fillFloatKernel<float>(l); };
  lm->m.kernels["kl_fill_f64"] = [](const Launch& l, float*) { return fillFloatKernel<double>(l); };
  lm->m.kernels["kl_fill_int"] = [](const Launch& l, float*) { return fillIntKernel(l); };
  lm->m.kernels["kl_fill_pattern"] = [](const Launch& l, float*) { return fillPatternKernel(l); };
  *m = reinterpret_cast<CUmodule>(lm.get());
  st().modules.push_back(std::move(lm));
  ++st().diff_modules;
  return CUDA_SUCCESS;
}
CUresult moduleGetFunction(CUfunction* f, CUmodule m, const char* name) {
  auto* lm = reinterpret_cast<LoadedModule*>(m);
  auto it = lm->m.kernels.find(name);
  if (it == lm->m.kernels.end()) return CUDA_ERROR_NOT_FOUND;
  st().functions.push_back(std::make_unique<Function>(Function{it->second, lm}));
  *f = reinterpret_cast<CUfunction>(st().functions.back().get());
  return CUDA_SUCCESS;
}
CUresult moduleGetGlobal(CUdeviceptr* p, size_t* bytes, CUmodule m, const char* name) {
  auto* lm = reinterpret_cast<LoadedModule*>(m);
  auto it = lm->globals.find(name);
  if (it == lm->globals.end()) return CUDA_ERROR_NOT_FOUND;
  *p = it->second;
  *bytes = lm->m.globals.at(name).size();
  return CUDA_SUCCESS;
}
CUresult funcSetAttribute(CUfunction, CUfunction_attribute, int) { return CUDA_SUCCESS; }
CUresult launchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                      unsigned shmem, CUstream, void** params, void**) {
  if (st().sticky != CUDA_SUCCESS) return st().sticky;
  if (static_cast<unsigned long long>(bx) * by * bz > 1024) return CUDA_ERROR_INVALID_VALUE;
  auto* fn = reinterpret_cast<Function*>(f);
  Launch l{{gx, gy, gz}, {bx, by, bz}, shmem, params, {}};
  for (const auto& [name, p] : fn->module->globals) l.globals[name] = hostPointer(p);
  float ms = 1;
  CUresult r = fn->k(l, &ms);
  st().last_ms = ms;
  if (r != CUDA_SUCCESS) st().sticky = r;  // like a device fault: the context is dead
  return CUDA_SUCCESS;
}
CUresult ctxSynchronize() { return st().sticky; }
CUresult eventCreate(CUevent* e, unsigned) {
  st().events.push_back(std::make_unique<float>(0));
  *e = reinterpret_cast<CUevent>(st().events.back().get());
  return CUDA_SUCCESS;
}
CUresult eventRecord(CUevent e, CUstream) {
  *reinterpret_cast<float*>(e) = st().last_ms;
  st().last_ms = 0;
  return CUDA_SUCCESS;
}
CUresult eventSynchronize(CUevent) { return st().sticky; }
CUresult eventElapsed(float* ms, CUevent, CUevent stop) {
  *ms = *reinterpret_cast<float*>(stop);
  return CUDA_SUCCESS;
}
CUresult errorName(CUresult r, const char** s) {
  *s = r == CUDA_ERROR_ILLEGAL_ADDRESS ? "CUDA_ERROR_ILLEGAL_ADDRESS"
       : r == CUDA_ERROR_INVALID_VALUE ? "CUDA_ERROR_INVALID_VALUE"
       : r == CUDA_ERROR_OUT_OF_MEMORY ? "CUDA_ERROR_OUT_OF_MEMORY"
                                        : "CUDA_ERROR_FAKE";
  return CUDA_SUCCESS;
}

}  // namespace

void reset() {
  st() = State{};
  jit_available = true;
  fills = 0;
}
void setJitAvailable(bool on) { jit_available = on; }
unsigned fillLaunches() { return fills; }
void addModule(const std::string& path, Module m) { st().registered[path] = std::move(m); }
void* hostPointer(CUdeviceptr p) {
  auto [a, off] = find(p, 0);
  return a ? a->bytes.data() + off : nullptr;
}
unsigned long long liveBytes() { return live(); }
unsigned downloads(size_t bytes) {
  auto it = st().dtoh_sizes.find(bytes);
  return it == st().dtoh_sizes.end() ? 0 : it->second;
}
void setMemoryLimit(unsigned long long bytes) { st().memory_limit = bytes; }

runner::CudaApi api() {
  runner::CudaApi a;
  a.cuGetErrorName = errorName;
  a.cuCtxSynchronize = ctxSynchronize;
  a.cuModuleLoad = moduleLoad;
  a.cuModuleLoadData = moduleLoadData;
  a.cuModuleUnload = [](CUmodule) { return CUDA_SUCCESS; };
  a.cuModuleGetFunction = moduleGetFunction;
  a.cuModuleGetGlobal = moduleGetGlobal;
  a.cuFuncSetAttribute = funcSetAttribute;
  a.cuMemAlloc = memAlloc;
  a.cuMemFree = memFree;
  a.cuMemcpyHtoD = htod;
  a.cuMemcpyDtoH = dtoh;
  a.cuMemcpyDtoD = dtod;
  a.cuMemsetD8Async = memsetAsync;
  a.cuLaunchKernel = launchKernel;
  a.cuEventCreate = eventCreate;
  a.cuEventRecord = eventRecord;
  a.cuEventSynchronize = eventSynchronize;
  a.cuEventElapsedTime = eventElapsed;
  a.cuEventDestroy = [](CUevent) { return CUDA_SUCCESS; };
  return a;
}

runner::Device device() {
  runner::Device d;
  d.ok = true;
  d.name = "Fake GPU";
  d.cc_major = 9;
  d.l2_bytes = 4096;
  return d;
}

}  // namespace klineage::fake
