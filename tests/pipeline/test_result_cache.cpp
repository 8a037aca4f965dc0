// The result cache and the no-op path of `klineage optimize` (result_cache.h, run_key.h) and the
// variants that are never gated twice (identical.h), on a copy of examples/quickstart with a
// compiler whose cubin is made of the source's text (so equal texts give equal machine code) and
// a GPU runner that counts what it is asked to run.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>

#include <nlohmann/json.hpp>

#include "core/fs.h"
#include "identical.h"
#include "optimize.h"
#include "result_cache.h"
#include "status.h"
#include "support/pipeline_project.h"
#include "support/temp_dir.h"

using klineage::test::Project;
namespace fs = std::filesystem;
using namespace klineage;

namespace {

// The cubin is the source's text without white space and its -D flags, without the words in
// `ignored` (they change nothing in the machine code, as __restrict__ often does not).
// compileAll calls compile() from several threads at once: what it records is guarded.
struct TextCompiler : Compiler {
  std::atomic<int> calls{0};
  std::vector<std::string> ignored;
  std::string fails_on;  // a source with this text does not compile
  std::mutex m;
  std::vector<std::string> compiled;  // each request's source, in the order they came
  CompileResult compile(const CompileRequest& req) override {
    ++calls;
    {
      std::lock_guard<std::mutex> lock(m);
      compiled.push_back(req.argv.back());
    }
    std::string text = readFile(req.argv.back());
    if (!fails_on.empty() && text.find(fails_on) != std::string::npos) return {false, "error: " + fails_on, 0.01};
    for (const auto& w : ignored)
      for (size_t at = text.find(w); at != std::string::npos; at = text.find(w, at)) text.erase(at, w.size());
    text.erase(std::remove_if(text.begin(), text.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); }),
               text.end());
    std::string flags;
    for (const auto& a : req.argv)
      if (a.rfind("-D", 0) == 0) flags += a + " ";
    atomicWrite(req.cubin, "flags: " + flags + "\n" + text);
    return {true, "", 0.01};
  }
};

// Every variant passes: 1.30x when it runs fewer threads (vectorized), else 1.05x.
struct CountingRunner : GpuRunner {
  std::string name = "Fake GPU", driver = "13.0", driver_version = "570.86.15";
  std::vector<RunnerJob> jobs;
  DeviceProbe probe() override {
    DeviceProbe d;
    d.available = true;
    d.device = name;
    d.arch = "sm_90";
    d.driver = driver;
    d.driver_version = driver_version;
    return d;
  }
  RunnerResult run(const RunnerJob& job, const std::string&, double) override {
    jobs.push_back(job);
    RunnerResult r;
    r.device = name;
    const bool vectorized = job.variant.grid.x * job.variant.block.x < job.original.grid.x * job.original.block.x;
    r.outcome = Outcome::Passed;
    klineage::test::setTimes(r, vectorized ? 1.30 : 1.05);
    return r;
  }
};

struct Run {
  int compiles = 0;
  size_t jobs = 0;
  RecordingStatus status;
  int rc = -1;
};

Run optimize(const Project& p, CountingRunner& gpu, TextCompiler& cc, bool result_cache = true) {
  Run run;
  const int compiles = cc.calls;
  const size_t jobs = gpu.jobs.size();
  OptimizeOptions opt;
  opt.config = p.config;
  opt.result_cache = result_cache;
  PipelineSeams seams;
  seams.compiler = &cc;
  seams.runner = &gpu;
  seams.status = &run.status;
  run.rc = runOptimize(opt, seams);
  run.compiles = cc.calls - compiles;
  run.jobs = gpu.jobs.size() - jobs;
  return run;
}

// Ids of the report's variants that were gated (not identical to another), by whether their
// result came from the result cache.
std::set<std::string> variants(const Project& p, bool cached) {
  std::set<std::string> ids;
  const nlohmann::json rep = p.report();
  for (const auto& v : rep["variants"])
    if (!v["variant"]["is_original"].get<bool>() && !v.contains("same_as") && v.value("cached", false) == cached)
      ids.insert(v["variant"]["id"].get<std::string>());
  return ids;
}

// The project's own copy of the skills these tests are about (the library may grow), so one can
// be edited too.
void useOwnSkills(const Project& p) {
  fs::create_directories(p.root / "skills");
  for (const char* id : {"grid-stride-loop", "vectorize-float4", "restrict-pointers", "launch-bounds", "block-size-128",
                         "block-size-512"})
    fs::copy_file(fs::path(KLINEAGE_SOURCE_DIR) / "skills" / (std::string(id) + ".toml"),
                  p.root / "skills" / (std::string(id) + ".toml"));
  p.setConfig("skills", {(p.root / "skills").string()});
}

