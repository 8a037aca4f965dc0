#include "run_key.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <set>

#include <nlohmann/json.hpp>

#include "core/fs.h"
#include "gate/selection.h"
#include "status.h"

namespace klineage {
namespace fs = std::filesystem;

namespace {

constexpr int kLastRunFormat = 1;

std::string selfExe() {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
}

// A program named on a command line (nvcc, klineage-runner): as given when it is a path, else
// found on the PATH.
std::string programPath(const std::string& p) {
  if (p.empty() || p.find('/') != std::string::npos) return p;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  for (size_t at = 0; at <= dirs.size();) {
    const size_t end = std::min(dirs.find(':', at), dirs.size());
    const fs::path cand = fs::path(dirs.substr(at, end - at)) / p;
    std::error_code ec;
    if (end > at && fs::exists(cand, ec)) return cand.string();
    at = end + 1;
  }
  return p;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + "\x1f";
  return s;
}

}  // namespace

std::string fileStamp(const std::string& path) {
  std::error_code ec;
  const fs::path p = programPath(path);
  const auto size = fs::file_size(p, ec);
  if (ec) return "(missing)";
  const auto mtime = fs::last_write_time(p, ec);
  if (ec) return "(missing)";
  return std::to_string(size) + ":" + std::to_string(mtime.time_since_epoch().count());
}

std::string programHash(const std::string& path) {
  std::string bytes;
  try {
    bytes = readFile(programPath(path));
  } catch (const std::exception&) {
    return "(missing)";
  }
  // "tmpxft_" then 8 hex digits (the compiling process's id), "_", 8 hex digits.
  static const std::string kTmp = "tmpxft_";
  auto hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); };
  for (size_t at = bytes.find(kTmp); at != std::string::npos; at = bytes.find(kTmp, at + 1)) {
    const size_t id = at + kTmp.size();
    if (id + 17 > bytes.size() || bytes[id + 8] != '_') continue;
    bool ok = true;
    for (size_t i = 0; i < 17 && ok; ++i) ok = i == 8 || hex(bytes[id + i]);
    if (ok)
      for (size_t i = 0; i < 17; ++i)
        if (i != 8) bytes[id + i] = '0';
  }
  return fnv1a64Hex(bytes);
}

std::string deviceKeyText(const DeviceProbe& d) {
  if (!d.available) return "no CUDA device";
  return d.device + " " + d.arch + " cuda " + d.driver + " driver " + d.driver_version;
}

std::vector<std::string> runFiles(const TargetSetup& setup, const Manifest& manifest) {
  std::set<std::string> files(manifest.files.begin(), manifest.files.end());
  files.insert(setup.originals.begin(), setup.originals.end());
  for (const auto& k : manifest.kernels) {
    files.insert(k.range.file);
    for (const auto& l : k.launches) files.insert(l.file);
  }
  if (setup.config.workload) files.insert(*setup.config.workload);
  files.erase("");
  return {files.begin(), files.end()};
}

std::string runKey(const TargetSetup& setup, const std::vector<std::string>& files, const DeviceProbe& device,
                   const std::string& options) {
  const Config& cfg = setup.config;
  std::string text = "klineage-run-" + std::to_string(kLastRunFormat) + "\n" + options + "\n" + deviceKeyText(device) + "\n";
  text += "config " + fileHash(cfg.path).value_or("(missing)") + "\n";
  for (const auto& f : files) text += f + " " + fileHash(f).value_or("(missing)") + "\n";
  for (const auto& [src, fl] : setup.nvcc_flags)
    text += src + " flags " + joined(fl.includes) + joined(fl.system_includes) + joined(fl.defines) +
            joined(fl.undefines) + joined(fl.forced_includes) + fl.std + joined(fl.archs) + joined(fl.other_nvcc) + "\n";
  // Every file of the skill directories (a skill's TOML, its prompt templates), sorted.
  for (const auto& dir : cfg.skills) {
    std::vector<std::string> skill_files;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
      if (it->is_regular_file(ec)) skill_files.push_back(it->path().string());
    std::sort(skill_files.begin(), skill_files.end());
    text += "skills " + dir + (ec ? " (unreadable)" : "") + "\n";
    for (const auto& f : skill_files) text += f + " " + fileHash(f).value_or("(missing)") + "\n";
  }
  text += "klineage " + fileStamp(selfExe()) + "\nrunner " + fileStamp(cfg.runner.empty() ? "klineage-runner" : cfg.runner) +
          "\nnvcc " + fileStamp(cfg.nvcc) + "\n";
  if (!cfg.run_command.empty()) text += "run " + programHash(cfg.run_command[0]) + "\n";
  for (const char* v : {"KLINEAGE_LLM_URL", "KLINEAGE_LLM_MODEL", "KLINEAGE_CUDA_PATH", "KLINEAGE_CLANG_RESOURCE_DIR",
                        "KLINEAGE_COMPAT_DIR", "CUDA_VISIBLE_DEVICES"}) {
    const char* e = std::getenv(v);
    text += std::string(v) + "=" + (e ? e : "(unset)") + "\n";
  }
  return fnv1a64Hex(text);
}

std::optional<LastRun> loadLastRun(const fs::path& path, Status& status) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return std::nullopt;
  try {
    const nlohmann::json j = nlohmann::json::parse(readFile(path));
    if (j.value("format", 0) != kLastRunFormat) return std::nullopt;
    LastRun r;
    r.key = j.at("key").get<std::string>();
    r.files = j.at("files").get<std::vector<std::string>>();
    r.finished = j.at("finished").get<long long>();
    r.device = j.at("device").get<std::string>();
    return r;
  } catch (const std::exception& e) {
    status.warning("ignoring " + path.string() + " (" + e.what() + "); running everything");
    return std::nullopt;
  }
}

void saveLastRun(const fs::path& path, const LastRun& r) {
  const nlohmann::json j = {{"format", kLastRunFormat}, {"key", r.key},   {"files", r.files},
                            {"finished", r.finished},   {"device", r.device}};
  atomicWrite(path, j.dump(1) + "\n");
}

std::string missingOutputs(const BuildTreeLayout& layout) {
  std::error_code ec;
  for (const fs::path& p : {layout.report(false), layout.selection()})
    if (!fs::exists(p, ec)) return p.string();
  try {
    const Selection sel = loadSelection(layout.selection().string());
    for (const auto* list : {&sel.sources, &sel.headers})
      for (const auto& s : *list)
        if (!fs::exists(s.selected, ec)) return s.selected;
  } catch (const std::exception& e) {
    return layout.selection().string() + " (" + e.what() + ")";
  }
  return "";
}

}  // namespace klineage
