#include "extract.h"

#include "launch_resolve.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include <clang/AST/ParentMapContext.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/Attr.h>
#include <clang/Frontend/ASTUnit.h>

#include "ast_util.h"
#include "core/parallel.h"
#include "features/cuda_matchers.h"
#include "features/feature.h"

namespace klineage {
namespace {

std::string typeString(clang::ASTContext& ctx, clang::QualType t) {
  clang::PrintingPolicy pp(ctx.getLangOpts());
  pp.SuppressTagKeyword = true;
  return t.getAsString(pp);
}

// `(reinterpret_cast<unsigned long long>(p) [| other casts] & 15) == 0`, the alignment test the
// vectorizing transforms write: the pointer's value is compared, nothing is read or written
// through it. Any other use of the integer is not followed.
bool onlyAlignmentTest(clang::ASTContext& ctx, const clang::Expr* cast) {
  const clang::Stmt* cur = cast;
  bool masked = false;
  while (true) {
    const clang::Stmt* parent = parentStmtOf(ctx, *cur);
    if (!parent) return false;
    if (llvm::isa<clang::ParenExpr>(parent) || llvm::isa<clang::ImplicitCastExpr>(parent)) {
      cur = parent;
      continue;
    }
    auto* bo = llvm::dyn_cast<clang::BinaryOperator>(parent);
    if (!bo) return false;
    if (bo->getOpcode() == clang::BO_Or && !masked) {
      cur = parent;
      continue;
    }
    if (bo->getOpcode() == clang::BO_And && !masked) {
      masked = true;
      cur = parent;
      continue;
    }
    return masked && (bo->getOpcode() == clang::BO_EQ || bo->getOpcode() == clang::BO_NE);
  }
}

// How a pointer parameter is used: climbs from each reference to the access it feeds.
void classifyPointerUse(clang::ASTContext& ctx, const clang::DeclRefExpr* ref, ParamInfo& p) {
  const clang::Stmt* cur = ref;
  const clang::Expr* access = nullptr;  // the lvalue p[i] / *p
  const clang::Expr* ptr = ref;         // the pointer value so far: p, p + k, reinterpret_cast<const float4*>(p)
  while (true) {
    auto parents = ctx.getParents(*cur);
    if (parents.empty()) return;
    const clang::Stmt* parent = parents[0].get<clang::Stmt>();
    if (!parent) {
      // initialises a local pointer variable: it escapes our simple analysis
      p.read = p.written = true;
      return;
    }
    if (access) {
      if (auto* ice = llvm::dyn_cast<clang::ImplicitCastExpr>(parent);
          ice && ice->getCastKind() == clang::CK_LValueToRValue) {
        p.read = true;  // the access is loaded
        return;
      }
    }
    if (llvm::isa<clang::ParenExpr>(parent) || llvm::isa<clang::ImplicitCastExpr>(parent)) {
      cur = parent;
      continue;
    }
    if (auto* cast = llvm::dyn_cast<clang::ExplicitCastExpr>(parent); cast && !access) {
      if (cast->getType()->isPointerType() && !llvm::isa<clang::CXXConstCastExpr>(cast)) {
        // reinterpret_cast<const float4*>(p)[i]: the access through the cast is what counts
        // (a write through a cast to a non-const pointer is still seen as a write).
        cur = ptr = cast;
        continue;
      }
      if (cast->getType()->isIntegerType() && onlyAlignmentTest(ctx, cast)) return;  // neither
      p.read = p.written = true;  // an integer that may become a pointer again: anything may happen
      return;
    }
    if (auto* bo = llvm::dyn_cast<clang::BinaryOperator>(parent)) {
      if (!access && (bo->getOpcode() == clang::BO_Add || bo->getOpcode() == clang::BO_Sub) &&
          bo->getType()->isPointerType()) {
        cur = ptr = bo;  // pointer arithmetic: keep climbing to the dereference
        continue;
      }
      if (access) {
        if (bo->isAssignmentOp() && bo->getLHS()->IgnoreParens() == access) {
          p.written = true;
          if (bo->isCompoundAssignmentOp()) p.read = true;
        } else {
          p.read = true;
        }
        return;
      }
      if (bo->isComparisonOp()) return;  // p != nullptr: neither
      p.read = p.written = true;
      return;
    }
    if (auto* ase = llvm::dyn_cast<clang::ArraySubscriptExpr>(parent)) {
      if (!access && ase->getBase()->IgnoreParenImpCasts() == ptr) {
        access = ase;
        cur = parent;
        continue;
      }
      if (!access) {  // used as the index of another array (unusual for a pointer)
        p.read = true;
        return;
      }
    }
    if (auto* uo = llvm::dyn_cast<clang::UnaryOperator>(parent)) {
      if (!access && uo->getOpcode() == clang::UO_Deref) {
        access = uo;
        cur = parent;
        continue;
      }
      if (uo->isIncrementDecrementOp()) {
        if (access) p.read = p.written = true;
        else p.read = p.written = true;  // moving the pointer itself: be conservative
        return;
      }
      if (uo->getOpcode() == clang::UO_AddrOf) {  // &p[i] handed to atomics or helpers
        p.read = p.written = true;
        return;
      }
    }
    if (access && llvm::isa<clang::MemberExpr>(parent)) {  // p[i].x
      cur = parent;
      access = llvm::cast<clang::Expr>(parent);
      continue;
    }
    if (access) {
      if (auto* ice = llvm::dyn_cast<clang::ImplicitCastExpr>(parent);
          ice && ice->getCastKind() == clang::CK_LValueToRValue) {
        p.read = true;
        return;
      }
      // A struct element (float4) is copied by its trivial copy constructor or assignment, which
      // only read the source and only write the target.
      if (auto* ce = llvm::dyn_cast<clang::CXXConstructExpr>(parent);
          ce && ce->getConstructor()->isCopyOrMoveConstructor() && ce->getConstructor()->isTrivial()) {
        p.read = true;
        return;
      }
      if (auto* oc = llvm::dyn_cast<clang::CXXOperatorCallExpr>(parent); oc && oc->getOperator() == clang::OO_Equal) {
        const auto* m = llvm::dyn_cast_or_null<clang::CXXMethodDecl>(oc->getDirectCallee());
        if (m && m->isTrivial() && (m->isCopyAssignmentOperator() || m->isMoveAssignmentOperator()) &&
            oc->getNumArgs() == 2) {
          (oc->getArg(0)->IgnoreParenImpCasts() == access ? p.written : p.read) = true;
          return;
        }
      }
      // passed by reference, etc.
      p.read = p.written = true;
      return;
    }
    // the pointer itself handed to a call or stored elsewhere: anything may happen through it
    p.read = p.written = true;
    return;
  }
}

// Reads and writes through each pointer parameter (the features come from features/).
struct PointerUseScan : clang::RecursiveASTVisitor<PointerUseScan> {
  clang::ASTContext& ctx;
  KernelInfo& info;
  std::map<const clang::ParmVarDecl*, size_t> param_index;
  PointerUseScan(clang::ASTContext& c, KernelInfo& k) : ctx(c), info(k) {}
  bool VisitDeclRefExpr(clang::DeclRefExpr* e) {
    if (auto* pv = llvm::dyn_cast<clang::ParmVarDecl>(e->getDecl())) {
      auto it = param_index.find(pv);
      if (it != param_index.end() && info.params[it->second].is_pointer) classifyPointerUse(ctx, e, info.params[it->second]);
    }
    return true;
  }
};

// KernelFeatures, the manifest's older description of the same features, kept filled for readers
// of manifest.json: the booleans from the feature ids, the texts from the same matchers.
void fillKernelFeatures(clang::ASTContext& ctx, const clang::FunctionDecl* fd, KernelInfo& k) {
  const std::vector<std::string>& ids = *k.feature_ids;
  auto has = [&](const char* id) { return std::find(ids.begin(), ids.end(), id) != ids.end(); };
  KernelFeatures& f = k.features;
  KernelIndex idx = kernelIndex(ctx, fd);
  if (idx.var) {
    f.thread_index = sourceText(ctx, idx.init->getSourceRange());
    f.index_var = idx.var->getNameAsString();
  }
  if (idx.guard) f.bounds_guard = sourceText(ctx, idx.guard->getSourceRange());
  f.grid_stride_loop = has("grid_stride_loop");
  f.loops = loopCount(ctx, fd);
  f.shared_memory = has("shared_memory");
  f.barriers = has("barriers");
  f.atomics = has("atomics");
  f.shuffles = has("shuffles");
  f.uses_block_geometry_outside_index = has("uses_block_geometry_outside_index");
}

SourceRange rangeOf(clang::ASTContext& ctx, clang::SourceRange r) {
  const auto& sm = ctx.getSourceManager();
  SourceRange out;
  auto cr = fileRange(ctx, r);
  if (cr.isInvalid()) return out;
  auto b = cr.getBegin(), e = cr.getEnd();
  out.file = fileOf(ctx, r);
  out.begin_line = sm.getSpellingLineNumber(b);
  out.end_line = sm.getSpellingLineNumber(e);
  out.begin_offset = sm.getFileOffset(b);
  out.end_offset = sm.getFileOffset(e);
  return out;
}

// The parameters with their types and how pointers are used (an instantiation's concrete types,
// a template pattern's dependent ones).
std::vector<ParamInfo> describeParams(clang::ASTContext& ctx, const clang::FunctionDecl* fd) {
  KernelInfo k;
  for (auto* pv : fd->parameters()) {
    ParamInfo p;
    p.name = pv->getNameAsString();
    clang::QualType t = pv->getType();
    p.type = typeString(ctx, t);
    p.is_restrict = t.isRestrictQualified();
    // Typedefs and `using` aliases of a scalar (`typedef float floatX;`, `using scalar_t = float`)
    // are what they stand for: the harness fills and compares the canonical type. Pointers keep
    // the spelling in `type` (for people and prompts); their pointee is canonical.
    if (!t->isDependentType() && !t->isPointerType() && t.getCanonicalType()->isBuiltinType())
      p.type = typeString(ctx, t.getCanonicalType());
    if (t->isPointerType()) {
      p.is_pointer = true;
      clang::QualType pt = t->getPointeeType();
      p.pointee_const = pt.isConstQualified();
      p.pointee = typeString(ctx, (pt->isDependentType() ? pt : pt.getCanonicalType()).getUnqualifiedType());
    }
    if (!t->isDependentType() && !t->isIncompleteType())
      p.size_bytes = static_cast<unsigned>(ctx.getTypeSizeInChars(t).getQuantity());
    k.params.push_back(p);
  }
  if (fd->hasBody()) {
    PointerUseScan scan(ctx, k);
    for (size_t i = 0; i < fd->getNumParams(); ++i) scan.param_index[fd->getParamDecl(i)] = i;
    scan.TraverseStmt(fd->getBody());
  }
  return k.params;
}

// The kernel instantiations of a template in this unit, sorted by mangled name.
std::vector<TemplateInstance> templateInstances(clang::ASTContext& ctx, const clang::FunctionTemplateDecl* t) {
  std::vector<TemplateInstance> out;
  clang::PrintingPolicy pp(ctx.getLangOpts());
  for (auto* spec : t->specializations()) {
    if (!spec->hasAttr<clang::CUDAGlobalAttr>()) continue;
    TemplateInstance ti;
    ti.mangled = mangledName(ctx, spec);
    if (const auto* args = spec->getTemplateSpecializationArgs()) {
      llvm::raw_string_ostream os(ti.args);
      clang::printTemplateArgumentList(os, args->asArray(), pp);
      os.flush();
      if (ti.args.size() >= 2 && ti.args.front() == '<') ti.args = ti.args.substr(1, ti.args.size() - 2);
    }
    ti.params = describeParams(ctx, spec);
    out.push_back(std::move(ti));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.mangled < b.mangled; });
  return out;
}

// The path of a file of the unit as extraction names files (fileOf's rule).
std::string pathOf(const clang::SourceManager& sm, clang::FileID fid) {
  std::string file;
  if (auto fe = sm.getFileEntryRefForID(fid)) {
    file = fe->getFileEntry().tryGetRealPathName().str();
    if (file.empty()) file = fe->getName().str();
  }
  return file;
}

// The name an #include directive spells ("x.cuh" of `#include "x.cuh"` or `#include <x.cuh>`),
// read from the line the include location is on; "" when that line is no plain #include.
std::string includedName(const clang::SourceManager& sm, clang::SourceLocation inc) {
  bool invalid = false;
  llvm::StringRef buf = sm.getBufferData(sm.getFileID(inc), &invalid);
  if (invalid) return "";
  size_t off = sm.getFileOffset(inc), b = off, e = off;
  while (b > 0 && buf[b - 1] != '\n') --b;
  while (e < buf.size() && buf[e] != '\n') ++e;
  const std::string line = buf.substr(b, e - b).str();
  size_t h = line.find('#'), i = line.find("include", h == std::string::npos ? 0 : h);
  if (h == std::string::npos || i == std::string::npos) return "";
  size_t open = line.find_first_of("\"<", i + 7);
  if (open == std::string::npos) return "";
  size_t close = line.find(line[open] == '"' ? '"' : '>', open + 1);
  return close == std::string::npos ? "" : line.substr(open + 1, close - open - 1);
}

// Adds the instances of `from` that `into` does not have yet (a header template seen through
// several units instantiates different types in each).
void mergeInstances(KernelInfo& into, const KernelInfo& from) {
  for (const auto& ti : from.instances) {
    bool have = false;
    for (const auto& x : into.instances) have |= x.mangled == ti.mangled;
    if (have) continue;
    into.instances.push_back(ti);
    into.instantiations.push_back(ti.mangled);
  }
  std::sort(into.instances.begin(), into.instances.end(), [](const auto& a, const auto& b) { return a.mangled < b.mangled; });
  std::sort(into.instantiations.begin(), into.instantiations.end());
  for (const auto& u : from.units)
    if (std::find(into.units.begin(), into.units.end(), u) == into.units.end()) into.units.push_back(u);
}

}  // namespace

