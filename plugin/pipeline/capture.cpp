#include "capture.h"
#include "setup.h"

#include <cxxabi.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/diag.h"
#include "core/fs.h"
#include "gate/process.h"

namespace klineage {
namespace fs = std::filesystem;

namespace {

constexpr const char* kLibraryName = "libklineage_capture.so";


std::string joined(const std::vector<std::string>& v, const std::string& sep = ", ") {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

std::string commandLine(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) {
    bool plain = !a.empty() && a.find_first_of(" \t\n'\"\\$`*?;&|<>()") == std::string::npos;
    s += (s.empty() ? "" : " ") + (plain ? a : "'" + a + "'");
  }
  return s;
}

// "saxpy" for _Z5saxpyifPKfPf, "ns::k<int>" for a template instantiation: the demangled name
// without its parameter list and return type; the mangled name if it does not demangle.
std::string shortName(const std::string& mangled) {
  int status = 0;
  char* d = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  if (status != 0 || !d) return mangled;
  std::string s = d;
  std::free(d);
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '<') ++depth;
    if (c == '>') --depth;
    if (depth == 0 && c == ' ') start = i + 1;  // after a return type
    if (depth == 0 && c == '(') return s.substr(start, i - start);
  }
  return s;
}

std::vector<std::string> lastLines(const std::string& text, size_t n) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  if (lines.size() > n) lines.erase(lines.begin(), lines.end() - static_cast<long>(n));
  return lines;
}

}  // namespace

std::string findCaptureLibrary() {
  if (const char* e = std::getenv("KLINEAGE_CAPTURE_LIBRARY"); e && *e) return e;
  std::string dir = exeDir();
  if (dir.empty()) return "";
  fs::path d(dir);
  for (const fs::path& p : {d / ".." / "lib" / kLibraryName, d / ".." / "lib64" / kLibraryName,
                            d / ".." / "lib" / "x86_64-linux-gnu" / kLibraryName,
                            d / ".." / "lib" / "aarch64-linux-gnu" / kLibraryName,
                            d / ".." / "capture" / kLibraryName,  // build tree: plugin/cli -> plugin/capture
                            d / kLibraryName}) {
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) return fs::weakly_canonical(p, ec).string();
  }
  return "";
}

