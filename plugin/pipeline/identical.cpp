#include "identical.h"

#include <functional>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "core/fs.h"

namespace klineage {

namespace {

// The launch part of a variant's identity: its geometry change, its own launch sites (without the
// file they are in, which is the variant's own) and the sizes it is restricted to (which probes run).
std::string launchText(const Variant& v) {
  nlohmann::json own = nlohmann::json::array();
  for (LaunchSite l : v.own_launches) {
    l.file.clear();
    l.config_range.file.clear();
    own.push_back(l);
  }
  return nlohmann::json(v.geometry).dump() + own.dump() + nlohmann::json(v.divisible_by).dump();
}

bool pending(const VariantReport& r) {
  return !r.variant.is_original && r.outcome == Outcome::NotRun && r.reason.empty();
}

// What makes two variants of a kernel the same for the gate; "" when unknown (never equal).
using Identity = std::function<std::string(const VariantReport&)>;

size_t mark(std::vector<VariantReport>& batch, const std::vector<VariantReport>& earlier, const Identity& identity,
            const Identity& original_identity, const std::string& what) {
  using Key = std::pair<std::string, std::string>;  // kernel, identity
  std::map<Key, const VariantReport*> seen;           // earlier rounds' variants
  for (const auto& r : earlier)
    if (!r.variant.is_original && r.same_as.empty() && r.outcome != Outcome::CompileFailed) {
      const std::string id = identity(r);
      if (!id.empty()) seen.emplace(Key{r.variant.kernel, id}, &r);
    }
  size_t marked = 0;
  auto skip = [&](VariantReport& r, const std::string& other, const std::string& why) {
    r.same_as = other;
    r.reason = "the same " + what + " and launch as " + why;
    ++marked;
  };
  // This batch: the original first, then earlier rounds; what is left is grouped.
  std::vector<std::string> ids(batch.size());
  std::map<Key, size_t> representative;
  for (size_t i = 0; i < batch.size(); ++i) {
    VariantReport& r = batch[i];
    if (!pending(r) || (ids[i] = identity(r)).empty()) continue;
    if (ids[i] == original_identity(r)) {
      skip(r, r.variant.kernel + "/original", "the original: nothing to gain, not gated");
      continue;
    }
    const Key key{r.variant.kernel, ids[i]};
    if (auto it = seen.find(key); it != seen.end()) {
      skip(r, it->second->variant.id,
           it->second->variant.id + " (" + outcomeName(it->second->outcome) + "): not gated again");
      continue;
    }
    auto [it, first] = representative.emplace(key, i);
    if (!first && r.variant.transforms.size() < batch[it->second].variant.transforms.size()) it->second = i;
  }
  for (size_t i = 0; i < batch.size(); ++i) {
    if (!pending(batch[i]) || ids[i].empty()) continue;
    const size_t rep = representative.at({batch[i].variant.kernel, ids[i]});
    if (rep != i) skip(batch[i], batch[rep].variant.id, batch[rep].variant.id + ": gated once, not again");
  }
  return marked;
}

}  // namespace

size_t skipSameSource(const std::map<std::string, std::string>& originals, std::vector<VariantReport>& batch,
                      const std::vector<VariantReport>& earlier) {
  auto text = [](const VariantReport& r) {
    const std::optional<std::string> src = fileHash(r.variant.source);
    const std::optional<std::string> unit =
        r.variant.unit_source.empty() ? std::optional<std::string>("-") : fileHash(r.variant.unit_source);
    return src && unit ? *src + " " + *unit + " " + launchText(r.variant) : std::string();
  };
  auto original = [&](const VariantReport& r) {
    const Variant& v = r.variant;
    auto a = originals.find(v.kernel_file);
    auto u = originals.find(v.unit);
    if (a == originals.end() || (!v.unit.empty() && u == originals.end())) return std::string("(unknown)");
    return fnv1a64Hex(a->second) + " " + (v.unit.empty() ? "-" : fnv1a64Hex(u->second)) + " " + launchText(Variant{});
  };
  return mark(batch, earlier, text, original, "text");
}

size_t skipSameCode(std::vector<VariantReport>& batch, const std::vector<VariantReport>& earlier) {
  auto code = [](const VariantReport& r) {
    const std::optional<std::string> h = fileHash(r.cubin);
    return h ? *h + " " + launchText(r.variant) : std::string();
  };
  std::map<std::string, std::string> original_code;  // kernel -> its original's identity
  for (const auto& r : batch)
    if (r.variant.is_original)
      if (const std::optional<std::string> h = fileHash(r.cubin)) original_code[r.variant.kernel] = *h + " " + launchText(Variant{});
  auto original = [&](const VariantReport& r) {
    auto it = original_code.find(r.variant.kernel);
    return it == original_code.end() ? std::string("(unknown)") : it->second;
  };
  return mark(batch, earlier, code, original, "machine code");
}

}  // namespace klineage