KernelInfo describeKernel(clang::ASTContext& ctx, const clang::FunctionDecl* fd) {
  return describeKernel(ctx, fd, nullptr);
}

KernelInfo describeKernel(clang::ASTContext& ctx, const clang::FunctionDecl* fd,
                          const std::vector<std::string>* target_sources) {
  KernelInfo k;
  k.name = fd->getNameAsString();
  k.qualified_name = fd->getQualifiedNameAsString();
  k.range = rangeOf(ctx, fd->getSourceRange());
  k.source_hash = fnv1a64Hex(sourceText(ctx, fd->getSourceRange()));
  k.is_template = fd->getDescribedFunctionTemplate() != nullptr;
  if (!k.is_template) k.mangled_name = mangledName(ctx, fd);
  k.params = describeParams(ctx, fd);
  if (auto* lb = fd->getAttr<clang::CUDALaunchBoundsAttr>()) {
    std::string text = sourceText(ctx, lb->getMaxThreads()->getSourceRange());
    if (lb->getMinBlocks()) text += ", " + sourceText(ctx, lb->getMinBlocks()->getSourceRange());
    k.launch_bounds = text;
  }
  if (auto* t = fd->getDescribedFunctionTemplate()) k.instances = templateInstances(ctx, t);
  for (const auto& ti : k.instances) k.instantiations.push_back(ti.mangled);
  k.feature_ids = kernelFeatureIds(FeatureInput{ctx, fd, target_sources});
  k.in_header = std::find(k.feature_ids->begin(), k.feature_ids->end(), "in_header") != k.feature_ids->end();
  fillKernelFeatures(ctx, fd, k);
  return k;
}