std::string appendTo(const Project& p, const std::string& rel, const std::string& text) {
  return p.write(rel, readFile(p.root / rel) + text);
}

}  // namespace

TEST_CASE("result cache: a second run with nothing changed extracts, compiles and gates nothing", "[pipeline][cache]") {
  Project p(6);
  useOwnSkills(p);
  TextCompiler cc;
  CountingRunner gpu;
  const Run first = optimize(p, gpu, cc);
  REQUIRE(first.rc == 0);
  REQUIRE(first.jobs > 0);
  REQUIRE(first.compiles > 0);
  const std::string selection = readFile(p.root / "build/klineage/kernels/selection.json");
  const auto manifest_time = fs::last_write_time(p.root / "build/klineage/kernels/manifest.json");

  const Run second = optimize(p, gpu, cc);
  CHECK(second.rc == 0);
  CHECK(second.jobs == 0);
  CHECK(second.compiles == 0);
  CHECK(second.status.saw("nothing changed since the last run"));
  CHECK(second.status.saw("kept the selection"));
  CHECK(readFile(p.root / "build/klineage/kernels/selection.json") == selection);
  CHECK(fs::last_write_time(p.root / "build/klineage/kernels/manifest.json") == manifest_time);  // not extracted
}

TEST_CASE("result cache: any change of the key runs again, and only what it touched is gated", "[pipeline][cache]") {
  Project p(6);
  useOwnSkills(p);
  TextCompiler cc;
  CountingRunner gpu;
  const Run first = optimize(p, gpu, cc);
  REQUIRE(first.rc == 0);
  const std::set<std::string> all = variants(p, false);
  REQUIRE(all.size() >= 4);

  Run again;
  SECTION("a source edited: its kernels are gated again, the other file's come from the cache") {
    appendTo(p, "src/relu.cu", "\n// edited\n");
    again = optimize(p, gpu, cc);
    CHECK(again.jobs > 0);
    for (const auto& id : variants(p, true)) CHECK(id.rfind("saxpy/", 0) == 0);
    for (const auto& id : variants(p, false)) CHECK(id.rfind("relu/", 0) == 0);
    CHECK_FALSE(variants(p, true).empty());
  }
  SECTION("a header edited: extracted and compiled again, but the same machine code is not gated again") {
    appendTo(p, "include/kernels.h", "\n// edited\n");
    again = optimize(p, gpu, cc);
    CHECK(again.compiles > 0);
    CHECK(again.jobs == 0);
    CHECK(variants(p, true) == all);
    CHECK(again.status.saw("from the result cache"));
  }
  SECTION("a skill file edited: the variants made with that skill are gated again") {
    appendTo(p, "skills/grid-stride-loop.toml", "\n# edited\n");
    again = optimize(p, gpu, cc);
    CHECK(again.jobs > 0);
    for (const auto& id : variants(p, false)) {
      bool uses = false;
      const nlohmann::json rep = p.report();
      for (const auto& v : rep["variants"])
        if (v["variant"]["id"] == id)
          for (const auto& s : v["variant"]["skills"]) uses |= s == "grid-stride-loop";
      CHECK(uses);
    }
    CHECK_FALSE(variants(p, true).empty());
  }
  SECTION("another GPU model: every variant is gated again on it") {
    gpu.name = "Other GPU";
    again = optimize(p, gpu, cc);
    CHECK(again.jobs >= first.jobs);
    CHECK(variants(p, true).empty());
  }
  SECTION("another driver: every variant is gated again") {
    gpu.driver_version = "575.51.03";
    again = optimize(p, gpu, cc);
    CHECK(again.jobs >= first.jobs);
    CHECK(variants(p, true).empty());
  }
  SECTION("another CUDA version of the driver: every variant is gated again") {
    gpu.driver = "13.1";
    again = optimize(p, gpu, cc);
    CHECK(variants(p, true).empty());
  }
  SECTION("a compile flag changed: the machine code differs, so everything is gated again") {
    nlohmann::json cc_json = nlohmann::json::parse(readFile(p.root / "build/compile_commands.json"));
    for (auto& c : cc_json) c["arguments"].insert(c["arguments"].begin() + 1, "-DEDITED=1");
    atomicWrite(p.root / "build/compile_commands.json", cc_json.dump(2));
    again = optimize(p, gpu, cc);
    CHECK(again.jobs >= first.jobs);
    CHECK(variants(p, true).empty());
  }
  SECTION("--no-cache gates everything again, and runs even though nothing changed") {
    again = optimize(p, gpu, cc, false);
    CHECK(again.jobs == first.jobs);
    CHECK(again.compiles == first.compiles);
    CHECK(variants(p, true).empty());
  }
  SECTION("result_cache false in the config (KLINEAGE_RESULT_CACHE=OFF) does the same") {
    p.setConfig("result_cache", false);
    again = optimize(p, gpu, cc);
    CHECK(again.jobs == first.jobs);
    CHECK(variants(p, true).empty());
  }
  CHECK(again.rc == 0);
  CHECK_FALSE(again.status.saw("nothing changed"));
  CHECK(p.selection().sources.size() == 2);  // the winners are kept either way
}

