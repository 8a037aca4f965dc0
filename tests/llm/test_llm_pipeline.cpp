// Skills a language model materializes, through the whole `klineage optimize` pipeline (fake
// compiler, fake GPU) against a real chat-completions server on 127.0.0.1 (chat_server.h): a good
// reply gated and selected, a changed signature refused and repaired, a gate failure fed back,
// malformed JSON, the cache serving a run with the server stopped, no URL, the caps, and the
// API key in no file the run wrote and no line it printed.
#include <catch2/catch.hpp>

#include <stdlib.h>

#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "core/fs.h"
#include "core/skill.h"
#include "gate/selection.h"
#include "llm/chat_server.h"
#include "optimize.h"
#include "support/pipeline_project.h"

using namespace klineage;
using klineage::test::CannedReply;
using klineage::test::ChatServer;
using klineage::test::chatReply;
using klineage::test::FakeCompiler;
using klineage::test::Project;
namespace fs = std::filesystem;

namespace {

const char* kKey = "sk-pipeline-test-key-7f3a9c1e5b";

// Sets (or clears) the LLM environment for one test and restores nothing but a clean slate.
struct LlmEnv {
  explicit LlmEnv(const char* key = kKey) {
    ::unsetenv("KLINEAGE_LLM_URL");
    ::unsetenv("KLINEAGE_LLM_MODEL");
    if (key) ::setenv("KLINEAGE_LLM_API_KEY", key, 1);
    else ::unsetenv("KLINEAGE_LLM_API_KEY");
  }
  ~LlmEnv() {
    ::unsetenv("KLINEAGE_LLM_URL");
    ::unsetenv("KLINEAGE_LLM_MODEL");
    ::unsetenv("KLINEAGE_LLM_API_KEY");
  }
};

// Passes every variant at 1.2x, except those whose cubin path contains `wrong`.
struct FakeRunner : GpuRunner {
  std::string wrong = "\x01";
  std::vector<RunnerJob> jobs;
  DeviceProbe probe() override {
    DeviceProbe d;
    d.available = true;
    d.device = "Fake GPU";
    d.arch = "sm_90";
    return d;
  }
  RunnerResult run(const RunnerJob& job, const std::string&, double) override {
    jobs.push_back(job);
    RunnerResult r;
    r.device = "Fake GPU";
    const bool bad = job.variant.cubin.find(wrong) != std::string::npos;
    r.outcome = bad ? Outcome::WrongResult : Outcome::Passed;
    klineage::test::setTimes(r, 1.2);
    r.reason = bad ? "y[3]: expected 0.5, got 0.25" : "";
    return r;
  }
};

struct RecordingCompiler : FakeCompiler {
  std::vector<std::string> ids;
  CompileResult compile(const CompileRequest& req) override {
    ids.push_back(req.id);
    return FakeCompiler::compile(req);
  }
};

const char* kSkill = R"(schema = 1
id = "fused-multiply-add"
intent = "Compute a * x + y with one fused multiply-add (fmaf) instead of a multiply and an add."
materialize = "llm"
example = "@@ line 3 @@\n-  out[i] = a * v + b;\n+  out[i] = fmaf(a, v, b);\n"

[anchor]
description = "an elementwise kernel with a global thread index"
requires_features = ["thread_index"]

[effect]
expected = "Test skill: one instruction less per element."

[[risks]]
failure = "fmaf rounds once where a * x + y rounds twice"
avoided_by = "the gate's tolerance"

[provenance]
kind = "hand-written"
)";

// The quickstart with only the test's LLM skill, LLM options pointing at `url`.
void useLlm(Project& p, const std::string& url, nlohmann::json extra = nlohmann::json::object()) {
  p.write("llm-skills/fused-multiply-add.toml", kSkill);
  p.setConfig("skills", {(p.root / "llm-skills").string()});
  nlohmann::json llm = {{"url", url}, {"model", "test-model"}, {"backoff_s", 0.01}, {"timeout_s", 5}};
  for (auto& [k, v] : extra.items()) llm[k] = v;
  p.setConfig("llm", llm);
}

