// The launch-site corpus (tests/rewriter/launch_sites/, see its README): launchers written the way
// CUDA programs write them. For every case: (1) extraction resolves the launch's geometry through
// the launching function (rewriter/launch_resolve.h) and it evaluates to the values the program
// computes for the header's arguments, with the resolved expressions in resolved.txt; or the
// refusal names the construct; (2) a geometry change is written at the launch (grid.x / 4, block
// 32 x 8), the rewritten file resolves to the changed geometry, and every rewritten file compiles
// with nvcc.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "apply.h"
#include "core/fs.h"
#include "core/launch_eval.h"
#include "extract.h"
#include "support/temp_dir.h"
#include "support/toolchain.h"

using namespace klineage;
namespace fs = std::filesystem;

namespace {

const fs::path kCorpus = fs::path(KLINEAGE_SOURCE_DIR) / "tests/rewriter/launch_sites";

struct Case {
  fs::path file;
  std::map<std::string, std::string> header;  // "kernel" -> "reduce", ...
  std::map<std::string, double> args;
  std::map<std::string, long long> launcher;
  std::string name() const { return file.filename().string(); }
  std::string get(const std::string& key) const {
    auto it = header.find(key);
    return it == header.end() ? "" : it->second;
  }
};

std::map<std::string, long long> pairs(const std::string& text) {
  std::map<std::string, long long> out;
  std::istringstream in(text);
  for (std::string kv; in >> kv;) {
    auto eq = kv.find('=');
    REQUIRE(eq != std::string::npos);
    out[kv.substr(0, eq)] = std::stoll(kv.substr(eq + 1));
  }
  return out;
}

Dim3 dims(const std::string& text) {
  std::istringstream in(text);
  Dim3 d;
  in >> d.x >> d.y >> d.z;
  return d;
}

std::vector<Case> corpus() {
  std::vector<Case> out;
  for (const auto& e : fs::directory_iterator(kCorpus))
    if (e.path().extension() == ".cu") {
      Case c;
      c.file = e.path();
      std::istringstream in(readFile(e.path().string()));
      for (std::string line; std::getline(in, line) && line.rfind("// ", 0) == 0;) {
        auto colon = line.find(": ");
        if (colon != std::string::npos) c.header[line.substr(3, colon - 3)] = line.substr(colon + 2);
      }
      for (const auto& [k, v] : pairs(c.get("args"))) c.args[k] = static_cast<double>(v);
      c.launcher = pairs(c.get("launcher"));
      out.push_back(c);
    }
  std::sort(out.begin(), out.end(), [](const Case& a, const Case& b) { return a.file < b.file; });
  return out;
}

// The case's launch site as extraction records it for `file` (the corpus file or a rewritten copy).
const LaunchSite* siteOf(const Manifest& m, const Case& c, const KernelInfo** kernel) {
  const KernelInfo* k = m.find(c.header.at("kernel"));
  if (!k) return nullptr;
  *kernel = k;
  const size_t index = c.header.count("site") ? std::stoul(c.header.at("site")) : 1;
  return index >= 1 && index <= k->launches.size() ? &k->launches[index - 1] : nullptr;
}

Manifest extractOne(const fs::path& file) {
  return extractManifest("corpus", {{file.string(), test::testClangArgs(file.parent_path().string())}});
}

std::string resolvedLine(const Case& c, const LaunchSite& l) { return c.name() + ": " + describeResolved(l); }

}  // namespace

TEST_CASE("launch-site corpus: at least 30 shapes, each with an expectation", "[launch_sites]") {
  const auto cases = corpus();
  CHECK(cases.size() >= 30);
  for (const auto& c : cases) {
    INFO(c.name());
    CHECK(c.header.count("kernel"));
    CHECK((c.header.count("refuse") + c.header.count("grid")) == 1);
  }
}

