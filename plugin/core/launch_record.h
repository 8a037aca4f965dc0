// Launch records: what `klineage capture` saw of one kernel launch in the user's own program, and
// what the gate replays. On disk (format documented in docs/capture.md):
//   <out_dir>/captures/<key>/capture.json            the capture: program, exit code, log, records
//   <out_dir>/captures/<key>/<kernel>.<n>/record.json one launch: geometry, parameters, allocations
//   <out_dir>/captures/<key>/<kernel>.<n>/a<id>.before.bin / a<id>.after.bin   raw device memory
// Every blob carries its size and CRC-32 in record.json; a record whose blobs do not match is
// corrupt and is never replayed.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/job.h"

namespace klineage {

struct RecordedPointer {
  unsigned allocation = 0;          // index into LaunchRecord::allocations
  unsigned long long offset = 0;    // bytes from the allocation's base
};

struct RecordedParam {
  unsigned index = 0;
  unsigned offset = 0;              // offset in the kernel's parameter buffer
  unsigned size = 0;
  std::string bytes_hex;            // the raw parameter bytes as passed
  std::optional<RecordedPointer> pointer;  // set when the value points into device memory
};

struct RecordedAllocation {
  unsigned id = 0;
  unsigned long long base = 0;      // device address in the captured program
  unsigned long long size = 0;
  std::string before, after;        // blob file names, relative to the record's directory
  uint32_t before_crc32 = 0, after_crc32 = 0;
};

struct LaunchRecord {
  std::string kernel;               // name as in the manifest
  std::string mangled;              // mangled name as the program launched it
  Dim3 grid, block;
  unsigned shmem = 0;
  unsigned long long stream = 0;    // CUstream handle value (0 = default stream)
  std::vector<RecordedParam> params;
  std::vector<RecordedAllocation> allocations;
  std::string dir;                  // absolute directory of record.json (set when loading)
};

struct CaptureSummary {
  std::vector<std::string> command;
  int exit_code = 0;
  std::string log;                        // file name of the program's output, relative
  std::vector<std::string> kernels_expected;  // mangled names the manifest lists
  std::vector<std::string> kernels_seen;      // mangled names launched (all kernels)
  std::vector<std::string> records;           // record directories, relative
  std::vector<std::string> skipped;           // "kernel: why" (over the byte cap, ...)
  unsigned long long bytes = 0;               // blob bytes written
};

void to_json(nlohmann::json& j, const LaunchRecord& r);
void from_json(const nlohmann::json& j, LaunchRecord& r);
void to_json(nlohmann::json& j, const CaptureSummary& s);
void from_json(const nlohmann::json& j, CaptureSummary& s);

uint32_t crc32Of(const void* data, size_t n);

// Reads <dir>/record.json and checks every blob's size and CRC-32. Throws CorruptRecord naming
// the file and what does not match.
struct CorruptRecord : std::runtime_error {
  using std::runtime_error::runtime_error;
};
LaunchRecord loadRecord(const std::string& dir, bool verify_blobs = true);

// Checks that each blob of a loaded record is there with the size the record says (the `after`
// blobs too when with_after), without reading them. Throws CorruptRecord naming the file.
void checkBlobSizes(const LaunchRecord& r, bool with_after = true);

// What a replay of the record depends on, as one hash: the kernel, geometry, each parameter's
// bytes (a pointer as its allocation and offset, not its address), each allocation's size and its
// blobs' sizes and CRC-32s. Two captures of the same launch (another run of the same program, in
// another directory, at other addresses) have the same key; the result cache keys replayed jobs
// on it instead of the record's directory. Without `with_after` the `after` blobs' CRC-32s are left
// out: a replay that does not check fidelity never compares with them (the gate's variant jobs),
// so a launch whose result differs from run to run (float atomics) keeps its key.
std::string recordContentKey(const LaunchRecord& r, bool with_after = true);

// Writes record.json atomically (the blobs must already be written).
void saveRecord(const std::string& dir, const LaunchRecord& r);

}  // namespace klineage
