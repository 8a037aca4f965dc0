#include "select.h"
#include "step_memo.h"

#include <algorithm>
#include <filesystem>
#include <exception>
#include <functional>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "canonical/canonical.h"
#include "context.h"
#include "core/fs.h"
#include "core/parallel.h"
#include "gate/judge.h"
#include "gate_jobs.h"
#include "gate_loop.h"
#include "header_kernels.h"
#include "status.h"

namespace klineage {
namespace fs = std::filesystem;

namespace {

// Where compute-sanitizer is: beside nvcc, else on the PATH.
std::string sanitizerPath(const Config& cfg) {
  const fs::path beside = fs::path(cfg.nvcc).parent_path() / "compute-sanitizer";
  std::error_code ec;
  return fs::exists(beside, ec) ? beside.string() : "compute-sanitizer";
}

// The winner's last checks; "" when it passed them, else why (its outcome set).
std::string recheck(Pipeline& p, const KernelPlan& plan, const VariantReport& orig, VariantReport& r) {
  std::string why;
  auto job = makeJob(plan, orig, r, &why);  // it was made once already, so it is made again
  if (!job) {
    r.outcome = Outcome::NotRun;
    return why;
  }
  const std::string wd = p.layout.gateWork(r.variant.kernel, fs::path(r.cubin).stem().string()).string();
  JobBundle b{r.variant.id + "#recheck", *job, wd + "-recheck", runnerProcessLimit(plan.timeout_s), "", ""};
  b.job.profile.enabled = false;
  b.job.seeds.clear();
  b.job.random_seeds = 2;
  RunnerResult checked = p.backend.runOne(b);
  for (std::string note; !(note = dropOriginalFailedProbe(b.job, checked)).empty();) {
    if (std::find(r.checks.begin(), r.checks.end(), note) == r.checks.end()) r.checks.push_back(note);
    checked = p.backend.runOne(b);
  }
  const Verdict v = judgeCheck(checked);
  if (v.outcome != Outcome::Passed) {
    r.outcome = v.outcome;
    return "re-checked before keeping it, on fresh inputs: " + v.reason;
  }
  const unsigned probes = checked.probes_checked;
  r.checks.push_back("re-checked on 2 fresh random input sets" +
                     (probes ? " and " + std::to_string(probes) + " probe shape(s)" : std::string()));
  if (p.cfg.sanitize.empty()) return "";
  JobBundle sb = b;
  sb.id = r.variant.id + "#sanitize";
  sb.work_dir = wd + "-" + p.cfg.sanitize;
  sb.job.guard_bytes = 0;  // the sanitizer sees the exact bounds of every allocation
  sb.job.probes.clear();
  sb.job.random_seeds = 1;
  sb.job.launch_timeout_s *= 30;  // kernels run tens of times slower under the sanitizer
  sb.timeout_s = runnerProcessLimit(sb.job.launch_timeout_s);
  sb.sanitizer = sanitizerPath(p.cfg);
  sb.tool = p.cfg.sanitize;
  RunnerResult res = p.backend.runOne(sb);
  if (res.status != RunStatus::Ok || res.outcome != Outcome::Passed) {
    r.outcome = Outcome::RuntimeFailed;
    return "compute-sanitizer --tool " + p.cfg.sanitize + ": " + res.reason;
  }
  r.checks.push_back("compute-sanitizer --tool " + p.cfg.sanitize + ": no error reported");
  return "";
}

std::string relUnder(const std::string& path, const std::string& base) {
  std::error_code ec;
  auto rel = fs::relative(path, base, ec);
  if (ec || rel.empty() || rel.string().rfind("..", 0) == 0)
    return "_ext/" + fnv1a64Hex(path).substr(0, 8) + "/" + fs::path(path).filename().string();
  return rel.string();
}

const Skill* skillById(const std::vector<Skill>& skills, const std::string& id) {
  for (const auto& s : skills)
    if (s.id == id) return &s;
  return nullptr;
}

// The winner re-applied on top of `o` (other winners already in it); "" or why it cannot be.
std::string reapply(Pipeline& p, const VariantReport& rep, const KernelPlan& plan, const std::vector<Skill>& skills,
                    const Manifest& manifest, Overlay& trial) {
  const Variant& v = rep.variant;
  // Hand-written and LLM variants (transforms {"llm"}) are the file as given, over the original:
  // it may not also hold another winner's rewrite.
  const bool whole_file = v.skills.empty() || v.transforms == std::vector<std::string>{"llm"};
  if (whole_file && trial.at(v.kernel_file) != p.originals.at(v.kernel_file))
    return "another kernel of " + fs::path(v.kernel_file).filename().string() + " was rewritten for the selection, and " +
           v.id + " replaces the whole file";
  if (whole_file) {
    trial[v.kernel_file] = readFile(v.source);
    return "";
  }
  // The chain was made from the kernel's normal form (canonical.h): derived again here, on top of
  // the other winners (a pass edits only this kernel's body).
  if (plan.info)
    trial = memoCanonical(p, trial, v.kernel_file, v.kernel, *plan.info, v.unit).overlay;
  // Each step sees the launch as the steps before it left it: after a block-size step the next
  // one is written for the new block.
  GeometryChange geometry;
  for (const auto& sid : v.skills) {
    const Skill* s = skillById(skills, sid);
    StepResult st = s ? memoStep(p, trial, v.kernel_file, v.kernel, *findTransform(s->transform), Direction::Forward,
                                 paramsOf(*s), factsFor(plan, geometry), v.unit)
                      : StepResult{};
    if (!st.applied) return "re-applying " + sid + " to " + v.kernel + " for the selected source failed: " + st.reason;
    geometry.compose(st.geometry);
    trial = std::move(st.overlay);
  }
  if (v.skills.empty() || trial.at(v.kernel_file) == readFile(v.source)) return "";
  // Other kernels of the file were rewritten first: this kernel's code must still be exactly
  // what was gated.
  const std::string& unit = v.unit.empty() ? v.kernel_file : v.unit;  // a header is read through its unit
  const auto& args = p.setup.clang_args.at(unit);
  Manifest a = extractManifest(manifest.target, {{unit, args}}, trial);
  Overlay gated = p.originals;
  gated[v.kernel_file] = readFile(v.source);
  Manifest b = extractManifest(manifest.target, {{unit, args}}, gated);
  const KernelInfo* ka = a.find(v.kernel);
  const KernelInfo* kb = b.find(v.kernel);
  if (!ka || !kb || ka->source_hash != kb->source_hash)
    return "the selected source for " + v.kernel + " would differ from the gated variant";
  return "";
}

// A template kernel with instantiations that were not gated keeps its original: the rewritten
// pattern would change them too.
void dropUngated(Pipeline& p, const Plans& plans, std::map<std::string, const VariantReport*>& best, bool say) {
  for (auto it = best.begin(); it != best.end();) {
    const KernelPlan* plan = plans.find(it->first);
    if (!plan || plan->ungated_instantiations.empty()) {
      ++it;
      continue;
    }
    std::string names;
    for (const auto& n : plan->ungated_instantiations) names += (names.empty() ? "" : ", ") + it->first + "<" + n + ">";
    if (say)
      p.status.kernelNote(it->first, it->second->variant.id + " passed, but the original is kept: the instantiations " +
                                         names + " were not gated and would change with the template");
    it = best.erase(it);
  }
}

}  // namespace

std::map<std::string, const VariantReport*> selectChecked(Pipeline& p, const Plans& plans,
                                                          std::vector<VariantReport>& reports) {
  for (bool first = true;; first = false) {
    std::map<std::string, const VariantReport*> best = selectBest(reports);
    dropUngated(p, plans, best, first);
    bool dropped = false;
    for (const auto& [name, chosen] : best) {
      VariantReport& r = reports[static_cast<size_t>(chosen - reports.data())];
      if (r.rechecked) continue;
      r.rechecked = true;
      const std::string why = recheck(p, *plans.find(name), *originalOf(reports, name), r);
      if (why.empty()) continue;
      r.reason = why;
      dropped = true;
      p.status.kernelNote(name, r.variant.id + " dropped: " + why);
    }
    if (!dropped) return best;
  }
}

// Headers rewritten for the selection (their kernels' winners): each goes under
// selected_dir/include/<the name its sources include it by>, for `klineage materialize` to put
// ahead of the original while the header is unchanged.
// A header kernel whose launches were rewritten (a geometry change) depends on those files too:
// should they change, the original launch would meet the rewritten kernel.
static void addSelectedHeaders(const Pipeline& p, const Manifest& manifest, const Overlay& o,
                               std::map<std::string, std::vector<SelectedKernel>>& kernels_in,
                               const std::map<std::string, std::vector<std::string>>& launch_edits,
                               const std::string& selected_dir, SelectedFiles& result) {
  for (const auto& [f, text] : p.originals) {
    if (std::find(p.setup.originals.begin(), p.setup.originals.end(), f) != p.setup.originals.end()) continue;
    if (o.at(f) == text) continue;
    SelectedSource hs;
    hs.original = f;
    hs.kernels = kernels_in[f];
    const KernelInfo* first = nullptr;
    for (const auto& k : manifest.kernels)
      if (k.range.file == f) {
        if (!first) first = &k;
        for (const auto& u : k.units)
          if (std::find(hs.included_by.begin(), hs.included_by.end(), u) == hs.included_by.end()) hs.included_by.push_back(u);
      }
    if (!first || hs.included_by.empty()) continue;
    std::string why;
    for (const MirroredHeader& m : mirroredHeaders(p, first->units[0], *first, &why)) {
      if (m.file == f) {
        hs.include_name = m.name;
      } else {
        hs.companions[m.name] = m.file;
        auto it = p.originals.find(m.file);
        hs.depends_on[m.file] = fnv1a64Hex(it != p.originals.end() ? it->second : readFile(m.file));
      }
    }
    if (hs.include_name.empty()) continue;  // planned kernels have a place (plan.cpp): not reached
    hs.selected = (fs::path(selected_dir) / "include" / hs.include_name).string();
    hs.depends_on[f] = fnv1a64Hex(text);
    for (const auto& [lf, kernels] : launch_edits)
      for (const auto& sk : hs.kernels)
        if (std::find(kernels.begin(), kernels.end(), sk.name) != kernels.end())
          hs.depends_on[lf] = fnv1a64Hex(p.originals.at(lf));
    result.texts[f] = o.at(f);
    result.selection.headers.push_back(hs);
  }
}

namespace {

// One winner on its way into the selected sources.
struct Winner {
  std::string name;
  const VariantReport* rep = nullptr;
  const KernelInfo* k = nullptr;
  const KernelPlan* plan = nullptr;
  std::set<std::string> files;  // what its re-apply and launch rewrite read and write
  BufferedStatus lines;         // its warnings, printed in kernel order whatever thread made them
};

// Winners that share no file are independent: each set of them re-applied on its own overlay
// gives the same texts as all of them on one. A header kernel counts the units that include it
// among its files, since they read the header as rewritten.
std::vector<std::vector<size_t>> independentSets(const std::vector<Winner>& ws) {
  std::vector<size_t> root(ws.size());
  for (size_t i = 0; i < ws.size(); ++i) root[i] = i;
  std::function<size_t(size_t)> find = [&](size_t i) { return root[i] == i ? i : root[i] = find(root[i]); };
  std::map<std::string, size_t> owner;  // file -> a winner that touches it
  for (size_t i = 0; i < ws.size(); ++i)
    for (const auto& f : ws[i].files) {
      auto [it, fresh] = owner.emplace(f, i);
      if (!fresh) root[find(i)] = find(it->second);
    }
  std::map<size_t, std::vector<size_t>> sets;
  for (size_t i = 0; i < ws.size(); ++i) sets[find(i)].push_back(i);
  std::vector<std::vector<size_t>> out;
  for (auto& [r, members] : sets) out.push_back(std::move(members));
  return out;
}

// What the winners' re-apply and launch rewrites made of the original files.
struct Merged {
  bool ok = true;  // false: two sets edited one file
  Overlay o;
  std::map<std::string, std::vector<std::string>> launch_edits;   // file -> kernels
  std::map<std::string, std::vector<SelectedKernel>> kernels_in;  // file -> kernels optimized
};

// Each set's winners go one after another onto the set's own overlay, in kernel order; the sets
// run at once (a re-apply is a few Clang parses of its file), and their edits are merged.
Merged applyWinners(Pipeline& p, std::vector<Winner>& ws, const std::vector<std::vector<size_t>>& sets,
                    const std::vector<Skill>& skills, const Manifest& manifest) {
  std::vector<Merged> done(sets.size());
  std::vector<std::exception_ptr> failed(sets.size(), nullptr);
  auto build = [&](size_t s) {
    try {
      Merged& d = done[s];
      d.o = p.originals;
      for (size_t i : sets[s]) {
        Winner& w = ws[i];
        const Variant& v = w.rep->variant;
        Pipeline q = p.withStatus(w.lines);
        Overlay trial = d.o;
        std::string why = reapply(q, *w.rep, *w.plan, skills, manifest, trial);
        const Overlay before = trial;
        std::set<std::string> launch_files;  // only these are parsed for the launches
        for (const auto& l : w.k->launches) launch_files.insert(l.file);
        if (why.empty() && !rewriteLaunches(trial, p.setup.clang_args, w.name, v.geometry, &why, nullptr, &launch_files))
          why = "cannot rewrite the launches of " + w.name + ": " + why;
        if (!why.empty()) {
          w.lines.warning(why + "; keeping the original");
          continue;
        }
        for (const auto& [f, text] : trial)
          if (before.at(f) != text) d.launch_edits[f].push_back(w.name);
        d.o = std::move(trial);
        d.kernels_in[v.kernel_file].push_back({w.name, w.k->source_hash, v.id, v.skills, v.geometry, w.rep->speedup});
      }
    } catch (...) {
      failed[s] = std::current_exception();
    }
  };
  parallelFor(sets.size(), p.jobs, build);
  for (auto& f : failed)
    if (f) std::rethrow_exception(f);

  Merged m;
  m.o = p.originals;
  for (auto& d : done) {
    for (const auto& [f, text] : d.o) {
      if (text == p.originals.at(f)) continue;
      if (m.o.at(f) != p.originals.at(f)) m.ok = false;
      m.o[f] = text;
    }
    for (auto& [f, names] : d.launch_edits) m.launch_edits[f] = std::move(names);
    for (auto& [f, ks] : d.kernels_in) m.kernels_in[f] = std::move(ks);
  }
  return m;
}

}  // namespace

SelectedFiles buildSelectedSources(Pipeline& p, const std::map<std::string, const VariantReport*>& best,
                                   const Plans& plans, const std::vector<Skill>& skills, const Manifest& manifest,
                                   const std::string& selected_dir) {
  SelectedFiles result;
  std::vector<Winner> ws;
  for (const auto& [name, rep] : best) {
    const KernelInfo* k = manifest.find(name);
    const KernelPlan* plan = plans.find(name);
    if (!k || !plan) continue;
    Winner& w = ws.emplace_back();
    w.name = name;
    w.rep = rep;
    w.k = k;
    w.plan = plan;
    w.files.insert(rep->variant.kernel_file);
    for (const auto& l : k->launches) w.files.insert(l.file);
    for (const auto& u : k->units) w.files.insert(u);
    if (!rep->variant.unit.empty()) w.files.insert(rep->variant.unit);
  }
  Merged m = applyWinners(p, ws, independentSets(ws), skills, manifest);
  if (!m.ok) {  // two sets edited one file after all: everything again as one set
    for (auto& w : ws) w.lines.clear();
    std::vector<size_t> all(ws.size());
    for (size_t i = 0; i < ws.size(); ++i) all[i] = i;
    m = applyWinners(p, ws, {all}, skills, manifest);
  }
  for (auto& w : ws) w.lines.replay(p.status);
  Overlay& o = m.o;
  auto& kernels_in = m.kernels_in;
  auto& launch_edits = m.launch_edits;
  addSelectedHeaders(p, manifest, o, kernels_in, launch_edits, selected_dir, result);
  const std::string src_root = p.layout.materializedRoot().string();
  for (const auto& f : p.setup.originals) {
    if (o.at(f) == p.originals.at(f)) continue;
    SelectedSource ss;
    ss.original = f;
    const SourcePair* sp = p.cfg.findOriginal(f);
    ss.selected = (fs::path(selected_dir) / relUnder(sp && !sp->materialized.empty() ? sp->materialized : f, src_root)).string();
    ss.kernels = kernels_in[f];
    ss.launches_rewritten_for = launch_edits[f];
    ss.depends_on[f] = fnv1a64Hex(p.originals.at(f));
    for (const auto& kn : ss.launches_rewritten_for)
      if (const KernelInfo* k = manifest.find(kn)) ss.depends_on[k->range.file] = fnv1a64Hex(p.originals.at(k->range.file));
    result.texts[f] = o.at(f);
    result.selection.sources.push_back(ss);
  }
  return result;
}

Selected selectAndBuild(Pipeline& p, const Plans& plans, std::vector<VariantReport>& reports, const std::vector<Skill>& skills,
                        const Manifest& manifest, const std::string& selected_dir, bool build) {
  Selected out;
  if (!p.gpu) return out;
  // The sources are built for the winners as they stand before their re-checks, on another
  // thread: a re-check is a GPU job and a re-apply is Clang work, and a re-check seldom drops a
  // winner. Should one be dropped, the sources are built again for the winners that stand.
  std::map<std::string, const VariantReport*> guess = selectBest(reports);
  dropUngated(p, plans, guess, /*say=*/false);
  BufferedStatus lines;
  SelectedFiles guessed;
  std::exception_ptr failed;
  std::thread builder;
  if (build && !guess.empty())
    builder = std::thread([&] {
      try {
        Pipeline q = p.withStatus(lines);
        guessed = buildSelectedSources(q, guess, plans, skills, manifest, selected_dir);
      } catch (...) {
        failed = std::current_exception();
      }
    });
  try {
    out.best = selectChecked(p, plans, reports);
  } catch (...) {
    if (builder.joinable()) builder.join();
    throw;
  }
  if (builder.joinable()) builder.join();
  if (!build || out.best.empty()) return out;
  if (out.best == guess && !failed) {
    lines.replay(p.status);
    out.files = std::move(guessed);
  } else {
    out.files = buildSelectedSources(p, out.best, plans, skills, manifest, selected_dir);
  }
  return out;
}

void writeSelection(Pipeline& p, const SelectedFiles& files, const std::string& generation) {
  for (const auto& s : files.selection.sources) atomicWrite(s.selected, files.texts.at(s.original));
  for (const auto& h : files.selection.headers) atomicWrite(h.selected, files.texts.at(h.original));
  atomicWrite(p.layout.selection(), nlohmann::json(files.selection).dump(2) + "\n");
  const fs::path keep = p.layout.selectedDir(generation);
  std::error_code ec;
  if (fs::exists(p.layout.selectedRoot()))
    for (const auto& e : fs::directory_iterator(p.layout.selectedRoot(), ec))
      if (e.path() != keep) fs::remove_all(e.path(), ec);
}

}  // namespace klineage
