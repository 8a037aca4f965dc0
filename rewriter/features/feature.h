// Kernel features: what extraction reports about a kernel's code, by id, for skills to require or
// forbid (anchor.requires_features / forbids_features in skills/*.toml). Like a clang-tidy
// module: each feature is one small unit {id, doc, check, examples} in its own file,
// features/<id>.cpp, and one line in features/registry.cpp. The check looks at the kernel's
// FunctionDecl with Clang AST matchers (features/cuda_matchers.h), not at its text. The examples
// are kernels named k with and without the feature; tests/rewriter/test_features.cpp runs every
// registered feature's examples through extraction.
//
// The manifest records the ids found (KernelInfo::feature_ids); core/skill.cpp checks skills
// against them by id, and validates skill files against featureIds() (core has no Clang, so the
// ids are passed in, like transformIds()).
#pragma once
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class FunctionDecl;
}  // namespace clang

namespace klineage {

struct FeatureInput {
  clang::ASTContext& ctx;
  const clang::FunctionDecl* kernel;  // the definition (for a template, its pattern)
  // The target's sources (absolute paths); null when not known, and then the main file is the
  // only source (a kernel outside it is in a header).
  const std::vector<std::string>* target_sources = nullptr;
};

struct FeatureExample {
  bool present;        // whether kernel k has the feature
  std::string code;    // a CUDA source (the target's only source) defining or including kernel k
  std::string header;  // optional: the text of "example.cuh" next to it, which code may include
};

struct Feature {
  std::string id;   // lowercase letters, digits and '_'
  std::string doc;  // "true when ...", one sentence
  bool (*check)(const FeatureInput& in);
  std::vector<FeatureExample> examples;  // at least one with and one without the feature
};

// Every registered feature, in the registry's order (features/registry.cpp).
const std::vector<const Feature*>& allFeatures();
const Feature* findFeature(const std::string& id);
std::vector<std::string> featureIds();

// The ids of the features the kernel has, in the registry's order.
std::vector<std::string> kernelFeatureIds(const FeatureInput& in);

}  // namespace klineage
