#include "core/skill.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>

#include <toml++/toml.h>

#include "core/diag.h"
#include "core/facts/fact.h"
#include "core/lineage.h"
#include "core/precondition_probes.h"
#include "core/toml_util.h"
#include "core/fs.h"

namespace klineage {

namespace {

namespace fs = std::filesystem;


// Reads one skill file; positions point at the offending node, or at line 1 for missing keys of
// the root table.
class SkillReader {
 public:
  explicit SkillReader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void failAt(const toml::node* n, const std::string& msg) const {
    if (n) throw InputError(file_, n->source().begin.line, n->source().begin.column, msg);
    throw InputError(file_, 1, 0, msg);
  }

  void checkKeys(const toml::table& t, const std::vector<std::string>& allowed, const std::string& where) const {
    checkTomlKeys(file_, t, allowed, where);
  }

  // `parent` is the table the key should be in (null: the root, reported at line 1 when missing).
  const toml::node* get(const toml::table& t, const toml::table* parent_for_pos, const std::string& key,
                        const std::string& label, const std::string& expected, bool required) const {
    const toml::node* n = t.get(key);
    if (!n && required) failAt(parent_for_pos, "missing '" + label + "'; expected " + expected);
    return n;
  }

  std::string str(const toml::table& t, const toml::table* pos, const std::string& key, const std::string& label,
                  bool required) const {
    const toml::node* n = get(t, pos, key, label, label + " = \"...\" (a string)", required);
    if (!n) return {};
    auto s = n->as_string();
    if (!s) failAt(n, label + ": expected a string, found a " + tomlTypeName(*n));
    if (required && s->get().empty()) failAt(n, label + ": expected a non-empty string");
    return s->get();
  }

  const toml::table& table(const toml::table& t, const toml::table* pos, const std::string& key, bool required,
                           const toml::table& empty) const {
    const toml::node* n = get(t, pos, key, key, "a table [" + key + "]", required);
    if (!n) return empty;
    auto tt = n->as_table();
    if (!tt) failAt(n, key + ": expected a table [" + key + "], found a " + tomlTypeName(*n));
    return *tt;
  }

  std::vector<std::string> strings(const toml::table& t, const std::string& key, const std::string& label) const {
    std::vector<std::string> out;
    const toml::node* n = t.get(key);
    if (!n) return out;
    auto arr = n->as_array();
    if (!arr) failAt(n, label + ": expected an array of strings, found a " + tomlTypeName(*n));
    for (const auto& el : *arr) {
      auto s = el.as_string();
      if (!s) failAt(&el, label + ": expected an array of strings, found an element that is a " + tomlTypeName(el));
      out.push_back(s->get());
    }
    return out;
  }

  static nlohmann::json toJson(const toml::node& n) {
    if (auto v = n.as_integer()) return v->get();
    if (auto v = n.as_floating_point()) return v->get();
    if (auto v = n.as_boolean()) return v->get();
    if (auto v = n.as_string()) return v->get();
    if (auto a = n.as_array()) {
      nlohmann::json j = nlohmann::json::array();
      for (const auto& el : *a) j.push_back(toJson(el));
      return j;
    }
    if (auto t = n.as_table()) {
      nlohmann::json j = nlohmann::json::object();
      for (auto&& [k, v] : *t) j[std::string(k.str())] = toJson(v);
      return j;
    }
    return {};  // dates and times: no transform parameter needs them
  }