TEST_CASE("result cache: an original is compiled again only when its source, a header or the flags changed",
          "[pipeline][cache]") {
  Project p(2);
  TextCompiler cc;
  CountingRunner gpu;
  const std::string saxpy = (p.root / "src/saxpy.cu").string(), relu = (p.root / "src/relu.cu").string();
  auto compiledNow = [&](size_t from, const std::string& src) {
    return std::count(cc.compiled.begin() + static_cast<long>(from), cc.compiled.end(), src);
  };
  REQUIRE(optimize(p, gpu, cc).rc == 0);
  REQUIRE(compiledNow(0, saxpy) == 2);  // its cubin and its host object
  size_t from = cc.compiled.size();
  // relu's source edited: relu's original is compiled again, saxpy's is the last run's
  std::string text = readFile(relu);
  text.replace(text.find("in[i] > 0.0f"), 12, "0.0f < in[i]");
  atomicWrite(relu, text);
  Run again = optimize(p, gpu, cc);
  REQUIRE(again.rc == 0);
  CHECK(compiledNow(from, saxpy) == 0);
  CHECK(compiledNow(from, relu) == 2);
  CHECK(again.status.saw("original cubins and host objects unchanged since the last run"));
  from = cc.compiled.size();
  // a header both include: both again
  appendTo(p, "include/kernels.h", "\n// edited\n");
  REQUIRE(optimize(p, gpu, cc).rc == 0);
  CHECK(compiledNow(from, saxpy) == 2);
  CHECK(compiledNow(from, relu) == 2);
  from = cc.compiled.size();
  // an output removed behind its stamp's back: compiled again
  size_t removed = 0;
  for (const auto& e : fs::recursive_directory_iterator(p.root / "build/klineage/kernels"))
    if (e.path().extension() == ".key" && e.path().string().find("saxpy") != std::string::npos &&
        e.path().string().find("/gate/saxpy/") == std::string::npos && !removed) {  // an original's, not a variant's
      fs::remove(e.path().parent_path() / e.path().stem());
      ++removed;
    }
  REQUIRE(removed == 1);
  appendTo(p, "src/relu.cu", "\n// edited again\n");  // not a no-op run
  REQUIRE(optimize(p, gpu, cc).rc == 0);
  CHECK(compiledNow(from, saxpy) == 1);
  // --no-cache compiles every original
  from = cc.compiled.size();
  REQUIRE(optimize(p, gpu, cc, false).rc == 0);
  CHECK(compiledNow(from, saxpy) == 2);
  CHECK(compiledNow(from, relu) == 2);
}

