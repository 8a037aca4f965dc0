#include "launch_resolve.h"

#include <map>

#include <clang/AST/Attr.h>
#include <clang/AST/DeclTemplate.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/ParentMapContext.h>
#include <clang/AST/RecursiveASTVisitor.h>

#include "ast_util.h"

namespace klineage {

namespace {

using Op = LaunchExpr::Op;

// Thrown inside the resolver only (never through Clang's frames); caught per part of a launch.
struct Unresolved {
  std::string why;
};

[[noreturn]] void refuse(std::string why) { throw Unresolved{std::move(why)}; }

std::string calleeName(const clang::CallExpr* call) {
  if (const clang::FunctionDecl* fd = call->getDirectCallee()) return fd->getNameAsString();
  const clang::Expr* callee = call->getCallee()->IgnoreParenImpCasts();
  if (auto* ule = llvm::dyn_cast<clang::UnresolvedLookupExpr>(callee)) return ule->getName().getAsString();
  return "";
}

// The __global__ function a function-pointer argument names (`k`, `&k`, `(void*)k`, `reduce<512>`).
const clang::FunctionDecl* kernelNamed(const clang::Expr* e, const clang::FunctionDecl** instance) {
  const clang::FunctionDecl* fd = kernelFromCallee(e, instance);
  return fd && fd->hasAttr<clang::CUDAGlobalAttr>() ? fd : nullptr;
}

const clang::VarDecl* localVar(const clang::Expr* e) {
  return llvm::dyn_cast_or_null<clang::VarDecl>(referencedDecl(e));
}

// cudaLaunchKernel's `void* args[] = {&x, &y, &n}`: the variables whose addresses it holds.
std::vector<const clang::Expr*> argsArray(const clang::Expr* e) {
  const clang::VarDecl* v = localVar(e);
  if (!v || !v->getInit()) return {};
  auto* il = llvm::dyn_cast<clang::InitListExpr>(v->getInit()->IgnoreImplicit());
  if (!il) return {};
  std::vector<const clang::Expr*> out;
  for (const clang::Expr* x : il->inits()) {
    x = x->IgnoreParenCasts();
    auto* u = llvm::dyn_cast<clang::UnaryOperator>(x);
    if (!u || u->getOpcode() != clang::UO_AddrOf) return {};
    out.push_back(u->getSubExpr());
  }
  return out;
}

// cudaLaunchKernelEx's config: the value its field `field` is given, by the variable's initializer
// or by the one assignment `config.field = value` in the function.
const clang::Expr* configField(clang::ASTContext& ctx, const clang::VarDecl* config, const std::string& field,
                               const clang::Stmt* body, std::string* why) {
  const clang::Expr* assigned = nullptr;
  unsigned n = 0;
  for (const clang::DeclRefExpr* ref : refsTo(body, config)) {
    const clang::Stmt* m = parentStmtOf(ctx, *ref);
    while (m && (llvm::isa<clang::ImplicitCastExpr>(m) || llvm::isa<clang::ParenExpr>(m))) m = parentStmtOf(ctx, *m);
    auto* me = llvm::dyn_cast_or_null<clang::MemberExpr>(m);
    if (!me || me->getMemberDecl()->getNameAsString() != field) continue;
    const clang::Stmt* p = parentStmtOf(ctx, *me);
    if (auto* bo = llvm::dyn_cast_or_null<clang::BinaryOperator>(p); bo && bo->isAssignmentOp() && bo->getLHS() == me) {
      assigned = bo->getRHS();
      ++n;
    } else if (auto* oc = llvm::dyn_cast_or_null<clang::CXXOperatorCallExpr>(p);
               oc && oc->getOperator() == clang::OO_Equal && oc->getNumArgs() == 2 && oc->getArg(0)->IgnoreImplicit() == me) {
      assigned = oc->getArg(1);
      ++n;
    }
  }
  if (n > 1) {
    *why = "'" + config->getNameAsString() + "." + field + "' is assigned more than once";
    return nullptr;
  }
  if (assigned) return assigned;
  if (const clang::Expr* init = config->getInit())
    if (auto* il = llvm::dyn_cast<clang::InitListExpr>(init->IgnoreImplicit())) {
      unsigned i = 0;
      for (const clang::FieldDecl* f : config->getType()->getAsRecordDecl()->fields()) {
        if (f->getNameAsString() == field) {
          if (i < il->getNumInits() && !llvm::isa<clang::ImplicitValueInitExpr>(il->getInit(i))) return il->getInit(i);
          break;
        }
        ++i;
      }
    }
  *why = "'" + config->getNameAsString() + "." + field + "' is not given a value in " +
         "the launching function (an initializer or one assignment)";
  return nullptr;
}

const clang::FunctionDecl* enclosingFunction(clang::ASTContext& ctx, const clang::Stmt* s) {
  clang::DynTypedNodeList parents = ctx.getParents(*s);
  for (unsigned guard = 0; !parents.empty() && guard < 10000; ++guard) {
    if (auto* fd = parents[0].get<clang::FunctionDecl>()) return fd;
    if (auto* st = parents[0].get<clang::Stmt>()) parents = ctx.getParents(*st);
    else if (auto* d = parents[0].get<clang::Decl>()) parents = ctx.getParents(*d);
    else break;
  }
  return nullptr;
}

std::optional<FoundLaunch> recognize(clang::ASTContext& ctx, const clang::CallExpr* call) {
  FoundLaunch f;
  f.call = call;
  if (auto* kc = llvm::dyn_cast<clang::CUDAKernelCallExpr>(call)) {
    f.kernel = launchedKernel(kc);
    if (!f.kernel) return std::nullopt;
    if (const clang::FunctionDecl* d = kc->getDirectCallee(); d && d->getTemplateInstantiationPattern()) f.instance = d;
    f.form = "<<<>>>";
    const clang::CallExpr* cfg = kc->getConfig();
    auto at = [&](unsigned i) { return cfg && i < cfg->getNumArgs() ? writtenArg(cfg->getArg(i)) : nullptr; };
    f.grid = at(0);
    f.block = at(1);
    f.shmem = at(2);
    f.stream = at(3);
    for (const clang::Expr* a : kc->arguments()) f.args.push_back(a);
    return f;
  }
  const std::string name = calleeName(call);
  auto arg = [&](unsigned i) { return i < call->getNumArgs() ? writtenArg(call->getArg(i)) : nullptr; };
  if (name == "cudaLaunchKernel" || name == "cudaLaunchKernel_ptsz") {
    f.kernel = kernelNamed(arg(0), &f.instance);
    if (!f.kernel) return std::nullopt;
    f.form = "cudaLaunchKernel";
    f.grid = arg(1);
    f.block = arg(2);
    f.shmem = arg(4);
    f.stream = arg(5);
    f.args = argsArray(arg(3));
    return f;
  }
  if (name == "cudaLaunchKernelEx" || name == "cudaLaunchKernelExC" || name == "cudaLaunchKernelEx_ptsz") {
    f.kernel = kernelNamed(arg(1), &f.instance);
    if (!f.kernel) return std::nullopt;
    f.form = "cudaLaunchKernelEx";
    if (name == "cudaLaunchKernelExC") f.args = argsArray(arg(2));
    else
      for (unsigned i = 2; i < call->getNumArgs(); ++i) f.args.push_back(call->getArg(i));
    const clang::Expr* c = arg(0) ? arg(0)->IgnoreParenImpCasts() : nullptr;
    auto* addr = llvm::dyn_cast_or_null<clang::UnaryOperator>(c);
    const clang::VarDecl* config = addr && addr->getOpcode() == clang::UO_AddrOf ? localVar(addr->getSubExpr()) : nullptr;
    const clang::FunctionDecl* host = enclosingFunction(ctx, call);
    if (!config || !host || !host->getBody() || !config->getType()->getAsRecordDecl()) {
      f.config_why = "the launch configuration '" + (c ? sourceText(ctx, c->getSourceRange()) : std::string("?")) +
                     "' is not the address of a local cudaLaunchConfig_t";
    } else {
      std::string why;
      f.grid = configField(ctx, config, "gridDim", host->getBody(), &why);
      if (f.grid) f.block = configField(ctx, config, "blockDim", host->getBody(), &why);
      if (!f.grid || !f.block) f.config_why = why;
      std::string ignored;
      f.shmem = configField(ctx, config, "dynamicSmemBytes", host->getBody(), &ignored);
      f.stream = configField(ctx, config, "stream", host->getBody(), &ignored);
    }
    f.not_rewritable = "the geometry is set in the cudaLaunchConfig_t passed to cudaLaunchKernelEx, not at the launch";
    return f;
  }
  return std::nullopt;
}

struct LaunchCollector : clang::RecursiveASTVisitor<LaunchCollector> {
  clang::ASTContext& ctx;
  std::vector<FoundLaunch> out;
  explicit LaunchCollector(clang::ASTContext& c) : ctx(c) {}
  bool shouldVisitTemplateInstantiations() const { return false; }
  bool VisitCallExpr(clang::CallExpr* e) {
    if (auto f = recognize(ctx, e)) out.push_back(*f);
    return true;
  }
};

bool isDim3(clang::QualType t) {
  const clang::RecordDecl* r = t.getNonReferenceType()->getAsRecordDecl();
  return r && (r->getNameAsString() == "dim3");
}

// Resolves expressions of one launch in the function that launches it.
class Resolver {
 public:
  Resolver(clang::ASTContext& ctx, std::map<const clang::ValueDecl*, std::string> kernel_args)
      : ctx_(ctx), kernel_args_(std::move(kernel_args)) {}

