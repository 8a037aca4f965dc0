#include "gate/config.h"

#include <cmath>
#include <filesystem>
#include <limits>

#include <nlohmann/json.hpp>

#include "core/diag.h"
#include "core/fs.h"

namespace klineage {

namespace {
// A count (budget, run.max_shapes, run.max_bytes): a non-negative number that fits T, a float
// truncated. nlohmann's get<unsigned>() wraps -1 and is undefined behaviour for 1e300.
template <class T>
T countValue(const nlohmann::json& obj, const char* key, T fallback, const std::string& path, const std::string& label) {
  auto it = obj.find(key);
  if (it == obj.end()) return fallback;
  const nlohmann::json& v = *it;
  if (v.is_number_unsigned() && v.get<unsigned long long>() <= std::numeric_limits<T>::max())
    return static_cast<T>(v.get<unsigned long long>());
  if (v.is_number_float() && v.get<double>() >= 0 && v.get<double>() < std::ldexp(1.0, std::numeric_limits<T>::digits))
    return static_cast<T>(v.get<double>());
  if (v.is_number())
    throw InputError(path, 0, 0, "\"" + label + "\": " + v.dump() + ": expected a non-negative integer up to " +
                                     std::to_string(std::numeric_limits<T>::max()));
  return v.get<T>();  // not a number: type_error, reported below as for the other keys
}
}  // namespace

const SourcePair* Config::findOriginal(const std::string& p) const {
  for (const auto& s : sources)
    if (s.original == p) return &s;
  return nullptr;
}
const SourcePair* Config::findMaterialized(const std::string& p) const {
  for (const auto& s : sources)
    if (s.materialized == p) return &s;
  return nullptr;
}

Config loadConfig(const std::string& path) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(readFile(path));
  } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range for a number like 1e400
    throw InputError(path, 0, 0, std::string("not valid JSON: ") + e.what());
  } catch (const std::runtime_error& e) {
    throw InputError(path, 0, 0, e.what());
  }
  Config c;
  c.path = std::filesystem::absolute(path).string();
  auto str = [&](const char* key, bool required) -> std::string {
    if (!j.contains(key) || j[key].is_null()) {
      if (required) throw InputError(path, 0, 0, std::string("missing key \"") + key + "\" (expected a string)");
      return "";
    }
    if (!j[key].is_string()) throw InputError(path, 0, 0, std::string("\"") + key + "\": expected a string");
    return j[key].get<std::string>();
  };
  try {
    c.target = str("target", true);
    c.source_dir = str("source_dir", false);
    c.build_dir = str("build_dir", false);
    c.out_dir = str("out_dir", true);
    c.compile_commands = str("compile_commands", true);
    if (j.contains("sources")) {
      for (const auto& s : j.at("sources")) c.sources.push_back({s.at("original").get<std::string>(), s.value("materialized", "")});
    }
    if (c.sources.empty()) throw InputError(path, 0, 0, "\"sources\": expected at least one {original, materialized} entry");
    std::string w = str("workload", false);
    if (!w.empty()) c.workload = w;
    if (j.contains("skills") && j["skills"].is_array()) c.skills = j["skills"].get<std::vector<std::string>>();
    if (j.contains("skills") && j["skills"].is_string()) c.skills = {j["skills"].get<std::string>()};
    c.budget = countValue(j, "budget", 10u, path, "budget");
    c.search = str("search", false);
    if (c.search.empty()) c.search = "planned";
    if (c.search != "planned" && c.search != "subsets")
      throw InputError(path, 0, 0, "\"search\": \"" + c.search + "\" is not one of planned, subsets");
    c.search_width = countValue(j, "search_width", 3u, path, "search_width");
    if (c.search_width == 0) throw InputError(path, 0, 0, "\"search_width\": expected a positive count");
    c.timeout_s = j.value("timeout_s", 10.0);
    c.require_gpu = j.value("require_gpu", false);
    c.sanitize = str("sanitize", false);
    if (j.contains("result_cache") && !j["result_cache"].is_boolean())
      throw InputError(path, 0, 0, "\"result_cache\": expected true or false");
    c.result_cache = j.value("result_cache", true);
    if (!c.sanitize.empty() && c.sanitize != "memcheck" && c.sanitize != "racecheck" && c.sanitize != "synccheck")
      throw InputError(path, 0, 0, "\"sanitize\": \"" + c.sanitize + "\" is not one of memcheck, racecheck, synccheck");
    c.runner = str("runner", false);
    c.nvcc = str("nvcc", false);
    if (c.nvcc.empty()) c.nvcc = "nvcc";
    if (j.contains("cuda_architectures") && !j["cuda_architectures"].is_null())
    {
      const auto& a = j["cuda_architectures"];
      if (a.is_string()) c.cuda_architectures = a.get<std::string>();
      else if (a.is_array())
        for (const auto& x : a) c.cuda_architectures += (c.cuda_architectures.empty() ? "" : ";") + (x.is_string() ? x.get<std::string>() : x.dump());
    }
    if (j.contains("run") && j["run"].is_object()) {
      for (const auto& x : j["run"].value("command", nlohmann::json::array())) c.run_command.push_back(x.get<std::string>());
      for (const auto& x : j["run"].value("args", nlohmann::json::array())) c.run_command.push_back(x.get<std::string>());
      const auto& r = j["run"];
      if (r.contains("capture_build") && r["capture_build"].is_string()) c.capture_build = r["capture_build"].get<std::string>();
      c.capture_timeout_s = r.value("timeout_s", 300.0);
      c.capture_max_shapes = countValue(r, "max_shapes", 3u, path, "run.max_shapes");
      c.capture_max_bytes = countValue(r, "max_bytes", 4ull << 30, path, "run.max_bytes");
    }
    c.backend = str("backend", false);
    if (c.backend.empty()) c.backend = "local";
    if (c.backend != "local" && c.backend != "slurm")
      throw InputError(path, 0, 0, "\"backend\": \"" + c.backend + "\" is not one of local, slurm");
    if (j.contains("slurm") && j["slurm"].is_object()) {
      const auto& s = j["slurm"];
      c.slurm.partition = s.value("partition", "");
      c.slurm.account = s.value("account", "");
      c.slurm.gres = s.value("gres", "gpu:1");
      c.slurm.max_jobs = countValue(s, "max_jobs", 4u, path, "slurm.max_jobs");
      if (c.slurm.max_jobs == 0) throw InputError(path, 0, 0, "\"slurm.max_jobs\": expected at least 1");
      c.slurm.runner = s.value("runner", "klineage-runner");
      if (s.contains("args")) c.slurm.args = s["args"].get<std::vector<std::string>>();
    }
    if (j.contains("llm") && j["llm"].is_object()) {
      const auto& l = j["llm"];
      for (const char* k : {"api_key", "key", "token"})
        if (l.contains(k))
          throw InputError(path, 0, 0, std::string("\"llm.") + k +
                                           "\": the API key is read only from the environment (KLINEAGE_LLM_API_KEY), "
                                           "never from config.json");
      c.llm.url = l.value("url", "");
      c.llm.model = l.value("model", "");
      c.llm.max_requests = countValue(l, "max_requests", 32u, path, "llm.max_requests");
      c.llm.max_tokens = countValue(l, "max_tokens", 500000ull, path, "llm.max_tokens");
      c.llm.repair_rounds = countValue(l, "repair_rounds", 2u, path, "llm.repair_rounds");
      c.llm.retries = countValue(l, "retries", 3u, path, "llm.retries");
      c.llm.connect_timeout_s = l.value("connect_timeout_s", 10.0);
      c.llm.timeout_s = l.value("timeout_s", 300.0);
      c.llm.backoff_s = l.value("backoff_s", 1.0);
      for (double v : {c.llm.connect_timeout_s, c.llm.timeout_s})
        if (!(v > 0)) throw InputError(path, 0, 0, "\"llm\": timeouts must be positive numbers of seconds");
      if (!(c.llm.backoff_s >= 0)) throw InputError(path, 0, 0, "\"llm.backoff_s\": expected a non-negative number");
    }
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path, 0, 0, std::string("unexpected content: ") + e.what());
  }
  return c;
}

}  // namespace klineage
