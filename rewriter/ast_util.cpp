#include <set>
#include "ast_util.h"

#include <filesystem>

#include <clang/AST/Mangle.h>
#include <clang/AST/ParentMapContext.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/Attr.h>
#include <clang/Lex/Lexer.h>

namespace klineage {

clang::CharSourceRange fileRange(const clang::ASTContext& ctx, clang::SourceRange range) {
  const auto& sm = ctx.getSourceManager();
  auto cr = clang::CharSourceRange::getTokenRange(range);
  return clang::Lexer::makeFileCharRange(cr, sm, ctx.getLangOpts());
}

std::string sourceText(const clang::ASTContext& ctx, clang::SourceRange range) {
  auto cr = fileRange(ctx, range);
  if (cr.isInvalid()) {
    // fall back to expansion locations (e.g. a range that starts inside a macro argument)
    const auto& sm = ctx.getSourceManager();
    cr = clang::CharSourceRange::getTokenRange(sm.getExpansionRange(range.getBegin()).getBegin(),
                                               sm.getExpansionRange(range.getEnd()).getEnd());
  }
  bool invalid = false;
  auto text = clang::Lexer::getSourceText(cr, ctx.getSourceManager(), ctx.getLangOpts(), &invalid);
  return invalid ? std::string() : text.str();
}

std::string squeeze(const std::string& s) {
  std::string out;
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
  return out;
}

std::string fileOf(const clang::ASTContext& ctx, clang::SourceRange range) {
  const auto& sm = ctx.getSourceManager();
  auto cr = fileRange(ctx, range);
  if (cr.isInvalid()) return "";
  auto b = cr.getBegin();
  std::string file;
  if (auto fe = sm.getFileEntryRefForID(sm.getFileID(b))) file = fe->getFileEntry().tryGetRealPathName().str();
  if (file.empty())
    if (auto fe = sm.getFileEntryRefForID(sm.getFileID(b))) file = fe->getName().str();
  if (file.empty()) file = sm.getFilename(b).str();
  return file;
}

const clang::FunctionDecl* findKernel(clang::ASTContext& ctx, const std::string& name, const std::string& file) {
  const auto& sm = ctx.getSourceManager();
  // Defined in `file` (a header the unit includes), else written in the main file.
  auto where = [&](const clang::FunctionDecl* fd) {
    if (file.empty()) return sm.isWrittenInMainFile(sm.getExpansionLoc(fd->getLocation()));
    return std::filesystem::path(fileOf(ctx, fd->getSourceRange())).lexically_normal() ==
           std::filesystem::path(file).lexically_normal();
  };
  for (auto* d : ctx.getTranslationUnitDecl()->decls()) {
    // kernels in namespaces too
    std::vector<clang::Decl*> stack{d};
    while (!stack.empty()) {
      auto* cur = stack.back();
      stack.pop_back();
      if (auto* ns = llvm::dyn_cast<clang::NamespaceDecl>(cur)) {
        for (auto* inner : ns->decls()) stack.push_back(inner);
        continue;
      }
      if (auto* ls = llvm::dyn_cast<clang::LinkageSpecDecl>(cur)) {
        for (auto* inner : ls->decls()) stack.push_back(inner);
        continue;
      }
      // A template kernel is rewritten as its pattern: every instantiation follows it.
      if (auto* t = llvm::dyn_cast<clang::FunctionTemplateDecl>(cur)) cur = t->getTemplatedDecl();
      auto* fd = llvm::dyn_cast<clang::FunctionDecl>(cur);
      if (!fd || !fd->hasAttr<clang::CUDAGlobalAttr>() || !fd->doesThisDeclarationHaveABody()) continue;
      if (!where(fd)) continue;
      if (fd->getNameAsString() == name || fd->getQualifiedNameAsString() == name) return fd;
    }
  }
  return nullptr;
}

bool usesDecl(const clang::Stmt* s, const clang::ValueDecl* d) {
  struct V : clang::RecursiveASTVisitor<V> {
    const clang::ValueDecl* d;
    bool found = false;
    bool VisitDeclRefExpr(clang::DeclRefExpr* e) {
      found |= e->getDecl() == d;
      return !found;
    }
  } v;
  v.d = d;
  v.TraverseStmt(const_cast<clang::Stmt*>(s));
  return v.found;
}

std::vector<const clang::DeclRefExpr*> refsTo(const clang::Stmt* s, const clang::ValueDecl* d) {
  struct V : clang::RecursiveASTVisitor<V> {
    const clang::ValueDecl* d;
    std::vector<const clang::DeclRefExpr*> refs;
    bool VisitDeclRefExpr(clang::DeclRefExpr* e) {
      if (e->getDecl() == d) refs.push_back(e);
      return true;
    }
  } v;
  v.d = d;
  if (s) v.TraverseStmt(const_cast<clang::Stmt*>(s));
  return v.refs;
}

const clang::Stmt* parentStmtOf(clang::ASTContext& ctx, const clang::Stmt& s) {
  auto parents = ctx.getParents(s);
  return parents.empty() ? nullptr : parents[0].get<clang::Stmt>();
}

bool onlyReads(clang::ASTContext& ctx, const clang::Stmt* s, const clang::VarDecl* v) {
  for (const clang::DeclRefExpr* ref : refsTo(s, v)) {
    const clang::Stmt* cur = ref;
    while (true) {
      const clang::Stmt* p = parentStmtOf(ctx, *cur);
      if (auto* pe = llvm::dyn_cast_or_null<clang::ParenExpr>(p)) {
        cur = pe;
        continue;
      }
      auto* ice = llvm::dyn_cast_or_null<clang::ImplicitCastExpr>(p);
      if (!ice || ice->getCastKind() != clang::CK_LValueToRValue) return false;
      break;
    }
  }
  return true;
}

bool counterIndex(clang::ASTContext& ctx, const clang::Stmt* kernel_body, const clang::Stmt* loop_body,
                  const clang::Expr* idx, const clang::VarDecl* c, const clang::Expr** offset) {
  *offset = nullptr;
  if (!idx || !c) return false;
  if (auto* d = llvm::dyn_cast<clang::DeclRefExpr>(idx->IgnoreParenImpCasts())) return d->getDecl() == c;
  auto* add = llvm::dyn_cast<clang::BinaryOperator>(idx->IgnoreParenImpCasts());
  if (!add || add->getOpcode() != clang::BO_Add) return false;
  struct Declared : clang::RecursiveASTVisitor<Declared> {
    std::set<const clang::VarDecl*> vars;
    bool VisitVarDecl(clang::VarDecl* v) {
      vars.insert(v);
      return true;
    }
  } inner;
  if (loop_body) inner.TraverseStmt(const_cast<clang::Stmt*>(loop_body));
  for (auto [cc, r] : {std::pair{add->getRHS(), add->getLHS()}, std::pair{add->getLHS(), add->getRHS()}}) {
    auto* d = llvm::dyn_cast<clang::DeclRefExpr>(cc->IgnoreParenImpCasts());
    if (!d || d->getDecl() != c || usesDecl(r, c) || r->HasSideEffects(ctx)) continue;
    struct V : clang::RecursiveASTVisitor<V> {
      clang::ASTContext* ctx;
      const clang::Stmt* body;
      const std::set<const clang::VarDecl*>* inner;
      bool ok = true;
      bool VisitStmt(clang::Stmt* s) {
        if (llvm::isa<clang::ArraySubscriptExpr, clang::CallExpr, clang::MemberExpr>(s)) ok = false;
        if (auto* u = llvm::dyn_cast<clang::UnaryOperator>(s); u && u->getOpcode() == clang::UO_Deref) ok = false;
        if (auto* dr = llvm::dyn_cast<clang::DeclRefExpr>(s))
          if (auto* v = llvm::dyn_cast<clang::VarDecl>(dr->getDecl()); v && (inner->count(v) || !onlyReads(*ctx, body, v)))
            ok = false;
        return ok;
      }
    } v;
    v.ctx = &ctx;
    v.body = kernel_body;
    v.inner = &inner.vars;
    v.TraverseStmt(const_cast<clang::Expr*>(r));
    if (!v.ok) continue;
    *offset = r;
    return true;
  }
  return false;
}

const clang::ValueDecl* referencedDecl(const clang::Expr* e) {
  if (!e) return nullptr;
  e = e->IgnoreParenImpCasts();
  if (auto* dre = llvm::dyn_cast<clang::DeclRefExpr>(e)) return dre->getDecl();
  return nullptr;
}

namespace {
struct CallCollector : clang::RecursiveASTVisitor<CallCollector> {
  std::vector<const clang::CUDAKernelCallExpr*> calls;
  bool shouldVisitTemplateInstantiations() const { return false; }
  bool VisitCUDAKernelCallExpr(clang::CUDAKernelCallExpr* e) {
    calls.push_back(e);
    return true;
  }
};
}  // namespace

std::vector<const clang::CUDAKernelCallExpr*> kernelCalls(clang::ASTContext& ctx) {
  CallCollector c;
  c.TraverseDecl(ctx.getTranslationUnitDecl());
  return c.calls;
}

const clang::FunctionDecl* kernelFromCallee(const clang::Expr* e, const clang::FunctionDecl** instance) {
  if (!e) return nullptr;
  e = e->IgnoreParenCasts();
  if (auto* u = llvm::dyn_cast<clang::UnaryOperator>(e); u && u->getOpcode() == clang::UO_AddrOf)
    e = u->getSubExpr()->IgnoreParenCasts();
  const clang::FunctionDecl* fd = nullptr;
  if (auto* dre = llvm::dyn_cast<clang::DeclRefExpr>(e)) fd = llvm::dyn_cast<clang::FunctionDecl>(dre->getDecl());
  // dependent or through an overload set: the first declaration it names
  if (auto* ule = llvm::dyn_cast<clang::UnresolvedLookupExpr>(e))
    for (const clang::NamedDecl* nd : ule->decls()) {
      const clang::NamedDecl* d = nd->getUnderlyingDecl();  // through `using ns::kernel;`
      if (auto* t = llvm::dyn_cast<clang::FunctionTemplateDecl>(d)) fd = t->getTemplatedDecl();
      else fd = llvm::dyn_cast<clang::FunctionDecl>(d);
      if (fd) break;
    }
  if (!fd) return nullptr;
  if (auto* pattern = fd->getTemplateInstantiationPattern()) {
    if (instance) *instance = fd;
    return pattern;
  }
  return fd;
}

const clang::FunctionDecl* launchedKernel(const clang::CUDAKernelCallExpr* call) {
  if (const clang::FunctionDecl* fd = call->getDirectCallee()) {
    if (auto* pattern = fd->getTemplateInstantiationPattern()) return pattern;
    return fd;
  }
  return kernelFromCallee(call->getCallee());
}

const clang::Expr* writtenArg(const clang::Expr* e) {
  if (!e || llvm::isa<clang::CXXDefaultArgExpr>(e)) return nullptr;
  while (true) {
    e = e->IgnoreImplicit();
    if (auto* ctor = llvm::dyn_cast<clang::CXXConstructExpr>(e)) {
      // dim3(int) conversion the user did not write: take its argument
      if (!llvm::isa<clang::CXXTemporaryObjectExpr>(ctor) && ctor->getNumArgs() >= 1 &&
          ctor->getParenOrBraceRange().isInvalid()) {
        e = ctor->getArg(0);
        continue;
      }
    }
    if (auto* mt = llvm::dyn_cast<clang::MaterializeTemporaryExpr>(e)) {
      e = mt->getSubExpr();
      continue;
    }
    return e;
  }
}

std::string mangledName(clang::ASTContext& ctx, const clang::FunctionDecl* fd) {
  std::unique_ptr<clang::MangleContext> mc(ctx.createMangleContext());
  if (!mc->shouldMangleDeclName(fd)) return fd->getNameAsString();
  std::string out;
  llvm::raw_string_ostream os(out);
  // the device-side kernel, not the host launch stub clang also names
  mc->mangleName(fd->hasAttr<clang::CUDAGlobalAttr>() ? clang::GlobalDecl(fd, clang::KernelReferenceKind::Kernel)
                                                    : clang::GlobalDecl(fd),
                 os);
  return os.str();
}

bool isBuiltinGeometry(const std::string& name) {
  return name == "threadIdx" || name == "blockIdx" || name == "blockDim" || name == "gridDim";
}

}  // namespace klineage