  LaunchExpr integer(const clang::Expr* e) {
    Depth d(this);
    e = strip(e);
    const std::string t = text(e);
    if (e->isTypeDependent() || e->isValueDependent())
      refuse("'" + t + "' depends on a template parameter of the launching function");
    if (e->getType()->isRealFloatingType())
      refuse("'" + t + "' is a floating-point value: only integer arithmetic is resolved");
    if (e->getType()->isIntegralOrEnumerationType()) {
      // Constants as the compiler folds them: literals, constexpr and const variables, enums,
      // macros (already expanded), sizeof, constexpr helpers called with constants.
      clang::Expr::EvalResult r;
      if (e->EvaluateAsInt(r, ctx_)) {
        const llvm::APSInt& v = r.Val.getInt();
        if (v.getActiveBits() > 63) refuse("'" + t + "' is a constant that does not fit in 63 bits");
        return LaunchExpr::constant(v.isSigned() ? v.getExtValue() : static_cast<long long>(v.getZExtValue()));
      }
    } else {
      refuse("'" + t + "' is not an integer (" + e->getType().getAsString() + ")");
    }
    if (auto* c = llvm::dyn_cast<clang::CastExpr>(e)) {
      const clang::Expr* sub = c->getSubExpr();
      if (sub->getType()->isRealFloatingType())
        refuse("'" + t + "' converts a floating-point value to an integer: only integer arithmetic is resolved");
      return integer(sub);
    }
    if (auto* b = llvm::dyn_cast<clang::BinaryOperator>(e)) return binary(b);
    if (auto* u = llvm::dyn_cast<clang::UnaryOperator>(e)) {
      switch (u->getOpcode()) {
        case clang::UO_Plus: return integer(u->getSubExpr());
        case clang::UO_Minus: return LaunchExpr::node(Op::Neg, {integer(u->getSubExpr())});
        case clang::UO_LNot: return LaunchExpr::node(Op::Not, {integer(u->getSubExpr())});
        case clang::UO_Not: return LaunchExpr::node(Op::BitNot, {integer(u->getSubExpr())});
        default: refuse("'" + t + "' changes or dereferences a value");
      }
    }
    if (auto* c = llvm::dyn_cast<clang::ConditionalOperator>(e))
      return LaunchExpr::node(Op::Select, {integer(c->getCond()), integer(c->getTrueExpr()), integer(c->getFalseExpr())});
    if (auto* dre = llvm::dyn_cast<clang::DeclRefExpr>(e)) return variable(dre);
    if (auto* m = llvm::dyn_cast<clang::MemberExpr>(e)) {
      const std::string field = m->getMemberDecl()->getNameAsString();
      if (isDim3(m->getBase()->getType()) && !m->isArrow() && (field == "x" || field == "y" || field == "z"))
        return dims(m->getBase())[field == "x" ? 0 : field == "y" ? 1 : 2];
      refuse("'" + t + "' reads the member '" + field + "' of '" + text(m->getBase()) +
             "': only a dim3's x, y and z are resolved");
    }
    if (auto* call = llvm::dyn_cast<clang::CallExpr>(e)) {
      if (llvm::isa<clang::CXXMemberCallExpr>(call) || llvm::isa<clang::CXXOperatorCallExpr>(call))
        refuse("'" + t + "' calls a member function or operator");
      if (auto mm = minMax(call)) return *mm;
      return inlineCall<LaunchExpr>(call, [this](const clang::Expr* r) { return integer(r); });
    }
    if (auto* il = llvm::dyn_cast<clang::InitListExpr>(e); il && il->getNumInits() == 1) return integer(il->getInit(0));
    if (auto* dae = llvm::dyn_cast<clang::CXXDefaultArgExpr>(e)) return integer(dae->getExpr());
    refuse("'" + t + "' (" + e->getStmtClassName() + ") is not resolved");
  }

