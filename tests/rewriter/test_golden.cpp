// Golden tests for every transform, both directions, from each transform's own folder,
// rewriter/transforms/<id>/golden/ (the folders are discovered; each must name a registered
// transform and hold <id>.cpp and <id>.md too):
//   <case>.in.cu + <case>.out.cu            forward(in) == out and inverse(out) == in
//   <case>.fwd-only.in.cu + .fwd-only.out.cu  forward(in) == out only
//   <case>.inv-only.in.cu + .inv-only.out.cu  inverse(in) == out only: an expert's own spelling
//                                           (not forward's) simplified by the de-optimization
//   <case>.noop.cu                          forward makes no edit, for the reason the case names
// Each file holds one kernel named k. A line `// golden: key=value ...` sets transform params
// (values may be quoted: key="two words"); the key block_size sets TransformFacts.block_size, the key block
// ("16x16", "32x8x1") TransformFacts.block and block_size (default: block_size 256, block unknown;
// block_size=none leaves it unknown). Every no-op case names the refusal it expects with
// `// golden: refuses="<part of the reason>"`: the case fails when forward refuses for another one.
// KLINEAGE_UPDATE_GOLDEN=1 writes what forward produces over the .out.cu files (review the diff!);
// KLINEAGE_GOLDEN_ONLY=<id>[,<id>...] runs only those transforms' cases.
// The gate's oracle, promote-precision (rewriter/oracle/promote_precision.h), is not a registered
// transform: its cases, in rewriter/oracle/golden/, are forward-only and no-op cases checked by the
// same machinery, the pass found through promotePrecision() (KLINEAGE_GOLDEN_ONLY=promote-precision).
// The canonicalization passes (rewriter/canonical/canonical.h) are not registered transforms either:
// each has its folder rewriter/canonical/<id>/ with forward-only and no-op cases.
#include <catch2/catch.hpp>

#include "support/toolchain.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>

#include "core/flags.h"
#include "core/fs.h"
#include "rewriter/apply.h"
#include "rewriter/canonical/canonical.h"
#include "rewriter/oracle/promote_precision.h"
#include "rewriter/parse.h"
#include "rewriter/transform.h"

using namespace klineage;
namespace fs = std::filesystem;

namespace {

const fs::path kTransformsDir = fs::path(KLINEAGE_SOURCE_DIR) / "rewriter" / "transforms";

const fs::path kOracleDir = fs::path(KLINEAGE_SOURCE_DIR) / "rewriter" / "oracle";

const fs::path kCanonicalDir = fs::path(KLINEAGE_SOURCE_DIR) / "rewriter" / "canonical";

// The oracle's id: its cases live in rewriter/oracle/golden and it is found through promotePrecision().
bool isOracle(const std::string& id) { return id == promotePrecision().id(); }

fs::path goldenDir(const std::string& id) {
  if (isOracle(id)) return kOracleDir / "golden";
  if (findCanonicalPass(id)) return kCanonicalDir / id / "golden";
  return kTransformsDir / id / "golden";
}

const Transform* transformFor(const std::string& id) {
  if (isOracle(id)) return &promotePrecision();
  if (const Transform* c = findCanonicalPass(id)) return c;
  return findTransform(id);
}

const std::vector<std::string>& clangArgs() {
  static const std::vector<std::string> args = [] {
    ClangParseSetup setup;
    setup.cuda_path = klineage::test::cudaHome();  // CUDA_HOME, like the product
    setup.resource_dir = klineage::test::clangResourceDir();  // KLINEAGE_CLANG_RESOURCE_DIR
    setup.compat_dir = std::string(KLINEAGE_SOURCE_DIR) + "/rewriter/compat";
    return clangArgsFor(CudaFlags{}, setup);
  }();
  return args;
}

enum class Kind { RoundTrip, ForwardOnly, InverseOnly, Noop };

struct GoldenCase {
  std::string id, name;
  Kind kind;
  fs::path in, out;  // out empty for Noop
};

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::vector<GoldenCase> casesOf(const std::string& id) {
  std::vector<GoldenCase> cases;
  fs::path dir = goldenDir(id);
  if (!fs::is_directory(dir)) return cases;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    std::string n = f.filename().string();
    if (endsWith(n, ".noop.cu")) {
      cases.push_back({id, n.substr(0, n.size() - 8), Kind::Noop, f, {}});
    } else if (endsWith(n, ".inv-only.in.cu")) {
      std::string base = n.substr(0, n.size() - 15);
      cases.push_back({id, base, Kind::InverseOnly, f, dir / (base + ".inv-only.out.cu")});
    } else if (endsWith(n, ".fwd-only.in.cu")) {
      std::string base = n.substr(0, n.size() - 15);
      cases.push_back({id, base, Kind::ForwardOnly, f, dir / (base + ".fwd-only.out.cu")});
    } else if (endsWith(n, ".in.cu")) {
      std::string base = n.substr(0, n.size() - 6);
      cases.push_back({id, base, Kind::RoundTrip, f, dir / (base + ".out.cu")});
    }
  }
  return cases;
}

