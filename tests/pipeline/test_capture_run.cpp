// runCapture's handling of the user's program, without a GPU: a failing program stops the capture
// (its output shown, nothing left in place), a hang is killed, and nothing half-written remains.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <chrono>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "capture.h"
#include "core/fs.h"

namespace fs = std::filesystem;
using namespace klineage;

namespace {
CaptureOptions options(const fs::path& dir, std::vector<std::string> cmd) {
  CaptureOptions o;
  o.out_dir = (dir / "capture").string();
  o.command = std::move(cmd);
  o.kernels_mangled = {"_Z5saxpyifPKfPf"};
  o.kernels_names = {"saxpy"};
  // Any existing file stands in for the library: these programs never load CUDA.
  o.library = (dir / "libfake.so").string();
  atomicWrite(o.library, "not a library");
  static RecordingStatus status;
  o.status = &status;
  return o;
}
}  // namespace

TEST_CASE("capture: a program that fails stops the capture and leaves no launch behind", "[capture]") {
  fs::path dir = fs::temp_directory_path() / ("klineage-caprun-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  CaptureSummary sum;
  auto o = options(dir, {"sh", "-c", "echo computing; echo boom >&2; exit 3"});
  CHECK(runCapture(o, &sum) == kExitCaptureProgramFailed);
  CHECK(sum.exit_code == 3);
  CHECK(sum.records.empty());
  // What stays is the failed run's log and a capture.json that says it failed (the gate never
  // reuses a failed capture: see obtainCaptures), and no launch directory.
  REQUIRE(fs::exists(fs::path(o.out_dir) / "capture.json"));
  auto kept = nlohmann::json::parse(readFile(fs::path(o.out_dir) / "capture.json")).get<CaptureSummary>();
  CHECK(kept.exit_code == 3);
  CHECK(kept.records.empty());
  CHECK(readFile(fs::path(o.out_dir) / kept.log).find("boom") != std::string::npos);
  for (const auto& e : fs::directory_iterator(o.out_dir)) CHECK_FALSE(e.is_directory());
  // and nothing half-written beside it
  for (const auto& e : fs::directory_iterator(dir))
    CHECK((e.path().filename() == "capture" || e.path().filename() == "libfake.so"));

  auto hang = options(dir, {"sleep", "20"});
  hang.timeout_s = 0.5;
  auto t0 = std::chrono::steady_clock::now();
  CHECK(runCapture(hang, &sum) == kExitCaptureProgramFailed);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10));
  fs::remove_all(dir);
}

TEST_CASE("capture: a program that launches none of the target's kernels is an error", "[capture]") {
  fs::path dir = fs::temp_directory_path() / ("klineage-caprun2-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  CaptureSummary sum;
  auto o = options(dir, {"true"});
  CHECK(runCapture(o, &sum) == kExitCaptureNoKernels);
  CHECK(sum.exit_code == 0);
  CHECK(sum.records.empty());
  fs::remove_all(dir);
}