  std::vector<LaunchExpr> dims(const clang::Expr* e) {
    Depth d(this);
    e = strip(e);
    const std::string t = text(e);
    if (e->isTypeDependent() || e->isValueDependent())
      refuse("'" + t + "' depends on a template parameter of the launching function");
    if (e->getType()->isIntegralOrEnumerationType()) return {integer(e), LaunchExpr::constant(1), LaunchExpr::constant(1)};
    if (auto* fc = llvm::dyn_cast<clang::CXXFunctionalCastExpr>(e)) return dims(fc->getSubExpr());
    if (auto* c = llvm::dyn_cast<clang::ImplicitCastExpr>(e)) return dims(c->getSubExpr());
    if (auto* ce = llvm::dyn_cast<clang::CXXConstructExpr>(e)) {
      const clang::CXXConstructorDecl* ctor = ce->getConstructor();
      if (ctor->isCopyOrMoveConstructor()) return dims(ce->getArg(0));
      if (!isDim3(ce->getType())) refuse("'" + t + "' constructs a " + ce->getType().getAsString() + ", not a dim3");
      std::vector<LaunchExpr> out(3, LaunchExpr::constant(1));
      if (ce->getNumArgs() > 3) refuse("'" + t + "' has more than three dimensions");
      for (unsigned i = 0; i < ce->getNumArgs(); ++i) {
        if (!ce->getArg(i)->getType()->isIntegralOrEnumerationType())
          refuse("'" + t + "' builds a dim3 from a " + ce->getArg(i)->getType().getAsString());
        out[i] = integer(ce->getArg(i));
      }
      return out;
    }
    if (auto* c = llvm::dyn_cast<clang::ConditionalOperator>(e)) {
      LaunchExpr cond = integer(c->getCond());
      auto a = dims(c->getTrueExpr()), b = dims(c->getFalseExpr());
      std::vector<LaunchExpr> out;
      for (int i = 0; i < 3; ++i) out.push_back(LaunchExpr::node(Op::Select, {cond, a[i], b[i]}));
      return out;
    }
    if (auto* dre = llvm::dyn_cast<clang::DeclRefExpr>(e)) {
      auto* v = llvm::dyn_cast<clang::VarDecl>(dre->getDecl());
      if (!v) refuse("'" + t + "' is not a variable");
      if (auto it = bound_dims_.find(v); it != bound_dims_.end()) return it->second;
      const std::string name = v->getNameAsString();
      if (llvm::isa<clang::ParmVarDecl>(v)) {
        mustNotChange(v);
        return {LaunchExpr::param(name + ".x"), LaunchExpr::param(name + ".y"), LaunchExpr::param(name + ".z")};
      }
      return dims(initializerOf(v));
    }
    if (auto* call = llvm::dyn_cast<clang::CallExpr>(e); call && !llvm::isa<clang::CXXMemberCallExpr>(call) &&
                                                          !llvm::isa<clang::CXXOperatorCallExpr>(call))
      return inlineCall<std::vector<LaunchExpr>>(call, [this](const clang::Expr* r) { return dims(r); });
    refuse("'" + t + "' (" + e->getStmtClassName() + ") is not resolved to a dim3");
  }