TEST_CASE("result cache: a variant or an oracle is compiled again only when its text, a header, the flags or its skills changed",
          "[pipeline][cache]") {
  Project p(6);
  useOwnSkills(p);
  TextCompiler cc;
  CountingRunner gpu;
  // the variants of `kernel` compiled since request `from` (their sources are under variants/<kernel>/)
  auto variantsCompiled = [&](size_t from, const std::string& kernel) {
    return std::count_if(cc.compiled.begin() + static_cast<long>(from), cc.compiled.end(), [&](const std::string& src) {
      return src.find("/variants/" + kernel + "/") != std::string::npos;
    });
  };
  // without the workload's `check`, each kernel gets an oracle (the original promoted to double)
  std::string toml = readFile(p.root / "klineage.toml");
  for (size_t at = toml.find("check = "); at != std::string::npos; at = toml.find("check = "))
    toml.erase(at, toml.find('\n', at) - at);
  p.write("klineage.toml", toml);
  // the oracles compiled since request `from`
  auto oracleCompiled = [&](size_t from, const std::string& kernel) {
    return std::count_if(cc.compiled.begin() + static_cast<long>(from), cc.compiled.end(), [&](const std::string& src) {
      return src.find("/oracle/" + kernel + "/") != std::string::npos;
    });
  };
  REQUIRE(optimize(p, gpu, cc).rc == 0);
  const long saxpy_variants = variantsCompiled(0, "saxpy");
  REQUIRE(saxpy_variants >= 2);
  REQUIRE(variantsCompiled(0, "relu") >= 1);
  REQUIRE(oracleCompiled(0, "saxpy") == 1);
  REQUIRE(oracleCompiled(0, "relu") == 1);
  // relu edited: relu's variants again, none of saxpy's (their cubins and results are the last run's)
  size_t from = cc.compiled.size();
  std::string text = readFile(p.root / "src/relu.cu");
  text.replace(text.find("in[i] > 0.0f"), 12, "0.0f < in[i]");
  atomicWrite(p.root / "src/relu.cu", text);
  Run again = optimize(p, gpu, cc);
  REQUIRE(again.rc == 0);
  CHECK(variantsCompiled(from, "saxpy") == 0);
  CHECK(variantsCompiled(from, "relu") >= 1);
  CHECK(again.status.saw("unchanged since the last run are not compiled again"));
  CHECK(oracleCompiled(from, "saxpy") == 0);  // nor its oracle
  CHECK(oracleCompiled(from, "relu") == 1);
  CHECK(again.status.saw("compiling 1 oracle(s) (the originals promoted to double); 1 unchanged since the last run"));
  CHECK(variants(p, true).size() >= static_cast<size_t>(saxpy_variants));  // saxpy's from the result cache
  // a header both include: every variant again
  from = cc.compiled.size();
  appendTo(p, "include/kernels.h", "\n// edited\n");
  REQUIRE(optimize(p, gpu, cc).rc == 0);
  CHECK(variantsCompiled(from, "saxpy") == saxpy_variants);
  CHECK(oracleCompiled(from, "saxpy") == 1);
  // a variant's cubin removed behind its stamp: that one again
  from = cc.compiled.size();
  size_t removed = 0;
  for (const auto& e : fs::recursive_directory_iterator(p.root / "build/klineage/kernels/gate/saxpy"))
    if (e.path().extension() == ".key" && !removed) {
      fs::remove(e.path().parent_path() / e.path().stem());
      ++removed;
    }
  REQUIRE(removed == 1);
  appendTo(p, "src/relu.cu", "\n// edited again\n");  // not a no-op run
  REQUIRE(optimize(p, gpu, cc).rc == 0);
  CHECK(variantsCompiled(from, "saxpy") == 1);
  // a compile flag: every variant again
  from = cc.compiled.size();
  nlohmann::json cc_json = nlohmann::json::parse(readFile(p.root / "build/compile_commands.json"));
  for (auto& c : cc_json) c["arguments"].insert(c["arguments"].begin() + 1, "-DEDITED=1");
  atomicWrite(p.root / "build/compile_commands.json", cc_json.dump(2));
  REQUIRE(optimize(p, gpu, cc).rc == 0);
  CHECK(variantsCompiled(from, "saxpy") == saxpy_variants);
  CHECK(oracleCompiled(from, "saxpy") == 1);
  // an oracle's cubin removed behind its stamp: compiled again
  fs::remove(p.root / "build/klineage/kernels/oracle/saxpy/oracle.cubin");
  from = cc.compiled.size();
  appendTo(p, "src/relu.cu", "\n// edited once more\n");
  REQUIRE(optimize(p, gpu, cc).rc == 0);
  CHECK(oracleCompiled(from, "saxpy") == 1);
}