int runCapture(const CaptureOptions& opt, CaptureSummary* out) {
  Status& st = *opt.status;
  auto error = [&](const std::string& m) { st.error("capture: " + m); };
  if (opt.command.empty()) {
    error("no program to run (give its command line)");
    return kExitBadInput;
  }
  if (opt.out_dir.empty()) {
    error("no output directory");
    return kExitBadInput;
  }
  std::string lib = opt.library.empty() ? findCaptureLibrary() : opt.library;
  std::error_code ec;
  if (lib.empty() || !fs::is_regular_file(lib, ec)) {
    error(lib.empty() ? std::string("cannot find ") + kLibraryName + " next to the klineage executable; set KLINEAGE_CAPTURE_LIBRARY"
                      : "the capture library " + lib + " does not exist");
    return kExitFailure;
  }
  lib = fs::absolute(lib).lexically_normal().string();

  fs::path dest = fs::absolute(opt.out_dir).lexically_normal();
  if (dest.filename().empty()) dest = dest.parent_path();  // "dir/"
  fs::path parent = dest.parent_path();
  std::string pid = std::to_string(::getpid());
  fs::path tmp = parent / ("." + dest.filename().string() + ".capturing." + pid);
  CaptureSummary s;
  s.command = opt.command;
  s.log = "capture.log";
  s.kernels_expected = opt.kernels_mangled;
  ProcessResult pr;
  bool loaded = false;
  std::vector<std::string> errors;
  try {
    fs::create_directories(parent);
    fs::remove_all(tmp);
    fs::create_directories(tmp);

    std::string list;
    for (size_t i = 0; i < opt.kernels_mangled.size(); ++i) {
      list += opt.kernels_mangled[i];
      if (i < opt.kernels_names.size() && !opt.kernels_names[i].empty()) list += "\t" + opt.kernels_names[i];
      list += "\n";
    }
    fs::path kernels_file = tmp / "kernels.txt";
    atomicWrite(kernels_file, list);

    std::vector<std::string> env = {"CUDA_INJECTION64_PATH=" + lib,
                                    "KLINEAGE_CAPTURE_DIR=" + tmp.string(),
                                    "KLINEAGE_CAPTURE_KERNELS=" + kernels_file.string(),
                                    "KLINEAGE_CAPTURE_MAX_SHAPES=" + std::to_string(opt.max_shapes),
                                    "KLINEAGE_CAPTURE_MAX_BYTES=" + std::to_string(opt.max_bytes)};
    st.info("klineage: capture: running " + commandLine(opt.command));
    pr = runProcess(opt.command, opt.timeout_s, "", env);
    atomicWrite(tmp / s.log, pr.output);

    // What the library saw (seen.json is written when it loads and kept up to date).
    fs::path seen = tmp / "seen.json";
    if (fs::exists(seen)) {
      loaded = true;
      try {
        auto j = nlohmann::json::parse(readFile(seen));
        s.kernels_seen = j.value("kernels_seen", std::vector<std::string>{});
        s.skipped = j.value("skipped", std::vector<std::string>{});
        errors = j.value("errors", std::vector<std::string>{});
        for (const auto& e : errors) s.skipped.push_back("(capture stopped) " + e);
      } catch (const std::exception& e) {
        errors.push_back(seen.string() + ": " + e.what());
      }
    }
    // Complete records stay; a launch directory without record.json (the program ended between
    // the two snapshots) goes.
    for (const auto& entry : fs::directory_iterator(tmp)) {
      if (!entry.is_directory()) continue;
      try {
        LaunchRecord r = loadRecord(entry.path().string(), false);
        s.records.push_back(entry.path().filename().string());
        for (const auto& a : r.allocations) s.bytes += (a.before.empty() ? 0 : a.size) + (a.after.empty() ? 0 : a.size);
      } catch (const std::exception&) {
        fs::remove_all(entry.path());
      }
    }
    std::sort(s.records.begin(), s.records.end());
    s.exit_code = !pr.started || pr.timed_out ? -1 : pr.signaled ? 128 + pr.signal : pr.exit_code;
    atomicWrite(tmp / "capture.json", nlohmann::json(s).dump(2) + "\n");

    // Replace the previous capture whole.
    if (fs::exists(dest)) {
      fs::path old = parent / ("." + dest.filename().string() + ".old." + pid);
      fs::remove_all(old);
      fs::rename(dest, old);
      fs::rename(tmp, dest);
      fs::remove_all(old);
    } else {
      fs::rename(tmp, dest);
    }
  } catch (const std::exception& e) {
    error(e.what());
    fs::remove_all(tmp, ec);
    return kExitFailure;
  }
  if (out) *out = s;

  std::string log = (dest / s.log).string();
  if (!pr.started || pr.timed_out || pr.signaled || pr.exit_code != 0) {
    error("the program " + (pr.started ? std::string(pr.timed_out ? "was killed: " : "failed: ") + pr.describe()
                                       : pr.describe()) +
          ": " + commandLine(opt.command));
    std::vector<std::string> tail = lastLines(pr.output, 40);
    if (!tail.empty()) {
      st.error("capture: the last " + std::to_string(tail.size()) + " lines of its output (all of it: " + log + "):");
      for (const auto& l : tail) st.error("  | " + l);
    }
    return kExitCaptureProgramFailed;
  }
  if (s.records.empty()) {
    if (!loaded) {
      error("the program did not load the capture library " + lib +
            " (it never initialized CUDA, or the CUDA driver ignored CUDA_INJECTION64_PATH); see " + log);
      return kExitCaptureNoKernels;
    }
    if (!errors.empty()) {
      error("the capture library recorded nothing: " + joined(errors, "; "));
      return kExitCaptureNoKernels;
    }
    std::set<std::string> expected(opt.kernels_mangled.begin(), opt.kernels_mangled.end());
    std::vector<std::string> listed_seen;
    for (const auto& k : s.kernels_seen)
      if (expected.count(k)) listed_seen.push_back(shortName(k));
    if (!listed_seen.empty()) {
      error("the program launched " + joined(listed_seen) + " but no launch could be recorded" +
            (s.skipped.empty() ? std::string() : ": " + joined(s.skipped, "; ")));
      return kExitCaptureNoKernels;
    }
    std::vector<std::string> names;
    for (size_t i = 0; i < opt.kernels_mangled.size(); ++i)
      names.push_back(i < opt.kernels_names.size() && !opt.kernels_names[i].empty() ? opt.kernels_names[i]
                                                                                    : shortName(opt.kernels_mangled[i]));
    std::vector<std::string> launched;
    for (const auto& k : s.kernels_seen) launched.push_back(shortName(k));
    error("the program launched none of the target's kernels; the manifest lists: " + (names.empty() ? "(none)" : joined(names)) +
          "; the program launched: " + (launched.empty() ? "no kernels" : joined(launched)));
    return kExitCaptureNoKernels;
  }
  for (const auto& e : errors) st.warning("capture: the capture library stopped recording: " + e);
  for (const auto& m : s.skipped) st.info("klineage: capture: skipped " + m);
  st.info("klineage: capture: " + std::to_string(s.records.size()) + " launch" + (s.records.size() == 1 ? "" : "es") +
          " recorded (" + std::to_string(s.bytes) + " bytes) in " + dest.string() + "; the program's output is in " + log);
  return kExitOk;
}

namespace {
class ProgramCapturer : public Capturer {
 public:
  int capture(const CaptureOptions& opt, CaptureSummary* out) override { return runCapture(opt, out); }
};
}  // namespace

std::unique_ptr<Capturer> makeProgramCapturer() { return std::make_unique<ProgramCapturer>(); }

}  // namespace klineage
