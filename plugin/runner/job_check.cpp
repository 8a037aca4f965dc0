#include "runner/job_check.h"

#include <climits>
#include <cmath>
#include <filesystem>

#include "core/fill.h"
#include "core/fs.h"
#include "core/launch_record.h"

namespace klineage::runner {

namespace {

using nlohmann::json;

// What from_json would silently default: kinds and init names it does not know.
std::string checkNames(const json& j) {
  if (!j.is_object()) return "the job is not a JSON object";
  if (j.contains("format") && j["format"] != "klineage-runner-job-1")
    return "format is " + j["format"].dump() + ", expected \"klineage-runner-job-1\"";
  for (const char* k : {"original", "variant"})
    if (!j.contains(k)) return std::string("missing \"") + k + "\"";
  const bool replay = j.contains("replay") && !j["replay"].is_null();
  if (replay) {
    const json& r = j["replay"];
    if (!r.is_object()) return "\"replay\" is not an object";
    if (!r.contains("record_dir") || !r["record_dir"].is_string() || r["record_dir"].get<std::string>().empty())
      return "replay.record_dir must be a non-empty string";
    for (const char* k : {"param_elem_types", "param_names"})
      if (r.contains(k) && !r[k].is_array()) return std::string("replay.") + k + " is not an array";
    if (!j.contains("params")) return "";  // a replay job needs no params
  }
  if (!j.contains("params")) return "missing \"params\"";
  if (!j["params"].is_array()) return "\"params\" is not an array";
  for (size_t i = 0; i < j["params"].size(); ++i) {
    const json& p = j["params"][i];
    const std::string where = "params[" + std::to_string(i) + "]";
    if (!p.is_object()) return where + " is not an object";
    const std::string kind = p.value("kind", "scalar");
    if (kind != "buffer" && kind != "scalar") return where + ": kind \"" + kind + "\" is not buffer or scalar";
    if (p.contains("type") && (!p["type"].is_string() || !elemTypeFromName(p["type"].get<std::string>())))
      return where + ": type " + p["type"].dump() + " is not one of f32, f64, i8, u8, i16, u16, i32, u32, i64, u64";
    if (p.contains("init")) {
      const std::string init = p["init"].value("kind", "zeros");
      if (init != "uniform" && init != "constant" && init != "iota" && init != "zeros" && init != "poison")
        return where + ": init kind \"" + init + "\" is not one of uniform, constant, iota, zeros, poison";
    }
  }
  return "";
}

// The variant's launch may be invalid (a grid of 0 blocks, say): that is its own failure, found
// by launching it, so only the original's must be a valid launch here.
std::string checkGeometry(const Dim3& grid, const Dim3& block, const std::string& w) {
  const long long lowest = w == "variant" ? 0 : 1;
  for (const Dim3* d : {&grid, &block})
    for (long long v : {d->x, d->y, d->z})
      if (v < lowest || v > UINT_MAX)
        return w + (d == &grid ? ".grid" : ".block") + " has " + std::to_string(v) + ", each dimension must be in [" +
               std::to_string(lowest) + ", " + std::to_string(UINT_MAX) + "]";
  return "";
}

std::string checkLaunch(const LaunchSpec& l, const char* which) {
  const std::string w = which;
  if (l.cubin.empty()) return w + ".cubin is empty";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(l.cubin, ec)) return w + ".cubin '" + l.cubin + "' is not a file";
  if (l.function.empty()) return w + ".function is empty";
  return checkGeometry(l.grid, l.block, w);
}

bool fitsBytes(long long v, unsigned bytes) {
  if (bytes >= 8) return true;
  const long long lim = 1ll << (bytes * 8);
  return v >= -(lim / 2) && v < lim;  // as signed or as unsigned
}

std::string checkParams(const std::vector<ParamSpec>& params) {
  bool any_output = false;
  for (size_t i = 0; i < params.size(); ++i) {
    const ParamSpec& p = params[i];
    const std::string where = "params[" + std::to_string(i) + "] (" + p.name + ")";
    if (p.is_buffer) {
      if (p.elements < 1) return where + ": elements must be at least 1";
      // 2^46 bytes (64 TiB) is beyond any GPU; the limit also keeps the byte count from overflowing
      if (p.elements > (1ull << 46) || p.offset_elements > (1ull << 46) ||
          (p.elements + p.offset_elements) * elemSize(p.type) > (1ull << 46))
        return where + ": " + std::to_string(p.elements) + " + " + std::to_string(p.offset_elements) +
               " elements is larger than any GPU memory";
      const std::string init = checkInit(p.init, p.type);
      if (!init.empty()) return where + ": " + init;
      any_output = any_output || p.output;
      if (!p.alias_of.empty()) {
        const ParamSpec* t = nullptr;
        for (const ParamSpec& q : params)
          if (q.is_buffer && q.name == p.alias_of && &q != &p) t = &q;
        if (!t) return where + ": alias_of \"" + p.alias_of + "\" names no other buffer parameter";
        if (!t->alias_of.empty()) return where + ": alias_of \"" + p.alias_of + "\" is itself an alias";
        if (t->type != p.type)
          return where + ": alias_of \"" + p.alias_of + "\" is " + elemTypeName(t->type) + ", this buffer " +
                 elemTypeName(p.type) + " (aliases must have the same element type)";
        if (p.offset_elements + p.elements > t->offset_elements + t->elements)
          return where + ": " + std::to_string(p.offset_elements) + " + " + std::to_string(p.elements) +
                 " elements reach past the end of " + p.alias_of + "'s allocation (" +
                 std::to_string(t->offset_elements + t->elements) + " elements)";
      }
    } else {
      if (p.size_bytes != 1 && p.size_bytes != 2 && p.size_bytes != 4 && p.size_bytes != 8)
        return where + ": scalar size_bytes " + std::to_string(p.size_bytes) + " is not 1, 2, 4 or 8";
      if (isFloat(p.type) && p.size_bytes != elemSize(p.type))
        return where + ": a " + elemTypeName(p.type) + " scalar has size_bytes " + std::to_string(elemSize(p.type)) +
               ", not " + std::to_string(p.size_bytes);
      if (!isFloat(p.type) && !fitsBytes(p.ivalue, p.size_bytes))
        return where + ": value " + std::to_string(p.ivalue) + " does not fit " + std::to_string(p.size_bytes) + " bytes";
    }
  }
  if (!any_output) return "no buffer has \"output\": true, so there is nothing to compare";
  return "";
}

std::string checkJob(const RunnerJob& job) {
  for (auto [l, which] : {std::pair{&job.original, "original"}, std::pair{&job.variant, "variant"}}) {
    std::string e = checkLaunch(*l, which);
    if (!e.empty()) return e;
  }
  if (job.oracle) {  // launched with the original's geometry, checked above
    std::error_code ec;
    if (job.oracle->cubin.empty() || !std::filesystem::is_regular_file(job.oracle->cubin, ec))
      return "oracle.cubin '" + job.oracle->cubin + "' is not a file";
    if (job.oracle->function.empty()) return "oracle.function is empty";
  }
  if (!job.replay) {  // a replay job's parameters and inputs come from its record
    std::string e = checkParams(job.params);
    if (!e.empty()) return e;
    if (job.seeds.empty() && job.random_seeds == 0) return "\"seeds\" is empty and random_seeds 0: at least one input set is needed";
  }
  for (size_t i = 0; i < job.probes.size(); ++i) {
    const ProbeSpec& p = job.probes[i];
    const std::string where = "probes[" + std::to_string(i) + "] (" + p.name + ")";
    std::string e = checkParams(p.params);
    if (e.empty()) e = checkGeometry(p.original.grid, p.original.block, "original");
    if (e.empty()) e = checkGeometry(p.variant.grid, p.variant.block, "variant");
    if (!e.empty()) return where + ": " + e;
  }
  if (!(job.launch_timeout_s >= 0) || !std::isfinite(job.launch_timeout_s))
    return "launch_timeout_s must be a finite number of seconds >= 0";
  if (job.guard_bytes % 256 != 0 || job.guard_bytes > (1ull << 30))
    return "guard_bytes must be a multiple of 256 and at most 1 GiB (buffers stay 256-byte aligned)";
  const Tolerance& t = job.tolerance;
  if (!(t.rtol >= 0) || !(t.atol >= 0) || !std::isfinite(t.rtol) || !std::isfinite(t.atol))
    return "tolerance rtol and atol must be finite and >= 0";
  if (job.profile.enabled && job.profile.max_runs < 1) return "profile.max_runs must be at least 1";
  if (!(job.profile.min_ms >= 0)) return "profile.min_ms must be >= 0";
  return "";
}

}  // namespace