TEST_CASE("result cache: rewrites are remembered, so an edit re-parses only the edited file's steps, and makes the same variants",
          "[pipeline][cache]") {
  Project p(6);
  useOwnSkills(p);
  TextCompiler cc;
  CountingRunner gpu;
  // each variant's source text, by id; and the remembered rewrites per kernel
  auto sources = [&](const std::string& kernel) {
    std::map<std::string, std::string> out;
    const nlohmann::json rep = p.report();
    for (const auto& v : rep["variants"])
      if (!v["variant"]["is_original"].get<bool>() && v["variant"]["kernel"] == kernel)
        out[v["variant"]["id"].get<std::string>()] = readFile(v["variant"]["source"].get<std::string>());
    return out;
  };
  auto remembered = [&](const std::string& kernel) {
    size_t n = 0;
    for (const auto& e : fs::directory_iterator(p.root / "build/klineage/kernels/cache/results")) {
      if (e.path().extension() != ".json") continue;
      const nlohmann::json j = nlohmann::json::parse(readFile(e.path()));
      const std::string kind = j.value("kind", "");
      if ((kind == "rewrite step" && j.value("step", "").find(" on " + kernel) != std::string::npos) ||
          (kind == "normal form" && j.value("kernel", "") == kernel))
        ++n;
    }
    return n;
  };
  REQUIRE(optimize(p, gpu, cc).rc == 0);
  const auto saxpy_first = sources("saxpy");
  REQUIRE(saxpy_first.size() >= 2);
  const size_t saxpy_steps = remembered("saxpy"), relu_steps = remembered("relu");
  CHECK(saxpy_steps >= saxpy_first.size());
  CHECK(relu_steps >= 1);
  // relu edited: relu's steps are taken again (new entries), saxpy's answered from the cache
  std::string text = readFile(p.root / "src/relu.cu");
  text.replace(text.find("in[i] > 0.0f"), 12, "0.0f < in[i]");
  atomicWrite(p.root / "src/relu.cu", text);
  Run again = optimize(p, gpu, cc);
  REQUIRE(again.rc == 0);
  CHECK_FALSE(again.status.saw("ignoring the remembered rewrite"));
  CHECK(remembered("saxpy") == saxpy_steps);
  CHECK(remembered("relu") > relu_steps);
  CHECK(sources("saxpy") == saxpy_first);  // the same variants, to the byte
  // without the cache every step is taken by Clang: the same variants again
  REQUIRE(optimize(p, gpu, cc, false).rc == 0);
  CHECK(sources("saxpy") == saxpy_first);
  // a remembered answer that cannot be read is taken again, with a warning
  for (const auto& e : fs::directory_iterator(p.root / "build/klineage/kernels/cache/results"))
    if (e.path().extension() == ".json" && readFile(e.path()).find("\"normal form\"") != std::string::npos)
      atomicWrite(e.path(), "{\"format\": 999999");
  appendTo(p, "src/relu.cu", "\n// edited again\n");
  Run third = optimize(p, gpu, cc);
  REQUIRE(third.rc == 0);
  CHECK(third.status.saw("ignoring the result cache entry"));
  CHECK(sources("saxpy") == saxpy_first);
}

TEST_CASE("result cache: a winner from another GPU is gated on this one before it is kept", "[pipeline][cache]") {
  Project p(6);
  useOwnSkills(p);
  TextCompiler cc;
  CountingRunner gpu;
  REQUIRE(optimize(p, gpu, cc).rc == 0);
  REQUIRE(p.selection().sources.size() == 2);
  // On the other GPU every variant is wrong: nothing from the first GPU survives.
  struct WrongRunner : CountingRunner {
    RunnerResult run(const RunnerJob& job, const std::string& wd, double t) override {
      RunnerResult r = CountingRunner::run(job, wd, t);
      r.outcome = Outcome::WrongResult;
      r.reason = "y[0]: expected 1, got 2";
      return r;
    }
  } other;
  other.name = "Other GPU";
  TextCompiler cc2;
  const Run run = optimize(p, other, cc2);
  CHECK(run.rc == 0);
  CHECK(run.jobs > 0);
  CHECK(p.selection().sources.empty());
  CHECK(variants(p, true).empty());
}

TEST_CASE("result cache: a corrupt entry or run record is a warning naming the file, and is ignored", "[pipeline][cache]") {
  Project p(6);
  useOwnSkills(p);
  TextCompiler cc;
  CountingRunner gpu;
  const Run first = optimize(p, gpu, cc);
  REQUIRE(first.rc == 0);
  const fs::path out = p.root / "build/klineage/kernels";
  std::vector<fs::path> entries;  // a gated variant's results (the cache also remembers rewrites)
  for (const auto& e : fs::directory_iterator(out / "cache/results"))
    if (readFile(e.path()).find("\"outcome\": \"passed\"") != std::string::npos) entries.push_back(e.path());
  std::sort(entries.begin(), entries.end());
  REQUIRE(entries.size() >= 4);
  atomicWrite(entries[0], "{\"format\": 1, \"key\": ");  // cut off
  atomicWrite(out / "cache/last-run.json", "not json");

  const Run second = optimize(p, gpu, cc);
  CHECK(second.rc == 0);
  CHECK(second.status.saw("warning: ignoring " + (out / "cache/last-run.json").string()));
  CHECK(second.status.saw("warning: ignoring the result cache entry " + entries[0].string()));
  CHECK(second.jobs >= 1);           // that variant (and a winner's re-check), nothing else
  CHECK(second.jobs < first.jobs);
  CHECK(variants(p, false).size() == 1);
  CHECK(p.selection().sources.size() == 2);
  CHECK_NOTHROW(nlohmann::json::parse(readFile(entries[0])));  // written again whole
  CHECK(optimize(p, gpu, cc).status.saw("nothing changed since the last run"));
}

