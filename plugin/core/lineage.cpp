#include "core/lineage.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "core/diag.h"
#include "core/fs.h"
#include "core/precondition_probes.h"

namespace klineage {
namespace fs = std::filesystem;

const LineageVersion* Lineage::find(const std::string& id) const {
  for (const auto& v : versions)
    if (v.id == id) return &v;
  return nullptr;
}

std::vector<const LineageVersion*> Lineage::pathTo(const std::string& id) const {
  std::vector<const LineageVersion*> path;
  std::set<std::string> seen;
  for (const LineageVersion* v = find(id); v && seen.insert(v->id).second; v = v->parent.empty() ? nullptr : find(v->parent))
    path.push_back(v);
  std::reverse(path.begin(), path.end());
  return path;
}

namespace {

nlohmann::json stepJson(const LineageStep& s) {
  nlohmann::json j = {{"transform", s.transform}, {"direction", "inverse"}, {"params", s.params}, {"what", s.what}};
  if (s.materialize != "rewriter") {  // lineages of rewriter steps only read as before
    j["materialize"] = s.materialize;
    j["forward"] = s.forward;
    j["example"] = s.example;
  }
  if (!s.probes.empty()) {  // `klineage mine --probe` only: lineages without it read as before
    nlohmann::json probes = nlohmann::json::array();
    for (const auto& p : s.probes)
      probes.push_back({{"precondition", p.precondition},
                        {"probe", p.probe.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.probe)},
                        {"outcome", p.outcome},
                        {"reason", p.reason},
                        {"speedup", p.speedup ? nlohmann::json(*p.speedup) : nlohmann::json(nullptr)}});
    j["probes"] = probes;
  }
  return j;
}
LineageStep stepFrom(const nlohmann::json& j) {
  LineageStep s;
  s.transform = j.at("transform").get<std::string>();
  s.params = j.value("params", nlohmann::json::object());
  s.what = j.value("what", "");
  s.materialize = j.value("materialize", "rewriter");
  if (s.materialize != "rewriter" && s.materialize != "llm")
    throw std::runtime_error("step materialize \"" + s.materialize + "\": expected \"rewriter\" or \"llm\"");
  s.forward = j.value("forward", "");
  s.example = j.value("example", "");
  for (const auto& p : j.value("probes", nlohmann::json::array())) {
    StepProbe sp;
    sp.precondition = p.at("precondition").get<std::string>();
    if (p.contains("probe") && p.at("probe").is_string()) sp.probe = p.at("probe").get<std::string>();
    sp.outcome = p.at("outcome").get<std::string>();
    sp.reason = p.value("reason", "");
    if (p.contains("speedup") && p.at("speedup").is_number()) sp.speedup = p.at("speedup").get<double>();
    s.probes.push_back(std::move(sp));
  }
  return s;
}

}  // namespace

void to_json(nlohmann::json& j, const Lineage& l) {
  nlohmann::json versions = nlohmann::json::array();
  for (const auto& v : l.versions) {
    nlohmann::json probes = nlohmann::json::array(), also = nlohmann::json::array();
    for (const auto& p : v.probes) probes.push_back({{"name", p.name}, {"passed", p.passed}});
    for (const auto& [parent, step] : v.also_from) also.push_back({{"parent", parent}, {"step", stepJson(step)}});
    versions.push_back({{"id", v.id},
                        {"parent", v.parent.empty() ? nlohmann::json(nullptr) : nlohmann::json(v.parent)},
                        {"depth", v.depth},
                        {"step", v.step ? stepJson(*v.step) : nlohmann::json(nullptr)},
                        {"source", v.source},
                        {"geometry", v.geometry},
                        {"geometry_text", geometryText(v.geometry)},
                        {"outcome", v.outcome},
                        {"reason", v.reason},
                        {"accepted", v.accepted},
                        {"time_ms", v.time_ms > 0 ? nlohmann::json(v.time_ms) : nlohmann::json(nullptr)},
                        {"parent_speedup", v.parent_speedup ? nlohmann::json(*v.parent_speedup) : nlohmann::json(nullptr)},
                        {"features", v.features},
                        {"facts", v.facts},
                        {"probes", probes},
                        {"also_from", also}});
  }
  j = {{"format", l.format},   {"target", l.target}, {"kernel", l.kernel},       {"expert_file", l.expert_file},
       {"mined_from", l.minedFrom()}, {"workload", l.workload}, {"shape", l.shape}, {"gpu", l.gpu},
       {"arch", l.arch},       {"cuda", l.cuda},     {"date", l.date},           {"max_depth", l.max_depth},
       {"budget", l.budget},   {"versions", versions}};
  nlohmann::json dropped = nlohmann::json::array();
  for (const auto& d : l.dropped)
    dropped.push_back({{"parent", d.parent},
                       {"step", stepJson(d.step)},
                       {"reason", d.reason},
                       {"version", d.version.empty() ? nlohmann::json(nullptr) : nlohmann::json(d.version)}});
  j["dropped"] = dropped;
}