  Skill read(const std::vector<std::string>& known_transforms, const std::vector<std::string>& known_features) {
    const toml::table root = parseTomlFile(file_, "skill file");
    checkKeys(root, {"anchor", "effect", "example", "id", "intent", "materialize", "params", "preconditions", "prompt",
                     "provenance", "risks", "schema", "search_rank", "transform"},
              "the skill file");
    Skill s;
    s.path = file_;
    const toml::table empty;

    const toml::node* schema = get(root, nullptr, "schema", "schema", "schema = 1", true);
    auto sv = schema->as_integer();
    const std::string supported = "supported schema versions: " + std::to_string(kSkillSchemaMin) + " to " +
                                  std::to_string(kSkillSchemaMax) + " (skills/README.md)";
    if (!sv) failAt(schema, "schema: expected an integer; " + supported);
    if (sv->get() > kSkillSchemaMax)
      failAt(schema, "schema: " + std::to_string(sv->get()) + " is newer than this KLineage reads; " + supported +
                         ". Use a newer KLineage, or write the skill in schema " + std::to_string(kSkillSchemaMax));
    if (sv->get() < kSkillSchemaMin) failAt(schema, "schema: " + std::to_string(sv->get()) + " is not a schema version; " + supported);
    s.schema = static_cast<int>(sv->get());
    const bool v2 = s.schema >= 2;

    s.id = str(root, nullptr, "id", "id", true);
    const toml::node* idn = root.get("id");
    id_line = idn->source().begin.line;
    id_column = idn->source().begin.column;
    for (char c : s.id)
      if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '-'))
        failAt(idn, "id: \"" + s.id + "\": expected lowercase letters, digits and '-' only");
    s.intent = str(root, nullptr, "intent", "intent", true);
    const std::string how = str(root, nullptr, "materialize", "materialize", false);
    if (how.empty() || how == "transform") s.materialize = Materialize::Transform;
    else if (how == "llm") s.materialize = Materialize::Llm;
    else if (how == "transform+llm") s.materialize = Materialize::TransformThenLlm;
    else
      failAt(root.get("materialize"), "materialize: \"" + how +
                                          "\"; expected \"transform\" (the default), \"llm\" or \"transform+llm\"");
    if (s.materialize == Materialize::Llm) {
      if (root.get("transform"))
        failAt(root.get("transform"),
               "transform: a skill with materialize = \"llm\" has no transform; use materialize = \"transform+llm\" "
               "to try the transform first and the language model where it makes no edit");
    } else {
      const char* why = s.materialize == Materialize::Transform
                            ? "transform = \"...\" (a string), or materialize = \"llm\" for a skill a language model "
                              "materializes"
                            : "transform = \"...\" (a string): materialize = \"transform+llm\" tries it first";
      if (!root.get("transform")) failAt(nullptr, std::string("missing 'transform'; expected ") + why);
      s.transform = str(root, nullptr, "transform", "transform", true);
      if (std::find(known_transforms.begin(), known_transforms.end(), s.transform) == known_transforms.end())
        failAt(root.get("transform"),
               "transform: unknown transform '" + s.transform + "'; known transforms: " + joinNames(known_transforms));
    }
    s.prompt = str(root, nullptr, "prompt", "prompt", false);
    if (root.get("prompt") && s.materialize == Materialize::Transform)
      failAt(root.get("prompt"), "prompt: only a skill a language model materializes has a prompt; expected "
                                 "materialize = \"llm\" or \"transform+llm\" with it");
    if (root.get("prompt") && s.prompt.empty()) failAt(root.get("prompt"), "prompt: expected a non-empty string");
    s.example = str(root, nullptr, "example", "example", false);
    if (root.get("example") && s.materialize == Materialize::Transform)
      failAt(root.get("example"), "example: only a skill a language model materializes has an example; expected "
                                  "materialize = \"llm\" or \"transform+llm\" with it");
    for (size_t at = s.prompt.find("{{"); at != std::string::npos; at = s.prompt.find("{{", at + 2)) {
      const size_t close = s.prompt.find("}}", at);
      const std::string name = close == std::string::npos ? "" : s.prompt.substr(at + 2, close - at - 2);
      const auto& known = promptPlaceholders();
      if (std::find(known.begin(), known.end(), name) == known.end())
        failAt(root.get("prompt"), "prompt: unknown placeholder '{{" + name + (close == std::string::npos ? "" : "}}") +
                                       "'; valid placeholders: " + joinNames(known));
    }

    if (const toml::node* r = root.get("search_rank")) {
      auto v = r->as_integer();
      if (!v || v->get() < -100 || v->get() > 100)
        failAt(r, "search_rank: expected an integer from -100 to 100 (lower is tried first; default 0)");
      s.search_rank = static_cast<int>(v->get());
    }

    if (const toml::node* p = root.get("params")) {
      if (!p->as_table()) failAt(p, "params: expected a table [params], found a " + tomlTypeName(*p));
      s.params = toJson(*p);
    }