 private:
  clang::ASTContext& ctx_;
  std::map<const clang::ValueDecl*, std::string> kernel_args_;  // variable passed to the kernel -> parameter
  std::map<const clang::ValueDecl*, LaunchExpr> bound_;        // an inlined helper's parameters
  std::map<const clang::ValueDecl*, std::vector<LaunchExpr>> bound_dims_;
  unsigned depth_ = 0;

  struct Depth {
    Resolver* r;
    explicit Depth(Resolver* r_) : r(r_) {
      if (++r->depth_ > 200) refuse("the expression nests too deeply");
    }
    ~Depth() { --r->depth_; }
  };

  std::string text(const clang::Expr* e) const { return sourceText(ctx_, e->getSourceRange()); }

  static const clang::Expr* strip(const clang::Expr* e) {
    while (true) {
      e = e->IgnoreParens();
      if (auto* m = llvm::dyn_cast<clang::MaterializeTemporaryExpr>(e)) e = m->getSubExpr();
      else if (auto* b = llvm::dyn_cast<clang::CXXBindTemporaryExpr>(e)) e = b->getSubExpr();
      else if (auto* w = llvm::dyn_cast<clang::ExprWithCleanups>(e)) e = w->getSubExpr();
      else if (auto* c = llvm::dyn_cast<clang::ImplicitCastExpr>(e);
               c && (c->getCastKind() == clang::CK_NoOp || c->getCastKind() == clang::CK_LValueToRValue ||
                     c->getCastKind() == clang::CK_ConstructorConversion))
        e = c->getSubExpr();
      else return e;
    }
  }

