// expand-macros: a macro the project defines, used in a kernel's body, is replaced by its expansion.
//   #define IDX(r, c, ld) ((r) * (ld) + (c))
//   out[IDX(row, col, width)] = v;       ->      out[((row) * (width) + (col))] = v;
//   DATA_TYPE s = 0;                     ->      float s = 0;
// Why: transforms read the kernel's statements on the AST and edit their text; code written through
// a macro has no text of its own to edit, so each of them refuses it ("written through a macro").
// When it is sound: the expansion is what the preprocessor substitutes: the definition active at
// that point (a later #undef or redefinition does not matter), its tokens with the spacing the
// definition has, each parameter replaced by the argument's text as the call wrote it (the result
// is rescanned by the compiler as the original was, so a macro inside an argument or the definition
// expands as before; the next round of the pass expands it here). One space separates the expansion
// from a neighbouring token it could merge with. Top-level expansions of one step never overlap.
// NULL converted to a pointer becomes nullptr (the system header's NULL is GCC's __null).
// Left as written (not expanded): other macros defined in system headers (INFINITY, FLT_MAX, INT_MIN:
// values the transforms read on the AST), on the command line (-DTILE=16: the flags stay the
// variant's) or built in (__LINE__), and macros whose definition uses # or ## or is variadic; a
// call whose arguments cannot be split (a macro call spanning a directive).
// Refuses when the body uses no project macro it can expand, naming the first it cannot.
#include <map>
#include <memory>
#include <set>

#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Lex/Lexer.h>
#include <clang/Lex/MacroInfo.h>
#include <clang/Lex/Preprocessor.h>

#include "rewriter/ast_util.h"
#include "rewriter/source_buffer.h"
#include "rewriter/transform.h"

namespace klineage {
namespace {

// Every macro location in the body: statements, declarations and written types.
struct MacroLocs : clang::RecursiveASTVisitor<MacroLocs> {
  std::vector<clang::SourceLocation> locs;
  bool shouldVisitTemplateInstantiations() const { return false; }
  void add(clang::SourceLocation l) {
    if (l.isMacroID()) locs.push_back(l);
  }
  bool VisitStmt(clang::Stmt* s) {
    add(s->getBeginLoc());
    add(s->getEndLoc());
    return true;
  }
  bool VisitDecl(clang::Decl* d) {
    add(d->getBeginLoc());
    add(d->getLocation());
    return true;
  }
  bool VisitTypeLoc(clang::TypeLoc tl) {
    add(tl.getBeginLoc());
    return true;
  }
  // `NULL` (GCC's `__null`) converted to a pointer: where it can be written `nullptr`.
  std::vector<clang::SourceLocation> null_pointers;
  bool VisitImplicitCastExpr(clang::ImplicitCastExpr* e) {
    if (e->getCastKind() == clang::CK_NullToPointer && llvm::isa<clang::GNUNullExpr>(e->getSubExpr()->IgnoreParens()) &&
        e->getSubExpr()->IgnoreParens()->getBeginLoc().isMacroID())
      null_pointers.push_back(e->getSubExpr()->IgnoreParens()->getBeginLoc());
    return true;
  }
};

// Whether two characters, side by side, would lex as one token (`-` `-1`, `x` `1`, `1` `.5`).
bool mergesWith(char a, char b) {
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  auto op = [](char c) { return std::string("+-*/%<>=!&|^~:#").find(c) != std::string::npos; };
  return (word(a) && word(b)) || (digit(a) && b == '.') || (a == '.' && digit(b)) || (a == '.' && b == '.') ||
         (op(a) && op(b));
}

class ExpandMacros : public Transform {
 public:
  std::string id() const override { return "expand-macros"; }
  std::string summary() const override { return "replace the project's macros in a kernel's body by their expansions"; }