void extractFromUnit(clang::ASTContext& ctx, const std::vector<std::string>& target_sources, Manifest& manifest) {
  const auto& sm = ctx.getSourceManager();
  auto isTargetSource = [&](const std::string& f) {
    return std::find(target_sources.begin(), target_sources.end(), f) != target_sources.end();
  };
  // Launch sites (and prototypes) seen before their kernel's definition wait in "pending" entries.
  auto isPending = [](const KernelInfo& k) {
    return k.range.file.empty() && k.notes.size() == 1 && k.notes[0] == "pending";
  };
  auto findByKey = [&](const std::string& key, const std::string& file, unsigned line,
                       bool include_pending = true) -> KernelInfo* {
    for (auto& k : manifest.kernels) {
      if (!include_pending && isPending(k)) continue;
      if ((!key.empty() && k.mangled_name == key) ||
          (k.range.file == file && k.range.begin_line == line && k.name == key))
        return &k;
    }
    return nullptr;
  };

  struct Collector : clang::RecursiveASTVisitor<Collector> {
    std::vector<const clang::FunctionDecl*> defs, decls;
    std::vector<const clang::FunctionTemplateDecl*> templates;
    bool VisitFunctionDecl(clang::FunctionDecl* fd) {
      if (!fd->hasAttr<clang::CUDAGlobalAttr>()) return true;
      if (fd->isTemplateInstantiation()) return true;
      if (fd->getDescribedFunctionTemplate()) return true;  // handled as a template
      if (fd->doesThisDeclarationHaveABody()) defs.push_back(fd);
      else decls.push_back(fd);
      return true;
    }
    bool VisitFunctionTemplateDecl(clang::FunctionTemplateDecl* t) {
      if (t->getTemplatedDecl()->hasAttr<clang::CUDAGlobalAttr>() &&
          t->getTemplatedDecl()->doesThisDeclarationHaveABody())
        templates.push_back(t);
      return true;
    }
  } col;
  col.TraverseDecl(ctx.getTranslationUnitDecl());

  auto inSystem = [&](const clang::Decl* d) { return sm.isInSystemHeader(sm.getExpansionLoc(d->getLocation())); };
  const std::string unit = pathOf(sm, sm.getMainFileID());
  // Where this unit sees the kernel: the unit itself, and for a header the file that includes it.
  auto placeIn = [&](const clang::FunctionDecl* fd, KernelInfo& k) {
    k.units = {unit};
    if (!k.in_header) return;
    clang::SourceLocation inc = sm.getIncludeLoc(sm.getFileID(sm.getExpansionLoc(fd->getLocation())));
    if (inc.isInvalid()) return;
    inc = sm.getExpansionLoc(inc);
    k.included_from = pathOf(sm, sm.getFileID(inc));
    k.included_as = includedName(sm, inc);
  };

  for (auto* fd : col.defs) {
    if (inSystem(fd)) continue;
    KernelInfo k = describeKernel(ctx, fd, &target_sources);
    placeIn(fd, k);
    unsigned extra_decls = 0;
    for (auto* r : fd->redecls())
      if (r != fd) ++extra_decls;
    if (KernelInfo* have = findByKey(k.mangled_name, k.range.file, k.range.begin_line, false)) {
      have->declarations = std::max(have->declarations, 1 + extra_decls);
      mergeInstances(*have, k);
      continue;
    }
    k.declarations = 1 + extra_decls;
    // Units parsed earlier that only declared (and launched) this kernel.
    for (auto it = manifest.kernels.begin(); it != manifest.kernels.end();) {
      if (isPending(*it) && !k.mangled_name.empty() && it->mangled_name == k.mangled_name) {
        k.declarations += it->declarations;
        k.launches.insert(k.launches.end(), it->launches.begin(), it->launches.end());
        it = manifest.kernels.erase(it);
      } else {
        ++it;
      }
    }
    manifest.kernels.push_back(std::move(k));
  }
  for (auto* t : col.templates) {
    if (inSystem(t)) continue;
    KernelInfo k = describeKernel(ctx, t->getTemplatedDecl(), &target_sources);
    k.is_template = true;
    placeIn(t->getTemplatedDecl(), k);
    if (KernelInfo* have = findByKey(k.name, k.range.file, k.range.begin_line, false)) {
      mergeInstances(*have, k);
      continue;
    }
    manifest.kernels.push_back(std::move(k));
  }
  // Prototypes without a body (e.g. to launch a kernel defined in another file): count them so
  // transforms know the signature is shared.
  for (auto* fd : col.decls) {
    if (inSystem(fd) || fd->getDefinition()) continue;
    std::string m = mangledName(ctx, fd);
    bool counted = false;
    for (auto& k : manifest.kernels)
      if (k.mangled_name == m) {
        ++k.declarations;
        counted = true;
      }
    if (!counted) {
      // defined in a unit not parsed yet: keep the count until the definition is seen
      KernelInfo pending;
      pending.name = fd->getNameAsString();
      pending.mangled_name = m;
      pending.notes.push_back("pending");
      pending.declarations = 1;
      manifest.kernels.push_back(std::move(pending));
    }
  }

  // Launch sites written in this unit's main file: <<<>>>, cudaLaunchKernel and cudaLaunchKernelEx,
  // with their geometry resolved through the launching function (launch_resolve.h).
  for (const FoundLaunch& f : findLaunches(ctx)) {
    const clang::CallExpr* call = f.call;
    auto loc = sm.getExpansionLoc(call->getBeginLoc());
    if (!sm.isWrittenInMainFile(loc)) continue;
    const clang::FunctionDecl* callee = f.kernel;
    LaunchSite ls;
    ls.file = rangeOf(ctx, call->getSourceRange()).file;
    ls.line = sm.getSpellingLineNumber(loc);
    ls.column = sm.getSpellingColumnNumber(loc);
    ls.in_target_sources = isTargetSource(ls.file);
    ls.form = f.form;
    auto text = [&](const clang::Expr* e, std::string* type) -> std::string {
      if (!e) return "";
      if (type) *type = typeString(ctx, e->getType().getUnqualifiedType());
      return sourceText(ctx, e->getSourceRange());
    };
    ls.grid = text(f.grid, &ls.grid_type);
    ls.block = text(f.block, &ls.block_type);
    ls.shmem = text(f.shmem, nullptr);
    ls.stream = text(f.stream, nullptr);
    const ResolvedGeometry g = resolveGeometry(ctx, f);
    ls.launcher = g.launcher;
    ls.grid_expr = g.grid;
    ls.block_expr = g.block;
    ls.shmem_expr = g.shmem;
    ls.grid_unresolved = g.grid_why;
    ls.block_unresolved = g.block_why;
    ls.shmem_unresolved = g.shmem_why;
    if (ls.block_expr.size() == 3 && ls.block_expr[0].isConst() && ls.block_expr[1].isConst() && ls.block_expr[2].isConst()) {
      ls.block_dims = {ls.block_expr[0].value, ls.block_expr[1].value, ls.block_expr[2].value};
      ls.block_value = ls.block_dims[0] * ls.block_dims[1] * ls.block_dims[2];
    }
    ls.not_rewritable = notRewritable(ctx, f);
    if (f.form == "<<<>>>" && f.grid && f.block) {
      const clang::Expr* last = f.block;
      for (const clang::Expr* e : {f.shmem, f.stream})
        if (e) last = e;
      ls.config_range = rangeOf(ctx, clang::SourceRange(f.grid->getBeginLoc(), last->getEndLoc()));
    }
    for (const clang::Expr* a : f.args) ls.args.push_back(sourceText(ctx, a->getSourceRange()));
    if (f.instance) ls.instantiation = mangledName(ctx, f.instance);
    std::string key = callee->getDescribedFunctionTemplate() ? callee->getNameAsString() : mangledName(ctx, callee);
    auto cr = rangeOf(ctx, callee->getSourceRange());
    KernelInfo* k = nullptr;
    if (const clang::FunctionDecl* def = callee->getDefinition()) {
      auto dr = rangeOf(ctx, def->getSourceRange());
      k = findByKey(def->getDescribedFunctionTemplate() ? def->getNameAsString() : mangledName(ctx, def), dr.file,
                    dr.begin_line);
    }
    if (!k) k = findByKey(key, cr.file, cr.begin_line);
    if (!k) {
      // launched here, defined in another unit: remember the site until that unit is parsed
      KernelInfo pending;
      pending.name = callee->getNameAsString();
      pending.mangled_name = key;
      pending.notes.push_back("pending");
      pending.declarations = 0;  // the prototypes are counted above
      pending.launches.push_back(ls);
      manifest.kernels.push_back(std::move(pending));
      continue;
    }
    bool dup = false;
    for (auto& have : k->launches) dup |= have.file == ls.file && have.line == ls.line && have.column == ls.column;
    if (!dup) k->launches.push_back(ls);
  }
}

