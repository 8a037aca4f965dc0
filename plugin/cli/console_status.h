// The console Status: progress on stdout, flushed (ninja's console pool shows it live), warnings
// and errors on stderr.
//
// On a terminal it also keeps one live line at the bottom, rewritten in place as variants are
// compiled and gated: "[compiled 12/22 · gated 5/22] saxpy  ~1m40s left". Any other line first
// clears it and then draws it again, so output never interleaves with it. Not on a terminal (CI
// logs) there is no live line, only plain lines: one per finished variant, and now and then
// "klineage: gated 10/22, ~2m left". KLINEAGE_PROGRESS=plain|live forces the mode.
#pragma once
#include <functional>
#include <iosfwd>
#include <mutex>
#include <string>

#include "status.h"

namespace klineage {

enum class ProgressMode { Plain, Live };

// KLINEAGE_PROGRESS ("plain" or "live"; `env` may be null) wins; else live on a terminal.
ProgressMode progressMode(const char* env, bool stdout_is_tty);

// "~45s", "~1m40s", "~2h05m"; "" when unknown (negative).
std::string formatEta(double seconds);

// The mean time per finished item so far times the items left; negative (unknown) until one has
// finished, 0 when all have.
double estimateEta(double elapsed_s, size_t done, size_t total);

// The live line: "[compiled 12/22 · gated 5/22] saxpy  ~1m40s left" (no ETA when eta_s < 0, no
// "gated" while gate_total is 0: before gating has begun).
std::string progressText(size_t compiled, size_t compile_total, size_t gated, size_t gate_total,
                         const std::string& kernel, double eta_s);

class ConsoleStatus : public Status {
 public:
  using Clock = std::function<double()>;  // seconds, monotonic
  // std::cout and std::cerr; the mode from KLINEAGE_PROGRESS and whether stdout is a terminal.
  ConsoleStatus();
  // For tests: any streams, a fixed mode, a fake clock (default: steady_clock); `width` the
  // terminal's columns (0: unknown, the live line is not cut).
  ConsoleStatus(std::ostream& out, std::ostream& err, ProgressMode mode, Clock clock = {}, size_t width = 0);
  ~ConsoleStatus() override;

  void info(const std::string& line) override;
  void warning(const std::string& line) override;
  void error(const std::string& line) override;
  void variantFinished(const VariantReport& r, size_t done, size_t total) override;
  void variantCompiled(const VariantReport& r, size_t done, size_t total) override;

  ProgressMode mode() const { return mode_; }

 private:
  std::ostream& out_;
  std::ostream& err_;
  ProgressMode mode_;
  Clock clock_;
  size_t width_;
  std::mutex m_;
  bool shown_ = false;      // the live line is on the screen
  size_t compiled_ = 0, compile_total_ = 0, gated_ = 0, gate_total_ = 0;
  std::string kernel_;
  double last_event_ = 0;   // when anything was last printed (a phase starts at the event before it)
  double compile_start_ = -1, gate_start_ = -1, last_plain_ = -1;

  double now() const;
  double eta(double t) const;
  void clear();
  void draw();
  void plainProgress(double t, bool compiling);
  void line(std::ostream& os, const std::string& text);
};

}  // namespace klineage