void from_json(const nlohmann::json& j, Lineage& l) {
  l = Lineage{};
  l.format = j.at("format").get<std::string>();
  l.target = j.value("target", "");
  l.kernel = j.at("kernel").get<std::string>();
  l.expert_file = j.at("expert_file").get<std::string>();
  l.workload = j.value("workload", "");
  l.shape = j.value("shape", "");
  l.gpu = j.value("gpu", "");
  l.arch = j.value("arch", "");
  l.cuda = j.value("cuda", "");
  l.date = j.value("date", "");
  l.max_depth = j.value("max_depth", 0u);
  l.budget = j.value("budget", 0u);
  for (const auto& jv : j.at("versions")) {
    LineageVersion v;
    v.id = jv.at("id").get<std::string>();
    if (jv.contains("parent") && !jv.at("parent").is_null()) v.parent = jv.at("parent").get<std::string>();
    v.depth = jv.value("depth", 0u);
    if (jv.contains("step") && !jv.at("step").is_null()) v.step = stepFrom(jv.at("step"));
    v.source = jv.value("source", "");
    if (jv.contains("geometry")) v.geometry = jv.at("geometry").get<GeometryChange>();
    v.outcome = jv.value("outcome", "");
    v.reason = jv.value("reason", "");
    v.accepted = jv.value("accepted", false);
    if (jv.contains("time_ms") && jv.at("time_ms").is_number()) v.time_ms = jv.at("time_ms").get<double>();
    if (jv.contains("parent_speedup") && jv.at("parent_speedup").is_number())
      v.parent_speedup = jv.at("parent_speedup").get<double>();
    v.features = jv.value("features", std::vector<std::string>{});
    v.facts = jv.value("facts", std::vector<std::string>{});
    for (const auto& p : jv.value("probes", nlohmann::json::array()))
      v.probes.push_back({p.at("name").get<std::string>(), p.at("passed").get<bool>()});
    for (const auto& a : jv.value("also_from", nlohmann::json::array()))
      v.also_from.emplace_back(a.at("parent").get<std::string>(), stepFrom(a.at("step")));
    l.versions.push_back(std::move(v));
  }
  for (const auto& d : j.value("dropped", nlohmann::json::array())) {
    DroppedStep s{d.at("parent").get<std::string>(), stepFrom(d.at("step")), d.value("reason", ""), ""};
    if (d.contains("version") && d.at("version").is_string()) s.version = d.at("version").get<std::string>();
    l.dropped.push_back(std::move(s));
  }
}

const std::vector<std::string>& stepProbeOutcomes() {
  static const std::vector<std::string> o = {"breaks-correctness", "breaks-speed", "holds",
                                             "inconclusive",       "not-run",      "unprobed"};
  return o;
}

// The speedup the forward step gives: the simplified version's time over its parent's (the
// gate's interleaved ratio for the step that made it; the two medians for a merged step).
static double forwardEffect(const LineageVersion& v, const LineageVersion& parent, const LineageStep* step) {
  if (v.step && step == &*v.step && v.parent == parent.id && v.parent_speedup) return *v.parent_speedup;
  return v.time_ms > 0 && parent.time_ms > 0 ? v.time_ms / parent.time_ms : 0;
}

