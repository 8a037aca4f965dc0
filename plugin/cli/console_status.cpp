#include "console_status.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "gate/gate.h"

namespace klineage {

namespace {
constexpr double kPlainEvery = 30;  // seconds between plain "gated n/m" lines

size_t terminalWidth() {
  struct winsize ws {};
  return ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 ? ws.ws_col : 0;
}
}  // namespace

ProgressMode progressMode(const char* env, bool stdout_is_tty) {
  const std::string e = env ? env : "";
  if (e == "plain") return ProgressMode::Plain;
  if (e == "live") return ProgressMode::Live;
  return stdout_is_tty ? ProgressMode::Live : ProgressMode::Plain;
}

std::string formatEta(double seconds) {
  if (!(seconds >= 0) || !std::isfinite(seconds)) return "";
  const long s = std::lround(seconds);
  char buf[32];
  if (s < 60) std::snprintf(buf, sizeof buf, "~%lds", s);
  else if (s < 3600) std::snprintf(buf, sizeof buf, "~%ldm%02lds", s / 60, s % 60);
  else std::snprintf(buf, sizeof buf, "~%ldh%02ldm", s / 3600, (s % 3600) / 60);
  return buf;
}

double estimateEta(double elapsed_s, size_t done, size_t total) {
  if (done >= total) return 0;
  if (done == 0 || elapsed_s < 0) return -1;
  return elapsed_s / static_cast<double>(done) * static_cast<double>(total - done);
}

std::string progressText(size_t compiled, size_t compile_total, size_t gated, size_t gate_total,
                         const std::string& kernel, double eta_s) {
  std::string t = "[compiled " + std::to_string(compiled) + "/" + std::to_string(compile_total);
  if (gate_total) t += " \xC2\xB7 gated " + std::to_string(gated) + "/" + std::to_string(gate_total);  // once gating began
  t += "]";
  if (!kernel.empty()) t += " " + kernel;
  const std::string eta = formatEta(eta_s);
  if (!eta.empty()) t += "  " + eta + " left";
  return t;
}

ConsoleStatus::ConsoleStatus()
    : ConsoleStatus(std::cout, std::cerr, progressMode(std::getenv("KLINEAGE_PROGRESS"), isatty(STDOUT_FILENO)), {},
                    isatty(STDOUT_FILENO) ? terminalWidth() : 0) {}

ConsoleStatus::ConsoleStatus(std::ostream& out, std::ostream& err, ProgressMode mode, Clock clock, size_t width)
    : out_(out), err_(err), mode_(mode), clock_(std::move(clock)), width_(width) {
  last_event_ = now();
}

ConsoleStatus::~ConsoleStatus() {
  std::lock_guard<std::mutex> lock(m_);
  clear();
}

double ConsoleStatus::now() const {
  if (clock_) return clock_();
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Gating's estimate once it has begun, else the compiles'.
double ConsoleStatus::eta(double t) const {
  if (gate_start_ >= 0) return estimateEta(t - gate_start_, gated_, gate_total_);
  if (compile_start_ >= 0) return estimateEta(t - compile_start_, compiled_, compile_total_);
  return -1;
}

void ConsoleStatus::clear() {
  if (!shown_) return;
  out_ << "\r\033[K" << std::flush;
  shown_ = false;
}

void ConsoleStatus::draw() {
  if (mode_ != ProgressMode::Live) return;
  // Shown while compiles or gate runs are under way; gone once every variant has its outcome.
  const bool busy = gate_total_ ? gated_ < gate_total_ : compiled_ < compile_total_;
  if (!busy) {
    clear();
    return;
  }
  std::string text = progressText(compiled_, compile_total_, gated_, gate_total_, kernel_, eta(now()));
  if (width_ > 1 && text.size() >= width_) text = text.substr(0, width_ - 1);
  out_ << "\r\033[K" << text << std::flush;
  shown_ = true;
}

void ConsoleStatus::line(std::ostream& os, const std::string& text) {
  const bool redraw = shown_;
  clear();
  os << text << std::endl;
  last_event_ = now();
  if (redraw) draw();
}

void ConsoleStatus::plainProgress(double t, bool compiling) {
  if (mode_ != ProgressMode::Plain) return;
  if (last_plain_ < 0) last_plain_ = t;
  if (t - last_plain_ < kPlainEvery) return;
  const bool all = compiling ? compiled_ >= compile_total_ : gated_ >= gate_total_;
  if (all) return;
  last_plain_ = t;
  const std::string eta_text = formatEta(eta(t));
  out_ << "klineage: " << (compiling ? "compiled " + std::to_string(compiled_) + "/" + std::to_string(compile_total_)
                                     : "gated " + std::to_string(gated_) + "/" + std::to_string(gate_total_))
       << (eta_text.empty() ? "" : ", " + eta_text + " left") << std::endl;
}

void ConsoleStatus::info(const std::string& l) {
  std::lock_guard<std::mutex> lock(m_);
  line(out_, l);
}
void ConsoleStatus::warning(const std::string& l) {
  std::lock_guard<std::mutex> lock(m_);
  line(err_, "klineage: warning: " + l);
}
void ConsoleStatus::error(const std::string& l) {
  std::lock_guard<std::mutex> lock(m_);
  line(err_, "klineage: error: " + l);
}

void ConsoleStatus::variantCompiled(const VariantReport& r, size_t done, size_t total) {
  std::lock_guard<std::mutex> lock(m_);
  const double t = now();
  if (compile_start_ < 0) compile_start_ = last_event_;  // the compiles began at the line before
  compiled_ = done;
  compile_total_ = total;
  kernel_ = r.variant.kernel;
  last_event_ = t;
  plainProgress(t, true);
  draw();
}

void ConsoleStatus::variantFinished(const VariantReport& r, size_t done, size_t total) {
  std::lock_guard<std::mutex> lock(m_);
  if (gate_start_ < 0) gate_start_ = last_event_;  // gating began after the last compile
  gated_ = done;
  gate_total_ = total;
  kernel_ = r.variant.kernel;
  clear();
  out_ << progressLine(r) << std::endl;
  const double t = now();
  last_event_ = t;
  plainProgress(t, false);
  draw();
}

}  // namespace klineage