std::string saxpyWith(const Project& p, const std::string& from, const std::string& to) {
  std::string text = readFile(p.root / "src/saxpy.cu");
  const size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

std::string fenced(const std::string& code) { return "Here is the file:\n\n```cuda\n" + code + "```\n\nDone."; }

std::string goodSaxpy(const Project& p) { return saxpyWith(p, "a * x[i] + y[i]", "fmaf(a, x[i], y[i])"); }

const nlohmann::json* variant(const nlohmann::json& rep, const std::string& id) {
  for (const auto& v : rep["variants"])
    if (v["variant"]["id"] == id) return &v;
  return nullptr;
}

std::string allOutcomes(const nlohmann::json& rep) {
  std::string s;
  for (const auto& v : rep["variants"])
    s += v["variant"]["id"].get<std::string>() + "=" + v["outcome"].get<std::string>() + " (" +
         v["reason"].get<std::string>().substr(0, 200) + ")\n";
  return s;
}

std::string refusalsOf(const nlohmann::json& rep, const std::string& kernel) {
  std::string s;
  for (const auto& k : rep["kernels"])
    if (k["kernel"] == kernel)
      for (const auto& r : k["skills_not_applied"]) s += r.get<std::string>() + "\n";
  return s;
}

OptimizeOptions saxpyOnly(const Project& p) {
  OptimizeOptions opt;
  opt.config = p.config;
  opt.only_kernel = "saxpy";
  return opt;
}

}  // namespace

TEST_CASE("a good reply is gated like any variant and selected", "[llm][pipeline]") {
  LlmEnv env;
  Project p(4);
  ChatServer server;
  useLlm(p, server.url());
  server.push(chatReply(fenced(goodSaxpy(p))));
  RecordingCompiler cc;
  FakeRunner gpu;
  RecordingStatus status;
  PipelineSeams seams;
  seams.compiler = &cc;
  seams.runner = &gpu;
  seams.status = &status;
  REQUIRE(runOptimize(saxpyOnly(p), seams) == 0);
  REQUIRE(server.requests().size() == 1);
  const std::string prompt = server.prompt(0);
  INFO(prompt);
  CHECK(prompt.find("fused-multiply-add") != std::string::npos);
  CHECK(prompt.find("y[i] = a * x[i] + y[i];") != std::string::npos);        // the kernel's source
  CHECK(prompt.find("__global__ void saxpy(int n, float a, const float *x, float *y)") != std::string::npos);
  CHECK(prompt.find("saxpy<<<(n + 255) / 256, 256>>>(n, a, x, y)") != std::string::npos);  // its launch site
  CHECK(prompt.find("grid (262144, 1, 1), block (256, 1, 1)") != std::string::npos);      // the facts
  CHECK(prompt.find("rtol 1e-05") != std::string::npos);
  CHECK(prompt.find("fmaf rounds once") != std::string::npos);                             // the risks
  CHECK(prompt.find("none: this is the first attempt") != std::string::npos);
  CHECK(prompt.find("```diff\n@@ line 3 @@\n-  out[i] = a * v + b;\n+  out[i] = fmaf(a, v, b);\n```") !=
        std::string::npos);  // the skill's example
  const nlohmann::json rep = p.report();
  INFO(allOutcomes(rep));
  const nlohmann::json* v = variant(rep, "saxpy/llm-fused-multiply-add-1");
  REQUIRE(v != nullptr);
  CHECK((*v)["outcome"] == "passed");
  CHECK((*v)["variant"]["skills"] == nlohmann::json({"fused-multiply-add"}));
  CHECK((*v)["variant"]["transforms"] == nlohmann::json({"llm"}));
  CHECK(std::count(cc.ids.begin(), cc.ids.end(), "saxpy/llm-fused-multiply-add-1") == 1);
  CHECK(rep["selected"]["saxpy"]["variant"] == "saxpy/llm-fused-multiply-add-1");
  const Selection sel = p.selection();
  const SelectedSource* s = sel.find((p.root / "src/saxpy.cu").string());
  REQUIRE(s != nullptr);
  CHECK(readFile(s->selected).find("fmaf(a, x[i], y[i])") != std::string::npos);
  const fs::path dir = p.root / "build/klineage/kernels/variants/saxpy/llm-fused-multiply-add-1";
  CHECK(fs::exists(dir / "prompt.md"));
  CHECK(fs::exists(dir / "reply.md"));
  CHECK(status.saw("LLM attempt 1: reply from " + server.url()));
}

