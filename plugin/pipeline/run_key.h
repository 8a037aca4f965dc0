// The no-op check of `klineage optimize`: a key over every input of a run, computed before the
// extraction from the files the last run's extraction read, and kept with that run in
// cache/last-run.json. When it matches and the last run's outputs are in place, nothing is
// extracted, compiled or gated. docs/pipeline.md, "The result cache and the no-op run".
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/manifest.h"
#include "gate/gate.h"
#include "layout.h"
#include "setup.h"

namespace klineage {

class Status;

struct LastRun {
  std::string key;
  std::vector<std::string> files;  // the files the key hashed, read again by the next run's check
  long long finished = 0;          // unix seconds
  std::string device;              // for the message: "NVIDIA H200", or "no CUDA device"
};

// "<bytes>:<mtime ns>" of a file, "(missing)" without one: a program's identity (klineage itself,
// klineage-runner, nvcc, the RUN program) without reading it.
std::string fileStamp(const std::string& path);

// The hash of a program's bytes with nvcc's temporary file names made neutral: nvcc writes
// "tmpxft_<pid>_<n>-..." names into every object it compiles, so the same source compiled and
// linked again gives a program that differs only there. "(missing)" without the file; a command
// found on the PATH is hashed there. The RUN program's identity, in both the no-op key and the
// capture key: a relink that produces the same program is not a change.
std::string programHash(const std::string& path);

// The device fields every key holds: availability, model, architecture, the CUDA version the
// driver supports and the driver's own version.
std::string deviceKeyText(const DeviceProbe& d);

// The files a run depends on: what its extraction read (manifest.files), the target's sources, the
// files of its kernels and launch sites, the workload.
std::vector<std::string> runFiles(const TargetSetup& setup, const Manifest& manifest);

// The whole-run key: the config file's text, the contents of `files`, each source's compile flags,
// every file under the skill directories, the stamps of klineage itself, klineage-runner and nvcc,
// the RUN program's programHash, the environment variables that change a run, the device, and `options` (the
// command line's choices).
std::string runKey(const TargetSetup& setup, const std::vector<std::string>& files, const DeviceProbe& device,
                   const std::string& options);

// The record of the last successful run; nullopt when there is none, or (with a warning naming
// the file) when it cannot be read.
std::optional<LastRun> loadLastRun(const std::filesystem::path& path, Status& status);
void saveLastRun(const std::filesystem::path& path, const LastRun& run);

// "" when the last run's outputs are in place (report.json, selection.json and every selected
// file it names), else the first one missing.
std::string missingOutputs(const BuildTreeLayout& layout);

}  // namespace klineage