TEST_CASE("identical variants: the same machine code and launch is gated once, never as faster than itself",
          "[pipeline][identical]") {
  Project p(16);
  useOwnSkills(p);
  TextCompiler cc;
  cc.ignored = {"__restrict__", "__launch_bounds__(256)"};  // what these skills add changes no code here
  CountingRunner gpu;
  const Run run = optimize(p, gpu, cc);
  REQUIRE(run.rc == 0);
  // No cubin was gated twice for a kernel (timed jobs; the winner's re-check is not timed).
  std::set<std::string> gated;
  size_t timed = 0;
  for (const auto& j : gpu.jobs)
    if (j.profile.enabled) {
      ++timed;
      gated.insert(j.variant.function + "\n" + nlohmann::json(j.variant.grid).dump() +
                   nlohmann::json(j.variant.block).dump() + readFile(j.variant.cubin));
    }
  CHECK(gated.size() == timed);
  unsigned same_as_original = 0, same_as_other = 0;
  const nlohmann::json rep = p.report();
  for (const auto& v : rep["variants"]) {
    const std::string same = v.value("same_as", "");
    if (same.empty()) continue;
    INFO(v["variant"]["id"].get<std::string>() + ": " + v["reason"].get<std::string>());
    CHECK(v["outcome"] == "not-run");
    if (same.find("/original") != std::string::npos) ++same_as_original;
    else ++same_as_other;
  }
  std::string all;
  for (const auto& v : rep["variants"]) all += v["variant"]["id"].get<std::string>() + " " + v["variant"]["skills"].dump() + " " + v["outcome"].get<std::string>() + " " + v["reason"].get<std::string>().substr(0, 80) + "\n";
  INFO(all);
  CHECK(same_as_original >= 1);  // restrict-pointers alone
  CHECK(same_as_other >= 1);     // grid-stride-loop+restrict-pointers is grid-stride-loop
  CHECK(rep["not_gated_identical"] == same_as_original + same_as_other);
  CHECK(run.status.saw("not gated: the same code as another variant or the original"));
  for (const auto& [kernel, s] : rep["selected"].items()) {
    INFO(kernel);
    CHECK(s["speedup"].get<double>() > 1.01);
    for (const auto& skill : s["skills"]) CHECK(skill != "restrict-pointers");
  }
}