struct Setup {
  TransformParams params;
  TransformFacts facts;
  std::optional<std::string> refuses;  // the part of the reason a no-op case expects
};

// `key=value key="quoted value" ...` after `// golden:`.
std::vector<std::pair<std::string, std::string>> goldenKeys(const std::string& rest) {
  std::vector<std::pair<std::string, std::string>> out;
  size_t p = 0;
  auto blank = [&](size_t q) { return q < rest.size() && std::isspace(static_cast<unsigned char>(rest[q])); };
  while (p < rest.size()) {
    while (blank(p)) ++p;
    if (p >= rest.size()) break;
    size_t eq = rest.find('=', p);
    size_t ws = p;
    while (ws < rest.size() && !blank(ws)) ++ws;
    if (eq == std::string::npos || eq > ws) {  // a word without '=': not a key
      p = ws;
      continue;
    }
    std::string key = rest.substr(p, eq - p), value;
    p = eq + 1;
    if (p < rest.size() && rest[p] == '"') {
      size_t close = rest.find('"', p + 1);
      if (close == std::string::npos) close = rest.size();
      value = rest.substr(p + 1, close - p - 1);
      p = close + 1;
    } else {
      size_t end = p;
      while (end < rest.size() && !blank(end)) ++end;
      value = rest.substr(p, end - p);
      p = end;
    }
    out.emplace_back(key, value);
  }
  return out;
}

Setup setupFor(const std::string& text) {
  Setup s;
  s.facts.block_size = 256;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    auto p = line.find("// golden:");
    if (p == std::string::npos) continue;
    for (const auto& [k, v] : goldenKeys(line.substr(p + 10))) {
      if (k == "block_size") {
        if (v == "none") s.facts.block_size.reset();
        else s.facts.block_size = std::stoll(v);
      } else if (k == "block") {  // a block shape, "16x16" or "32x8x1": TransformFacts.block
        Dim3 d;
        REQUIRE(std::sscanf(v.c_str(), "%lldx%lldx%lld", &d.x, &d.y, &d.z) >= 2);
        s.facts.block = d;
        s.facts.block_size = d.x * d.y * d.z;
      } else if (k == "refuses") {
        s.refuses = v;
      } else {
        s.params[k] = v;
      }
    }
  }
  return s;
}

std::string fakePath(const GoldenCase& c) { return "/tmp/klineage-golden/" + c.id + "/" + c.name + ".cu"; }

StepResult step(const GoldenCase& c, const std::string& text, Direction dir, const Setup& s) {
  const Transform* t = transformFor(c.id);
  REQUIRE(t != nullptr);
  std::string path = fakePath(c);
  Overlay overlay{{path, text}};
  ArgsByFile args{{path, clangArgs()}};
  return applyStep(overlay, args, path, "k", *t, dir, s.params, s.facts);
}

std::string errorsOf(const StepResult& r) {
  std::string s;
  for (const auto& e : r.errors) s += "\n  " + e;
  return s;
}

// The golden text itself must parse cleanly with clang (nvcc is checked separately).
void requireParses(const GoldenCase& c, const std::string& text, const std::string& which) {
  std::string path = fakePath(c);
  ParsedUnit pu = parseUnit(path, clangArgs(), Overlay{{path, text}});
  std::string errs;
  for (const auto& e : pu.errors) errs += "\n  " + e;
  INFO(c.id << "/" << c.name << " (" << which << ") does not parse:" << errs);
  REQUIRE(pu.ast);
  REQUIRE(pu.error_count == 0);
}