  LaunchExpr binary(const clang::BinaryOperator* b) {
    static const std::map<clang::BinaryOperatorKind, Op> ops = {
        {clang::BO_Add, Op::Add}, {clang::BO_Sub, Op::Sub}, {clang::BO_Mul, Op::Mul}, {clang::BO_Div, Op::Div},
        {clang::BO_Rem, Op::Mod}, {clang::BO_Shl, Op::Shl}, {clang::BO_Shr, Op::Shr}, {clang::BO_And, Op::BitAnd},
        {clang::BO_Or, Op::BitOr}, {clang::BO_Xor, Op::BitXor}, {clang::BO_LT, Op::Lt}, {clang::BO_LE, Op::Le},
        {clang::BO_GT, Op::Gt}, {clang::BO_GE, Op::Ge}, {clang::BO_EQ, Op::Eq}, {clang::BO_NE, Op::Ne},
        {clang::BO_LAnd, Op::LAnd}, {clang::BO_LOr, Op::LOr}};
    auto it = ops.find(b->getOpcode());
    if (it == ops.end()) refuse("'" + text(b) + "' assigns or uses the comma operator");
    return LaunchExpr::node(it->second, {integer(b->getLHS()), integer(b->getRHS())});
  }

  std::optional<LaunchExpr> minMax(const clang::CallExpr* call) {
    const clang::FunctionDecl* fd = call->getDirectCallee();
    if (!fd || call->getNumArgs() != 2) return std::nullopt;
    const std::string n = fd->getNameAsString();
    if (n != "min" && n != "max") return std::nullopt;
    if (!fd->isInStdNamespace() && !fd->getDeclContext()->getRedeclContext()->isTranslationUnit()) return std::nullopt;
    return LaunchExpr::node(n == "min" ? Op::Min : Op::Max, {integer(call->getArg(0)), integer(call->getArg(1))});
  }

  // A helper whose body is one `return expr;`, with its parameters bound to the call's arguments.
  template <typename R, typename F>
  R inlineCall(const clang::CallExpr* call, F resolve) {
    const clang::FunctionDecl* fd = call->getDirectCallee();
    if (!fd) refuse("'" + text(call) + "' calls through a pointer or an overload set");
    const std::string name = fd->getNameAsString();
    const clang::FunctionDecl* def = fd->getDefinition();
    if (!def || !def->getBody())
      refuse("'" + text(call) + "' calls '" + name + "', which is not defined in this file: its value is not known before the run");
    auto* body = llvm::dyn_cast<clang::CompoundStmt>(def->getBody());
    auto* ret = body && body->size() == 1 ? llvm::dyn_cast<clang::ReturnStmt>(body->body_front()) : nullptr;
    if (!ret || !ret->getRetValue())
      refuse("'" + text(call) + "' calls '" + name + "', whose body is more than one return statement");
    if (call->getNumArgs() != def->getNumParams()) refuse("'" + text(call) + "' calls '" + name + "' with default arguments");
    std::map<const clang::ValueDecl*, LaunchExpr> bound;
    std::map<const clang::ValueDecl*, std::vector<LaunchExpr>> bound_dims;
    for (unsigned i = 0; i < def->getNumParams(); ++i) {
      const clang::ParmVarDecl* p = def->getParamDecl(i);
      if (isDim3(p->getType())) bound_dims[p] = dims(call->getArg(i));
      else if (p->getType().getNonReferenceType()->isIntegralOrEnumerationType()) bound[p] = integer(call->getArg(i));
      else refuse("'" + text(call) + "' passes '" + p->getNameAsString() + "', a " + p->getType().getAsString());
    }
    std::swap(bound, bound_);
    std::swap(bound_dims, bound_dims_);
    struct Restore {
      Resolver* r;
      std::map<const clang::ValueDecl*, LaunchExpr>& b;
      std::map<const clang::ValueDecl*, std::vector<LaunchExpr>>& bd;
      ~Restore() {
        std::swap(b, r->bound_);
        std::swap(bd, r->bound_dims_);
      }
    } restore{this, bound, bound_dims};
    return resolve(ret->getRetValue());
  }