    const toml::table& anchor = table(root, nullptr, "anchor", true, empty);
    checkKeys(anchor, {"description", "first_step", "forbids_features", "requires_features"}, "[anchor]");
    s.anchor_description = str(anchor, &anchor, "description", "anchor.description", true);
    if (const toml::node* f = anchor.get("first_step")) {
      const auto* b = f->as_boolean();
      if (!b) failAt(f, "anchor.first_step: expected true or false, found a " + tomlTypeName(*f));
      s.first_step = b->get();
    }
    auto features = [&](const std::string& key) {
      std::vector<std::string> v = strings(anchor, key, "anchor." + key);
      const auto& known = known_features;
      const toml::node* n = anchor.get(key);
      for (const auto& f : v)
        if (std::find(known.begin(), known.end(), f) == known.end())
          failAt(n, "anchor." + key + ": unknown feature '" + f + "'; valid features: " + joinNames(known));
      return v;
    };
    s.requires_features = features("requires_features");
    s.forbids_features = features("forbids_features");
    for (const auto& f : s.requires_features)
      if (std::find(s.forbids_features.begin(), s.forbids_features.end(), f) != s.forbids_features.end())
        failAt(anchor.get("forbids_features"),
               "anchor.forbids_features: '" + f + "' is also required; expected each feature in at most one list");

    const toml::table& pre = table(root, nullptr, "preconditions", false, empty);
    const std::vector<std::string> probed_keys = {"not_required", "probes", "unverified", "verified"};
    if (!v2)
      for (const auto& k : probed_keys)
        if (pre.get(k)) failAt(pre.get(k), "preconditions." + k + ": needs schema = 2 (this file says 1)");
    if (v2) checkKeys(pre, {"facts", "not_required", "probes", "unverified", "verified"}, "[preconditions]");
    else checkKeys(pre, {"facts"}, "[preconditions]");
    s.facts = strings(pre, "facts", "preconditions.facts");
    for (const auto& f : s.facts)
      if (!isKnownFact(f))
        failAt(pre.get("facts"), "preconditions.facts: unknown fact '" + f + "'; valid facts: " + joinNames(factForms()));
    readProbed(pre, s);

    const toml::table& effect = table(root, nullptr, "effect", true, empty);
    checkKeys(effect, {"expected", "measured"}, "[effect]");
    s.expected_effect = str(effect, &effect, "expected", "effect.expected", true);
    if (const toml::node* m = effect.get("measured")) {
      auto arr = m->as_array();
      if (!arr) failAt(m, "effect.measured: expected an array of tables [[effect.measured]], found a " + tomlTypeName(*m));
      for (const auto& el : *arr) {
        auto t = el.as_table();
        if (!t) failAt(&el, "effect.measured: expected tables { workload, gpu, speedup }, found a " + tomlTypeName(el));
        if (!v2)
          for (const char* k : {"expert", "step"})
            if (t->get(k)) failAt(t->get(k), std::string("effect.measured.") + k + ": needs schema = 2 (this file says 1)");
        if (v2) checkKeys(*t, {"expert", "gpu", "speedup", "step", "workload"}, "[[effect.measured]]");
        else checkKeys(*t, {"gpu", "speedup", "workload"}, "[[effect.measured]]");
        MeasuredEffect me;
        me.expert = str(*t, t, "expert", "effect.measured.expert", false);
        me.step = str(*t, t, "step", "effect.measured.step", false);
        me.workload = str(*t, t, "workload", "effect.measured.workload", true);
        me.gpu = str(*t, t, "gpu", "effect.measured.gpu", true);
        const toml::node* sp = get(*t, t, "speedup", "effect.measured.speedup", "a positive number", true);
        if (auto i = sp->as_integer()) me.speedup = static_cast<double>(i->get());
        else if (auto f = sp->as_floating_point()) me.speedup = f->get();
        else failAt(sp, "effect.measured.speedup: expected a positive number, found a " + tomlTypeName(*sp));
        if (!(me.speedup > 0) || !std::isfinite(me.speedup))
          failAt(sp, "effect.measured.speedup: expected a positive number");
        s.measured.push_back(me);
      }
    }