void compare(const GoldenCase& c, const char* what, const std::string& expected, const StepResult& r) {
  INFO(c.id << "/" << c.name << " " << what << ": " << r.reason << errorsOf(r));
  REQUIRE(r.applied);
  StepResult copy = r;
  const std::string& got = copy.overlay[fakePath(c)];
  if (got != expected) FAIL_CHECK("text differs from the golden file (- golden, + produced):\n" << describeDiff(expected, got, 2));
  else SUCCEED();
}

struct Counts {
  unsigned forward = 0, inverse = 0, noop = 0;
};

// One golden case: a no-op case must be refused for the reason it names; a forward case must give
// its .out.cu, and a round trip's inverse must give its .in.cu back.
void checkCase(const GoldenCase& c, Counts& n) {
  std::string in = readFile(c.in);
  Setup s = setupFor(in);
  requireParses(c, in, "input");
  if (c.kind == Kind::Noop) {
    StepResult r = step(c, in, Direction::Forward, s);
    INFO(c.id << "/" << c.name << ".noop: " << r.reason << errorsOf(r));
    CHECK_FALSE(r.applied);
    CHECK(!r.reason.empty());
    CHECK(r.errors.empty());  // refused by the transform, not by a failed re-parse
    INFO("a no-op case names its expected refusal: // golden: refuses=\"<part of the reason>\"");
    REQUIRE(s.refuses);
    CHECK_FALSE(s.refuses->empty());
    CHECK_THAT(r.reason, Catch::Contains(*s.refuses));
    ++n.noop;
    return;
  }
  INFO("expected golden output " << c.out.string());
  if (c.kind == Kind::InverseOnly) {
    REQUIRE(fs::exists(c.out));
    std::string out = readFile(c.out);
    requireParses(c, out, "output");
    compare(c, "inverse", out, step(c, in, Direction::Inverse, s));
    ++n.inverse;
    return;
  }
  if (const char* u = std::getenv("KLINEAGE_UPDATE_GOLDEN"); u && std::string(u) == "1") {
    StepResult r = step(c, in, Direction::Forward, s);
    if (r.applied) atomicWrite(c.out, r.overlay[fakePath(c)]);
  }
  REQUIRE(fs::exists(c.out));
  std::string out = readFile(c.out);
  requireParses(c, out, "output");
  const StepResult fwd = step(c, in, Direction::Forward, s);
  compare(c, "forward", out, fwd);
  ++n.forward;
  if (c.kind == Kind::RoundTrip) {
    // The inverse sees the kernel as forward launches it (tile-transpose: 32 x 8 blocks).
    Setup si = s;
    if (auto shape = s.facts.shape(); shape && fwd.applied) {
      si.facts.block = applyBlock(fwd.geometry, *shape);
      si.facts.block_size = si.facts.block->x * si.facts.block->y * si.facts.block->z;
    }
    compare(c, "inverse", in, step(c, out, Direction::Inverse, si));
    ++n.inverse;
  }
}

}  // namespace

TEST_CASE("golden: every transform has forward and no-op cases", "[golden]") {
  for (const std::string& id : transformIds()) {
    INFO("transform " << id << " (golden dir " << goldenDir(id).string() << ")");
    auto cases = casesOf(id);
    CHECK(std::count_if(cases.begin(), cases.end(), [](const GoldenCase& c) { return c.kind != Kind::Noop; }) >= 1);
    CHECK(std::count_if(cases.begin(), cases.end(), [](const GoldenCase& c) { return c.kind == Kind::Noop; }) >= 1);
    CHECK(std::count_if(cases.begin(), cases.end(), [](const GoldenCase& c) { return c.kind == Kind::RoundTrip; }) >= 1);
  }
}

TEST_CASE("golden: each transform has its folder, and each folder names a transform", "[golden]") {
  REQUIRE(fs::is_directory(kTransformsDir));
  auto ids = transformIds();
  std::vector<std::string> folders;
  for (const auto& e : fs::directory_iterator(kTransformsDir))
    if (e.is_directory()) folders.push_back(e.path().filename().string());
  for (const std::string& f : folders) {
    INFO("folder rewriter/transforms/" << f);
    CHECK(std::find(ids.begin(), ids.end(), f) != ids.end());
  }
  for (const std::string& id : ids) {
    INFO("transform " << id);
    CHECK(std::find(folders.begin(), folders.end(), id) != folders.end());
    CHECK(fs::is_regular_file(kTransformsDir / id / (id + ".cpp")));
    CHECK(fs::is_regular_file(kTransformsDir / id / (id + ".md")));
    CHECK(fs::is_directory(goldenDir(id)));
  }
}