std::string loadReplayRecord(const RunnerJob& job, LaunchRecord* record) {
  const ReplaySpec& spec = *job.replay;
  try {
    // The blobs' contents are checked against their CRC-32 as the job reads them (run_job.cpp:
    // only those it uses, once); here their presence and sizes, before the GPU is touched.
    *record = loadRecord(spec.record_dir, /*verify_blobs=*/false);
    checkBlobSizes(*record, /*with_after=*/spec.check_fidelity);
  } catch (const CorruptRecord& e) {
    return std::string("corrupt launch record: ") + e.what();
  } catch (const std::exception& e) {
    return std::string("unreadable launch record in ") + spec.record_dir + ": " + e.what();
  }
  const std::string file = (std::filesystem::path(spec.record_dir) / "record.json").string();
  const LaunchRecord& r = *record;
  // Parameters 0..n-1, each once, so that kernelParams can be built in order.
  std::vector<bool> seen(r.params.size(), false);
  for (const RecordedParam& p : r.params) {
    const std::string where = file + ": param " + std::to_string(p.index);
    if (p.index >= r.params.size() || seen[p.index])
      return where + ": indices must be 0.." + std::to_string(r.params.size() - 1) + ", each once";
    seen[p.index] = true;
    if (p.size == 0) return where + ": size 0";
    if (p.pointer && p.size != 8u)
      return where + ": a pointer of " + std::to_string(p.size) + " bytes, expected 8";
    if (p.pointer && p.pointer->offset > r.allocations[p.pointer->allocation].size)
      return where + ": points " + std::to_string(p.pointer->offset) + " bytes into allocation " +
             std::to_string(p.pointer->allocation) + " of " + std::to_string(r.allocations[p.pointer->allocation].size) +
             " bytes";
  }
  for (size_t i = 0; i < r.allocations.size(); ++i) {
    const RecordedAllocation& a = r.allocations[i];
    if (a.before.empty()) return file + ": allocation " + std::to_string(i) + " has no before snapshot to restore";
    if (a.size > (1ull << 46)) return file + ": allocation " + std::to_string(i) + " is larger than any GPU memory";
  }
  if (!spec.param_elem_types.empty() && spec.param_elem_types.size() != r.params.size())
    return file + ": the record has " + std::to_string(r.params.size()) + " parameters, replay.param_elem_types " +
           std::to_string(spec.param_elem_types.size()) + " (another kernel's record?)";
  return "";
}

std::string readJob(const std::string& path, RunnerJob* job) {
  std::string text;
  try {
    text = readFile(path);
  } catch (const std::exception& e) {
    return e.what();
  }
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& ex) {
    return path + ": not valid JSON: " + ex.what();
  }
  std::string e = checkNames(j);
  if (!e.empty()) return path + ": " + e;
  try {
    *job = j.get<RunnerJob>();
  } catch (const std::exception& ex) {  // a field of the wrong type, a missing required member
    return path + ": " + ex.what();
  }
  e = checkJob(*job);
  return e.empty() ? "" : path + ": " + e;
}

}  // namespace klineage::runner
