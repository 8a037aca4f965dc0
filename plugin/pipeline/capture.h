// `klineage capture`: runs the user's own program with the CUPTI injection library
// (libklineage_capture.so, plugin/capture/) and keeps what it recorded of the first launches of the
// target's kernels. Format and limits: docs/capture.md.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/launch_record.h"
#include "core/manifest.h"
#include "status.h"

namespace klineage {

// Exit codes of runCapture beyond kExitOk / kExitFailure / kExitBadInput (core/diag.h).
constexpr int kExitCaptureProgramFailed = 3;  // the program exited non-zero, crashed or timed out
constexpr int kExitCaptureNoKernels = 4;      // it ran, but no listed kernel was recorded

struct CaptureOptions {
  std::string out_dir;                        // replaced as a whole when the capture is done
  std::vector<std::string> command;           // the program and its arguments (argv[0] on PATH)
  std::vector<std::string> kernels_mangled;   // the manifest's kernels, as launched
  std::vector<std::string> kernels_names;     // their manifest names (same order; may be empty)
  unsigned max_shapes = 3;                    // distinct (grid, block, shmem) shapes per kernel
  unsigned long long max_bytes = 4ull << 30;  // cap on all snapshot bytes
  double timeout_s = 300;                     // the program is killed after this (<= 0: no limit)
  std::string library;                        // libklineage_capture.so ("" = findCaptureLibrary())
  bool allow_none = false;                    // a run that records no listed kernel is no failure (a
                                              // capture of some kernels only, the rest kept)
  Status* status = nullptr;                   // where it says what happened (required)
};

// The blob bytes a record holds on disk: each before blob, and each after blob that is not the
// before blob again (an allocation the launch left unchanged).
unsigned long long recordBytes(const LaunchRecord& r);

// Every kernel of the manifest as the program launches it: plain kernels by their mangled name,
// templates by each instantiation's (manifest names beside them).
void listKernels(const Manifest& manifest, CaptureOptions& opt);

// Where launches come from: the user's program under CUPTI (runCapture), or a test's fake.
class Capturer {
 public:
  virtual ~Capturer() = default;
  virtual int capture(const CaptureOptions& opt, CaptureSummary* out) = 0;
};
std::unique_ptr<Capturer> makeProgramCapturer();

// Runs the capture into a fresh directory beside out_dir, writes capture.log and capture.json
// there, drops launch directories left incomplete, then renames it over out_dir (so a previous
// capture is replaced whole, and an interrupted one never takes its place). Returns kExitOk when
// the program exited 0 and at least one listed kernel was recorded; kExitCaptureProgramFailed
// (printing the end of the program's output) or kExitCaptureNoKernels (naming what the manifest
// lists and what the program launched) otherwise; kExitBadInput / kExitFailure for our own
// problems (no command, no library, I/O). The summary is filled whenever the program ran.
int runCapture(const CaptureOptions& opt, CaptureSummary* out);

// KLINEAGE_CAPTURE_LIBRARY if set; else libklineage_capture.so in <exe_dir>/../lib (or lib64,
// lib/<multiarch>), or in the build tree (<build>/plugin/capture); "" if none exists.
std::string findCaptureLibrary();

}  // namespace klineage
