#include "apply.h"

#include <sstream>

#include <clang/Frontend/ASTUnit.h>
#include <clang/Lex/Preprocessor.h>
#include <clang/Rewrite/Core/Rewriter.h>

#include "ast_util.h"
#include "core/fs.h"
#include "extract.h"
#include "launch_resolve.h"
#include "source_buffer.h"

namespace klineage {

namespace {
Overlay complete(const Overlay& in, const ArgsByFile& args) {
  Overlay o = in;
  for (const auto& [file, a] : args)
    if (!o.count(file)) o[file] = readFile(file);
  return o;
}

std::string bufferText(clang::Rewriter& rw, clang::FileID fid) {
  if (const clang::RewriteBuffer* b = rw.getRewriteBufferFor(fid)) return std::string(b->begin(), b->end());
  return rw.getSourceMgr().getBufferData(fid).str();
}
}  // namespace

StepResult applyStep(const Overlay& in, const ArgsByFile& args, const std::string& kernel_file,
                     const std::string& kernel_name, const Transform& t, Direction dir,
                     const TransformParams& params, const TransformFacts& facts, const std::string& unit) {
  StepResult r;
  r.overlay = complete(in, args);
  const std::string& parsed = unit.empty() ? kernel_file : unit;
  const bool header = parsed != kernel_file;  // the kernel is defined in a header the unit includes
  if (header && !r.overlay.count(kernel_file)) r.overlay[kernel_file] = readFile(kernel_file);
  auto ait = args.find(parsed);
  if (ait == args.end()) {
    r.reason = parsed + " is not one of the target's sources";
    return r;
  }
  const std::shared_ptr<ParsedUnit> pu = sharedParse(parsed, ait->second, r.overlay);
  if (!pu->ast) {
    r.reason = "clang could not parse " + parsed;
    r.errors = pu->errors;
    return r;
  }
  auto& ctx = pu->ast->getASTContext();
  const clang::FunctionDecl* fd = findKernel(ctx, kernel_name, header ? kernel_file : "");
  if (!fd) {
    r.reason = "kernel " + kernel_name + " is not defined in " + kernel_file + (header ? " (as included by " + parsed + ")" : "");
    return r;
  }
  const auto& sm = ctx.getSourceManager();
  const clang::FileID edited = header ? sm.getFileID(sm.getExpansionLoc(fd->getLocation())) : sm.getMainFileID();
  clang::Rewriter rw(ctx.getSourceManager(), ctx.getLangOpts());
  TransformRequest req{ctx, rw, fd, params, facts, &pu->ast->getPreprocessor()};
  TransformResult tr;
  {
    EditedFileScope scope(ctx, edited);
    tr = dir == Direction::Forward ? t.forward(req) : t.inverse(req);
  }
  r.reason = tr.reason;
  if (!tr.applied) return r;
  // Edits belong in the kernel's file only: a header kernel's step may not touch the unit.
  if (header && rw.getRewriteBufferFor(sm.getMainFileID())) {
    r.reason = t.id() + " edited " + parsed + " while rewriting " + kernel_name + " in " + kernel_file;
    return r;
  }
  std::string edited_text = bufferText(rw, edited);
  Overlay next = r.overlay;
  next[kernel_file] = edited_text;
  // The edit must leave a file that still parses, and the kernel must still be there.
  // Shared: the next step of the chain starts from this parse.
  const std::shared_ptr<ParsedUnit> check = sharedParse(parsed, ait->second, next);
  if (!check->ast || check->error_count > 0) {
    r.reason = t.id() + " produced code that does not parse";
    r.errors = check->errors;
    return r;
  }
  const clang::FunctionDecl* after = findKernel(check->ast->getASTContext(), kernel_name, header ? kernel_file : "");
  if (!after) {
    r.reason = t.id() + " lost the kernel " + kernel_name;
    return r;
  }
  r.kernel_after = describeKernel(check->ast->getASTContext(), after);
  r.applied = true;
  r.geometry = tr.geometry;
  r.overlay = std::move(next);
  return r;
}

// The launch's grid and block as `change` makes them, written around the user's expressions
// (which may have side effects only if the user wrote them so: they are evaluated once each, except
// a dim3 grid's, which is read per component as the original launch would convert it). "" when the
// expression stays as it is.
std::string gridText(const GeometryChange& c, const std::string& gt, bool integer) {
  if (c.grid_x_divisor == 1 && c.grid_x_multiplier == 1 && (integer || (c.grid_y_divisor == 1 && c.grid_y_multiplier == 1)))
    return "";
  auto scaled = [](const std::string& e, unsigned mul, unsigned div) {
    std::string v = mul > 1 ? "(" + e + ") * " + std::to_string(mul) : "(" + e + ")";
    if (div <= 1) return mul > 1 ? "(" + v + ")" : v;
    return "(" + v + " + " + std::to_string(div - 1) + ") / " + std::to_string(div);
  };
  if (integer) return scaled(gt, c.grid_x_multiplier, c.grid_x_divisor);
  std::string g = "(" + gt + ")";
  return "dim3(" + scaled(g + ".x", c.grid_x_multiplier, c.grid_x_divisor) + ", " +
         scaled(g + ".y", c.grid_y_multiplier, c.grid_y_divisor) + ", " + g + ".z)";
}

std::string blockText(const GeometryChange& c, const std::string& bt, bool integer) {
  if (!c.block_x && !c.block_y) return "";
  std::string b = "(" + bt + ")";
  std::string x = c.block_x ? std::to_string(*c.block_x) : integer ? b : b + ".x";
  if (integer && !c.block_y) return x;
  std::string y = c.block_y ? std::to_string(*c.block_y) : integer ? "1" : b + ".y";
  return "dim3(" + x + ", " + y + ", " + (integer ? "1" : b + ".z") + ")";
}

bool rewriteLaunches(Overlay& overlay, const ArgsByFile& args, const std::string& kernel_name,
                     const GeometryChange& change, std::string* why, unsigned* rewritten,
                     const std::set<std::string>* in_files) {
  if (rewritten) *rewritten = 0;
  if (!change.changes()) return true;
  Overlay o = complete(overlay, args);
  for (const auto& [file, a] : args) {
    if (in_files && !in_files->count(file)) continue;
    ParsedUnit pu = parseUnit(file, a, o);
    if (!pu.ast) {
      if (why) *why = "cannot parse " + file;
      return false;
    }
    auto& ctx = pu.ast->getASTContext();
    const auto& sm = ctx.getSourceManager();
    clang::Rewriter rw(ctx.getSourceManager(), ctx.getLangOpts());
    unsigned here = 0;
    for (const FoundLaunch& f : findLaunches(ctx)) {
      const clang::CallExpr* call = f.call;
      if (!sm.isWrittenInMainFile(sm.getExpansionLoc(call->getBeginLoc()))) continue;
      const clang::FunctionDecl* k = f.kernel;
      if (!k || (k->getNameAsString() != kernel_name && k->getQualifiedNameAsString() != kernel_name)) continue;
      const std::string at = file + ":" + std::to_string(sm.getSpellingLineNumber(sm.getExpansionLoc(call->getBeginLoc())));
      if (std::string no = notRewritable(ctx, f); !no.empty()) {
        if (why) *why = "the launch at " + at + " cannot be rewritten: " + no;
        return false;
      }
      const clang::Expr* g = editableExpr(ctx, f.grid);
      const clang::Expr* b = editableExpr(ctx, f.block);
      auto edit = [&](const clang::Expr* e, const std::string& text) {
        return !rw.ReplaceText(fileRange(ctx, e->getSourceRange()), text);
      };
      if (std::string text = gridText(change, sourceText(ctx, g->getSourceRange()), g->getType()->isIntegerType());
          !text.empty() && !edit(g, text)) {
        if (why) *why = "cannot edit the grid expression at " + file;
        return false;
      }
      if (std::string text = blockText(change, sourceText(ctx, b->getSourceRange()), b->getType()->isIntegerType());
          !text.empty() && !edit(b, text)) {
        if (why) *why = "cannot edit the block expression at " + file;
        return false;
      }
      ++here;
    }
    if (here) {
      o[file] = bufferText(rw, sm.getMainFileID());
      if (rewritten) *rewritten += here;
    }
  }
  overlay = std::move(o);
  return true;
}

std::string describeDiff(const std::string& before, const std::string& after, unsigned context) {
  auto lines = [](const std::string& s) {
    std::vector<std::string> v;
    std::istringstream in(s);
    for (std::string l; std::getline(in, l);) v.push_back(l);
    return v;
  };
  auto a = lines(before), b = lines(after);
  size_t pre = 0;
  while (pre < a.size() && pre < b.size() && a[pre] == b[pre]) ++pre;
  size_t suf = 0;
  while (suf < a.size() - pre && suf < b.size() - pre && a[a.size() - 1 - suf] == b[b.size() - 1 - suf]) ++suf;
  std::ostringstream out;
  size_t from = pre >= context ? pre - context : 0;
  out << "@@ line " << from + 1 << " @@\n";
  for (size_t i = from; i < pre; ++i) out << " " << a[i] << "\n";
  for (size_t i = pre; i < a.size() - suf; ++i) out << "-" << a[i] << "\n";
  for (size_t i = pre; i < b.size() - suf; ++i) out << "+" << b[i] << "\n";
  for (size_t i = a.size() - suf; i < a.size() && i < a.size() - suf + context; ++i) out << " " << a[i] << "\n";
  return out.str();
}

}  // namespace klineage