  LaunchExpr variable(const clang::DeclRefExpr* dre) {
    const clang::ValueDecl* d = dre->getDecl();
    if (auto it = bound_.find(d); it != bound_.end()) return it->second;
    if (auto it = kernel_args_.find(d); it != kernel_args_.end()) {
      mustNotChange(llvm::cast<clang::VarDecl>(d));
      return LaunchExpr::arg(it->second);
    }
    const std::string name = d->getNameAsString();
    auto* v = llvm::dyn_cast<clang::VarDecl>(d);
    if (!v) refuse("'" + name + "' is not a variable");
    if (llvm::isa<clang::ParmVarDecl>(v)) {
      mustNotChange(v);
      return LaunchExpr::param(name);
    }
    return integer(initializerOf(v));
  }

  // A variable's initializer, when the variable keeps that value: locals and const globals.
  const clang::Expr* initializerOf(const clang::VarDecl* v) {
    const std::string name = v->getNameAsString();
    if (v->hasGlobalStorage() && !v->getType().isConstQualified())
      refuse("'" + name + "' is a " + (v->isStaticLocal() ? "static" : "global") +
             " variable that is not const: it may change while the program runs");
    if (v->hasLocalStorage()) mustNotChange(v);
    const clang::Expr* init = v->getAnyInitializer();
    if (!init) refuse("'" + name + "' has no initializer");
    return init;
  }

  // Refuses a variable that the function it belongs to writes anywhere (assignment, increment,
  // address taken, bound to a non-const reference, a non-const member call): then its initializer
  // or the value passed is not what the launch reads.
  void mustNotChange(const clang::VarDecl* v) {
    const auto* fd = llvm::dyn_cast_or_null<clang::FunctionDecl>(v->getParentFunctionOrMethod());
    const clang::Stmt* body = fd ? fd->getBody() : nullptr;
    if (!body) return;
    for (const clang::DeclRefExpr* ref : refsTo(body, v)) {
      const clang::Stmt* cur = ref;
      while (true) {
        const clang::Stmt* p = parentStmtOf(ctx_, *cur);
        if (!p) {
          // a declaration's initializer: a reference bound to it may write it
          auto parents = ctx_.getParents(*cur);
          auto* vd = parents.empty() ? nullptr : parents[0].get<clang::VarDecl>();
          if (vd && vd->getType()->isReferenceType() && !vd->getType().getNonReferenceType().isConstQualified())
            changed(v, vd->getLocation(), "'" + vd->getNameAsString() + "' is bound to it by reference");
          break;
        }
        if (llvm::isa<clang::ParenExpr>(p) || llvm::isa<clang::MemberExpr>(p)) {
          cur = p;
          continue;
        }
        if (auto* c = llvm::dyn_cast<clang::ImplicitCastExpr>(p)) {
          if (c->getCastKind() == clang::CK_LValueToRValue) break;
          if (c->getCastKind() == clang::CK_NoOp || c->getCastKind() == clang::CK_DerivedToBase ||
              c->getCastKind() == clang::CK_UncheckedDerivedToBase) {
            cur = p;
            continue;
          }
        }
        if (llvm::isa<clang::UnaryExprOrTypeTraitExpr>(p) || llvm::isa<clang::DeclRefExpr>(p)) break;
        if (auto* u = llvm::dyn_cast<clang::UnaryOperator>(p); u && u->getOpcode() == clang::UO_AddrOf && inArgsArray(u))
          break;  // cudaLaunchKernel's `void* args[] = {&n}`: the runtime reads it
        if (auto* ce = llvm::dyn_cast<clang::CXXConstructExpr>(p)) {
          if (readOnlyArg(ce->getConstructor(), ce->arguments(), cur, 0)) break;
        } else if (auto* mc = llvm::dyn_cast<clang::CXXMemberCallExpr>(p)) {
          if (mc->getImplicitObjectArgument()->IgnoreParenImpCasts() == cur) {
            if (mc->getMethodDecl() && mc->getMethodDecl()->isConst()) break;
          } else if (readOnlyArg(mc->getDirectCallee(), mc->arguments(), cur, 0)) {
            break;
          }
        } else if (auto* oc = llvm::dyn_cast<clang::CXXOperatorCallExpr>(p)) {
          auto* md = llvm::dyn_cast_or_null<clang::CXXMethodDecl>(oc->getDirectCallee());
          if (md && oc->getNumArgs() > 0 && oc->getArg(0)->IgnoreParenImpCasts() == cur) {
            if (md->isConst()) break;
          } else if (readOnlyArg(oc->getDirectCallee(), oc->arguments(), cur, md ? 1 : 0)) {
            break;
          }
        } else if (auto* call = llvm::dyn_cast<clang::CallExpr>(p)) {
          if (readOnlyArg(call->getDirectCallee(), call->arguments(), cur, 0)) break;
          if (calleeName(call).rfind("cudaLaunchKernel", 0) == 0) break;  // the launch copies its arguments
        }
        changed(v, p->getBeginLoc(), "'" + text(llvm::cast<clang::Expr>(p)) + "'");
      }
    }
  }

