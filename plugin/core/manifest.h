// The kernel manifest: what extraction learned about each __global__ kernel of a target.
// Plain data, written to <build>/klineage/<target>/manifest.json for people and later stages.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/launch_expr.h"

namespace klineage {

struct SourceRange {
  std::string file;  // absolute path
  unsigned begin_line = 0, end_line = 0;
  unsigned begin_offset = 0, end_offset = 0;  // byte offsets in file, end exclusive
};

struct ParamInfo {
  std::string name;
  std::string type;             // as written, e.g. "const float *__restrict"
  bool is_pointer = false;
  std::string pointee;          // unqualified pointee type, e.g. "float" (pointers only)
  bool pointee_const = false;
  bool is_restrict = false;
  unsigned size_bytes = 0;      // sizeof(type) on the device (pointers: 8)
  bool written = false;         // kernel stores through it (pointers only)
  bool read = false;            // kernel loads through it (pointers only)
};

struct LaunchSite {
  std::string file;  // absolute path
  unsigned line = 0, column = 0;
  std::string grid, block, shmem, stream;  // expressions as written ("" when absent)
  std::string grid_type, block_type;       // "int", "unsigned int", "dim3", ...
  std::optional<long long> block_value;    // threads per block when clang can evaluate it (dim3(16, 16): 256)
  std::vector<long long> block_dims;       // {x, y, z} when clang can evaluate every component, else empty
  std::vector<std::string> args;
  SourceRange config_range;                // the text between <<< and >>>
  bool in_target_sources = true;
  std::string instantiation;               // template kernels: mangled name of the instantiation launched
  // How the kernel is launched: "<<<>>>", "cudaLaunchKernel" or "cudaLaunchKernelEx".
  std::string form = "<<<>>>";
  // The geometry as Clang resolved it through the launching function (rewriter/launch_resolve.h):
  // grid and block as {x, y, z}, the dynamic shared memory (0 when not given). A part that could not
  // be resolved is empty (shmem: absent) and its *_unresolved says why, naming the construct.
  std::vector<LaunchExpr> grid_expr, block_expr;
  std::optional<LaunchExpr> shmem_expr;
  std::string grid_unresolved, block_unresolved, shmem_unresolved;
  std::string launcher;                    // the function the launch is written in ("" at file scope)
  // Why a geometry change cannot be written at this site ("" when it can: the grid and block are
  // rewritten in place, around the user's expressions).
  std::string not_rewritable;
};

// Body features as the manifest described them before feature ids (KernelInfo::feature_ids) were
// recorded; still filled by extraction for readers of manifest.json.
struct KernelFeatures {
  std::string thread_index;      // e.g. "blockIdx.x * blockDim.x + threadIdx.x" ("" if none)
  std::string index_var;         // the variable holding it ("i")
  std::string bounds_guard;      // e.g. "i < n" ("" if none)
  bool grid_stride_loop = false;
  unsigned loops = 0;
  bool shared_memory = false;
  bool barriers = false;
  bool atomics = false;
  bool shuffles = false;
  bool uses_block_geometry_outside_index = false;  // blockIdx/threadIdx used beyond the index
};

// One instantiation of a template kernel: what the runner loads and the parameter types it is
// launched with (the template's own parameters are dependent: `const T*`).
struct TemplateInstance {
  std::string mangled;
  std::string args;                 // template arguments as written by clang, e.g. "float"
  std::vector<ParamInfo> params;
};

struct KernelInfo {
  std::string name;
  std::string qualified_name;
  std::string mangled_name;
  SourceRange range;
  bool in_header = false;        // defined in a file that is not one of the target's sources
  std::vector<ParamInfo> params;
  std::optional<std::string> launch_bounds;  // argument text of __launch_bounds__, if present
  KernelFeatures features;
  // Ids of the kernel features extraction found (the rewriter's feature registry,
  // rewriter/features/registry.cpp), what skills require and forbid by id. Absent in manifests
  // written before they were recorded: then the features are derived from the fields of this
  // struct (legacyFeatureIds).
  std::optional<std::vector<std::string>> feature_ids;
  std::vector<LaunchSite> launches;
  std::string source_hash;       // FNV-1a 64 of the kernel's source text, hex
  bool is_template = false;
  std::vector<std::string> instantiations;  // mangled names of template instantiations
  std::vector<TemplateInstance> instances;  // the same, with their template arguments and parameter types
  // The target sources whose translation units define the kernel: its own file, or for a kernel in
  // a header each source that includes it (the variants of a header kernel compile through one).
  std::vector<std::string> units;
  std::string included_from;     // header kernels: the file whose #include brought the header in (first unit)
  std::string included_as;       // header kernels: the name in that #include ("kernels.cuh", "ops/scale.cuh")
  unsigned declarations = 1;     // declarations seen in the target (prototypes in other TUs count)
  std::vector<std::string> notes;  // why transforms skip it, etc.
};

struct ParseDiagnostic {
  std::string file;
  std::vector<std::string> errors;  // first errors, "file:line:col: message"
};

// One #include of a project file as a translation unit saw it: `includer` includes `file` (both
// absolute), spelled `as` (without the quotes or angle brackets).
struct IncludeEdge {
  std::string includer, file, as;
  bool operator==(const IncludeEdge& o) const { return includer == o.includer && file == o.file && as == o.as; }
};

struct Manifest {
  std::string target;
  std::vector<std::string> sources;          // the target's CUDA sources (absolute)
  std::vector<KernelInfo> kernels;
  std::vector<ParseDiagnostic> diagnostics;  // sources that had parse errors
  // Every file the sources' translation units read but system headers (the sources, the project's
  // headers), sorted: what decides whether anything changed since the last run (run_key.h).
  std::vector<std::string> files;
  // Every #include of a project header in the sources' units (not system headers), deduplicated:
  // where a header kernel's variant must mirror the headers between its unit and it.
  std::vector<IncludeEdge> includes;

