#include "captures.h"
#include "capture.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "core/fs.h"
#include "run_key.h"

namespace klineage {
namespace fs = std::filesystem;

namespace {

// verify_blobs: read every blob and check its CRC-32 (a capture kept from an earlier run); one
// this run just wrote computed those CRCs from the bytes it wrote, so only the files' sizes are
// checked, and each runner checks the CRC-32 of what it reads.
std::map<std::string, std::vector<LaunchRecord>> loadCapture(const fs::path& dir, const Manifest& manifest,
                                                             bool verify_blobs) {
  CaptureSummary sum = nlohmann::json::parse(readFile(dir / "capture.json")).get<CaptureSummary>();
  // A capture of a failed run (kept for its log) is never reused.
  if (sum.exit_code != 0 || sum.records.empty())
    throw std::runtime_error("it is the capture of a failed run (exit " + std::to_string(sum.exit_code) + ", " +
                             std::to_string(sum.records.size()) + " launches)");
  std::map<std::string, std::vector<LaunchRecord>> by_kernel;
  for (const auto& rel : sum.records) {
    LaunchRecord r = loadRecord((dir / rel).string(), verify_blobs);
    if (!verify_blobs) checkBlobSizes(r);
    if (const KernelInfo* k = manifest.find(r.mangled)) by_kernel[k->name].push_back(std::move(r));
  }
  return by_kernel;
}

// What a capture was taken of (basis.json beside its capture.json): enough to tell, at the next
// capture key, whether only kernel definitions changed. Then only the changed kernels' launches
// need recording again; every other kernel's records are linked over from this capture.
constexpr const char* kBasisFile = "basis.json";
constexpr int kBasisFormat = 1;

bool sourceLike(const fs::path& f) {
  static const std::set<std::string> exts{".cu", ".cuh", ".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx",
                                          ".inl", ".inc", ".cmake", ".txt"};
  const std::string name = f.filename().string();
  if (f.extension() == ".txt") return name == "CMakeLists.txt";
  return exts.count(f.extension().string()) > 0;
}

// The project's source files (every CUDA, C/C++, header and CMake file under source_dir, build
// trees and hidden directories aside, and the manifest's files elsewhere) with every kernel's
// definition cut out: equal for two runs when nothing but kernel definitions changed, so the host
// code that decides every launch (sizes, data, which kernels run) is the same. "" when the source
// directory is unknown (then nothing is kept: the whole program is captured again).
std::string hostHash(const Config& cfg, const Manifest& manifest) {
  if (cfg.source_dir.empty()) return "";
  // Every path as the file system resolves it: clang names files by their real paths, the walk
  // below by the source directory's spelling (which may go through a symlink).
  std::error_code ec;
  auto real = [&ec](const fs::path& f) { return fs::weakly_canonical(f, ec).string(); };
  std::map<std::string, std::vector<std::pair<unsigned, unsigned>>> cuts;  // file -> kernel byte ranges
  for (const auto& k : manifest.kernels)
    if (k.range.end_offset > k.range.begin_offset) cuts[real(k.range.file)].push_back({k.range.begin_offset, k.range.end_offset});
  std::set<std::string> files;
  for (const auto& f : manifest.files) files.insert(real(f));
  const fs::path build = cfg.build_dir.empty() ? fs::path() : fs::weakly_canonical(cfg.build_dir, ec);
  fs::recursive_directory_iterator it(cfg.source_dir, fs::directory_options::skip_permission_denied, ec), end;
  if (ec) return "";
  for (; it != end; it.increment(ec)) {
    if (ec) return "";
    const fs::path& f = it->path();
    if (it->is_directory(ec)) {
      const std::string name = f.filename().string();
      // another build tree (its generated files change with every build), or .git and the like
      if ((!name.empty() && name[0] == '.') || fs::exists(f / "CMakeCache.txt", ec) ||
          (!build.empty() && fs::weakly_canonical(f, ec) == build))
        it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file(ec) && sourceLike(f)) files.insert(real(f));
  }
  std::string text;
  for (const auto& f : files) {
    std::string content;
    try {
      content = readFile(f);
    } catch (const std::exception&) {
      content = "(unreadable)";
    }
    if (auto c = cuts.find(f); c != cuts.end()) {
      auto ranges = c->second;
      std::sort(ranges.rbegin(), ranges.rend());  // from the end, so earlier offsets stay valid
      for (const auto& [b, e] : ranges)
        if (e <= content.size()) content.replace(b, e - b, "(kernel)");
    }
    text += f + "\n" + fnv1a64Hex(content) + "\n";
  }
  return fnv1a64Hex(text);
}

nlohmann::json basisOf(const Config& cfg, const Manifest& manifest, const std::string& host) {
  nlohmann::json kernels = nlohmann::json::object();
  for (const auto& k : manifest.kernels) {
    if (!k.is_template) kernels[k.mangled_name] = k.source_hash;
    for (const auto& m : k.instantiations) kernels[m] = k.source_hash;
  }
  return {{"format", kBasisFormat},
          {"host", host},
          {"command", cfg.run_command},
          {"max_shapes", cfg.capture_max_shapes},
          {"max_bytes", cfg.capture_max_bytes},
          {"kernels", kernels}};
}

// The launched kernels (mangled) whose definitions changed since the capture in `prev` was taken,
// when nothing else did; nullopt when something else did (or `prev` cannot tell).
std::optional<std::set<std::string>> changedKernels(const fs::path& prev, const nlohmann::json& now) {
  try {
    const nlohmann::json was = nlohmann::json::parse(readFile(prev / kBasisFile));
    if (was.value("format", 0) != kBasisFormat || now["host"].get<std::string>().empty()) return std::nullopt;
    for (const char* k : {"host", "command", "max_shapes", "max_bytes"})
      if (was.at(k) != now.at(k)) return std::nullopt;
    std::set<std::string> changed;
    for (const auto& [mangled, hash] : now["kernels"].items())
      if (!was["kernels"].contains(mangled) || was["kernels"][mangled] != hash) changed.insert(mangled);
    return changed;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// Hard-links a record directory's files (a copy where links are not possible).
void linkRecord(const fs::path& from, const fs::path& to) {
  fs::create_directories(to);
  for (const auto& e : fs::directory_iterator(from)) {
    std::error_code ec;
    fs::create_hard_link(e.path(), to / e.path().filename(), ec);
    if (ec) fs::copy_file(e.path(), to / e.path().filename(), fs::copy_options::overwrite_existing);
  }
}

CaptureOptions captureOptions(const Pipeline& p, const Manifest& manifest, const fs::path& dir) {
  CaptureOptions co;
  co.out_dir = dir.string();
  co.command = p.cfg.run_command;
  listKernels(manifest, co);
  co.max_shapes = p.cfg.capture_max_shapes;
  co.max_bytes = p.cfg.capture_max_bytes;
  co.timeout_s = p.cfg.capture_timeout_s;
  co.library = findCaptureLibrary();
  co.status = &p.status;
  return co;
}

}  // namespace

std::string captureKey(const Config& cfg, const Manifest& manifest) {
  std::string key_text;
  for (const auto& k : manifest.kernels) key_text += k.mangled_name + "=" + k.source_hash + ";";
  for (const auto& a : cfg.run_command) key_text += a + "\x1f";
  // The program by content, nvcc's temporary names aside (programHash): relinking it is no reason
  // to capture again.
  const std::string program_hash = cfg.run_command.empty() ? "(none)" : programHash(cfg.run_command[0]);
  return fnv1a64Hex(key_text + program_hash);
}

namespace {

// Captures only the kernels in `changed` into a staging directory, links every other kernel's
// records over from `prev`, and puts the whole in place at `dir`. False (nothing changed on disk)
// when the merge would hold no launch at all: the caller captures the whole program, which says why.
bool capturePart(Pipeline& p, const Manifest& manifest, const fs::path& prev, const fs::path& dir,
                 const std::set<std::string>& changed, const nlohmann::json& basis, const std::string& cmd) {
  const CaptureSummary old = nlohmann::json::parse(readFile(prev / "capture.json")).get<CaptureSummary>();
  if (old.exit_code != 0) return false;
  std::vector<std::pair<std::string, unsigned long long>> kept;  // record directory, its bytes
  unsigned long long kept_bytes = 0;
  std::set<std::string> kept_kernels;
  for (const auto& rel : old.records) {
    const LaunchRecord r = loadRecord((prev / rel).string(), /*verify_blobs=*/false);
    checkBlobSizes(r);  // a blob gone or cut short since: capture everything again
    if (changed.count(r.mangled) || !basis["kernels"].contains(r.mangled)) continue;
    const unsigned long long bytes = recordBytes(r);
    kept.push_back({rel, bytes});
    kept_bytes += bytes;
    kept_kernels.insert(r.kernel);
  }
  if (kept.empty() || kept_bytes >= p.cfg.capture_max_bytes) return false;
  const fs::path staging = dir.parent_path() / ("." + dir.filename().string() + ".part");
  fs::remove_all(staging);
  CaptureOptions co = captureOptions(p, manifest, staging);
  CaptureOptions part = co;
  part.kernels_mangled.clear();
  part.kernels_names.clear();
  for (size_t i = 0; i < co.kernels_mangled.size(); ++i)
    if (changed.count(co.kernels_mangled[i])) {
      part.kernels_mangled.push_back(co.kernels_mangled[i]);
      part.kernels_names.push_back(i < co.kernels_names.size() ? co.kernels_names[i] : "");
    }
  part.max_bytes = p.cfg.capture_max_bytes - kept_bytes;
  part.allow_none = true;  // an edited kernel the program does not launch records nothing
  std::set<std::string> names(part.kernels_names.begin(), part.kernels_names.end());
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  p.status.info("klineage: capturing the launches of: " + cmd + " (only " + list +
                ", changed since the last capture; the " + std::to_string(kept.size()) + " launches of " +
                std::to_string(kept_kernels.size()) + " other kernel(s) are kept: nothing else in the project changed)");
  CaptureSummary sum;
  if (p.capturer.capture(part, &sum) != 0) {
    std::error_code ec;
    fs::remove_all(staging, ec);
    throw CaptureFailed("capturing `" + cmd + "` failed (see above); nothing was selected");
  }
  for (const auto& [rel, bytes] : kept) {
    std::string name = rel;
    while (fs::exists(staging / name)) name += "-kept";  // never over a record just taken
    linkRecord(prev / rel, staging / name);
    sum.records.push_back(name);
    sum.bytes += bytes;
  }
  std::sort(sum.records.begin(), sum.records.end());
  sum.kernels_expected = co.kernels_mangled;
  std::set<std::string> seen(sum.kernels_seen.begin(), sum.kernels_seen.end());
  for (const auto& k : old.kernels_seen)
    if (seen.insert(k).second) sum.kernels_seen.push_back(k);
  atomicWrite(staging / "capture.json", nlohmann::json(sum).dump(2) + "\n");
  atomicWrite(staging / kBasisFile, basis.dump(2) + "\n");
  fs::remove_all(dir);
  fs::rename(staging, dir);
  return true;
}

}  // namespace

std::map<std::string, std::vector<LaunchRecord>> obtainCaptures(Pipeline& p, const Manifest& manifest) {
  const fs::path root = p.layout.captures();
  const fs::path dir = p.layout.capture(captureKey(p.cfg, manifest));
  if (fs::exists(dir / "capture.json")) {
    try {
      auto recs = loadCapture(dir, manifest, /*verify_blobs=*/true);
      p.status.info("klineage: reusing the capture in " + dir.string());
      return recs;
    } catch (const std::exception& e) {
      p.status.warning("the capture in " + dir.string() + " is corrupt (" + e.what() + "); capturing again");
      fs::remove_all(dir);
    }
  }
  // The last capture (there is at most one other): its records of kernels that did not change are
  // kept when nothing but kernel definitions changed since.
  std::error_code ec;
  fs::path prev;
  if (fs::exists(root))
    for (const auto& e : fs::directory_iterator(root, ec))
      if (e.path() != dir && e.is_directory() && fs::exists(e.path() / kBasisFile)) prev = e.path();
  const nlohmann::json basis = basisOf(p.cfg, manifest, hostHash(p.cfg, manifest));
  std::string cmd;
  for (const auto& a : p.cfg.run_command) cmd += (cmd.empty() ? "" : " ") + a;
  bool done = false;
  if (!prev.empty())
    if (auto changed = changedKernels(prev, basis); changed && !changed->empty()) {
      try {
        done = capturePart(p, manifest, prev, dir, *changed, basis, cmd);
      } catch (const CaptureFailed&) {
        throw;
      } catch (const std::exception& e) {  // the last capture unreadable: the whole program again
        p.status.warning("cannot keep launches of the last capture " + prev.string() + " (" + e.what() + ")");
        fs::remove_all(dir, ec);
      }
    }
  // Old captures (other programs, older kernels) are no longer useful.
  if (fs::exists(root))
    for (const auto& e : fs::directory_iterator(root, ec))
      if (e.path() != dir) fs::remove_all(e.path(), ec);
  if (!done) {
    p.status.info("klineage: capturing the launches of: " + cmd);
    CaptureSummary sum;
    if (p.capturer.capture(captureOptions(p, manifest, dir), &sum) != 0)
      throw CaptureFailed("capturing `" + cmd + "` failed (see above); nothing was selected");
    // What it was taken of, for the next edit; a capture without it is never partly reused.
    atomicWrite(dir / kBasisFile, basis.dump(2) + "\n");
  }
  try {
    return loadCapture(dir, manifest, /*verify_blobs=*/false);
  } catch (const std::exception& e) {
    throw CaptureFailed(std::string("the capture just written cannot be read back: ") + e.what());
  }
}

}  // namespace klineage