// Every file the unit read that is not a system header (its source, the project's headers, the
// forced includes): what a no-op check must hash to know the kernels are unchanged.
// And every #include of those files (includer, file, spelling): the include tree of the project's headers.
static void addReadFiles(const clang::SourceManager& sm, std::vector<std::string>& files,
                         std::vector<IncludeEdge>& includes) {
  for (unsigned i = 0, n = sm.local_sloc_entry_size(); i < n; ++i) {
    const clang::SrcMgr::SLocEntry& e = sm.getLocalSLocEntry(i);
    if (!e.isFile() || e.getFile().getFileCharacteristic() != clang::SrcMgr::C_User) continue;
    const clang::SrcMgr::ContentCache& cc = e.getFile().getContentCache();
    if (!cc.OrigEntry) continue;
    const llvm::StringRef real = cc.OrigEntry->getFileEntry().tryGetRealPathName();
    std::string name = real.empty() ? cc.OrigEntry->getName().str() : real.str();
    if (clang::SourceLocation inc = e.getFile().getIncludeLoc(); inc.isValid()) {
      inc = sm.getExpansionLoc(inc);
      IncludeEdge edge{pathOf(sm, sm.getFileID(inc)), name, includedName(sm, inc)};
      if (!edge.includer.empty() && !edge.as.empty() &&
          std::find(includes.begin(), includes.end(), edge) == includes.end())
        includes.push_back(std::move(edge));
    }
    if (std::find(files.begin(), files.end(), name) == files.end()) files.push_back(std::move(name));
  }
}