TEST_CASE("a reply that changes the signature is refused, not compiled, and repaired with the reason",
          "[llm][pipeline]") {
  LlmEnv env;
  Project p(4);
  ChatServer server;
  useLlm(p, server.url());
  server.push(chatReply(fenced(saxpyWith(p, "int n, float a", "int n, double a"))));
  server.push(chatReply(fenced(goodSaxpy(p))));
  RecordingCompiler cc;
  FakeRunner gpu;
  REQUIRE(runOptimize(saxpyOnly(p), &cc, &gpu) == 0);
  const nlohmann::json rep = p.report();
  INFO(allOutcomes(rep));
  const nlohmann::json* first = variant(rep, "saxpy/llm-fused-multiply-add-1");
  REQUIRE(first != nullptr);
  CHECK((*first)["outcome"] == "not-run");
  CHECK((*first)["reason"].get<std::string>().find("parameter 2 of kernel saxpy is 'double a'") != std::string::npos);
  CHECK(std::count(cc.ids.begin(), cc.ids.end(), "saxpy/llm-fused-multiply-add-1") == 0);
  REQUIRE(server.requests().size() == 2);
  const std::string repair = server.prompt(1);
  CHECK(repair.find("attempt 1 (saxpy/llm-fused-multiply-add-1): not-run:") != std::string::npos);
  CHECK(repair.find("a variant must keep the kernel's signature") != std::string::npos);
  const nlohmann::json* second = variant(rep, "saxpy/llm-fused-multiply-add-2");
  REQUIRE(second != nullptr);
  CHECK((*second)["outcome"] == "passed");
  CHECK(rep["selected"]["saxpy"]["variant"] == "saxpy/llm-fused-multiply-add-2");
}

TEST_CASE("a gate failure is fed back, and repairs stop after LLM_REPAIR_ROUNDS", "[llm][pipeline]") {
  LlmEnv env;
  Project p(4);
  ChatServer server;
  useLlm(p, server.url(), {{"repair_rounds", 2}});
  for (int i = 0; i < 5; ++i) server.push(chatReply(fenced(goodSaxpy(p) + "// attempt " + std::to_string(i) + "\n")));
  FakeCompiler cc;
  FakeRunner gpu;
  gpu.wrong = "llm-fused-multiply-add-";  // every LLM variant computes wrong results
  RecordingStatus status;
  PipelineSeams seams;
  seams.compiler = &cc;
  seams.runner = &gpu;
  seams.status = &status;
  REQUIRE(runOptimize(saxpyOnly(p), seams) == 0);
  REQUIRE(server.requests().size() == 3);  // the attempt and two repairs
  const std::string last = server.prompt(2);
  CHECK(last.find("attempt 1 (saxpy/llm-fused-multiply-add-1): wrong-result: y[3]: expected 0.5, got 0.25") !=
        std::string::npos);
  CHECK(last.find("attempt 2 (saxpy/llm-fused-multiply-add-2): wrong-result") != std::string::npos);
  const nlohmann::json rep = p.report();
  INFO(allOutcomes(rep));
  for (int n = 1; n <= 3; ++n) {
    const nlohmann::json* v = variant(rep, "saxpy/llm-fused-multiply-add-" + std::to_string(n));
    REQUIRE(v != nullptr);
    CHECK((*v)["outcome"] == "wrong-result");
  }
  CHECK(variant(rep, "saxpy/llm-fused-multiply-add-4") == nullptr);
  CHECK(refusalsOf(rep, "saxpy").find("3 LLM attempts failed the gate; no more repair rounds") != std::string::npos);
  CHECK(status.saw("klineage: repair round 2"));
  CHECK_FALSE(rep["selected"].contains("saxpy"));
}