TEST_CASE("launch-site corpus: every launch resolves to the program's values, or is refused naming the construct",
          "[launch_sites]") {
  std::ostringstream lines;
  for (const auto& c : corpus()) {
    INFO(c.name() << " (" << c.get("shape") << ")");
    const Manifest m = extractOne(c.file);
    const KernelInfo* k = nullptr;
    const LaunchSite* l = siteOf(m, c, &k);
    REQUIRE(l);
    lines << resolvedLine(c, *l) << "\n";
    std::string why;
    auto g = evalLaunchSite(*l, *k, c.args, &why, c.launcher);
    if (c.header.count("refuse")) {
      CHECK_FALSE(g);
      const std::string reasons = l->grid_unresolved + " | " + l->block_unresolved + " | " + l->shmem_unresolved;
      INFO("resolver: " << reasons);
      CHECK(reasons.find(c.get("refuse")) != std::string::npos);
      continue;
    }
    INFO(describeResolved(*l) << "; " << why);
    REQUIRE(g);
    CHECK(g->grid == dims(c.get("grid")));
    CHECK(g->block == dims(c.get("block")));
    CHECK(g->shmem == std::stoull(c.get("shmem")));
  }
  // The expressions themselves, reviewed once and kept: a change in how a shape resolves shows here.
  const std::string golden = readFile((kCorpus / "resolved.txt").string());
  if (const char* update = std::getenv("KLINEAGE_UPDATE_GOLDEN"); update && *update)
    atomicWrite((kCorpus / "resolved.txt").string(), lines.str());
  CHECK(lines.str() == golden);
}

TEST_CASE("launch-site corpus: a geometry change is written at each launch, resolves as changed, and compiles",
          "[launch_sites]") {
  test::TempDir t("launch_sites");
  GeometryChange change;
  change.grid_x_divisor = 4;
  change.block_x = 32;
  change.block_y = 8;
  std::vector<std::string> rewritten;
  for (const auto& c : corpus()) {
    INFO(c.name());
    const std::string file = c.file.string();
    Overlay o;
    std::string why;
    unsigned n = 0;
    const bool ok = rewriteLaunches(o, {{file, test::testClangArgs(kCorpus.string())}}, c.header.at("kernel"), change,
                                    &why, &n);
    const Manifest before = extractOne(c.file);
    const KernelInfo* k = nullptr;
    const LaunchSite* l = siteOf(before, c, &k);
    REQUIRE(l);
    if (!l->not_rewritable.empty()) {
      INFO(why);
      CHECK_FALSE(ok);
      CHECK(why.find(l->not_rewritable) != std::string::npos);
      continue;
    }
    INFO(why);
    REQUIRE(ok);
    CHECK(n == k->launches.size());
    const fs::path out = t.path / c.file.filename();
    atomicWrite(out.string(), o.at(file));
    rewritten.push_back(out.filename().string());
    if (c.header.count("refuse")) continue;
    // The rewritten launch, resolved again, is the original's with the change applied.
    const Manifest after = extractOne(out);
    const KernelInfo* k2 = nullptr;
    const LaunchSite* l2 = siteOf(after, c, &k2);
    REQUIRE(l2);
    std::string w1, w2;
    auto g1 = evalLaunchSite(*l, *k, c.args, &w1, c.launcher);
    auto g2 = evalLaunchSite(*l2, *k2, c.args, &w2, c.launcher);
    INFO(describeResolved(*l2) << "; " << w2);
    REQUIRE(g1);
    REQUIRE(g2);
    CHECK(g2->grid == applyGrid(change, g1->grid));
    CHECK(g2->block == applyBlock(change, g1->block));
    CHECK(g2->shmem == g1->shmem);
  }
  CHECK(rewritten.size() >= 30);
  // Every rewritten file compiles (two at a time: nvcc is slow to start).
  std::string cmd = "cd '" + t.path.string() + "' && printf '%s\\n'";
  for (const auto& f : rewritten) cmd += " '" + f + "'";
  cmd += " | xargs -P 2 -I{} sh -c '\"" + test::nvccPath() + "\" -c -arch=sm_90 -o {}.o {} > {}.log 2>&1'";
  CHECK(std::system(cmd.c_str()) == 0);
  for (const auto& f : rewritten) {
    INFO(f << ": " << readFile((t.path / (f + ".log")).string()));
    CHECK(fs::exists(t.path / (f + ".o")));
  }
}