    if (const toml::node* r = root.get("risks")) {
      auto arr = r->as_array();
      if (!arr) failAt(r, "risks: expected an array of tables [[risks]], found a " + tomlTypeName(*r));
      for (const auto& el : *arr) {
        auto t = el.as_table();
        if (!t) failAt(&el, "risks: expected tables { failure, avoided_by }, found a " + tomlTypeName(el));
        checkKeys(*t, {"avoided_by", "failure"}, "[[risks]]");
        s.risks.push_back({str(*t, t, "failure", "risks.failure", true), str(*t, t, "avoided_by", "risks.avoided_by", true)});
      }
    }

    const toml::table& prov = table(root, nullptr, "provenance", true, empty);
    const std::vector<std::string> v2_prov = {"cuda", "date", "gpu", "lineage", "mined_from", "version"};
    if (!v2)
      for (const auto& k : v2_prov)
        if (prov.get(k)) failAt(prov.get(k), "provenance." + k + ": needs schema = 2 (this file says 1)");
    if (v2) checkKeys(prov, {"cuda", "date", "gpu", "kind", "lineage", "mined_from", "source", "version"}, "[provenance]");
    else checkKeys(prov, {"kind", "source"}, "[provenance]");
    s.provenance_kind = str(prov, &prov, "kind", "provenance.kind", true);
    if (s.provenance_kind != "hand-written" && s.provenance_kind != "mined")
      failAt(prov.get("kind"), "provenance.kind: \"" + s.provenance_kind + "\"; expected \"hand-written\" or \"mined\"");
    s.provenance_source = str(prov, &prov, "source", "provenance.source", false);
    s.mined_from = str(prov, &prov, "mined_from", "provenance.mined_from", false);
    s.lineage = str(prov, &prov, "lineage", "provenance.lineage", false);
    s.lineage_version = str(prov, &prov, "version", "provenance.version", false);
    s.gpu = str(prov, &prov, "gpu", "provenance.gpu", false);
    s.cuda = str(prov, &prov, "cuda", "provenance.cuda", false);
    s.date = str(prov, &prov, "date", "provenance.date", false);
    if (v2 && s.provenance_kind == "mined" && s.mined_from.empty())
      failAt(&prov, "missing 'provenance.mined_from'; expected mined_from = \"<expert file>:<kernel>\" for a mined skill");
    if (!s.lineage.empty() && s.lineage_version.empty())
      failAt(prov.get("lineage"), "provenance.lineage: expected provenance.version too (the lineage's version the step applies to)");
    return s;
  }

  unsigned id_line = 0, id_column = 0;

