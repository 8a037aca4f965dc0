// Hand-written variants (`klineage gate --variant`): a copy of the kernel's source file, gated
// like any other, with its own launch sites where its launch code differs from the original's.
#include <filesystem>
#include <optional>

#include "apply.h"
#include "context.h"
#include "core/diag.h"
#include "core/fs.h"
#include "core/launch_eval.h"
#include "header_kernels.h"
#include "variant_source.h"

namespace klineage {
namespace fs = std::filesystem;

std::string signatureChange(const KernelInfo& orig, const KernelInfo& var) {
  auto describe = [](const ParamInfo& p) { return p.type + " " + p.name; };
  if (orig.params.size() != var.params.size())
    return "the variant's kernel " + var.name + " has " + std::to_string(var.params.size()) + " parameters, the original " +
           std::to_string(orig.params.size());
  for (size_t i = 0; i < orig.params.size(); ++i) {
    const ParamInfo &a = orig.params[i], &b = var.params[i];
    const bool same = a.is_pointer == b.is_pointer && a.size_bytes == b.size_bytes &&
                      (a.is_pointer ? a.pointee == b.pointee : elemTypeFromCType(a.type) == elemTypeFromCType(b.type));
    if (!same)
      return "parameter " + std::to_string(i + 1) + " of kernel " + orig.name + " is '" + describe(b) +
             "' in the variant, '" + describe(a) + "' in the original: a variant must keep the kernel's signature";
  }
  return "";
}

namespace {

// The variant's own launch sites when its launch code differs from the original's (none when
// it is the same); why not when it has no launch of the kernel at all.
std::string ownLaunches(const KernelInfo& k, const KernelInfo& vk, Variant& v, const std::string& path) {
  std::vector<const LaunchSite*> here;  // the original's launches in the file the variant replaces
  std::vector<const LaunchSite*> there;  // the variant's (a header kernel's unit launches it: not compared)
  for (const auto& l : k.launches)
    if (l.file == k.range.file) here.push_back(&l);
  for (const auto& l : vk.launches)
    if (l.file == k.range.file) there.push_back(&l);
  bool same = there.size() == here.size();
  for (size_t i = 0; same && i < here.size(); ++i) same = sameLaunch(*here[i], *there[i]);
  if (same) return "";
  for (const auto* l : there)
    if (l->in_target_sources) v.own_launches.push_back(*l);
  if (v.own_launches.empty())
    return path + ": the variant has no launch of " + k.name + "; the gate runs only the launch that would be compiled";
  return "";
}

}  // namespace

WholeFileVariant wholeFileVariant(Pipeline& p, const KernelInfo& k, const std::string& text, const std::string& name,
                                  const std::string& label) {
  WholeFileVariant out;
  Overlay o = p.originals;
  o[k.range.file] = text;
  // A header kernel's replacement is the header's text, read through the unit that includes it.
  const std::string& unit = unitOf(k);
  out.manifest = extractManifest(p.cfg.target, {{unit, p.setup.clang_args.at(unit)}}, o);
  VariantReport& rep = out.report;
  rep.variant.id = k.name + "/" + name;
  rep.variant.kernel = k.name;
  rep.variant.kernel_file = k.range.file;
  rep.variant.diff = describeDiff(p.originals.at(k.range.file), text);
  writeVariantFiles(p, k, p.layout.variantDir(k.name, name), text, rep.variant);
  const KernelInfo* found = out.manifest.find(k.name);
  // A template kernel is compared as the gated instantiation (same mangled name, same types).
  std::optional<KernelInfo> inst;
  if (found && k.is_template) {
    for (const auto& ti : found->instances)
      if (ti.mangled == k.mangled_name) inst = instantiate(*found, ti);
    if (!inst) found = nullptr;
  }
  const KernelInfo* vk = inst ? &*inst : found;
  const std::string bad = !vk ? label + ": no kernel '" + k.name + "' defined in the variant" +
                                    (k.is_template ? " with the instantiation " + k.mangled_name : "")
                              : signatureChange(k, *vk);
  rep.variant.mangled_name = vk ? vk->mangled_name : "";
  if (!bad.empty()) {
    rep.outcome = Outcome::NotRun;
    rep.reason = (vk ? label + ": " : "") + bad;
    return out;
  }
  rep.reason = ownLaunches(k, *vk, rep.variant, label);
  return out;
}

namespace {

VariantReport handWritten(Pipeline& p, const KernelInfo& k, const std::string& path) {
  return wholeFileVariant(p, k, readFile(path), "hand-written-" + fs::path(path).stem().string(), path).report;
}

class HandWritten : public VariantSource {
 public:
  HandWritten(std::string kernel, std::vector<std::string> paths) : kernel_(std::move(kernel)), paths_(std::move(paths)) {}
  std::string name() const override { return "hand-written"; }
  std::vector<VariantReport> variants(Pipeline& p, const KernelPlan& plan, std::vector<std::string>*) override {
    std::vector<VariantReport> out;
    if (plan.info->name != kernel_) return out;
    for (const auto& path : paths_) out.push_back(handWritten(p, *plan.info, path));
    return out;
  }

 private:
  std::string kernel_;
  std::vector<std::string> paths_;
};

}  // namespace

std::unique_ptr<VariantSource> makeHandWritten(const std::string& kernel, const std::vector<std::string>& paths) {
  return std::make_unique<HandWritten>(kernel, paths);
}

}  // namespace klineage
