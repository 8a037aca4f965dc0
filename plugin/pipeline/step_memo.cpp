#include "step_memo.h"

#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "core/fs.h"
#include "result_cache.h"
#include "run_key.h"

namespace klineage {
namespace fs = std::filesystem;

namespace {

constexpr int kStepMemoFormat = 1;

// What every remembered rewrite depends on besides its own inputs: this KLineage (its transforms
// and its Clang) and the project headers' contents (read from disk by every parse).
std::string commonText(const Pipeline& p) {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return "klineage-rewrite-memo-" + std::to_string(kStepMemoFormat) + "\n" + (ec ? "?" : fileStamp(self.string())) +
         "\n" + p.cache->projectHeaders() + "\n";
}

// The text Clang parses for a step on a kernel of `parse_file`: that file's flags, and the overlay's
// files except the other target sources (translation units of their own, not read by this one).
std::string inputText(const Pipeline& p, const Overlay& in, const std::string& parse_file) {
  std::string text = commonText(p) + "parse " + parse_file + "\n";
  if (auto a = p.setup.clang_args.find(parse_file); a != p.setup.clang_args.end())
    for (const auto& arg : a->second) text += arg + "\x1f";
  text += "\n";
  const auto& sources = p.setup.originals;
  for (const auto& [file, content] : in) {
    if (file != parse_file && std::find(sources.begin(), sources.end(), file) != sources.end()) continue;
    text += file + " " + fnv1a64Hex(content) + "\n";
  }
  return text;
}

bool usable(const Pipeline& p) { return p.cache && p.cache->knowsProjectHeaders(); }

nlohmann::json geometryJson(const GeometryChange& g) {
  nlohmann::json j = {{"grid_x_divisor", g.grid_x_divisor},
                      {"grid_x_multiplier", g.grid_x_multiplier},
                      {"grid_y_divisor", g.grid_y_divisor},
                      {"grid_y_multiplier", g.grid_y_multiplier}};
  if (g.block_x) j["block_x"] = *g.block_x;
  if (g.block_y) j["block_y"] = *g.block_y;
  return j;
}

GeometryChange geometryFrom(const nlohmann::json& j) {
  GeometryChange g;
  g.grid_x_divisor = j.at("grid_x_divisor").get<unsigned>();
  g.grid_x_multiplier = j.at("grid_x_multiplier").get<unsigned>();
  g.grid_y_divisor = j.at("grid_y_divisor").get<unsigned>();
  g.grid_y_multiplier = j.at("grid_y_multiplier").get<unsigned>();
  if (j.contains("block_x")) g.block_x = j.at("block_x").get<long long>();
  if (j.contains("block_y")) g.block_y = j.at("block_y").get<long long>();
  return g;
}

// The files `out` changed against `in`, with their new text.
nlohmann::json changedFiles(const Overlay& in, const Overlay& out) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [file, text] : out)
    if (auto it = in.find(file); it == in.end() || it->second != text) j[file] = text;
  return j;
}

Overlay withChanges(const Overlay& in, const nlohmann::json& changed) {
  Overlay out = in;
  for (const auto& [file, text] : changed.items()) out[file] = text.get<std::string>();
  return out;
}

}  // namespace

StepResult memoStep(const Pipeline& p, const Overlay& in, const std::string& kernel_file, const std::string& kernel_name,
                    const Transform& t, Direction dir, const TransformParams& params, const TransformFacts& facts,
                    const std::string& unit) {
  if (!usable(p)) return applyStep(in, p.setup.clang_args, kernel_file, kernel_name, t, dir, params, facts, unit);
  std::string text = inputText(p, in, unit.empty() ? kernel_file : unit);
  text += "step " + kernel_file + " " + kernel_name + " " + t.id() + (dir == Direction::Forward ? " forward" : " inverse");
  for (const auto& [k, v] : params) text += " " + k + "=" + v;
  if (facts.block_size) text += " block_size=" + std::to_string(*facts.block_size);
  if (facts.block) text += " block=" + std::to_string(facts.block->x) + "," + std::to_string(facts.block->y) + "," +
                           std::to_string(facts.block->z);
  const std::string key = fnv1a64Hex(text);
  const std::string what = "the step " + t.id() + " on " + kernel_name;
  if (const auto j = p.cache->restoreJson(key, what)) {
    try {
      StepResult r;
      r.applied = j->at("applied").get<bool>();
      r.reason = j->at("reason").get<std::string>();
      r.geometry = geometryFrom(j->at("geometry"));
      r.errors = j->at("errors").get<std::vector<std::string>>();
      r.kernel_after = j->at("kernel_after").get<KernelInfo>();
      r.overlay = withChanges(in, j->at("changed"));
      return r;
    } catch (const std::exception& e) {
      p.status.warning("ignoring the remembered rewrite " + key + " (" + e.what() + "); taking " + what + " again");
    }
  }
  StepResult r = applyStep(in, p.setup.clang_args, kernel_file, kernel_name, t, dir, params, facts, unit);
  p.cache->storeJson(key,
                     {{"kind", "rewrite step"}, {"step", what}, {"applied", r.applied}, {"reason", r.reason},
                      {"geometry", geometryJson(r.geometry)}, {"errors", r.errors}, {"kernel_after", r.kernel_after},
                      {"changed", changedFiles(in, r.overlay)}},
                     what);
  return r;
}

CanonicalForm memoCanonical(const Pipeline& p, const Overlay& in, const std::string& kernel_file,
                            const std::string& kernel_name, const KernelInfo& original, const std::string& unit) {
  if (!usable(p)) return canonicalize(in, p.setup.clang_args, kernel_file, kernel_name, original, unit);
  // `original` is the extraction's description, which the text and the headers determine.
  const std::string key = fnv1a64Hex(inputText(p, in, unit.empty() ? kernel_file : unit) + "normal form " +
                                     kernel_file + " " + kernel_name + "\n" + nlohmann::json(original).dump());
  const std::string what = "the normal form of " + kernel_name;
  if (const auto j = p.cache->restoreJson(key, what)) {
    try {
      CanonicalForm c;
      c.overlay = withChanges(in, j->at("changed"));
      c.info = j->at("info").get<KernelInfo>();
      c.applied = j->at("applied").get<std::vector<std::string>>();
      return c;
    } catch (const std::exception& e) {
      p.status.warning("ignoring the remembered rewrite " + key + " (" + e.what() + "); making " + what + " again");
    }
  }
  CanonicalForm c = canonicalize(in, p.setup.clang_args, kernel_file, kernel_name, original, unit);
  p.cache->storeJson(key,
                     {{"kind", "normal form"}, {"kernel", kernel_name}, {"changed", changedFiles(in, c.overlay)},
                      {"info", c.info}, {"applied", c.applied}},
                     what);
  return c;
}

}  // namespace klineage
