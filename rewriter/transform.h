// A transform is one reversible source rewrite of a kernel, registered by the id that skills name
// (one folder per transform, transforms/<id>/, listed in transforms/registry.cpp).
//   forward: the optimization (what a skill applies to a new kernel);
//   inverse: the de-optimization (what the lineage walk applies to an expert kernel).
// Each direction checks its own applicability on the AST and either edits through the Rewriter
// and says so, or makes no edit and says why not.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <clang/Rewrite/Core/Rewriter.h>

#include "core/job.h"

namespace clang {
class Preprocessor;
}

namespace klineage {

using TransformParams = std::map<std::string, std::string>;

// Workload facts a transform itself needs to produce its edit (preconditions on facts that only
// decide *whether* a skill may apply are checked by the skill matcher, not here).
struct TransformFacts {
  std::optional<long long> block_size;  // threads per block every launch uses, when known
  std::optional<Dim3> block;            // the block shape every launch uses, when known
  // The block shape when known, else a 1-D block of block_size threads (tests set only that).
  std::optional<Dim3> shape() const {
    if (block) return block;
    if (block_size) return Dim3{*block_size, 1, 1};
    return std::nullopt;
  }
};

struct TransformRequest {
  clang::ASTContext& ctx;
  clang::Rewriter& rewriter;
  const clang::FunctionDecl* kernel;
  const TransformParams& params;
  const TransformFacts& facts;
  // The parse's preprocessor (macro definitions), when the caller has it (applyStep does).
  const clang::Preprocessor* pp = nullptr;
};

struct TransformResult {
  bool applied = false;
  std::string reason;         // why not, or what was done
  // The launch change the edited kernel needs, both directions: an inverse undoes its forward's
  // (forward grid.x / 4 -> inverse grid.x * 4; a block forward set goes back to the one it came from).
  GeometryChange geometry;
  static TransformResult no(std::string why) { return {false, std::move(why), {}}; }
  static TransformResult yes(std::string what, GeometryChange g = {}) { return {true, std::move(what), g}; }
};

enum class Direction { Forward, Inverse };

class Transform {
 public:
  virtual ~Transform() = default;
  virtual std::string id() const = 0;
  virtual std::string summary() const = 0;
  virtual TransformResult forward(TransformRequest& req) const = 0;
  virtual TransformResult inverse(TransformRequest& req) const = 0;
};

const std::vector<const Transform*>& allTransforms();
const Transform* findTransform(const std::string& id);
std::vector<std::string> transformIds();

// Shared by transforms: an integer parameter with a default.
long long intParam(const TransformParams& p, const std::string& key, long long def);
bool boolParam(const TransformParams& p, const std::string& key, bool def);

}  // namespace klineage
