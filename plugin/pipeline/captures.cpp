#include "captures.h"

#include <filesystem>

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
  // Old captures (other programs, older kernels) are no longer useful.
  std::error_code ec;
  if (fs::exists(root))
    for (const auto& e : fs::directory_iterator(root, ec))
      if (e.path() != dir) fs::remove_all(e.path(), ec);
  std::string cmd;
  for (const auto& a : p.cfg.run_command) cmd += (cmd.empty() ? "" : " ") + a;
  p.status.info("klineage: capturing the launches of: " + cmd);
  CaptureSummary sum;
  if (p.capturer.capture(captureOptions(p, manifest, dir), &sum) != 0)
    throw CaptureFailed("capturing `" + cmd + "` failed (see above); nothing was selected");
  try {
    return loadCapture(dir, manifest, /*verify_blobs=*/false);
  } catch (const std::exception& e) {
    throw CaptureFailed(std::string("the capture just written cannot be read back: ") + e.what());
  }
}

}  // namespace klineage