  // Whether &x is an element of a `void*` array's initializer (the arguments of cudaLaunchKernel).
  bool inArgsArray(const clang::UnaryOperator* addr) {
    const clang::Stmt* p = parentStmtOf(ctx_, *addr);
    while (p && (llvm::isa<clang::CastExpr>(p) || llvm::isa<clang::ParenExpr>(p))) p = parentStmtOf(ctx_, *p);
    auto* il = llvm::dyn_cast_or_null<clang::InitListExpr>(p);
    if (!il || !il->getType()->isArrayType()) return false;
    clang::QualType elem = ctx_.getAsArrayType(il->getType())->getElementType();
    return elem->isPointerType() && elem->getPointeeType()->isVoidType();
  }

  template <typename Args>
  static bool readOnlyArg(const clang::FunctionDecl* fd, Args args, const clang::Stmt* cur, unsigned skip) {
    if (!fd) return false;
    unsigned i = 0;
    for (const clang::Expr* a : args) {
      if (a == cur || a->IgnoreParenImpCasts() == cur) {
        if (i < skip || i - skip >= fd->getNumParams()) return false;
        clang::QualType t = fd->getParamDecl(i - skip)->getType();
        return !t->isReferenceType() || t.getNonReferenceType().isConstQualified();
      }
      ++i;
    }
    return false;
  }