std::vector<SkillStep> skillSteps(const Lineage& l) {
  std::vector<SkillStep> out;
  // Every accepted step: the step that made each version, and the merged ones (also_from).
  for (const auto& v : l.versions) {
    if (!v.accepted) continue;
    std::vector<std::pair<const LineageVersion*, const LineageStep*>> steps;
    if (v.step && !v.parent.empty())
      if (const LineageVersion* parent = l.find(v.parent)) steps.emplace_back(parent, &*v.step);
    for (const auto& [pid, step] : v.also_from)
      if (const LineageVersion* parent = l.find(pid)) steps.emplace_back(parent, &step);
    // Only a step whose forward direction pays is a skill: putting back what made the expert
    // slower (mine_sgemm's __launch_bounds__(256): 0.83x) or changed nothing (restrict: 1.00x)
    // stays in the lineage as evidence, not in the library.
    for (const auto& [parent, step] : steps) {
      const double sp = forwardEffect(v, *parent, step);
      if (sp >= kMinedSkillGain) out.push_back({&v, parent, step, sp});
    }
  }
  return out;
}

std::map<std::string, std::string> preconditionVerdicts(const std::vector<const LineageStep*>& steps) {
  std::map<std::string, std::string> v;
  for (const LineageStep* s : steps)
    for (const StepProbe& p : s->probes) {
      std::string& verdict = v[p.precondition];
      if (p.outcome == "breaks-correctness" || p.outcome == "breaks-speed") verdict = "required";
      else if (p.outcome == "holds" && verdict != "required") verdict = "not-required";
      else if (verdict.empty()) verdict = "unverified";
    }
  return v;
}

Lineage loadLineage(const std::string& path) {
  std::string text;
  try {
    text = readFile(path);
  } catch (const std::exception& e) {
    throw InputError(path, 0, 0, std::string("cannot read the lineage file: ") + e.what());
  }
  try {
    nlohmann::json j = nlohmann::json::parse(text);
    if (j.value("format", "") != kLineageFormat)
      throw InputError(path, 1, 0, "format: expected \"" + std::string(kLineageFormat) + "\" (a lineage.json of klineage mine)");
    return j.get<Lineage>();
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {
    throw InputError(path, 0, 0, std::string("not a lineage file (docs/lineage.md): ") + e.what());
  }
}

void saveLineage(const std::string& path, const Lineage& l) { atomicWrite(path, nlohmann::json(l).dump(2) + "\n"); }

namespace {

std::string fixed(double x, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return buf;
}

std::string paramsText(const nlohmann::json& params) {
  std::string out;
  for (auto& [k, v] : params.items()) out += (out.empty() ? "" : ", ") + k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
  return out.empty() ? "" : "(" + out + ")";
}

}  // namespace

std::string lineageLine(const Lineage& l, const LineageVersion& v) {
  (void)l;
  std::string s = v.id + (v.parent.empty() ? " (expert)" : " <- " + v.parent);
  if (v.step) s += "  -" + v.step->transform + paramsText(v.step->params) + (v.step->materialize == "llm" ? " (llm)" : "");
  s += "  " + v.outcome;
  s += v.time_ms > 0 ? "  " + fixed(v.time_ms, 4) + " ms" : "  (not timed)";
  if (v.parent_speedup) s += "  (forward step " + fixed(*v.parent_speedup, 2) + "x)";
  const std::string g = geometryText(v.geometry);
  if (!g.empty()) s += "  [" + g + "]";
  if (!v.accepted && !v.reason.empty() && v.outcome != "expert") s += "  " + v.reason.substr(0, 160);
  return s;
}

std::string lineagePathText(const Lineage& l, const std::string& id) {
  std::string out;
  for (const LineageVersion* v : l.pathTo(id)) out += "  " + lineageLine(l, *v) + "\n";
  return out;
}

std::string minedSkillLineage(const Skill& s) {
  if (s.lineage.empty()) return "";
  const std::string path = s.lineagePath();
  const Lineage l = loadLineage(path);
  if (!l.find(s.lineage_version))
    throw InputError(path, 0, 0, "no version '" + s.lineage_version + "' (named by skill " + s.id + " in " + s.path + ")");
  std::string out = "lineage " + path + ": mined from " + l.minedFrom() + (l.gpu.empty() ? "" : " on " + l.gpu) +
                    (l.date.empty() ? "" : ", " + l.date) + "\n";
  out += "  the expert, simplified step by step to " + s.lineage_version + " (the kernel the skill's forward step applies to):\n";
  return out + lineagePathText(l, s.lineage_version);
}

namespace {

std::string tomlString(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      case '\r': o += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          o += buf;
        } else {
          o += c;
        }
    }
  }
  return o + "\"";
}

