#include "variants.h"

#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "apply.h"
#include "core/fs.h"

namespace klineage {
namespace fs = std::filesystem;

namespace {
TransformParams paramsOf(const Skill& s) {
  TransformParams p;
  for (auto& [k, v] : s.params.items()) p[k] = v.is_string() ? v.get<std::string>() : v.dump();
  return p;
}
const Skill* skillById(const std::vector<Skill>& skills, const std::string& id) {
  for (const auto& s : skills)
    if (s.id == id) return &s;
  return nullptr;
}
std::string relUnder(const std::string& path, const std::string& base) {
  std::error_code ec;
  auto rel = fs::relative(path, base, ec);
  if (ec || rel.empty() || rel.string().rfind("..", 0) == 0)
    return "_ext/" + fnv1a64Hex(path).substr(0, 8) + "/" + fs::path(path).filename().string();
  return rel.string();
}
}  // namespace

std::vector<VariantReport> generateVariants(const KernelPlan& plan, const std::vector<Skill>& skills,
                                            const TargetSetup& setup, const Overlay& originals,
                                            const std::string& out_dir, unsigned budget,
                                            std::vector<std::string>* refusals) {
  const KernelInfo& k = *plan.info;
  const std::string& file = k.range.file;
  TransformFacts tfacts;
  tfacts.block_size = plan.block_size;
  std::vector<VariantReport> reports;

  struct State {
    Overlay overlay;
    std::vector<const Skill*> chain;
    GeometryChange geometry;
    KernelInfo info;
  };
  std::vector<State> frontier{{originals, {}, {}, k}};
  std::set<std::set<std::string>> seen;
  std::set<std::string> logged;
  unsigned made = 0;
  auto note = [&](const std::string& key, const std::string& line) {
    if (!logged.insert(key).second) return;
    say("  " + k.name + ": " + line);
    if (refusals) refusals->push_back(line);
  };
  const WorkloadFacts* wf = plan.facts ? &*plan.facts : nullptr;
  while (!frontier.empty() && made < budget) {
    std::vector<State> next;
    for (const State& st : frontier) {
      for (const Skill& s : skills) {
        if (made >= budget) break;
        std::set<std::string> key;
        bool used = false;
        for (auto* c : st.chain) {
          key.insert(c->id);
          used |= c->id == s.id;
        }
        if (used) continue;
        key.insert(s.id);
        if (seen.count(key)) continue;
        std::string why;
        if (!preconditionsHold(s, st.info, wf, &why)) {
          // Once per skill and reason: after other skills a different precondition may be the one
          // that fails (vectorize needs a grid-stride loop first, then aligned pointers).
          std::string after;
          for (auto* c : st.chain) after += (after.empty() ? " (after " : "+") + c->id;
          if (!after.empty()) after += ")";
          note(s.id + "/" + why, "skill " + s.id + " not applicable" + after + ": " + why);
          continue;
        }
        const Transform* t = findTransform(s.transform);
        StepResult step = applyStep(st.overlay, setup.clang_args, file, k.name, *t, Direction::Forward, paramsOf(s), tfacts);
        if (!step.applied) {
          if (st.chain.empty())
            note(s.id, "skill " + s.id + " made no edit: " + step.reason + (step.errors.empty() ? "" : " (" + step.errors[0] + ")"));
          continue;
        }
        GeometryChange g = st.geometry;
        g.compose(step.geometry);
        if (g.changes() && !plan.geometry_may_change) {
          note(s.id + "/geometry", "skill " + s.id +
                                       " needs a launch-geometry change, but the kernel is launched from outside the "
                                       "target's sources (or no launch site was found): only geometry-preserving "
                                       "variants are gated");
          continue;
        }
        seen.insert(key);
        State ns{std::move(step.overlay), st.chain, g, step.kernel_after};
        // What describes the kernel's place in the target (launch sites, prototypes, header or
        // not) comes from extraction of the whole target, not from re-parsing one file.
        ns.info.launches = k.launches;
        ns.info.declarations = k.declarations;
        ns.info.in_header = k.in_header;
        ns.chain.push_back(&s);
        ++made;
        VariantReport rep;
        Variant& v = rep.variant;
        v.id = k.name + "/" + std::to_string(made);
        v.kernel = k.name;
        v.kernel_file = file;
        for (auto* c : ns.chain) {
          v.skills.push_back(c->id);
          v.transforms.push_back(c->transform);
        }
        v.geometry = g;
        v.mangled_name = ns.info.mangled_name;
        v.diff = describeDiff(originals.at(file), ns.overlay.at(file));
        fs::path dir = fs::path(out_dir) / "variants" / k.name / std::to_string(made);
        v.source = (dir / fs::path(file).filename()).string();
        atomicWrite(v.source, ns.overlay.at(file));
        atomicWrite(dir / "variant.json", nlohmann::json(v).dump(2) + "\n");
        reports.push_back(rep);
        next.push_back(std::move(ns));
      }
    }
    frontier = std::move(next);
  }
  return reports;
}

SelectedFiles buildSelectedSources(const std::map<std::string, const VariantReport*>& best,
                                   const std::vector<KernelPlan>& plans, const std::vector<Skill>& skills,
                                   const TargetSetup& setup, const Manifest& manifest, const Overlay& originals,
                                   const std::string& selected_dir) {
  SelectedFiles result;
  Overlay o = originals;
  std::map<std::string, std::vector<std::string>> launch_edits;   // file -> kernels
  std::map<std::string, std::vector<SelectedKernel>> kernels_in;  // file -> kernels optimized
  for (const auto& [name, rep] : best) {
    const Variant& v = rep->variant;
    const KernelInfo* k = manifest.find(name);
    const KernelPlan* plan = nullptr;
    for (const auto& p : plans)
      if (p.info->name == name) plan = &p;
    if (!k || !plan) continue;
    Overlay trial = o;
    bool ok = true;
    if (v.skills.empty()) {
      trial[v.kernel_file] = readFile(v.source);  // hand-written: the file as given
    }
    TransformFacts tf;
    tf.block_size = plan->block_size;
    for (const auto& sid : v.skills) {
      const Skill* s = skillById(skills, sid);
      StepResult st = s ? applyStep(trial, setup.clang_args, v.kernel_file, name, *findTransform(s->transform),
                                    Direction::Forward, paramsOf(*s), tf)
                        : StepResult{};
      if (!st.applied) {
        warn("re-applying " + sid + " to " + name + " for the selected source failed: " + st.reason +
             "; keeping the original");
        ok = false;
        break;
      }
      trial = std::move(st.overlay);
    }
    if (!ok) continue;
    if (!v.skills.empty() && trial.at(v.kernel_file) != readFile(v.source)) {
      // Other kernels of the file were rewritten first: this kernel's code must still be exactly
      // what was gated.
      const auto& args = setup.clang_args.at(v.kernel_file);
      Manifest a = extractManifest(manifest.target, {{v.kernel_file, args}}, trial);
      Overlay gated = originals;
      gated[v.kernel_file] = readFile(v.source);
      Manifest b = extractManifest(manifest.target, {{v.kernel_file, args}}, gated);
      const KernelInfo* ka = a.find(name);
      const KernelInfo* kb = b.find(name);
      if (!ka || !kb || ka->source_hash != kb->source_hash) {
        warn("the selected source for " + name + " would differ from the gated variant; keeping the original");
        continue;
      }
    }
    std::string why;
    Overlay before = trial;
    if (!rewriteLaunches(trial, setup.clang_args, name, v.geometry, &why)) {
      warn("cannot rewrite the launches of " + name + ": " + why + "; keeping the original");
      continue;
    }
    for (const auto& [f, text] : trial)
      if (before.at(f) != text) launch_edits[f].push_back(name);
    o = std::move(trial);
    kernels_in[v.kernel_file].push_back({name, k->source_hash, v.id, v.skills, v.geometry, rep->speedup});
  }
  const std::string src_root = (fs::path(setup.config.out_dir) / "src").string();
  for (const auto& f : setup.originals) {
    if (o.at(f) == originals.at(f)) continue;
    SelectedSource ss;
    ss.original = f;
    const SourcePair* sp = setup.config.findOriginal(f);
    ss.selected = (fs::path(selected_dir) / relUnder(sp && !sp->materialized.empty() ? sp->materialized : f, src_root)).string();
    ss.kernels = kernels_in[f];
    ss.launches_rewritten_for = launch_edits[f];
    ss.depends_on[f] = fnv1a64Hex(originals.at(f));
    for (const auto& kn : ss.launches_rewritten_for)
      if (const KernelInfo* k = manifest.find(kn)) ss.depends_on[k->range.file] = fnv1a64Hex(originals.at(k->range.file));
    result.texts[f] = o.at(f);
    result.selection.sources.push_back(ss);
  }
  return result;
}

}  // namespace klineage