TEST_CASE("malformed JSON from the server is a refusal with the reason, not a variant", "[llm][pipeline]") {
  LlmEnv env;
  Project p(4);
  ChatServer server;
  useLlm(p, server.url());
  server.push({200, {{"Content-Type", "application/json"}}, "{\"choices\": [{\"message\": {\"content\": ", 0});
  FakeCompiler cc;
  FakeRunner gpu;
  REQUIRE(runOptimize(saxpyOnly(p), &cc, &gpu) == 0);
  const nlohmann::json rep = p.report();
  CHECK(variant(rep, "saxpy/llm-fused-multiply-add-1") == nullptr);
  const std::string refusals = refusalsOf(rep, "saxpy");
  CHECK(refusals.find("skill fused-multiply-add, LLM attempt 1: failed: malformed reply from the LLM server") !=
        std::string::npos);
  CHECK(server.requests().size() == 1);
}

TEST_CASE("the cache serves a second run with the server stopped", "[llm][pipeline]") {
  LlmEnv env;
  Project p(4);
  ChatServer server;
  useLlm(p, server.url());
  server.push(chatReply(fenced(saxpyWith(p, "int n, float a", "int n, double a"))));
  server.push(chatReply(fenced(goodSaxpy(p))));
  FakeCompiler cc;
  FakeRunner gpu;
  REQUIRE(runOptimize(saxpyOnly(p), &cc, &gpu) == 0);
  REQUIRE(server.requests().size() == 2);
  const nlohmann::json first = p.report();
  server.stop();
  RecordingStatus status;
  PipelineSeams seams;
  seams.compiler = &cc;
  seams.runner = &gpu;
  seams.status = &status;
  OptimizeOptions rerun = saxpyOnly(p);
  rerun.result_cache = false;  // with nothing changed the run would stop before asking the LLM cache
  REQUIRE(runOptimize(rerun, seams) == 0);
  const nlohmann::json again = p.report();
  INFO(allOutcomes(again));
  CHECK(status.saw("LLM attempt 1: reply from the cache"));
  CHECK(status.saw("LLM attempt 2: reply from the cache"));
  CHECK(again["selected"]["saxpy"]["variant"] == "saxpy/llm-fused-multiply-add-2");
  CHECK(variant(again, "saxpy/llm-fused-multiply-add-1")->at("reason") == variant(first, "saxpy/llm-fused-multiply-add-1")->at("reason"));
  CHECK(fs::is_directory(p.root / "build/klineage/kernels/llm-cache"));
}

TEST_CASE("without KLINEAGE_LLM_URL nothing is sent and the run says so once", "[llm][pipeline]") {
  LlmEnv env;
  Project p(4);
  ChatServer server;
  useLlm(p, "");  // no url in config.json, none in the environment
  FakeCompiler cc;
  FakeRunner gpu;
  RecordingStatus status;
  PipelineSeams seams;
  seams.compiler = &cc;
  seams.runner = &gpu;
  seams.status = &status;
  OptimizeOptions opt;
  opt.config = p.config;  // both kernels
  REQUIRE(runOptimize(opt, seams) == 0);
  CHECK(server.requests().empty());
  unsigned said = 0;
  for (const auto& l : status.lines) said += l == "klineage: LLM skills not materialized: KLINEAGE_LLM_URL is not set";
  CHECK(said == 1);
  const nlohmann::json rep = p.report();
  for (const char* k : {"saxpy", "relu"})
    CHECK(refusalsOf(rep, k).find("skill fused-multiply-add not materialized: it needs a language model and "
                                  "KLINEAGE_LLM_URL is not set") != std::string::npos);
  CHECK_FALSE(fs::exists(p.root / "build/klineage/kernels/llm-cache"));

  // The environment's URL is used when config.json has none.
  server.push(chatReply(fenced(goodSaxpy(p))));
  ::setenv("KLINEAGE_LLM_URL", server.url().c_str(), 1);
  REQUIRE(runOptimize(saxpyOnly(p), &cc, &gpu) == 0);
  CHECK(server.requests().size() == 1);
}