std::string tomlStrings(const std::vector<std::string>& v) {
  std::string o = "[";
  for (size_t i = 0; i < v.size(); ++i) o += (i ? ", " : "") + tomlString(v[i]);
  return o + "]";
}

// A parameter value: an integer when the text is one (transforms read them as text either way).
std::string tomlValue(const nlohmann::json& v) {
  if (v.is_number_integer() || v.is_boolean()) return v.dump();
  if (v.is_number()) return v.dump();
  const std::string s = v.is_string() ? v.get<std::string>() : v.dump();
  const bool integer = !s.empty() && s.size() < 18 &&
                       std::all_of(s.begin() + (s[0] == '-' ? 1 : 0), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }) &&
                       s != "-";
  return integer ? s : tomlString(s);
}

std::string skillIdPart(const std::string& s) {
  std::string o;
  for (char c : s) {
    const unsigned char u = static_cast<unsigned char>(c);
    o += std::isalnum(u) ? static_cast<char>(std::tolower(u)) : '-';
  }
  while (o.find("--") != std::string::npos) o.replace(o.find("--"), 2, "-");
  while (!o.empty() && o.back() == '-') o.pop_back();
  while (!o.empty() && o.front() == '-') o.erase(o.begin());
  return o;
}

struct MinedSkill {
  std::string id;
  const LineageVersion* first = nullptr;  // the simplified version (forward applies to it)
  const LineageStep* step = nullptr;      // its inverse step
  std::string parent;                     // the version the forward step turns it into
  std::vector<std::pair<const LineageVersion*, const LineageVersion*>> steps;  // (child, parent)
  std::vector<const LineageStep*> step_of;                                    // each one's step
  std::vector<std::pair<std::string, std::string>> risks;                     // failure, avoided_by
};

// The preconditions the probes of the skill's steps named, in the order first named.
std::vector<std::string> probedOrder(const MinedSkill& s) {
  std::vector<std::string> order;
  for (const LineageStep* st : s.step_of)
    for (const StepProbe& p : st->probes)
      if (std::find(order.begin(), order.end(), p.precondition) == order.end()) order.push_back(p.precondition);
  return order;
}

std::string stepName(const MinedSkill& s, size_t i) { return s.steps[i].first->id + " -> " + s.steps[i].second->id; }

// [preconditions]: the facts that held for the simplified version; probed, the ones a probe showed
// the step does without are dropped (not_required), and every probe's evidence follows.
std::string preconditionsToml(const MinedSkill& s, const std::vector<std::string>& facts) {
  const auto verdicts = preconditionVerdicts(s.step_of);
  if (verdicts.empty()) return "\n[preconditions]\nfacts = " + tomlStrings(facts) + "\n";
  std::vector<std::string> kept, verified, unverified, not_required;
  for (const auto& f : facts) {
    auto it = verdicts.find(f);
    if (it == verdicts.end() || it->second != "not-required") kept.push_back(f);
  }
  for (const auto& pre : probedOrder(s)) {
    const std::string& v = verdicts.at(pre);
    (v == "required" ? verified : v == "not-required" ? not_required : unverified).push_back(pre);
  }
  std::ostringstream o;
  o << "\n# Probed (klineage mine --probe, docs/lineage.md): verified = a probe that broke it broke the step (its\n"
       "# results or its gain); unverified = no probe could break it, or none ran; not_required = the step stayed\n"
       "# right and paying on every probe that broke it, so it is not among the facts.\n";
  o << "[preconditions]\nfacts = " << tomlStrings(kept) << "\nverified = " << tomlStrings(verified)
    << "\nunverified = " << tomlStrings(unverified) << "\nnot_required = " << tomlStrings(not_required) << "\n";
  for (size_t i = 0; i < s.step_of.size(); ++i)
    for (const StepProbe& p : s.step_of[i]->probes) {
      o << "\n[[preconditions.probes]]\nprecondition = " << tomlString(p.precondition) << "\n";
      if (!p.probe.empty()) o << "probe = " << tomlString(p.probe) << "\n";
      o << "outcome = " << tomlString(p.outcome) << "\nreason = " << tomlString(p.reason.substr(0, 300))
        << "\nstep = " << tomlString(stepName(s, i)) << "\n";
      if (p.speedup && *p.speedup > 0) o << "speedup = " << fixed(*p.speedup, 4) << "\n";
    }
  return o.str();
}

