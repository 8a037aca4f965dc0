// `klineage mine`'s LLM-proposed simplifications (docs/lineage.md) against a real chat-completions
// server on 127.0.0.1 (chat_server.h), over a fake compiler and a fake GPU: the model is asked for
// one simplification of each version, its reply becomes a version gated like an inverse's, and a
// paying step becomes an LLM skill carrying the diff; a reply that changes the signature is no
// version; the cache answers a second run with the server stopped; --llm-steps 0 sends nothing.
#include <catch2/catch.hpp>

#include <stdlib.h>

#include <filesystem>

#include "core/fs.h"
#include "core/lineage.h"
#include "core/skill.h"
#include "features/feature.h"
#include "llm/chat_server.h"
#include "mine.h"
#include "rewriter/transform.h"
#include "support/pipeline_project.h"

using namespace klineage;
using klineage::test::ChatServer;
using klineage::test::chatReply;
using klineage::test::FakeCompiler;
using klineage::test::Project;
namespace fs = std::filesystem;

namespace {

struct NoLlmEnv {
  NoLlmEnv() {
    ::unsetenv("KLINEAGE_LLM_URL");
    ::unsetenv("KLINEAGE_LLM_MODEL");
    ::unsetenv("KLINEAGE_LLM_API_KEY");
  }
  ~NoLlmEnv() { ::unsetenv("KLINEAGE_LLM_URL"); }
};

// Every version passes; one whose source has the model's marker runs at half the expert's speed.
struct Judge : GpuRunner {
  fs::path out;
  DeviceProbe probe() override {
    DeviceProbe d;
    d.available = true;
    d.device = "Fake GPU";
    d.arch = "sm_90";
    d.driver = "13.0";
    return d;
  }
  RunnerResult run(const RunnerJob& job, const std::string&, double) override {
    RunnerResult r;
    r.device = "Fake GPU";
    r.outcome = Outcome::Passed;
    const std::string cubin = readFile(job.variant.cubin);
    const auto at = cubin.find("mine-");
    const std::string text = at == std::string::npos ? "" : readFile(out / "versions" / (cubin.substr(at + 5) + ".cu"));
    klineage::test::setTimes(r, text.find("simplification:") != std::string::npos ? 0.5 : 1.0);
    return r;
  }
};

struct Mined {
  Lineage lineage;
  RecordingStatus status;
  int rc = -1;
};

Mined mine(const Project& p, unsigned llm_steps, const fs::path& skills) {
  FakeCompiler cc;
  Judge gpu;
  Mined m;
  MineOptions opt;
  opt.config = p.config;
  opt.kernel = "saxpy";
  opt.max_depth = 1;
  opt.out_dir = (p.root / "mine").string();
  opt.emit_skills_dir = skills.string();
  opt.llm_steps = llm_steps;
  opt.lineage_out = &m.lineage;
  gpu.out = opt.out_dir;
  PipelineSeams seams;
  seams.compiler = &cc;
  seams.runner = &gpu;
  seams.status = &m.status;
  m.rc = runMine(opt, seams);
  return m;
}

std::string fenced(const std::string& code) { return "Simpler:\n\n```cuda\n" + code + "```\n"; }

const LineageVersion* proposed(const Lineage& l) {
  for (const auto& v : l.versions)
    if (v.step && v.step->transform == "llm-proposed") return &v;
  return nullptr;
}

}  // namespace