TEST_CASE("golden: forward and inverse match the golden files", "[golden]") {
  Counts n;
  // KLINEAGE_GOLDEN_ONLY=<id>[,<id>...]: only these transforms' cases (while working on one).
  const char* only = std::getenv("KLINEAGE_GOLDEN_ONLY");
  for (const std::string& id : transformIds()) {
    if (only && ("," + std::string(only) + ",").find("," + id + ",") == std::string::npos) continue;
    for (const GoldenCase& c : casesOf(id)) checkCase(c, n);
  }
  if (only) return;
  CHECK(n.forward >= 8);
  CHECK(n.inverse >= 4);
  CHECK(n.noop >= 8);
}

TEST_CASE("golden: the promote-precision oracle matches its golden files", "[golden]") {
  const Transform& t = promotePrecision();
  REQUIRE(t.id() == "promote-precision");
  // Not a lineage step: no skill can name it, and it has no inverse.
  CHECK(findTransform(t.id()) == nullptr);
  auto ids = transformIds();
  CHECK(std::find(ids.begin(), ids.end(), t.id()) == ids.end());
  CHECK(fs::is_regular_file(kOracleDir / "promote_precision.cpp"));
  CHECK(fs::is_regular_file(kOracleDir / "promote-precision.md"));
  auto cases = casesOf(t.id());
  CHECK(std::count_if(cases.begin(), cases.end(), [](const GoldenCase& c) { return c.kind == Kind::RoundTrip; }) == 0);
  const char* only = std::getenv("KLINEAGE_GOLDEN_ONLY");
  if (only && ("," + std::string(only) + ",").find("," + t.id() + ",") == std::string::npos) return;
  Counts n;
  for (const GoldenCase& c : cases) {
    checkCase(c, n);
    if (c.kind != Kind::ForwardOnly) continue;
    // The oracle is never undone: inverse refuses, whatever it is given.
    StepResult r = step(c, readFile(c.out), Direction::Inverse, setupFor(readFile(c.in)));
    INFO(c.name << " inverse: " << r.reason);
    CHECK_FALSE(r.applied);
    CHECK_THAT(r.reason, Catch::Contains("has no inverse"));
  }
  CHECK(n.forward >= 10);
  CHECK(n.noop >= 8);
}

TEST_CASE("golden: each canonicalization pass matches its golden files", "[golden]") {
  const char* only = std::getenv("KLINEAGE_GOLDEN_ONLY");
  auto ids = transformIds();
  std::vector<std::string> folders;
  for (const auto& e : fs::directory_iterator(kCanonicalDir))
    if (e.is_directory()) folders.push_back(e.path().filename().string());
  CHECK(folders.size() == canonicalPasses().size());
  for (const Transform* t : canonicalPasses()) {
    const std::string id = t->id();
    INFO("canonicalization pass " << id);
    // Not a lineage step: no skill can name it.
    CHECK(findTransform(id) == nullptr);
    CHECK(std::find(folders.begin(), folders.end(), id) != folders.end());
    CHECK(fs::is_regular_file(kCanonicalDir / id / (id + ".cpp")));
    CHECK(fs::is_regular_file(kCanonicalDir / id / (id + ".md")));
    auto cases = casesOf(id);
    CHECK(std::count_if(cases.begin(), cases.end(), [](const GoldenCase& c) { return c.kind == Kind::ForwardOnly; }) >= 3);
    CHECK(std::count_if(cases.begin(), cases.end(), [](const GoldenCase& c) { return c.kind == Kind::Noop; }) >= 2);
    CHECK(std::count_if(cases.begin(), cases.end(), [](const GoldenCase& c) { return c.kind == Kind::RoundTrip; }) == 0);
    if (only && ("," + std::string(only) + ",").find("," + id + ",") == std::string::npos) continue;
    Counts n;
    for (const GoldenCase& c : cases) {
      checkCase(c, n);
      if (c.kind != Kind::ForwardOnly) continue;
      StepResult r = step(c, readFile(c.out), Direction::Inverse, setupFor(readFile(c.in)));
      INFO(c.name << " inverse: " << r.reason);
      CHECK_FALSE(r.applied);
      CHECK_THAT(r.reason, Catch::Contains("has no inverse"));
    }
  }
}
