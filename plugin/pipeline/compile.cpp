#include "compile.h"

#include <filesystem>
#include <functional>
#include <mutex>
#include <set>

#include "context.h"
#include "core/cubin.h"
#include "core/fs.h"
#include "transform.h"
#include "result_cache.h"
#include "run_key.h"

namespace klineage {
namespace fs = std::filesystem;

namespace {

// Calls `done` after each compile, under a lock (compileAll runs several at once).
class NotifyingCompiler : public Compiler {
 public:
  using Done = std::function<void(const CompileRequest&, const CompileResult&, size_t done)>;
  NotifyingCompiler(Compiler& inner, Done done) : inner_(inner), done_(std::move(done)) {}
  CompileResult compile(const CompileRequest& req) override {
    CompileResult res = inner_.compile(req);
    std::lock_guard<std::mutex> lock(m_);
    done_(req, res, ++count_);
    return res;
  }

 private:
  Compiler& inner_;
  Done done_;
  std::mutex m_;
  size_t count_ = 0;
};

std::string objectOf(const std::string& cubin) {
  return (fs::path(cubin).parent_path() / (fs::path(cubin).stem().string() + ".o")).string();
}

// Whether the variant's text is the rewriter's work alone (every step a registered transform). Its
// transforms edit kernels and the launch statements inside host functions and never declare
// anything at file scope, so its host side exports what the original's does: no host object is
// compiled for it. Hand-written, LLM-written and `klineage ci`'s built sources are checked.
bool madeByTransforms(const Variant& v) {
  if (v.transforms.empty()) return false;
  for (const auto& t : v.transforms)
    if (!findTransform(t)) return false;
  return true;
}

// Why the variant's host side would not link where the original's does: its exported host symbols
// (launchers, every non-static function) against those of the original translation unit it
// stands in for. "" when they match, or when either object is not there (a compiler that makes
// none, as the tests' fakes).
std::string hostLinkProblem(const Pipeline& p, const Variant& v, const std::string& object) {
  const std::string orig = objectOf(p.layout.originalCubin(v.unit.empty() ? v.kernel_file : v.unit).string());
  std::error_code ec;
  if (!fs::exists(object, ec) || !fs::exists(orig, ec)) return "";
  try {
    const std::string why = hostSymbolMismatch(exportedHostSymbols(orig), exportedHostSymbols(object));
    return why.empty() ? "" : why + " (compiled as a whole translation unit: " + object + ")";
  } catch (const std::exception& e) {
    return std::string("cannot read the host symbols: ") + e.what();
  }
}

}  // namespace

bool stampHolds(const std::string& output, const std::string& key) {
  std::error_code ec;
  const fs::path stamp = output + ".key";
  if (fs::exists(output, ec) && fs::exists(stamp, ec) && readFile(stamp) == key) return true;
  fs::remove(stamp, ec);
  return false;
}

void writeStamp(const std::string& output, const std::string& key) { atomicWrite(output + ".key", key); }

OriginalCubins compileOriginals(Pipeline& p, const Manifest& manifest, const std::string& only_kernel) {
  std::vector<CompileRequest> reqs;
  std::set<std::string> files;
  // A header kernel compiles through each source that includes it (plan.cpp picks one).
  for (const auto& k : manifest.kernels)
    if (only_kernel.empty() || k.name == only_kernel) {
      if (!k.in_header) files.insert(k.range.file);
      else files.insert(k.units.begin(), k.units.end());
    }
  for (const auto& f : files) {
    const std::string cubin = p.layout.originalCubin(f).string();
    reqs.push_back({f, nvccCubinArgs(p.cfg.nvcc, p.setup.nvcc_flags.at(f), p.archFor(f), f, cubin), cubin});
  }
  // The host objects the variants' exported symbols are compared with, in the same batch. One that
  // does not compile leaves its variants unchecked for that (said once), not the kernel ungated.
  const size_t cubins = reqs.size();
  for (size_t i = 0; i < cubins; ++i) {
    const std::string& f = reqs[i].id;
    const std::string object = objectOf(reqs[i].cubin);
    reqs.push_back({f + " (host object)", nvccObjectArgs(p.cfg.nvcc, p.setup.nvcc_flags.at(f), p.archFor(f), f, object),
                    object});
  }
  // With the result cache (klineage optimize), an output whose stamp (<output>.key) holds the key
  // of its compile as now is not compiled again: the compiler's command line and stamp, the
  // source's text and every project header the extraction read (not the other target sources:
  // editing one source recompiles only it). `klineage gate`, `klineage ci` and --no-cache compile.
  std::string headers;
  std::vector<std::string> source_hashes(cubins);  // each source read once for its two outputs
  if (p.cache) {
    const std::set<std::string> sources(manifest.sources.begin(), manifest.sources.end());
    for (const auto& h : manifest.files)
      if (!sources.count(h)) headers += h + " " + fileHash(h).value_or("(missing)") + "\n";
    for (size_t i = 0; i < cubins; ++i) source_hashes[i] = fileHash(reqs[i].id).value_or("(missing)");
    p.cache->setProjectHeaders(fnv1a64Hex(headers));
  }
  std::vector<std::string> keys(reqs.size());
  std::vector<CompileRequest> todo;
  std::vector<size_t> todo_of;
  for (size_t i = 0; i < reqs.size(); ++i) {
    const std::string& out_file = reqs[i].cubin;  // the cubin, or the host object
    std::error_code ec;
    if (p.cache) {
      const size_t src = i < cubins ? i : i - cubins;
      std::string text = "klineage-original-compile-1\n" + fileStamp(reqs[i].argv[0]) + "\n";
      for (const auto& a : reqs[i].argv) text += a + "\x1f";
      text += "\n" + reqs[src].id + " " + source_hashes[src] + "\n" + headers;
      keys[i] = fnv1a64Hex(text);
      if (stampHolds(out_file, keys[i])) continue;
    } else {
      fs::remove(out_file + ".key", ec);
    }
    fs::remove(out_file, ec);  // until this compile succeeds, no older output stands in for it
    todo.push_back(reqs[i]);
    todo_of.push_back(i);
  }
  std::vector<CompileResult> res(reqs.size(), CompileResult{true, "", 0});
  const std::vector<CompileResult> done = compileAll(p.compiler, todo, p.jobs);
  for (size_t j = 0; j < todo.size(); ++j) {
    res[todo_of[j]] = done[j];
    if (done[j].ok && p.cache) writeStamp(todo[j].cubin, keys[todo_of[j]]);
  }
  if (todo.size() < reqs.size())
    p.status.info("klineage: " + std::to_string(reqs.size() - todo.size()) + " of " + std::to_string(reqs.size()) +
                  " original cubins and host objects unchanged since the last run: not compiled again");
  for (size_t i = cubins; i < reqs.size(); ++i)
    if (!res[i].ok && res[i - cubins].ok)
      p.status.warning("klineage: " + reqs[i].id + " does not compile with nvcc -c; its variants' host symbols are not "
                       "checked: " + res[i].log.substr(0, 300));
  OriginalCubins out;
  for (size_t i = 0; i < cubins; ++i) {
    out.cubin[reqs[i].id] = res[i].ok ? reqs[i].cubin : "";
    out.log[reqs[i].id] = res[i].log;
  }
  return out;
}

void compileVariants(Pipeline& p, std::vector<VariantReport>& reports) {
  std::vector<CompileRequest> reqs;
  std::vector<size_t> req_of;
  // With the cache, a variant's cubin (and host object) keeps a stamp (<cubin>.key) with its
  // compile key: the variant's text, the flags, the compiler, the skills and the project headers.
  // One whose stamp matches is the last run's output for the same input: not compiled again, so
  // an edit of one kernel compiles only that kernel's variants.
  const bool stamps = p.cache && p.cache->knowsProjectHeaders();
  size_t unchanged = 0;
  for (size_t i = 0; i < reports.size(); ++i) {
    auto& r = reports[i];
    if (r.variant.is_original || r.outcome != Outcome::NotRun || !r.reason.empty()) continue;  // refused already
    // A header kernel's variant compiles the unit's copy with the rewritten header found first.
    const Variant& v = r.variant;
    const bool header = !v.unit.empty();
    const std::string& f = header ? v.unit : v.kernel_file;
    // variants/<kernel>/<name>/<file>, or .../<name>/unit/<file> for a header kernel
    const fs::path dir = fs::path(header ? v.unit_source : v.source).parent_path();
    const std::string name = (header ? dir.parent_path() : dir).filename().string();
    const std::string cubin = p.layout.variantCubin(v.kernel, name).string();
    std::vector<std::string> includes{fs::path(f).parent_path().string()};
    if (header) includes.insert(includes.begin(), v.include_dir);
    const std::string& compiled = header ? v.unit_source : v.source;
    CompileRequest req{v.id, nvccCubinArgs(p.cfg.nvcc, p.setup.nvcc_flags.at(f), p.archFor(f), compiled, cubin, includes),
                       cubin};
    if (!madeByTransforms(v)) {
      req.object_argv = nvccObjectArgs(p.cfg.nvcc, p.setup.nvcc_flags.at(f), p.archFor(f), compiled, objectOf(cubin), includes);
      req.object = objectOf(cubin);
    }
    // The same text with the same compiler and flags failed before: not compiled again.
    if (p.cache) {
      r.cache_key = p.cache->compileKey(r, req.argv, {v.source, v.unit_source, v.include_dir, cubin, dir.string()});
      if (p.cache->restore(r)) continue;
    }
    std::error_code ec;
    if (stamps && (req.object.empty() || fs::exists(req.object, ec)) && stampHolds(cubin, r.cache_key)) {
      r.cubin = cubin;
      if (std::string why = hostLinkProblem(p, r.variant, req.object); !why.empty()) {
        r.outcome = Outcome::CompileFailed;
        r.reason = why;
      }
      r.cache_key.clear();
      ++unchanged;
      continue;
    }
    if (stamps) fs::remove(cubin + ".key", ec);  // (its object missing) until this compile succeeds
    reqs.push_back(std::move(req));
    req_of.push_back(i);
  }
  p.status.info("klineage: compiling " + std::to_string(reqs.size()) + " variants (" + std::to_string(p.jobs) +
                " at a time)" +
                (unchanged ? "; " + std::to_string(unchanged) + " unchanged since the last run are not compiled again"
                           : std::string()));
  // Each report gets its result as its compile finishes, and the status hears of it (the live
  // progress line), one at a time.
  NotifyingCompiler notifying(p.compiler, [&](const CompileRequest& req, const CompileResult& res, size_t done) {
    size_t j = 0;  // compileAll hands the compiler the elements of `reqs` themselves; else by id
    if (&req >= reqs.data() && &req < reqs.data() + reqs.size()) j = static_cast<size_t>(&req - reqs.data());
    else while (j + 1 < reqs.size() && reqs[j].id != req.id) ++j;
    auto& r = reports[req_of.at(j)];
    r.cubin = req.cubin;
    r.compile_s = res.seconds;
    if (!res.ok) {
      r.outcome = Outcome::CompileFailed;
      r.reason = res.log.substr(0, 4000);
    } else if (std::string why = hostLinkProblem(p, r.variant, req.object); !why.empty()) {
      r.outcome = Outcome::CompileFailed;
      r.reason = why;
    } else if (stamps) {
      writeStamp(req.cubin, r.cache_key);
    }
    p.status.variantCompiled(r, done, reqs.size());
  });
  compileAll(notifying, reqs, p.jobs);
  // Only failures are kept under the compile key; a cubin's result is stored by the gate, under
  // the key of what it runs.
  if (p.cache)
    for (size_t i : req_of) {
      if (reports[i].outcome == Outcome::CompileFailed) p.cache->store(reports[i]);
      else reports[i].cache_key.clear();
    }
}

}  // namespace klineage