// The probes that broke the step, as risks: what happens without the precondition, and what avoids it.
std::vector<std::pair<std::string, std::string>> probeRisks(const Lineage& l, const MinedSkill& s) {
  std::vector<std::pair<std::string, std::string>> risks;
  for (size_t i = 0; i < s.step_of.size(); ++i)
    for (const StepProbe& p : s.step_of[i]->probes) {
      if (p.outcome != "breaks-correctness" && p.outcome != "breaks-speed") continue;
      const std::string failure =
          std::string(p.outcome == "breaks-correctness" ? "wrong or failing" : "no gain") + " on the probe " + p.probe +
          " (breaks " + p.precondition + "; step " + stepName(s, i) + ")" +
          (p.reason.empty() ? "" : ": " + p.reason.substr(0, 200));
      const std::string avoided =
          p.precondition == kDivisibleSizes
              ? "sizes like the measured launch's (" + l.shape + "); no fact checks them, the gate's probe shapes do"
          : p.precondition == kBlockSize ? "the measured block (" + l.shape + "); no fact checks it, the gate does"
                                         : "the precondition " + p.precondition + " (verified by this probe)";
      bool have = false;
      for (const auto& r : risks) have = have || r.first == failure;
      if (!have) risks.emplace_back(failure, avoided);
    }
  return risks;
}

}  // namespace

static std::string listDifference(const std::vector<std::string>& all, const std::vector<std::string>& kept) {
  std::string out;
  for (const auto& f : all)
    if (std::find(kept.begin(), kept.end(), f) == kept.end()) out += (out.empty() ? "" : ", ") + f;
  return out.empty() ? "nothing else" : out;
}