namespace {

bool isPendingEntry(const KernelInfo& k) { return k.range.file.empty() && k.notes.size() == 1 && k.notes[0] == "pending"; }

// What one unit alone gives: extractFromUnit into an empty manifest, the files it read, its
// diagnostics. A unit's fragment depends only on the unit (its text, the files it reads, its
// arguments) and the target's sources, so it can be kept between runs.
Manifest fragmentOf(const SourceToParse& src, const std::vector<std::string>& target_sources, ParsedUnit& pu) {
  Manifest f;
  if (pu.error_count > 0 || !pu.ast) {
    ParseDiagnostic d;
    d.file = src.file;
    d.errors = pu.errors;
    if (!pu.ast) d.errors.push_back("clang could not build an AST for this file");
    f.diagnostics.push_back(d);
  }
  if (pu.ast) {
    extractFromUnit(pu.ast->getASTContext(), target_sources, f);
    addReadFiles(pu.ast->getSourceManager(), f.files, f.includes);
  }
  return f;
}

// A unit's fragment added to the manifest of the units before it, exactly as extractFromUnit adds
// the unit itself: a kernel seen before (a header's, through another unit) takes the declarations,
// instances and launch sites this unit adds; a new one takes the pending prototypes and launches
// earlier units left for it; this unit's own pending entries join a kernel or pending entry of the
// same name, or wait.
void mergeFragment(Manifest& m, Manifest f) {
  auto findDefined = [&](const KernelInfo& k) -> KernelInfo* {
    for (auto& have : m.kernels) {
      if (isPendingEntry(have)) continue;
      const std::string key = k.is_template ? k.name : k.mangled_name;
      if ((!key.empty() && have.mangled_name == key) ||
          (have.range.file == k.range.file && have.range.begin_line == k.range.begin_line && have.name == key))
        return &have;
    }
    return nullptr;
  };
  for (KernelInfo& k : f.kernels) {
    if (isPendingEntry(k)) {
      KernelInfo* into = nullptr;
      for (auto& have : m.kernels)
        if (!k.mangled_name.empty() && (have.mangled_name == k.mangled_name || (have.is_template && have.name == k.mangled_name)))
          into = into ? into : &have;
      if (into) {
        into->declarations += k.declarations;
        into->launches.insert(into->launches.end(), k.launches.begin(), k.launches.end());
      } else {
        m.kernels.push_back(std::move(k));
      }
      continue;
    }
    if (KernelInfo* have = findDefined(k)) {
      if (!k.is_template) have->declarations = std::max(have->declarations, k.declarations);
      mergeInstances(*have, k);
      have->launches.insert(have->launches.end(), k.launches.begin(), k.launches.end());
      continue;
    }
    if (!k.is_template) {
      std::vector<LaunchSite> earlier;
      for (auto it = m.kernels.begin(); it != m.kernels.end();) {
        if (isPendingEntry(*it) && !k.mangled_name.empty() && it->mangled_name == k.mangled_name) {
          k.declarations += it->declarations;
          earlier.insert(earlier.end(), it->launches.begin(), it->launches.end());
          it = m.kernels.erase(it);
        } else {
          ++it;
        }
      }
      k.launches.insert(k.launches.begin(), earlier.begin(), earlier.end());
    }
    m.kernels.push_back(std::move(k));
  }
  m.diagnostics.insert(m.diagnostics.end(), f.diagnostics.begin(), f.diagnostics.end());
  for (auto& name : f.files)
    if (std::find(m.files.begin(), m.files.end(), name) == m.files.end()) m.files.push_back(std::move(name));
  for (auto& e : f.includes)
    if (std::find(m.includes.begin(), m.includes.end(), e) == m.includes.end()) m.includes.push_back(std::move(e));
}

// The memo of one unit's fragment: <memo_dir>/<hash of the unit's path>.json, holding the key it
// was made under (KLineage's own binary, the unit, its arguments, the target's sources) and the
// hash of every project file the unit read. Reused only when all of them are the same.
struct UnitMemo {
  std::filesystem::path path;
  std::string key;
};

std::string fileHash(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "(missing)";
  std::ostringstream ss;
  ss << in.rdbuf();
  return fnv1a64Hex(ss.str());
}

UnitMemo unitMemo(const std::string& memo_dir, const SourceToParse& src, const std::vector<std::string>& target_sources) {
  std::string key = "extract-unit-1\n";
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  const auto size = ec ? 0 : std::filesystem::file_size(self, ec);
  const auto mtime = ec ? std::filesystem::file_time_type{} : std::filesystem::last_write_time(self, ec);
  key += self.string() + ":" + std::to_string(size) + ":" + std::to_string(mtime.time_since_epoch().count()) + "\n";
  key += src.file + "\n";
  for (const auto& a : src.clang_args) key += a + "\n";
  for (const auto& t : target_sources) key += "source " + t + "\n";
  return {std::filesystem::path(memo_dir) / (fnv1a64Hex(src.file) + ".json"), fnv1a64Hex(key)};
}

std::optional<Manifest> loadFragment(const UnitMemo& memo) {
  std::ifstream in(memo.path);
  if (!in) return std::nullopt;
  try {
    const nlohmann::json j = nlohmann::json::parse(in);
    if (j.at("key").get<std::string>() != memo.key) return std::nullopt;
    for (const auto& [file, hash] : j.at("read").items())
      if (fileHash(file) != hash.get<std::string>()) return std::nullopt;
    return j.at("fragment").get<Manifest>();
  } catch (const std::exception&) {
    return std::nullopt;  // a memo that cannot be read is parsed again
  }
}

void saveFragment(const UnitMemo& memo, const Manifest& f) {
  if (!f.diagnostics.empty()) return;  // a unit with parse errors is parsed again (it may be mid-edit)
  nlohmann::json read = nlohmann::json::object();
  for (const auto& file : f.files) read[file] = fileHash(file);
  nlohmann::json j = {{"key", memo.key}, {"read", read}, {"fragment", f}};
  std::error_code ec;
  std::filesystem::create_directories(memo.path.parent_path(), ec);
  const std::filesystem::path tmp = memo.path.string() + ".tmp";
  {
    std::ofstream out(tmp);
    out << j.dump() << "\n";
    if (!out) return;
  }
  std::filesystem::rename(tmp, memo.path, ec);
}

}  // namespace

