// The live progress line of `ninja optimize` (plugin/cli/console_status.h): its text, the ETA
// arithmetic, the redraw around other lines on a terminal, and plain lines (no '\r') otherwise.
#include <catch2/catch.hpp>

#include <sstream>

#include "console_status.h"

using namespace klineage;

namespace {

VariantReport variant(const std::string& kernel, int n, Outcome o = Outcome::Passed) {
  VariantReport r;
  r.variant.id = kernel + "/" + std::to_string(n);
  r.variant.kernel = kernel;
  r.variant.skills = {"restrict"};
  r.outcome = o;
  r.speedup = 1.1;
  return r;
}

size_t count(const std::string& s, const std::string& part) {
  size_t n = 0;
  for (size_t p = s.find(part); p != std::string::npos; p = s.find(part, p + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("progress: ETA text and arithmetic", "[report][progress]") {
  CHECK(formatEta(-1) == "");
  CHECK(formatEta(0) == "~0s");
  CHECK(formatEta(45.4) == "~45s");
  CHECK(formatEta(100) == "~1m40s");
  CHECK(formatEta(120) == "~2m00s");
  CHECK(formatEta(7500) == "~2h05m");
  CHECK(estimateEta(10, 0, 22) < 0);      // nothing finished: unknown
  CHECK(estimateEta(10, 5, 22) == Approx(34));  // 2 s each, 17 left
  CHECK(estimateEta(10, 22, 22) == 0);
  CHECK(progressText(12, 22, 5, 22, "saxpy", 100) == "[compiled 12/22 \xC2\xB7 gated 5/22] saxpy  ~1m40s left");
  CHECK(progressText(3, 22, 0, 0, "relu", -1) == "[compiled 3/22] relu");
}

TEST_CASE("progress: KLINEAGE_PROGRESS forces the mode, else a terminal gets the live line", "[report][progress]") {
  CHECK(progressMode(nullptr, true) == ProgressMode::Live);
  CHECK(progressMode(nullptr, false) == ProgressMode::Plain);
  CHECK(progressMode("", true) == ProgressMode::Live);
  CHECK(progressMode("plain", true) == ProgressMode::Plain);
  CHECK(progressMode("live", false) == ProgressMode::Live);
}

TEST_CASE("progress: on a terminal one live line, cleared before every other line and redrawn", "[report][progress]") {
  std::ostringstream out, err;
  double t = 0;
  {
    ConsoleStatus s(out, err, ProgressMode::Live, [&] { return t; });
    s.info("klineage: compiling 2 variants");  // t = 0: the compiles start here
    t = 10;
    s.variantCompiled(variant("saxpy", 1), 1, 2);
    CHECK(out.str().find("\r\033[K[compiled 1/2] saxpy  ~10s left") != std::string::npos);
    t = 20;
    s.variantCompiled(variant("saxpy", 2), 2, 2);
    s.info("klineage: gating on Fake GPU");    // t = 20: gating starts here
    t = 26;
    s.variantFinished(variant("saxpy", 1), 1, 3);
    const std::string before = out.str();
    CHECK(before.find("[compiled 2/2 \xC2\xB7 gated 1/3] saxpy  ~12s left") != std::string::npos);
    s.warning("something to look at");
    // the live line went away (on stdout) before the warning, and came back after it
    CHECK(out.str().substr(before.size()) == "\r\033[K\r\033[K[compiled 2/2 \xC2\xB7 gated 1/3] saxpy  ~12s left");
    CHECK(err.str() == "klineage: warning: something to look at\n");
    t = 30;
    s.variantFinished(variant("relu", 2), 2, 3);
    s.variantFinished(variant("relu", 3, Outcome::Slower), 3, 3);
    s.info("klineage: 3 variants");
  }
  const std::string o = out.str();
  // every permanent line starts on a cleared line; nothing is left after the last one
  CHECK(count(o, "saxpy  restrict  passed") == 1);
  CHECK(o.size() >= std::string("klineage: 3 variants\n").size());
  CHECK(o.substr(o.size() - std::string("klineage: 3 variants\n").size()) == "klineage: 3 variants\n");
  for (size_t p = o.find('\n'); p != std::string::npos; p = o.find('\n', p + 1)) {
    // a newline never ends a live line (which would leave it in the scrollback)
    const size_t start = o.rfind('\n', p - 1);
    const std::string l = o.substr(start == std::string::npos ? 0 : start + 1, p - (start == std::string::npos ? 0 : start + 1));
    const size_t cr = l.rfind('\r');
    INFO(l);
    CHECK((cr == std::string::npos || l.substr(cr).rfind("\r\033[K", 0) == 0));
    CHECK(l.substr(cr == std::string::npos ? 0 : cr).find("[compiled") == std::string::npos);  // what stays visible
  }
}

TEST_CASE("progress: plain mode prints no carriage return, and now and then how far it is", "[report][progress]") {
  std::ostringstream out, err;
  double t = 0;
  ConsoleStatus s(out, err, ProgressMode::Plain, [&] { return t; });
  s.info("klineage: compiling 2 variants");
  t = 1;
  s.variantCompiled(variant("saxpy", 1), 1, 2);
  s.variantCompiled(variant("saxpy", 2), 2, 2);
  s.info("klineage: gating");
  for (size_t i = 1; i <= 4; ++i) {
    t += 20;
    s.variantFinished(variant("saxpy", static_cast<int>(i)), i, 4);
    s.warning("w");
  }
  const std::string o = out.str();
  CHECK(o.find('\r') == std::string::npos);
  CHECK(o.find("\033") == std::string::npos);
  CHECK(count(o, "saxpy  restrict  passed") == 4);
  // 20 s per variant: after the second (41 s), 2 left
  CHECK(o.find("klineage: gated 2/4, ~40s left\n") != std::string::npos);
  CHECK(count(o, "klineage: gated") == 1);  // at most every 30 s, never when all are done
}
