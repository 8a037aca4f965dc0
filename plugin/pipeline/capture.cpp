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

namespace {

// What one capture run left: the summary, whether the library loaded, what it reported.
struct CaptureRun {
  CaptureSummary s;
  ProcessResult pr;
  bool loaded = false;
  std::vector<std::string> errors;
};

// Runs the program with the capture library into `tmp`: kernels.txt, capture.log, the records.
void runProgram(const CaptureOptions& opt, const std::string& lib, const fs::path& tmp, CaptureRun& run) {
  std::string list;
  for (size_t i = 0; i < opt.kernels_mangled.size(); ++i) {
    list += opt.kernels_mangled[i];
    if (i < opt.kernels_names.size() && !opt.kernels_names[i].empty()) list += "\t" + opt.kernels_names[i];
    list += "\n";
  }
  const fs::path kernels_file = tmp / "kernels.txt";
  atomicWrite(kernels_file, list);
  const std::vector<std::string> env = {"CUDA_INJECTION64_PATH=" + lib, "KLINEAGE_CAPTURE_DIR=" + tmp.string(),
                                        "KLINEAGE_CAPTURE_KERNELS=" + kernels_file.string(),
                                        "KLINEAGE_CAPTURE_MAX_SHAPES=" + std::to_string(opt.max_shapes),
                                        "KLINEAGE_CAPTURE_MAX_BYTES=" + std::to_string(opt.max_bytes)};
  opt.status->info("klineage: capture: running " + commandLine(opt.command));
  run.pr = runProcess(opt.command, opt.timeout_s, "", env);
  atomicWrite(tmp / run.s.log, run.pr.output);
}

// Reads what the library saw, keeps the complete records (a launch directory without
// record.json, the program having ended between the two snapshots, goes) and writes capture.json.
void collect(const fs::path& tmp, CaptureRun& run) {
  CaptureSummary& s = run.s;
  // seen.json is written when the library loads and kept up to date.
  const fs::path seen = tmp / "seen.json";
  if (fs::exists(seen)) {
    run.loaded = true;
    try {
      auto j = nlohmann::json::parse(readFile(seen));
      s.kernels_seen = j.value("kernels_seen", std::vector<std::string>{});
      s.skipped = j.value("skipped", std::vector<std::string>{});
      run.errors = j.value("errors", std::vector<std::string>{});
      for (const auto& e : run.errors) s.skipped.push_back("(capture stopped) " + e);
    } catch (const std::exception& e) {
      run.errors.push_back(seen.string() + ": " + e.what());
    }
  }
  for (const auto& entry : fs::directory_iterator(tmp)) {
    if (!entry.is_directory()) continue;
    try {
      LaunchRecord r = loadRecord(entry.path().string(), false);
      s.records.push_back(entry.path().filename().string());
      s.bytes += recordBytes(r);
    } catch (const std::exception&) {
      fs::remove_all(entry.path());
    }
  }
  std::sort(s.records.begin(), s.records.end());
  const ProcessResult& pr = run.pr;
  s.exit_code = !pr.started || pr.timed_out ? -1 : pr.signaled ? 128 + pr.signal : pr.exit_code;
  atomicWrite(tmp / "capture.json", nlohmann::json(s).dump(2) + "\n");
}

// Replaces the previous capture whole.
void replaceCapture(const fs::path& tmp, const fs::path& dest, const std::string& pid) {
  if (!fs::exists(dest)) return fs::rename(tmp, dest);
  const fs::path old = dest.parent_path() / ("." + dest.filename().string() + ".old." + pid);
  fs::remove_all(old);
  fs::rename(dest, old);
  fs::rename(tmp, dest);
  fs::remove_all(old);
}

// Why a run that recorded nothing recorded nothing; the exit code to return.
int explainNothing(const CaptureOptions& opt, const CaptureRun& run, const std::string& lib, const std::string& log) {
  auto error = [&](const std::string& m) { opt.status->error("capture: " + m); };
  const CaptureSummary& s = run.s;
  if (!run.loaded) {
    error("the program did not load the capture library " + lib +
          " (it never initialized CUDA, or the CUDA driver ignored CUDA_INJECTION64_PATH); see " + log);
    return kExitCaptureNoKernels;
  }
  if (!run.errors.empty()) {
    error("the capture library recorded nothing: " + joined(run.errors, "; "));
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
  std::vector<std::string> names, launched;
  for (size_t i = 0; i < opt.kernels_mangled.size(); ++i)
    names.push_back(i < opt.kernels_names.size() && !opt.kernels_names[i].empty() ? opt.kernels_names[i]
                                                                                  : shortName(opt.kernels_mangled[i]));
  for (const auto& k : s.kernels_seen) launched.push_back(shortName(k));
  error("the program launched none of the target's kernels; the manifest lists: " + (names.empty() ? "(none)" : joined(names)) +
        "; the program launched: " + (launched.empty() ? "no kernels" : joined(launched)));
  return kExitCaptureNoKernels;
}

// The library: KLINEAGE_CAPTURE_LIBRARY or the installed one; "" (and the error said) if none.
std::string captureLibrary(const CaptureOptions& opt) {
  std::string lib = opt.library.empty() ? findCaptureLibrary() : opt.library;
  std::error_code ec;
  if (lib.empty() || !fs::is_regular_file(lib, ec)) {
    opt.status->error(std::string("capture: ") +
                      (lib.empty() ? std::string("cannot find ") + kLibraryName +
                                         " next to the klineage executable; set KLINEAGE_CAPTURE_LIBRARY"
                                   : "the capture library " + lib + " does not exist"));
    return "";
  }
  return fs::absolute(lib).lexically_normal().string();
}

}  // namespace

int runCapture(const CaptureOptions& opt, CaptureSummary* out) {
  Status& st = *opt.status;
  if (opt.command.empty() || opt.out_dir.empty()) {
    st.error(opt.command.empty() ? "capture: no program to run (give its command line)" : "capture: no output directory");
    return kExitBadInput;
  }
  const std::string lib = captureLibrary(opt);
  if (lib.empty()) return kExitFailure;
  fs::path dest = fs::absolute(opt.out_dir).lexically_normal();
  if (dest.filename().empty()) dest = dest.parent_path();  // "dir/"
  const std::string pid = std::to_string(::getpid());
  const fs::path tmp = dest.parent_path() / ("." + dest.filename().string() + ".capturing." + pid);
  CaptureRun run;
  run.s.command = opt.command;
  run.s.log = "capture.log";
  run.s.kernels_expected = opt.kernels_mangled;
  try {
    fs::create_directories(dest.parent_path());
    fs::remove_all(tmp);
    fs::create_directories(tmp);
    runProgram(opt, lib, tmp, run);
    collect(tmp, run);
    replaceCapture(tmp, dest, pid);
  } catch (const std::exception& e) {
    st.error(std::string("capture: ") + e.what());
    std::error_code ec;
    fs::remove_all(tmp, ec);
    return kExitFailure;
  }
  const CaptureSummary& s = run.s;
  if (out) *out = s;
  const std::string log = (dest / s.log).string();
  const ProcessResult& pr = run.pr;
  if (!pr.started || pr.timed_out || pr.signaled || pr.exit_code != 0) {
    st.error("capture: the program " +
             (pr.started ? std::string(pr.timed_out ? "was killed: " : "failed: ") + pr.describe() : pr.describe()) + ": " +
             commandLine(opt.command));
    std::vector<std::string> tail = lastLines(pr.output, 40);
    if (!tail.empty()) st.error("capture: the last " + std::to_string(tail.size()) + " lines of its output (all of it: " + log + "):");
    for (const auto& l : tail) st.error("  | " + l);
    return kExitCaptureProgramFailed;
  }
  if (s.records.empty() && !(opt.allow_none && run.loaded && run.errors.empty())) return explainNothing(opt, run, lib, log);
  for (const auto& e : run.errors) st.warning("capture: the capture library stopped recording: " + e);
  for (const auto& m : s.skipped) st.info("klineage: capture: skipped " + m);
  st.info("klineage: capture: " + std::to_string(s.records.size()) + " launch" + (s.records.size() == 1 ? "" : "es") +
          " recorded (" + std::to_string(s.bytes) + " bytes) in " + dest.string() + "; the program's output is in " + log);
  return kExitOk;
}

unsigned long long recordBytes(const LaunchRecord& r) {
  unsigned long long bytes = 0;
  for (const auto& a : r.allocations)
    bytes += (a.before.empty() ? 0 : a.size) + (a.after.empty() || a.after == a.before ? 0 : a.size);
  return bytes;
}

void listKernels(const Manifest& manifest, CaptureOptions& opt) {
  for (const auto& k : manifest.kernels) {
    if (!k.is_template) {
      opt.kernels_mangled.push_back(k.mangled_name);
      opt.kernels_names.push_back(k.name);
    }
    for (const auto& m : k.instantiations) {
      opt.kernels_mangled.push_back(m);
      opt.kernels_names.push_back(k.name);
    }
  }
}

namespace {
class ProgramCapturer : public Capturer {
 public:
  int capture(const CaptureOptions& opt, CaptureSummary* out) override { return runCapture(opt, out); }
};
}  // namespace

std::unique_ptr<Capturer> makeProgramCapturer() { return std::make_unique<ProgramCapturer>(); }

}  // namespace klineage