Manifest extractManifest(const std::string& target, const std::vector<SourceToParse>& sources, const Overlay& overlay,
                         const std::function<void(const std::string&)>& log, unsigned threads, const std::string& memo_dir,
                         unsigned* reused) {
  Manifest m;
  m.target = target;
  for (const auto& s : sources) m.sources.push_back(s.file);
  // Each unit's fragment, from the memo (no overlay only) or by parsing. Parsing is the slow part
  // and independent per source: a batch of `threads` sources is parsed at once (at most that many
  // ASTs are held); the fragments are merged in the sources' order, so the manifest depends neither
  // on the threads nor on which fragments came from the memo.
  std::vector<std::optional<Manifest>> fragments(sources.size());
  std::vector<UnitMemo> memos(sources.size());
  std::vector<size_t> todo;
  const bool use_memo = !memo_dir.empty() && overlay.empty();
  for (size_t i = 0; i < sources.size(); ++i) {
    if (use_memo) {
      memos[i] = unitMemo(memo_dir, sources[i], m.sources);
      fragments[i] = loadFragment(memos[i]);
    }
    if (!fragments[i]) todo.push_back(i);
  }
  if (reused) *reused = static_cast<unsigned>(sources.size() - todo.size());
  const size_t batch = std::max(1u, threads);
  for (size_t first = 0; first < todo.size(); first += batch) {
    const size_t n = std::min(batch, todo.size() - first);
    if (log)
      for (size_t i = 0; i < n; ++i) log("extract: parsing " + sources[todo[first + i]].file);
    parallelFor(n, n, [&](size_t i) {
      const SourceToParse& src = sources[todo[first + i]];
      ParsedUnit pu = parseUnit(src.file, src.clang_args, overlay);
      fragments[todo[first + i]] = fragmentOf(src, m.sources, pu);
    });
    if (use_memo)
      for (size_t i = 0; i < n; ++i) saveFragment(memos[todo[first + i]], *fragments[todo[first + i]]);
  }
  for (auto& f : fragments) mergeFragment(m, std::move(*f));
  std::sort(m.files.begin(), m.files.end());
  // Merge launch sites recorded before their kernel's definition was seen.
  std::vector<KernelInfo> merged;
  std::vector<KernelInfo> pending;
  for (auto& k : m.kernels) (k.notes.size() == 1 && k.notes[0] == "pending" && k.range.file.empty() ? pending : merged).push_back(std::move(k));
  for (auto& p : pending) {
    KernelInfo* target_k = nullptr;
    for (auto& k : merged)
      if (k.mangled_name == p.mangled_name || (k.is_template && k.name == p.mangled_name)) target_k = &k;
    if (target_k) {
      for (auto& l : p.launches) target_k->launches.push_back(l);
      target_k->declarations += p.declarations;
    }
  }
  m.kernels = std::move(merged);
  for (auto& k : m.kernels) {
    if (k.launches.empty() && !k.in_header)
      k.notes.push_back("no launch site in the target's sources: only launch-geometry-preserving variants apply");
    for (auto& l : k.launches)
      if (!l.in_target_sources)
        k.notes.push_back("launched from outside the target's sources (" + l.file + ":" + std::to_string(l.line) +
                          "): only launch-geometry-preserving variants apply");
  }
  return m;
}

}  // namespace klineage