TEST_CASE("identical variants: the same rewritten text is not even compiled, the fewest transforms stand for it",
          "[pipeline][identical]") {
  const fs::path dir = fs::temp_directory_path() / ("klineage-identical-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto variant = [&](const std::string& id, std::vector<std::string> transforms, const std::string& text) {
    VariantReport r;
    r.variant.id = id;
    r.variant.kernel = "k";
    r.variant.kernel_file = (dir / "k.cu").string();
    r.variant.transforms = std::move(transforms);
    r.variant.source = (dir / (id.substr(2) + ".cu")).string();
    atomicWrite(r.variant.source, text);
    return r;
  };
  VariantReport orig;
  orig.variant.id = "k/original";
  orig.variant.kernel = "k";
  orig.variant.is_original = true;
  std::vector<VariantReport> batch{orig,
                                   variant("k/1", {"a", "b"}, "same"),
                                   variant("k/2", {"a"}, "same"),
                                   variant("k/3", {"c"}, "original text"),
                                   variant("k/4", {"d"}, "other")};
  batch[4].variant.geometry.grid_x_divisor = 4;  // same text as nothing else
  VariantReport moved = variant("k/5", {"e"}, "same");
  moved.variant.geometry.grid_x_divisor = 2;  // the same text with another launch is another variant
  batch.push_back(moved);
  const std::map<std::string, std::string> originals{{(dir / "k.cu").string(), "original text"}};
  CHECK(skipSameSource(originals, batch, {}) == 2);
  CHECK(batch[1].same_as == "k/2");  // fewer transforms: k/2 is gated
  CHECK(batch[2].same_as.empty());
  CHECK(batch[3].same_as == "k/original");
  CHECK(batch[3].outcome == Outcome::NotRun);
  CHECK(batch[4].same_as.empty());
  CHECK(batch[5].same_as.empty());
  // A later round's copy of a gated variant names it and its outcome.
  std::vector<VariantReport> earlier = batch;
  earlier[2].outcome = Outcome::WrongResult;
  std::vector<VariantReport> next{orig, variant("k/6", {"llm"}, "same")};
  CHECK(skipSameSource(originals, next, earlier) == 1);
  CHECK(next[1].same_as == "k/2");
  CHECK(next[1].reason.find("wrong-result") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("result cache: a variant that did not compile is not compiled again with the same text and flags",
          "[pipeline][cache]") {
  Project p(6);
  useOwnSkills(p);
  TextCompiler cc;
  cc.fails_on = "float4";
  CountingRunner gpu;
  const Run first = optimize(p, gpu, cc);
  REQUIRE(first.rc == 0);
  unsigned failed = 0;
  const nlohmann::json before = p.report();  // alive while the loop reads into it
  for (const auto& v : before["variants"]) failed += v["outcome"] == "compile-failed" && v["variant"]["kernel"] == "saxpy";
  REQUIRE(failed >= 1);
  // relu edited: a new run, in which saxpy's variants have the same texts and flags
  std::string text = readFile(p.root / "src/relu.cu");
  text.replace(text.find("in[i] > 0.0f"), 12, "0.0f < in[i]");
  atomicWrite(p.root / "src/relu.cu", text);
  const size_t from = cc.compiled.size();
  const Run second = optimize(p, gpu, cc);
  CHECK(second.rc == 0);
  for (size_t i = from; i < cc.compiled.size(); ++i) CHECK(cc.compiled[i].find("/variants/saxpy/") == std::string::npos);
  unsigned restored = 0;
  const nlohmann::json rep = p.report();
  for (const auto& v : rep["variants"])
    if (v["outcome"] == "compile-failed" && v["variant"]["kernel"] == "saxpy") {
      CHECK(v.value("cached", false));
      CHECK(v["reason"] == "error: float4");
      ++restored;
    }
  CHECK(restored == failed);
  // a header edit may well fix a compile: then they are compiled again
  appendTo(p, "include/kernels.h", "\n// edited\n");
  const size_t from2 = cc.compiled.size();
  REQUIRE(optimize(p, gpu, cc).rc == 0);
  CHECK(std::count_if(cc.compiled.begin() + static_cast<long>(from2), cc.compiled.end(), [](const std::string& src) {
          return src.find("/variants/saxpy/") != std::string::npos;
        }) >= static_cast<long>(failed));
}

namespace {

// A stored gate result of variant `id` under `key`, as an earlier run left it.
VariantReport passed(const std::string& id, const std::string& key) {
  VariantReport r;
  r.variant.id = id;
  r.variant.kernel = "k";
  r.cache_key = key;
  r.outcome = Outcome::Passed;
  r.speedup = 1.2;
  return r;
}

std::set<std::string> entries(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

}  // namespace

TEST_CASE("result cache: pruning keeps what this run used, then the most recently used up to the cap", "[pipeline][cache]") {
  klineage::test::TempDir dir("results");
  RecordingStatus status;
  DeviceProbe dev;
  dev.available = true;
  dev.device = "Fake GPU";
  const auto now = fs::file_time_type::clock::now();
  {  // an earlier run: old0 the least recently used .. old5 the most
    ResultCache earlier(dir.path, status, {}, dev);
    for (int i = 0; i < 6; ++i) {
      const std::string key = "old" + std::to_string(i);
      earlier.store(passed("k/" + std::to_string(i), key));
      fs::last_write_time(dir.path / (key + ".json"), now - std::chrono::hours(10 - i));
    }
  }
  dir.write("x.json.tmp.123", "half");  // not entries: never pruned
  dir.write("notes.txt", "mine");

  ResultCache cache(dir.path, status, {}, dev);
  CHECK(cache.prune(6) == 0);  // at the cap: nothing goes
  CHECK_FALSE(status.saw("result cache: removed"));
  VariantReport r = passed("k/0", "old0");
  r.outcome = Outcome::NotRun;
  REQUIRE(cache.restore(r));  // the oldest, used by this run: stays, and counts as used now
  CHECK(r.cached);
  CHECK(fs::last_write_time(dir.path / "old0.json") > now - std::chrono::minutes(1));
  cache.store(passed("k/9", "new0"));
  VariantReport missing = passed("k/8", "gone");
  CHECK_FALSE(cache.restore(missing));  // looked up, not there: nothing to keep

  // 7 entries, 4 kept: the two this run used and the two most recently used of the rest
  CHECK(cache.prune(4) == 3);
  CHECK(status.saw("result cache: removed the 3 least recently used entries"));
  CHECK(entries(dir.path) ==
        std::set<std::string>{"old0.json", "old4.json", "old5.json", "new0.json", "x.json.tmp.123", "notes.txt"});
  // below what this run used: only those stay
  CHECK(cache.prune(0) == 2);
  CHECK(entries(dir.path) == std::set<std::string>{"old0.json", "new0.json", "x.json.tmp.123", "notes.txt"});
  // a directory that is not there yet: nothing to do
  ResultCache none(dir.path / "missing", status, {}, dev);
  CHECK(none.prune(0) == 0);
}

TEST_CASE("result cache: a run prunes cache/results to kResultCacheMaxEntries, never its own entries", "[pipeline][cache]") {
  Project p(2);
  useOwnSkills(p);
  const fs::path results = p.root / "build/klineage/kernels/cache/results";
  fs::create_directories(results);
  // a full cache of earlier results (older the higher their number), none of this run's keys
  const auto day_ago = fs::file_time_type::clock::now() - std::chrono::hours(24);
  for (size_t i = 0; i < kResultCacheMaxEntries; ++i) {
    const fs::path f = results / ("earlier" + std::to_string(i) + ".json");
    atomicWrite(f, "{}\n");
    fs::last_write_time(f, day_ago - std::chrono::seconds(i));
  }
  TextCompiler cc;
  CountingRunner gpu;
  const Run run = optimize(p, gpu, cc);
  REQUIRE(run.rc == 0);
  REQUIRE(run.jobs > 0);
  std::set<std::string> gated;
  const nlohmann::json rep = p.report();
  for (const auto& v : rep["variants"])
    if (v.contains("cache_key") && v["outcome"] != "not-run") gated.insert(v["cache_key"].get<std::string>() + ".json");
  REQUIRE_FALSE(gated.empty());
  const std::set<std::string> left = entries(results);
  CHECK(left.size() == kResultCacheMaxEntries);
  // this run's entries: its gate results and its remembered rewrites, all kept
  std::set<std::string> own;
  for (const auto& f : left)
    if (f.rfind("earlier", 0) != 0) own.insert(f);
  for (const auto& f : gated) CHECK(own.count(f) == 1);
  CHECK(own.size() > gated.size());  // the rewrites too
  // the least recently used earlier ones went, the most recent stayed
  CHECK(left.count("earlier" + std::to_string(kResultCacheMaxEntries - 1) + ".json") == 0);
  CHECK(left.count("earlier" + std::to_string(kResultCacheMaxEntries - own.size()) + ".json") == 0);
  CHECK(left.count("earlier" + std::to_string(kResultCacheMaxEntries - own.size() - 1) + ".json") == 1);
  CHECK(left.count("earlier0.json") == 1);
  CHECK(run.status.saw("klineage: result cache: removed the " + std::to_string(own.size()) + " least recently used"));
}

TEST_CASE("result cache: an oracle that did not compile is not compiled again until what it is made from changes",
          "[pipeline][cache]") {
  Project p(6);
  useOwnSkills(p);
  TextCompiler cc;
  cc.fails_on = "double";  // only the promoted kernels (the oracles) hold it
  CountingRunner gpu;
  std::string toml = readFile(p.root / "klineage.toml");
  for (size_t at = toml.find("check = "); at != std::string::npos; at = toml.find("check = "))
    toml.erase(at, toml.find('\n', at) - at);
  p.write("klineage.toml", toml);
  auto oracleCompiled = [&](size_t from, const std::string& kernel) {
    return std::count_if(cc.compiled.begin() + static_cast<long>(from), cc.compiled.end(), [&](const std::string& src) {
      return src.find("/oracle/" + kernel + "/") != std::string::npos;
    });
  };
  auto noteOf = [&](const std::string& kernel) {
    const nlohmann::json rep = p.report();
    for (const auto& k : rep["kernels"])
      if (k["kernel"] == kernel)
        for (const auto& n : k["notes"])
          if (n.get<std::string>().rfind("no oracle", 0) == 0) return n.get<std::string>();
    return std::string();
  };
  REQUIRE(optimize(p, gpu, cc).rc == 0);
  REQUIRE(oracleCompiled(0, "saxpy") == 1);
  const std::string first = noteOf("saxpy");
  CHECK_THAT(first, Catch::Contains("the promoted kernel does not compile: error: double"));
  // relu edited: relu's oracle is tried again, saxpy's failure is remembered with its reason
  size_t from = cc.compiled.size();
  std::string text = readFile(p.root / "src/relu.cu");
  text.replace(text.find("in[i] > 0.0f"), 12, "0.0f < in[i]");
  atomicWrite(p.root / "src/relu.cu", text);
  Run again = optimize(p, gpu, cc);
  REQUIRE(again.rc == 0);
  CHECK(oracleCompiled(from, "saxpy") == 0);
  CHECK(oracleCompiled(from, "relu") == 1);
  CHECK(again.status.saw("compiling 1 oracle(s) (the originals promoted to double); 1 unchanged since the last run"));
  CHECK(noteOf("saxpy") == first);
  // the compiler fixed (a header both include changes the key): compiled again, and it is the oracle now
  cc.fails_on.clear();
  from = cc.compiled.size();
  appendTo(p, "include/kernels.h", "\n// edited\n");
  REQUIRE(optimize(p, gpu, cc).rc == 0);
  CHECK(oracleCompiled(from, "saxpy") == 1);
  CHECK(noteOf("saxpy").empty());
}
