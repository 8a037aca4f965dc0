// Launch records for replay_gpu.sh, made the honest way: real device buffers, filled, snapshotted
// before a real launch and after it, written in the klineage-launch-record-1 format
// (plugin/core/launch_record.h) with each blob's size and CRC-32. The same file, compiled with
// nvcc -cubin, is the module the runner replays (host code is not part of a cubin).
//
//   usage: make_record <out dir>     writes <out dir>/{saxpy,shared,const_table,atomic_sum}/
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

__constant__ float table[16];  // set by the program; a module loaded by the runner has zeros

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
__global__ void saxpy_grid_stride(int n, float a, const float* x, float* y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = a * x[i] + y[i];
}
__global__ void saxpy_skip_last(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n - 1) y[i] = a * x[i] + y[i];
}
// What vectorize-access makes of saxpy, with a planted error in the path for unaligned pointers
// (which a replay of a captured launch, 256-byte aligned, never takes): a * x - y there.
__global__ void saxpy_vec4_wrong_unaligned(int n, float a, const float* x, float* y) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if ((((unsigned long long)x | (unsigned long long)y) & 15) == 0) {
    if (4 * i + 3 < n) {
      const float4 xv = reinterpret_cast<const float4*>(x)[i];
      float4 yv = reinterpret_cast<float4*>(y)[i];
      yv.x = a * xv.x + yv.x; yv.y = a * xv.y + yv.y; yv.z = a * xv.z + yv.z; yv.w = a * xv.w + yv.w;
      reinterpret_cast<float4*>(y)[i] = yv;
    } else {
      for (int j = 4 * i; j < n; ++j) y[j] = a * x[j] + y[j];
    }
  } else {
    for (int j = 4 * i; j < 4 * i + 4 && j < n; ++j) y[j] = a * x[j] - y[j];
  }
}
__global__ void scale_by_table(int n, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * table[i % 16];
}
// Float atomics in whatever order the blocks run: the sum's low bits vary from run to run.
__global__ void atomic_sum(int n, const float* x, float* sum) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(sum, x[i]);
}

namespace {

namespace fs = std::filesystem;

void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "make_record: %s: %s\n", what, cudaGetErrorString(e));
  std::exit(1);
}

uint32_t crc32(const unsigned char* p, size_t n) {  // zlib's CRC-32
  static uint32_t table_[256];
  static bool ready = false;
  if (!ready) {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      table_[i] = c;
    }
    ready = true;
  }
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; ++i) c = table_[(c ^ p[i]) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

std::string hex(const unsigned char* p, size_t n) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    s += d[p[i] >> 4];
    s += d[p[i] & 15];
  }
  return s;
}

std::vector<float> uniform(size_t n, float lo, float hi, uint64_t seed) {
  std::vector<float> v(n);
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  for (auto& x : v) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    x = lo + (hi - lo) * static_cast<float>((s >> 40) & 0xFFFFFF) / 16777216.0f;
  }
  return v;
}

struct Alloc {
  void* ptr = nullptr;
  size_t size = 0;
  std::vector<unsigned char> before, after;
};

struct Param {
  size_t offset = 0, size = 0;
  std::vector<unsigned char> bytes;
  int alloc = -1;
  size_t alloc_offset = 0;
};

// One launch: allocations, parameters laid out as the kernel's parameter buffer, snapshots.
struct Record {
  std::string kernel, mangled;
  unsigned grid = 1, block = 1;
  std::vector<Alloc> allocs;
  std::vector<Param> params;
  size_t next = 0;