TEST_CASE("mine: a language model's simplification is a version gated like an inverse's, and its paying step an LLM "
          "skill with the diff",
          "[llm][mine]") {
  NoLlmEnv env;
  Project p(4);
  ChatServer server;
  p.setConfig("llm", {{"url", server.url()}, {"model", "test-model"}, {"backoff_s", 0.01}, {"timeout_s", 5}});
  const std::string expert = readFile(p.root / "src/saxpy.cu");
  std::string simpler = expert;
  const size_t at = simpler.find("y[i] = a * x[i] + y[i];");
  REQUIRE(at != std::string::npos);
  simpler.replace(at, 23, "{ float t = a * x[i]; y[i] = t + y[i]; }");
  simpler = "// simplification: the product kept in a local\n" + simpler;
  server.push(chatReply(fenced(simpler)));
  const fs::path skills = p.root / "mined";
  Mined m = mine(p, 1, skills);
  REQUIRE(m.rc == 0);
  std::string lines;
  for (const auto& v : m.lineage.versions) lines += lineageLine(m.lineage, v) + "\n";
  for (const auto& s : m.status.lines) lines += s + "\n";
  INFO(lines);
  REQUIRE(server.requests().size() == 1);
  const std::string prompt = server.prompt(0);
  CHECK(prompt.find("Undo exactly ONE optimization technique") != std::string::npos);
  CHECK(prompt.find("y[i] = a * x[i] + y[i];") != std::string::npos);  // the version's source
  CHECK(prompt.find("saxpy<<<") != std::string::npos);                 // its launch site
  const LineageVersion* v = proposed(m.lineage);
  REQUIRE(v);
  CHECK(v->parent == "v0");
  CHECK(v->outcome == "slower");  // still correct: accepted
  CHECK(v->accepted);
  CHECK(v->step->materialize == "llm");
  CHECK(v->step->what == "the product kept in a local");
  CHECK_THAT(v->step->example, Catch::Contains("-  if (i < n) { float t = a * x[i]; y[i] = t + y[i]; }") &&
                                   Catch::Contains("+  if (i < n) y[i] = a * x[i] + y[i];"));
  REQUIRE(v->parent_speedup);
  CHECK(*v->parent_speedup == Approx(2.0).epsilon(0.01));
  CHECK(readFile(p.root / "mine" / v->source) == simpler);
  CHECK(m.status.saw("LLM simplification 1 of v0: reply from " + server.url()));

  // the skill: an LLM skill with the model's words and the diff
  const Skill* s = nullptr;
  const std::vector<Skill> all = loadSkills({skills.string()}, transformIds(), featureIds());
  for (const auto& x : all)
    if (x.id == "mined-saxpy-llm-proposed") s = &x;
  REQUIRE(s);
  CHECK(s->materialize == Materialize::Llm);
  CHECK(s->example == v->step->example);
  CHECK_THAT(s->intent, Catch::Contains("the product kept in a local"));
  CHECK(s->lineage_version == v->id);

  // the cache answers the same prompt with the server gone: the same version again
  server.stop();
  Mined again = mine(p, 1, p.root / "mined-again");
  REQUIRE(again.rc == 0);
  const LineageVersion* w = proposed(again.lineage);
  REQUIRE(w);
  CHECK(w->step->example == v->step->example);
  CHECK(again.status.saw("LLM simplification 1 of v0: reply from the cache"));
}

TEST_CASE("mine: a simplification that changes the kernel's signature is no version, --llm-steps 0 sends nothing",
          "[llm][mine]") {
  NoLlmEnv env;
  Project p(4);
  ChatServer server;
  p.setConfig("llm", {{"url", server.url()}, {"model", "test-model"}, {"backoff_s", 0.01}, {"timeout_s", 5}});
  std::string changed = readFile(p.root / "src/saxpy.cu");
  const size_t at = changed.find("float a,");
  REQUIRE(at != std::string::npos);
  changed.replace(at, 8, "double a,");
  server.push(chatReply(fenced("// simplification: a double scale\n" + changed)));
  Mined m = mine(p, 1, p.root / "mined");
  REQUIRE(m.rc == 0);
  std::string lines;
  for (const auto& s : m.status.lines) lines += s + "\n";
  INFO(lines);
  CHECK(server.requests().size() == 1);
  CHECK(proposed(m.lineage) == nullptr);
  CHECK(m.status.saw("LLM simplification 1 of v0: not a version: the LLM reply"));

  Mined none = mine(p, 0, p.root / "mined-none");
  REQUIRE(none.rc == 0);
  CHECK(server.requests().size() == 1);  // nothing more sent
  CHECK(proposed(none.lineage) == nullptr);
}