  [[noreturn]] void changed(const clang::VarDecl* v, clang::SourceLocation at, const std::string& how) {
    const auto& sm = ctx_.getSourceManager();
    refuse("'" + v->getNameAsString() + "' is changed after its declaration (line " +
           std::to_string(sm.getSpellingLineNumber(sm.getExpansionLoc(at))) + ": " + how +
           "), so its value at the launch is not known");
  }
};

ResolvedGeometry resolveHere(clang::ASTContext& ctx, const FoundLaunch& f) {
  ResolvedGeometry g;
  std::map<const clang::ValueDecl*, std::string> kernel_args;
  const clang::FunctionDecl* k = f.instance ? f.instance : f.kernel;
  for (size_t i = 0; i < f.args.size() && i < k->getNumParams(); ++i)
    if (const clang::ValueDecl* d = referencedDecl(f.args[i]); d && llvm::isa<clang::VarDecl>(d) &&
                                                               !k->getParamDecl(i)->getName().empty())
      kernel_args.emplace(d, k->getParamDecl(i)->getNameAsString());
  Resolver r(ctx, kernel_args);
  auto part = [&](auto fn, std::string* why) {
    try {
      return fn();
    } catch (const Unresolved& u) {
      *why = u.why;
      return decltype(fn()){};
    }
  };
  if (!f.config_why.empty()) {
    g.grid_why = g.block_why = g.shmem_why = f.config_why;
    return g;
  }
  auto fold = [](std::vector<LaunchExpr> v) {
    for (auto& e : v) e = foldLaunchExpr(std::move(e));
    return v;
  };
  if (f.grid) g.grid = fold(part([&] { return r.dims(f.grid); }, &g.grid_why));
  else g.grid_why = "the launch has no grid";
  if (f.block) g.block = fold(part([&] { return r.dims(f.block); }, &g.block_why));
  else g.block_why = "the launch has no block";
  if (!f.shmem) g.shmem = LaunchExpr::constant(0);
  else if (auto s = part([&] { return std::optional<LaunchExpr>(r.integer(f.shmem)); }, &g.shmem_why))
    g.shmem = foldLaunchExpr(*s);
  return g;
}

}  // namespace

const clang::Expr* editableExpr(const clang::ASTContext& ctx, const clang::Expr* e) {
  while (e && fileRange(ctx, e->getSourceRange()).isInvalid()) {
    auto* p = llvm::dyn_cast<clang::ParenExpr>(e);
    e = p ? p->getSubExpr() : nullptr;
  }
  return e;
}

std::string notRewritable(const clang::ASTContext& ctx, const FoundLaunch& f) {
  if (!f.not_rewritable.empty()) return f.not_rewritable;
  if (!f.grid || !f.block) return "the launch has no grid or block";
  if (!editableExpr(ctx, f.grid) || !editableExpr(ctx, f.block))
    return "the launch's grid or block is made inside a macro, not passed to it";
  return "";
}

std::vector<FoundLaunch> findLaunches(clang::ASTContext& ctx) {
  LaunchCollector c(ctx);
  c.TraverseDecl(ctx.getTranslationUnitDecl());
  return c.out;
}

ResolvedGeometry resolveGeometry(clang::ASTContext& ctx, const FoundLaunch& f) {
  const clang::FunctionDecl* host = enclosingFunction(ctx, f.call);
  auto named = [&](ResolvedGeometry g) {
    if (host) g.launcher = host->getNameAsString();
    return g;
  };
  const clang::FunctionTemplateDecl* tmpl = host ? host->getDescribedFunctionTemplate() : nullptr;
  if (!tmpl) return named(resolveHere(ctx, f));
  // A launch in a template launcher: resolved in each instantiation of this unit, where sizeof(T)
  // and the template's constants are known; kept when all of them agree.
  std::vector<ResolvedGeometry> each;
  std::string names;
  for (const clang::FunctionDecl* spec : tmpl->specializations()) {
    if (!spec->getBody()) continue;
    struct Find : clang::RecursiveASTVisitor<Find> {
      clang::SourceLocation at;
      const clang::CallExpr* found = nullptr;
      bool VisitCallExpr(clang::CallExpr* e) {
        if (!found && e->getBeginLoc() == at) found = e;
        return true;
      }
    } find;
    find.at = f.call->getBeginLoc();
    find.TraverseStmt(spec->getBody());
    if (!find.found) continue;
    auto inst = recognize(ctx, find.found);
    if (!inst) continue;
    each.push_back(resolveHere(ctx, *inst));
    std::string args;
    if (const auto* ta = spec->getTemplateSpecializationArgs()) {
      llvm::raw_string_ostream os(args);
      for (unsigned i = 0; i < ta->size(); ++i) {
        if (i) os << ", ";
        ta->get(i).print(ctx.getPrintingPolicy(), os, true);
      }
    }
    names += (names.empty() ? "" : " and ") + tmpl->getNameAsString() + "<" + args + ">";
  }
  if (each.empty()) return named(resolveHere(ctx, f));  // names the dependent construct
  // Each part is kept where every instantiation agrees on it.
  ResolvedGeometry g = each[0];
  const std::string differ = "the launch differs between " + names + ", the instantiations of the launching template";
  for (const auto& o : each) {
    if (!(o.grid == g.grid) || o.grid_why != g.grid_why) g.grid.clear(), g.grid_why = differ;
    if (!(o.block == g.block) || o.block_why != g.block_why) g.block.clear(), g.block_why = differ;
    if (!(o.shmem == g.shmem) || o.shmem_why != g.shmem_why) g.shmem.reset(), g.shmem_why = differ;
  }
  return named(g);
}

}  // namespace klineage