 private:
  // verified / unverified / not_required and [[preconditions.probes]]: what `klineage mine --probe`
  // found (docs/lineage.md). Each precondition a fact or an implicit one, in one list at most.
  void readProbed(const toml::table& pre, Skill& s) const {
    std::map<std::string, std::string> listed;  // precondition -> list
    auto known = [&](const std::string& key, const std::string& p, const toml::node* n) {
      if (!isKnownFact(p) && !isImplicitPrecondition(p))
        failAt(n, "preconditions." + key + ": unknown precondition '" + p + "'; expected a fact (" + joinNames(factForms()) +
                      ") or divisible-sizes or block-size");
    };
    for (auto [key, list] : {std::pair{"verified", &s.verified}, std::pair{"unverified", &s.unverified},
                             std::pair{"not_required", &s.not_required}}) {
      *list = strings(pre, key, std::string("preconditions.") + key);
      for (const auto& p : *list) {
        known(key, p, pre.get(key));
        auto [it, fresh] = listed.emplace(p, key);
        if (!fresh)
          failAt(pre.get(key), std::string("preconditions.") + key + ": '" + p + "' is also in preconditions." + it->second +
                                   "; expected each precondition in one list");
      }
    }
    const toml::node* m = pre.get("probes");
    if (!m) return;
    auto arr = m->as_array();
    if (!arr) failAt(m, "preconditions.probes: expected an array of tables [[preconditions.probes]], found a " + tomlTypeName(*m));
    for (const auto& el : *arr) {
      auto t = el.as_table();
      if (!t) failAt(&el, "preconditions.probes: expected tables { precondition, probe, outcome, reason }, found a " + tomlTypeName(el));
      checkKeys(*t, {"outcome", "precondition", "probe", "reason", "speedup", "step"}, "[[preconditions.probes]]");
      PreconditionEvidence e;
      e.precondition = str(*t, t, "precondition", "preconditions.probes.precondition", true);
      known("probes.precondition", e.precondition, t->get("precondition"));
      e.probe = str(*t, t, "probe", "preconditions.probes.probe", false);
      e.outcome = str(*t, t, "outcome", "preconditions.probes.outcome", true);
      const auto& outcomes = stepProbeOutcomes();
      if (std::find(outcomes.begin(), outcomes.end(), e.outcome) == outcomes.end())
        failAt(t->get("outcome"), "preconditions.probes.outcome: \"" + e.outcome + "\"; expected one of " + joinNames(outcomes));
      e.reason = str(*t, t, "reason", "preconditions.probes.reason", false);
      e.step = str(*t, t, "step", "preconditions.probes.step", false);
      if (const toml::node* sp = t->get("speedup")) {
        double v = 0;
        if (auto i = sp->as_integer()) v = static_cast<double>(i->get());
        else if (auto f = sp->as_floating_point()) v = f->get();
        if (!(v > 0) || !std::isfinite(v)) failAt(sp, "preconditions.probes.speedup: expected a positive number");
        e.speedup = v;
      }
      s.precondition_probes.push_back(std::move(e));
    }
  }

  std::string file_;
};

}  // namespace

const char* materializeName(Materialize m) {
  switch (m) {
    case Materialize::Transform: return "transform";
    case Materialize::Llm: return "llm";
    case Materialize::TransformThenLlm: return "transform+llm";
  }
  return "?";
}

const std::vector<std::string>& promptPlaceholders() {
  static const std::vector<std::string> names = {
      "skill_id", "intent",     "anchor",      "preconditions", "effect",     "risks",   "params",
      "kernel",   "signature",  "kernel_file", "kernel_source", "launch_site", "facts", "failures", "example"};
  return names;
}

const std::vector<std::string>& featureNames() { return legacyFeatureIds(); }

bool kernelHasFeature(const KernelInfo& k, const std::string& f) {
  std::vector<std::string> ids = featureIdsOf(k);
  return std::find(ids.begin(), ids.end(), f) != ids.end();
}

const std::vector<std::string>& factForms() {
  static const std::vector<std::string> forms = [] {
    std::vector<std::string> v;
    for (const Fact* f : allFacts()) v.push_back(f->form);
    return v;
  }();
  return forms;
}

bool isKnownFact(const std::string& fact) { return findFact(fact) != nullptr; }

bool isImplicitPrecondition(const std::string& p) { return p == kDivisibleSizes || p == kBlockSize; }

bool factHolds(const std::string& fact, const KernelInfo& k, const WorkloadFacts& facts, std::string* why_not) {
  const Fact* f = findFact(fact);
  std::string why;
  if (f && f->check(fact, k, facts, &why)) return true;
  if (why_not) *why_not = fact + ": " + (f ? why : "unknown fact");
  return false;
}

bool preconditionsHold(const Skill& s, const KernelInfo& k, const WorkloadFacts* facts, std::string* why_not) {
  auto no = [&](const std::string& why) {
    if (why_not) *why_not = why;
    return false;
  };
  for (const auto& f : s.requires_features)
    if (!kernelHasFeature(k, f)) return no("kernel '" + k.name + "' lacks required feature '" + f + "'");
  for (const auto& f : s.forbids_features)
    if (kernelHasFeature(k, f)) return no("kernel '" + k.name + "' has forbidden feature '" + f + "'");
  for (const auto& fact : s.facts) {
    if (!facts) return no(fact + ": not proven (no workload for kernel '" + k.name + "')");
    if (!factHolds(fact, k, *facts, why_not)) return false;
  }
  return true;
}