static std::string oneLine(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

std::map<std::string, std::vector<std::string>> transformNeeds(const std::vector<Skill>& library) {
  std::map<std::string, std::vector<std::string>> needs;
  for (const Skill& s : library) {
    if (s.provenance_kind != "hand-written" || !s.hasTransform() || s.transform.empty()) continue;
    std::vector<std::string> req = s.requires_features;
    std::sort(req.begin(), req.end());
    auto it = needs.find(s.transform);
    if (it == needs.end()) {
      needs.emplace(s.transform, req);
      continue;
    }
    std::vector<std::string> both;
    std::set_intersection(it->second.begin(), it->second.end(), req.begin(), req.end(), std::back_inserter(both));
    it->second = both;
  }
  return needs;
}

// The features a mined skill's anchor requires (emitMinedSkills says which).
static std::vector<std::string> anchorFeatures(const LineageVersion& v, const LineageStep& step,
                                               const std::map<std::string, std::vector<std::string>>& needs) {
  auto it = needs.find(step.transform);
  if (step.materialize == "llm" || it == needs.end()) return v.features;
  std::vector<std::string> out;
  for (const auto& f : v.features)
    if (std::find(it->second.begin(), it->second.end(), f) != it->second.end()) out.push_back(f);
  return out;
}

std::vector<std::string> emitMinedSkills(const Lineage& l, const std::string& lineage_path, const std::string& out_dir,
                                         const std::map<std::string, std::vector<std::string>>& transform_needs) {
  std::vector<MinedSkill> skills;
  std::map<std::string, size_t> by_key;  // transform + params + anchor -> skill
  std::map<std::string, unsigned> per_transform;
  for (const SkillStep& ss : skillSteps(l)) {
    const LineageVersion& v = *ss.child;
    const LineageVersion* parent = ss.parent;
    const LineageStep* stp = ss.step;
    // Steps merge when the versions they apply to have the same features (their contexts), not only
    // the same anchor: a skill's measured effects stay those of one context.
    std::vector<std::string> features = v.features;
    std::sort(features.begin(), features.end());
    // A language model's simplifications are one skill each (`what` names the technique).
    const bool proposed = stp->transform == "llm-proposed";
    const std::string key = stp->materialize + "|" + stp->transform + "|" + stp->params.dump() + "|" +
                            nlohmann::json(features).dump() + (proposed ? "|" + stp->what : "");
    auto [it, fresh] = by_key.emplace(key, skills.size());
    if (fresh) {
      MinedSkill s;
      const std::string base = skillIdPart(stp->transform) + (stp->materialize == "llm" && !proposed ? "-llm" : "");
      const unsigned n = ++per_transform[base];
      s.id = "mined-" + skillIdPart(l.kernel) + "-" + base + (n > 1 ? "-" + std::to_string(n) : "");
      s.first = &v;
      s.step = stp;
      s.parent = parent->id;
      skills.push_back(std::move(s));
    }
    MinedSkill& s = skills[it->second];
    s.steps.emplace_back(&v, parent);
    s.step_of.push_back(stp);
    // Risks: what the gate rejected among the other inverse steps from the same parent.
    for (const auto& sib : l.versions) {
      if (sib.parent != parent->id || sib.accepted || !sib.step || sib.id == v.id) continue;
      std::string failure = "-" + sib.step->transform + " from " + parent->id + " (" + sib.id + ") was " + sib.outcome +
                            (sib.reason.empty() ? "" : ": " + sib.reason.substr(0, 200));
      bool have = false;
      for (const auto& r : s.risks) have = have || r.first == failure;
      if (!have) s.risks.emplace_back(failure, "the gate (correctness on the captured launches and probe shapes)");
    }
  }
  std::vector<std::string> written;
  fs::create_directories(out_dir);
  for (const MinedSkill& s : skills) {
    const LineageVersion& v = *s.first;
    const fs::path file = fs::path(out_dir) / (s.id + ".toml");
    std::error_code ec;
    fs::path rel = fs::relative(fs::absolute(lineage_path), fs::absolute(out_dir), ec);
    if (ec || rel.empty()) rel = fs::absolute(lineage_path);
    std::ostringstream o;
    o << "# Mined by `klineage mine` from " << l.minedFrom() << " (lineage: " << rel.string() << ", version " << v.id
      << "); docs/lineage.md.\n";
    o << "schema = 2\n";
    o << "id = " << tomlString(s.id) << "\n";
    if (s.step->transform == "llm-proposed")
      o << "intent = " << tomlString("undo the simplification \"" + oneLine(s.step->what) + "\" (proposed by a language model) as the expert " +
                                     l.kernel + " has it: the step " + s.parent + " -> " + v.id + " of its lineage, reversed")
        << "\n";
    else
      o << "intent = " << tomlString(s.step->transform + " as the expert " + l.kernel + " has it: the inverse step " +
                                     s.parent + " -> " + v.id + " of its lineage, reversed") << "\n";
    if (s.step->materialize == "llm") {
      // No forward transform writes the expert's form back: a language model applies the step, shown
      // the expert's own forward diff (docs/lineage.md, "Steps no transform reproduces").
      if (s.step->transform == "llm-proposed")
        o << "# A language model proposed the step " << s.parent << " -> " << v.id << "; no transform applies it.\n";
      else
        o << "# " << s.step->transform << "'s forward does not give " << s.parent << " back from " << v.id << ": "
          << oneLine(s.step->forward) << "\n";
      o << "materialize = \"llm\"\n";
      o << "example = " << tomlString(s.step->example) << "\n";
    } else {
      o << "transform = " << tomlString(s.step->transform) << "\n";
    }
    if (!s.step->params.empty() && s.step->materialize != "llm") {
      o << "\n[params]\n";
      for (auto& [k, val] : s.step->params.items()) o << k << " = " << tomlValue(val) << "\n";
    }
    const std::vector<std::string> anchor = anchorFeatures(v, *s.step, transform_needs);
    o << "\n[anchor]\ndescription = "
      << tomlString(anchor.size() == v.features.size()
                        ? "a kernel with the features of " + v.id + ", the version of " + l.kernel +
                              " this forward step turns into " + s.parent
                        : "a kernel with the features " + s.step->transform + "'s library skills need, as " + v.id +
                              " (the version of " + l.kernel + " this forward step turns into " + s.parent +
                              ") has them; " + v.id + " also had: " + listDifference(v.features, anchor))
      << "\nrequires_features = " << tomlStrings(anchor) << "\n";
    o << preconditionsToml(s, v.facts);
    o << "\n[effect]\nexpected = "
      << tomlString("measured on " + (l.gpu.empty() ? std::string("no GPU") : l.gpu) + " with " + l.kernel + "'s workload (" +
                    l.shape + "); other kernels of the same shape should gain alike")
      << "\n";
    for (const auto& [child, parent] : s.steps) {
      // The step's parent is the version's own (interleaved ratios), or a merged one (the times).
      std::optional<double> sp = child->parent == parent->id ? child->parent_speedup : std::nullopt;
      if (!sp && child->time_ms > 0 && parent->time_ms > 0) sp = child->time_ms / parent->time_ms;
      if (!sp || !(*sp > 0) || l.gpu.empty()) continue;
      o << "\n[[effect.measured]]\nworkload = " << tomlString(l.workload + ", " + l.shape) << "\ngpu = " << tomlString(l.gpu)
        << "\nspeedup = " << fixed(*sp, 4) << "\nexpert = " << tomlString(l.minedFrom())
        << "\nstep = " << tomlString(child->id + " -> " + parent->id) << "\n";
    }
    for (const auto& [failure, avoided] : probeRisks(l, s)) o << "\n[[risks]]\nfailure = " << tomlString(failure)
                                                                << "\navoided_by = " << tomlString(avoided) << "\n";
    for (const auto& [failure, avoided] : s.risks)
      o << "\n[[risks]]\nfailure = " << tomlString(failure) << "\navoided_by = " << tomlString(avoided) << "\n";
    o << "\n[provenance]\nkind = \"mined\"\nmined_from = " << tomlString(l.minedFrom()) << "\nlineage = "
      << tomlString(rel.string()) << "\nversion = " << tomlString(v.id) << "\ngpu = " << tomlString(l.gpu)
      << "\ncuda = " << tomlString(l.cuda) << "\ndate = " << tomlString(l.date) << "\n";
    atomicWrite(file, o.str());
    written.push_back(file.string());
  }
  return written;
}

std::string preconditionEvidenceText(const Skill& s) {
  if (s.precondition_probes.empty() && s.verified.empty() && s.unverified.empty() && s.not_required.empty()) return "";
  std::string out = "preconditions, probed (klineage mine --probe; docs/lineage.md):\n";
  std::vector<std::string> order;
  for (const auto* list : {&s.verified, &s.unverified, &s.not_required})
    for (const auto& p : *list) order.push_back(p);
  for (const auto& e : s.precondition_probes)
    if (std::find(order.begin(), order.end(), e.precondition) == order.end()) order.push_back(e.precondition);
  auto in = [](const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); };
  for (const auto& pre : order) {
    const std::string verdict = in(s.verified, pre)       ? "required (verified by a probe)"
                                : in(s.not_required, pre) ? "not required (the step stayed right and paying; not a fact of the skill)"
                                : in(s.unverified, pre)   ? "unverified (no probe could break it, or none ran)"
                                                          : "";
    out += "  " + pre + (verdict.empty() ? "" : ": " + verdict) + "\n";
    for (const auto& e : s.precondition_probes) {
      if (e.precondition != pre) continue;
      out += "    " + (e.probe.empty() ? std::string("(no probe)") : e.probe) + "  " + e.outcome;
      if (e.speedup) out += "  " + fixed(*e.speedup, 2) + "x";
      if (!e.step.empty()) out += "  [" + e.step + "]";
      if (!e.reason.empty()) out += "  " + e.reason.substr(0, 200);
      out += "\n";
    }
  }
  return out;
}

}  // namespace klineage
