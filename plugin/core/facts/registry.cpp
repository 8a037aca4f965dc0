// The workload-fact registry (core/facts/fact.h), by the ids skills name. Each fact is one file,
// core/facts/<file>.cpp, defining `const Fact& fact_<name>()`, and one line in the list below:
// X(<name>). The order is the order error messages list the valid facts in.
#include <set>
#include <stdexcept>

#include "core/facts/fact.h"

// clang-format off
#define KLINEAGE_FACTS(X) \
  X(aligned) \
  X(no_overlap) \
  X(uniform_block_size) \
  /* one line per fact, above this one */
// clang-format on

namespace klineage {

#define KLINEAGE_DECLARE_FACT(name) const Fact& fact_##name();
KLINEAGE_FACTS(KLINEAGE_DECLARE_FACT)
#undef KLINEAGE_DECLARE_FACT

const std::vector<const Fact*>& allFacts() {
  static const std::vector<const Fact*> all = [] {
    std::vector<const Fact*> v;
    std::set<std::string> seen;
    auto add = [&](const Fact& f) {
      if (!seen.insert(f.id).second) throw std::logic_error("fact registry: fact id '" + f.id + "' registered twice");
      v.push_back(&f);
    };
#define KLINEAGE_ADD_FACT(name) add(fact_##name());
    KLINEAGE_FACTS(KLINEAGE_ADD_FACT)
#undef KLINEAGE_ADD_FACT
    return v;
  }();
  return all;
}

const Fact* findFact(const std::string& written) {
  for (const Fact* f : allFacts())
    if (f->names(written)) return f;
  return nullptr;
}

std::vector<std::string> factIds() {
  std::vector<std::string> ids;
  for (const Fact* f : allFacts()) ids.push_back(f->id);
  return ids;
}

}  // namespace klineage