  int alloc(const std::vector<float>& init) {
    Alloc a;
    a.size = init.size() * sizeof(float);
    check(cudaMalloc(&a.ptr, a.size), "cudaMalloc");
    check(cudaMemcpy(a.ptr, init.data(), a.size, cudaMemcpyHostToDevice), "upload");
    allocs.push_back(std::move(a));
    return static_cast<int>(allocs.size() - 1);
  }
  void add(const void* v, size_t size, int alloc_id = -1, size_t alloc_offset = 0) {
    Param p;
    p.offset = (next + size - 1) / size * size;  // natural alignment, as the parameter buffer has
    p.size = size;
    p.bytes.assign(static_cast<const unsigned char*>(v), static_cast<const unsigned char*>(v) + size);
    p.alloc = alloc_id;
    p.alloc_offset = alloc_offset;
    params.push_back(p);
    next = p.offset + size;
  }
  template <typename T>
  T scalar(T v) {
    add(&v, sizeof v);
    return v;
  }
  float* pointer(int alloc_id, size_t byte_offset) {
    auto* p = reinterpret_cast<float*>(static_cast<char*>(allocs[alloc_id].ptr) + byte_offset);
    add(&p, sizeof p, alloc_id, byte_offset);
    return p;
  }
  void snapshot(bool before) {
    check(cudaDeviceSynchronize(), "synchronize");
    for (Alloc& a : allocs) {
      auto& v = before ? a.before : a.after;
      v.resize(a.size);
      check(cudaMemcpy(v.data(), a.ptr, a.size, cudaMemcpyDeviceToHost), "snapshot");
    }
  }
  void write(const fs::path& dir) const {
    fs::create_directories(dir);
    std::string j = "{\"format\": \"klineage-launch-record-1\", \"kernel\": \"" + kernel + "\", \"mangled\": \"" +
                    mangled + "\", \"grid\": [" + std::to_string(grid) + ", 1, 1], \"block\": [" +
                    std::to_string(block) + ", 1, 1], \"shmem\": 0, \"stream\": \"0x0\",\n \"params\": [";
    for (size_t i = 0; i < params.size(); ++i) {
      const Param& p = params[i];
      j += std::string(i ? ",\n  " : "\n  ") + "{\"index\": " + std::to_string(i) + ", \"offset\": " +
           std::to_string(p.offset) + ", \"size\": " + std::to_string(p.size) + ", \"bytes\": \"" +
           hex(p.bytes.data(), p.size) + "\", \"pointer\": " +
           (p.alloc < 0 ? std::string("null")
                        : "{\"allocation\": " + std::to_string(p.alloc) + ", \"offset\": " +
                              std::to_string(p.alloc_offset) + "}") +
           "}";
    }
    j += "],\n \"allocations\": [";
    for (size_t i = 0; i < allocs.size(); ++i) {
      const Alloc& a = allocs[i];
      const std::string id = std::to_string(i);
      for (auto [name, data] : {std::pair{"a" + id + ".before.bin", &a.before}, std::pair{"a" + id + ".after.bin", &a.after}})
        std::ofstream(dir / name, std::ios::binary).write(reinterpret_cast<const char*>(data->data()), data->size());
      char base[32];
      std::snprintf(base, sizeof base, "0x%llx", static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(a.ptr)));
      j += std::string(i ? ",\n  " : "\n  ") + "{\"id\": " + id + ", \"base\": \"" + base + "\", \"size\": " +
           std::to_string(a.size) + ", \"before\": \"a" + id + ".before.bin\", \"before_crc32\": " +
           std::to_string(crc32(a.before.data(), a.size)) + ", \"after\": \"a" + id + ".after.bin\", \"after_crc32\": " +
           std::to_string(crc32(a.after.data(), a.size)) + "}";
    }
    j += "]}\n";
    std::ofstream(dir / "record.json") << j;
    std::printf("make_record: %s: %s, %zu allocation(s)\n", dir.c_str(), mangled.c_str(), allocs.size());
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_record <out dir>\n");
    return 2;
  }
  const fs::path out = argv[1];
  const int n = 1 << 20;
  const unsigned block = 256, grid = (n + block - 1) / block;

  {  // saxpy, x and y in their own allocations
    Record r{"saxpy", "_Z5saxpyifPKfPf", grid, block};
    int x = r.alloc(uniform(n, -1, 1, 1)), y = r.alloc(uniform(n, -1, 1, 2));
    int nn = r.scalar(n);
    float a = r.scalar(2.0f);
    float* xp = r.pointer(x, 0);
    float* yp = r.pointer(y, 0);
    r.snapshot(true);
    saxpy<<<grid, block>>>(nn, a, xp, yp);
    check(cudaGetLastError(), "launch saxpy");
    r.snapshot(false);
    r.write(out / "saxpy");
  }
  {  // saxpy with y = buf and x = buf + n + 1: one allocation, x only 4-byte aligned
    Record r{"saxpy", "_Z5saxpyifPKfPf", grid, block};
    int buf = r.alloc(uniform(2 * n + 1, -1, 1, 3));
    int nn = r.scalar(n);
    float a = r.scalar(0.5f);
    float* xp = r.pointer(buf, (n + 1) * sizeof(float));
    float* yp = r.pointer(buf, 0);
    r.snapshot(true);
    saxpy<<<grid, block>>>(nn, a, xp, yp);
    check(cudaGetLastError(), "launch saxpy (shared)");
    r.snapshot(false);
    r.write(out / "shared");
  }
  {  // reads a __constant__ table the program set: the cubin's replay sees zeros
    float t[16];
    for (int i = 0; i < 16; ++i) t[i] = 1.0f + static_cast<float>(i);
    check(cudaMemcpyToSymbol(table, t, sizeof t), "set the constant table");
    Record r{"scale_by_table", "_Z14scale_by_tableiPKfPf", grid, block};
    int x = r.alloc(uniform(n, 0.5f, 1, 4)), y = r.alloc(std::vector<float>(n, -7.0f));
    int nn = r.scalar(n);
    float* xp = r.pointer(x, 0);
    float* yp = r.pointer(y, 0);
    r.snapshot(true);
    scale_by_table<<<grid, block>>>(nn, xp, yp);
    check(cudaGetLastError(), "launch scale_by_table");
    r.snapshot(false);
    r.write(out / "const_table");
  }
  {  // float atomics into one sum
    Record r{"atomic_sum", "_Z10atomic_sumiPKfPf", grid, block};
    int x = r.alloc(uniform(n, 0, 1, 5)), sum = r.alloc(std::vector<float>(1, 0.0f));
    int nn = r.scalar(n);
    float* xp = r.pointer(x, 0);
    float* sp = r.pointer(sum, 0);
    r.snapshot(true);
    atomic_sum<<<grid, block>>>(nn, xp, sp);
    check(cudaGetLastError(), "launch atomic_sum");
    r.snapshot(false);
    r.write(out / "atomic_sum");
  }
  return 0;
}
