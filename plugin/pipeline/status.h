// How the pipeline tells a person what it is doing, like Ninja's Status: library code prints
// nothing itself; the command line supplies a console Status (plugin/cli/console_status.h), tests
// a recording one.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "gate/variant.h"

namespace klineage {

class Status {
 public:
  virtual ~Status() = default;
  virtual void info(const std::string& line) = 0;            // "klineage: ..." progress lines
  virtual void warning(const std::string& line) = 0;         // something the user should look at
  virtual void error(const std::string& line) = 0;           // why the run fails
  // About one kernel ("saxpy: gated on its captured launch ...").
  virtual void kernelNote(const std::string& kernel, const std::string& line) { info("  " + kernel + ": " + line); }
  // One variant has its outcome; `done` of `total` variants of this run have one now.
  virtual void variantFinished(const VariantReport& r, size_t done, size_t total) = 0;
  // One variant's compile has finished (r.outcome is compile-failed if it failed); `done` of
  // `total` compiles of this run have. Called from the compile threads, one call at a time.
  virtual void variantCompiled(const VariantReport& r, size_t done, size_t total) {}
};

// Keeps every line (tests, and callers that print later).
class RecordingStatus : public Status {
 public:
  std::vector<std::string> lines;
  void info(const std::string& l) override { lines.push_back(l); }
  void warning(const std::string& l) override { lines.push_back("warning: " + l); }
  void error(const std::string& l) override { lines.push_back("error: " + l); }
  void variantFinished(const VariantReport& r, size_t, size_t) override { lines.push_back("variant " + r.variant.id); }
  bool saw(const std::string& part) const {
    for (const auto& l : lines)
      if (l.find(part) != std::string::npos) return true;
    return false;
  }
};

// Holds every call and replays them, in order, onto another Status: a kernel's lines from a
// thread rewriting several kernels at once are printed when its turn comes, so the console reads
// the same as one kernel at a time.
class BufferedStatus : public Status {
 public:
  void info(const std::string& l) override { held_.push_back([l](Status& s) { s.info(l); }); }
  void warning(const std::string& l) override { held_.push_back([l](Status& s) { s.warning(l); }); }
  void error(const std::string& l) override { held_.push_back([l](Status& s) { s.error(l); }); }
  void kernelNote(const std::string& k, const std::string& l) override {
    held_.push_back([k, l](Status& s) { s.kernelNote(k, l); });
  }
  void variantFinished(const VariantReport& r, size_t done, size_t total) override {
    held_.push_back([r, done, total](Status& s) { s.variantFinished(r, done, total); });
  }
  void variantCompiled(const VariantReport& r, size_t done, size_t total) override {
    held_.push_back([r, done, total](Status& s) { s.variantCompiled(r, done, total); });
  }
  void replay(Status& to) {
    for (auto& f : held_) f(to);
    held_.clear();
  }
  void clear() { held_.clear(); }  // drops what it holds (work done again)

 private:
  std::vector<std::function<void(Status&)>> held_;
};

}  // namespace klineage