  TransformResult forward(TransformRequest& req) const override {
    if (!req.pp) return TransformResult::no("no preprocessor: macro definitions are unknown");
    auto& ctx = req.ctx;
    const auto& sm = ctx.getSourceManager();
    const auto& lo = ctx.getLangOpts();
    const clang::Preprocessor& pp = *req.pp;
    SourceBuffer src(ctx);
    auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(req.kernel->getBody());
    if (!body) return TransformResult::no("the kernel has no body");
    if (!src.inFile(body->getLBracLoc()) || !src.inFile(body->getRBracLoc()))
      return TransformResult::no("the kernel's body is itself written through a macro");
    const unsigned b0 = src.off(body->getLBracLoc()), b1 = src.off(body->getRBracLoc());
    MacroLocs v;
    v.TraverseStmt(body);

    // The top-level macro calls, by their place in the file: [begin, end) offsets.
    std::map<unsigned, unsigned> calls;
    for (clang::SourceLocation l : v.locs) {
      clang::CharSourceRange r = sm.getExpansionRange(l);
      if (!src.inFile(r.getBegin()) || !src.inFile(r.getEnd())) continue;
      const unsigned a = src.off(r.getBegin());
      const unsigned e = r.isTokenRange() ? src.tokEnd(r.getEnd()) : src.off(r.getEnd());
      if (a <= b0 || e > b1) continue;
      auto [it, fresh] = calls.emplace(a, e);
      if (!fresh && e > it->second) it->second = e;
    }
    // Offsets of `NULL` uses that are null pointer constants in a pointer context.
    std::set<unsigned> null_at;
    for (clang::SourceLocation l : v.null_pointers) {
      clang::CharSourceRange r = sm.getExpansionRange(l);
      if (src.inFile(r.getBegin())) null_at.insert(src.off(r.getBegin()));
    }
    std::string skipped;
    unsigned expanded = 0;
    std::string names;
    unsigned last_end = 0;
    for (const auto& [a, e] : calls) {
      if (a < last_end) continue;  // inside a call already taken
      std::string why;
      std::string text = expansion(pp, sm, lo, src, a, e, &why);
      // The system header's NULL is `__null`, a GCC extension: where the AST converts it to a
      // pointer it is exactly C++'s null pointer literal.
      if (text.empty() && null_at.count(a) && calledName(src, a, e) == "NULL" && e - a == 4) text = "nullptr";
      if (text.empty()) {
        if (skipped.empty() && !why.empty()) skipped = why;
        continue;
      }
      // Keep the neighbours apart where the expansion's edge would merge with them.
      if (a > 0 && mergesWith(src.text[a - 1], text.front())) text = " " + text;
      if (e < src.text.size() && mergesWith(text.back(), src.text[e])) text += " ";
      if (req.rewriter.ReplaceText(src.at(a), e - a, text)) return TransformResult::no("the rewriter refused the edit");
      const std::string name = calledName(src, a, e);
      if (names.find(" " + name + ",") == std::string::npos && (names.size() < 200)) names += " " + name + ",";
      ++expanded;
      last_end = e;
    }
    if (!expanded)
      return TransformResult::no(skipped.empty() ? "no macro of the project is used in the kernel's body" : skipped);
    names.pop_back();
    return TransformResult::yes("expanded " + std::to_string(expanded) + " macro use(s):" + names);
  }

  TransformResult inverse(TransformRequest&) const override {
    return TransformResult::no("expand-macros is a canonicalization: it has no inverse");
  }

 private:
  static std::string calledName(const SourceBuffer& src, unsigned a, unsigned e) {
    unsigned p = a;
    while (p < e && (std::isalnum(static_cast<unsigned char>(src.text[p])) || src.text[p] == '_')) ++p;
    return src.slice(a, p);
  }

  // The raw tokens of the file text [a, e).
  static std::vector<clang::Token> lex(const SourceBuffer& src, const clang::LangOptions& lo, unsigned a, unsigned e) {
    std::vector<clang::Token> out;
    clang::Lexer lx(src.at(a), lo, src.text.data() + a, src.text.data() + a, src.text.data() + e);
    clang::Token t;
    while (!lx.LexFromRawLexer(t)) {
      if (t.is(clang::tok::eof)) break;
      out.push_back(t);
    }
    if (t.isNot(clang::tok::eof)) out.push_back(t);
    return out;
  }