  // By name, qualified name, mangled name or (template kernels) the mangled name of an instantiation.
  const KernelInfo* find(const std::string& name) const;
};

std::string fnv1a64Hex(const std::string& text);

// A template kernel as one instantiation: its mangled name and concrete parameter types (what
// the runner loads and the workload's buffers are typed by).
KernelInfo instantiate(const KernelInfo& k, const TemplateInstance& ti);
// The instantiation a workload entry of template kernel k is gated on: the only one; else the one
// the first launch site in the target's sources launches; else the first. Null without any.
const TemplateInstance* workloadInstance(const KernelInfo& k);

// The features a manifest without feature_ids describes, derived from KernelFeatures and the other
// fields: thread_index, bounds_guard, grid_stride_loop, loops, shared_memory, barriers, atomics,
// shuffles, uses_block_geometry_outside_index, launch_bounds, template, in_header, pointer_params,
// all_pointers_restrict. A frozen list: features added to the registry since exist only as ids.
const std::vector<std::string>& legacyFeatureIds();
std::vector<std::string> legacyFeaturesOf(const KernelInfo& k);

// The kernel's feature ids: feature_ids when recorded, else legacyFeaturesOf(k).
std::vector<std::string> featureIdsOf(const KernelInfo& k);

void to_json(nlohmann::json& j, const SourceRange& r);
void from_json(const nlohmann::json& j, SourceRange& r);
void to_json(nlohmann::json& j, const ParamInfo& p);
void from_json(const nlohmann::json& j, ParamInfo& p);
void to_json(nlohmann::json& j, const IncludeEdge& e);
void from_json(const nlohmann::json& j, IncludeEdge& e);
void to_json(nlohmann::json& j, const LaunchSite& l);
void from_json(const nlohmann::json& j, LaunchSite& l);
void to_json(nlohmann::json& j, const TemplateInstance& t);
void from_json(const nlohmann::json& j, TemplateInstance& t);
void to_json(nlohmann::json& j, const KernelFeatures& f);
void from_json(const nlohmann::json& j, KernelFeatures& f);
void to_json(nlohmann::json& j, const KernelInfo& k);
void from_json(const nlohmann::json& j, KernelInfo& k);
void to_json(nlohmann::json& j, const ParseDiagnostic& d);
void from_json(const nlohmann::json& j, ParseDiagnostic& d);
void to_json(nlohmann::json& j, const Manifest& m);
void from_json(const nlohmann::json& j, Manifest& m);

}  // namespace klineage