TEST_CASE("the request cap refuses further prompts with the reason", "[llm][pipeline]") {
  LlmEnv env;
  Project p(4);
  ChatServer server;
  useLlm(p, server.url(), {{"max_requests", 1}});
  server.setHandler([&](const klineage::test::HttpRequest&) { return chatReply(fenced(goodSaxpy(p))); });
  FakeCompiler cc;
  FakeRunner gpu;
  OptimizeOptions opt;
  opt.config = p.config;
  REQUIRE(runOptimize(opt, &cc, &gpu) == 0);
  CHECK(server.requests().size() == 1);
  const nlohmann::json rep = p.report();
  const std::string all = refusalsOf(rep, "saxpy") + refusalsOf(rep, "relu");
  CHECK(all.find("not sent: the cap of 1 LLM requests per run is reached (LLM_MAX_REQUESTS)") != std::string::npos);
}

TEST_CASE("the API key appears in no file the run wrote and in no line it printed", "[llm][pipeline]") {
  LlmEnv env;
  Project p(4);
  ChatServer server;
  useLlm(p, server.url());
  // saxpy gets a good reply that quotes the key; relu's request is refused with the key echoed.
  server.setHandler([&](const klineage::test::HttpRequest& r) -> CannedReply {
    const auto j = nlohmann::json::parse(r.body);
    const std::string prompt = j["messages"].back()["content"].get<std::string>();
    if (prompt.find("`saxpy`") != std::string::npos)
      return chatReply(fenced(goodSaxpy(p) + "// generated for " + std::string(kKey) + "\n"));
    return {401, {}, "{\"error\": {\"message\": \"Incorrect API key provided: " + std::string(kKey) + "\"}}", 0};
  });
  FakeCompiler cc;
  FakeRunner gpu;
  RecordingStatus status;
  PipelineSeams seams;
  seams.compiler = &cc;
  seams.runner = &gpu;
  seams.status = &status;
  OptimizeOptions opt;
  opt.config = p.config;
  REQUIRE(runOptimize(opt, seams) == 0);
  REQUIRE(server.requests().size() == 2);
  for (const auto& r : server.requests()) CHECK(r.headers.at("authorization") == std::string("Bearer ") + kKey);
  const nlohmann::json rep = p.report();
  INFO(allOutcomes(rep));
  CHECK(refusalsOf(rep, "relu").find("HTTP 401") != std::string::npos);
  CHECK(variant(rep, "saxpy/llm-fused-multiply-add-1") != nullptr);
  unsigned files = 0;
  for (const auto& e : fs::recursive_directory_iterator(p.root / "build"))
    if (e.is_regular_file()) {
      ++files;
      INFO(e.path().string());
      CHECK(readFile(e.path()).find(kKey) == std::string::npos);
    }
  CHECK(files > 10);
  for (const auto& l : status.lines) {
    INFO(l);
    CHECK(l.find(kKey) == std::string::npos);
  }
}

TEST_CASE("config.json never holds the key", "[llm]") {
  Project p(4);
  p.setConfig("llm", {{"url", "http://127.0.0.1:1/v1/chat/completions"}, {"api_key", "x"}});
  CHECK_THROWS_WITH(loadConfig(p.config), Catch::Contains("read only from the environment (KLINEAGE_LLM_API_KEY)"));
}