  // The text the macro call at [a, e) expands to, one level deep; "" (with why) when it is one
  // the pass leaves as written.
  static std::string expansion(const clang::Preprocessor& pp, const clang::SourceManager& sm, const clang::LangOptions& lo,
                               const SourceBuffer& src, unsigned a, unsigned e, std::string* why) {
    std::vector<clang::Token> toks = lex(src, lo, a, e);
    if (toks.empty() || !toks[0].is(clang::tok::raw_identifier)) return "";
    const std::string name = toks[0].getRawIdentifier().str();
    const auto found = pp.getIdentifierTable().find(name);
    if (found == pp.getIdentifierTable().end() || !found->getValue()) return "";
    const clang::IdentifierInfo* ii = found->getValue();
    const clang::MacroDefinition def = const_cast<clang::Preprocessor&>(pp).getMacroDefinitionAtLoc(ii, src.at(a));
    const clang::MacroInfo* mi = def.getMacroInfo();
    if (!mi) return "";
    const clang::SourceLocation dl = mi->getDefinitionLoc();
    if (mi->isBuiltinMacro() || dl.isInvalid() || sm.isInSystemHeader(dl) || sm.isWrittenInBuiltinFile(dl) ||
        sm.isWrittenInCommandLineFile(dl))
      return "";
    const unsigned line = src.sm.getSpellingLineNumber(src.at(a));
    if (mi->isVariadic()) {
      *why = "the macro " + name + " (line " + std::to_string(line) + ") is variadic";
      return "";
    }
    for (const clang::Token& t : mi->tokens())
      if (t.isOneOf(clang::tok::hash, clang::tok::hashhash, clang::tok::hashat)) {
        *why = "the macro " + name + " (line " + std::to_string(line) + ") uses # or ## in its definition";
        return "";
      }
    // Arguments: split at the commas outside parentheses, each kept as written.
    std::map<std::string, std::string> args;
    if (mi->isFunctionLike()) {
      if (toks.size() < 3 || !toks[1].is(clang::tok::l_paren) || !toks.back().is(clang::tok::r_paren)) {
        *why = "the call of the macro " + name + " (line " + std::to_string(line) + ") cannot be split into arguments";
        return "";
      }
      std::vector<std::string> vals;
      int depth = 0;
      unsigned from = src.off(toks[2].getLocation());
      for (size_t i = 2; i + 1 < toks.size(); ++i) {
        const clang::Token& t = toks[i];
        if (t.is(clang::tok::l_paren)) ++depth;
        if (t.is(clang::tok::r_paren)) --depth;
        if (depth == 0 && t.is(clang::tok::comma)) {
          vals.push_back(src.slice(from, src.off(t.getLocation())));
          from = src.off(t.getLocation()) + 1;
        }
      }
      vals.push_back(src.slice(from, src.off(toks.back().getLocation())));
      if (mi->getNumParams() == 0 && vals.size() == 1 && llvm::StringRef(vals[0]).trim().empty()) vals.clear();
      if (vals.size() != mi->getNumParams()) {
        *why = "the call of the macro " + name + " (line " + std::to_string(line) + ") has " + std::to_string(vals.size()) +
               " arguments, its definition " + std::to_string(mi->getNumParams());
        return "";
      }
      unsigned i = 0;
      for (const clang::IdentifierInfo* p : mi->params()) args[p->getName().str()] = llvm::StringRef(vals[i++]).trim().str();
    } else if (toks.size() != 1) {
      return "";
    }
    std::string out;
    for (const clang::Token& t : mi->tokens()) {
      std::string piece;
      if (const clang::IdentifierInfo* ti = t.getIdentifierInfo(); ti && args.count(ti->getName().str()))
        piece = args.at(ti->getName().str());
      else
        piece = pp.getSpelling(t);
      if (piece.empty()) continue;
      if (!out.empty() && (t.hasLeadingSpace() || mergesWith(out.back(), piece.front()))) out += " ";
      out += piece;
    }
    if (out.empty()) *why = "the macro " + name + " (line " + std::to_string(line) + ") expands to nothing";
    return out;
  }
};

}  // namespace

std::unique_ptr<Transform> makeExpandMacros() { return std::make_unique<ExpandMacros>(); }

}  // namespace klineage