std::vector<Skill> loadSkills(const std::vector<std::string>& dirs, const std::vector<std::string>& known_transforms) {
  return loadSkills(dirs, known_transforms, legacyFeatureIds());
}

std::vector<Skill> loadSkills(const std::vector<std::string>& dirs, const std::vector<std::string>& known_transforms,
                              const std::vector<std::string>& known_features) {
  std::vector<Skill> skills;
  std::map<std::string, std::string> where;  // id -> file
  for (const auto& dir : dirs) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) throw InputError(dir, 0, 0, "expected a directory of skill files (*.toml)");
    std::vector<std::string> files;
    for (const auto& e : fs::directory_iterator(dir, ec))
      if (e.is_regular_file() && e.path().extension() == ".toml") files.push_back(e.path().string());
    if (ec) throw InputError(dir, 0, 0, "cannot list the skills directory: " + ec.message());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      SkillReader reader(f);
      Skill s = reader.read(known_transforms, known_features);
      auto [it, fresh] = where.emplace(s.id, f);
      if (!fresh) {
        throw InputError(f, reader.id_line, reader.id_column,
                         "id: skill id '" + s.id + "' is already defined in " + it->second + "; expected unique ids");
      }
      skills.push_back(std::move(s));
    }
  }
  return skills;
}

std::string Skill::lineagePath() const {
  if (lineage.empty()) return "";
  const fs::path l(lineage);
  if (l.is_absolute() || path.empty()) return l.string();
  return (fs::path(path).parent_path() / l).lexically_normal().string();
}

static nlohmann::json preconditionsJson(const Skill& s) {
  nlohmann::json j = {{"facts", s.facts}};
  if (s.verified.empty() && s.unverified.empty() && s.not_required.empty() && s.precondition_probes.empty()) return j;
  j["verified"] = s.verified;
  j["unverified"] = s.unverified;
  j["not_required"] = s.not_required;
  j["probes"] = nlohmann::json::array();
  for (const auto& e : s.precondition_probes) {
    nlohmann::json p = {{"precondition", e.precondition}, {"outcome", e.outcome}};
    if (!e.probe.empty()) p["probe"] = e.probe;
    if (!e.reason.empty()) p["reason"] = e.reason;
    if (!e.step.empty()) p["step"] = e.step;
    if (e.speedup) p["speedup"] = *e.speedup;
    j["probes"].push_back(p);
  }
  return j;
}

nlohmann::json skillToJson(const Skill& s) {
  nlohmann::json measured = nlohmann::json::array(), risks = nlohmann::json::array();
  for (const auto& m : s.measured) {
    nlohmann::json jm = {{"workload", m.workload}, {"gpu", m.gpu}, {"speedup", m.speedup}};
    if (!m.expert.empty()) jm["expert"] = m.expert;
    if (!m.step.empty()) jm["step"] = m.step;
    measured.push_back(jm);
  }
  for (const auto& r : s.risks) risks.push_back({{"failure", r.failure}, {"avoided_by", r.avoided_by}});
  nlohmann::json prov = {{"kind", s.provenance_kind}};
  if (!s.provenance_source.empty()) prov["source"] = s.provenance_source;
  for (const auto& [k, v] : std::vector<std::pair<const char*, const std::string*>>{
           {"mined_from", &s.mined_from}, {"lineage", &s.lineage}, {"version", &s.lineage_version},
           {"gpu", &s.gpu}, {"cuda", &s.cuda}, {"date", &s.date}})
    if (!v->empty()) prov[k] = *v;
  return {{"schema", s.schema},
          {"id", s.id},
          {"intent", s.intent},
          {"transform", s.transform},
          {"materialize", materializeName(s.materialize)},
          {"search_rank", s.search_rank},
          {"prompt", s.prompt},
          {"example", s.example},
          {"params", s.params},
          {"anchor",
           {{"description", s.anchor_description},
            {"requires_features", s.requires_features},
            {"forbids_features", s.forbids_features},
            {"first_step", s.first_step}}},
          {"preconditions", preconditionsJson(s)},
          {"effect", {{"expected", s.expected_effect}, {"measured", measured}}},
          {"risks", risks},
          {"provenance", prov},
          {"path", s.path}};
}

}  // namespace klineage
