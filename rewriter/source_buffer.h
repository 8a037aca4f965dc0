// The edited file's text as transforms see it: byte offsets, statement ends, lines and indents.
// Transforms compute edits on the text as written; this keeps those helpers in one place.
// The edited file is the main file, or the header that defines the kernel applyStep rewrites
// (EditedFileScope says which for the duration of a step).
#pragma once
#include <string>

#include <clang/AST/ASTContext.h>
#include <clang/AST/Stmt.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Lex/Lexer.h>

namespace klineage {

// The file a step edits, for the unit being rewritten on this thread (empty: the main file).
struct EditedFile {
  const clang::ASTContext* ctx = nullptr;
  clang::FileID fid;
};
inline thread_local EditedFile g_edited_file;

inline clang::FileID editedFileOf(const clang::ASTContext& c) {
  if (g_edited_file.ctx == &c && g_edited_file.fid.isValid()) return g_edited_file.fid;
  return c.getSourceManager().getMainFileID();
}

// Makes `fid` the edited file of `c` while it lives (a header kernel: the header, not the .cu).
struct EditedFileScope {
  EditedFile saved;
  EditedFileScope(const clang::ASTContext& c, clang::FileID fid) : saved(g_edited_file) { g_edited_file = {&c, fid}; }
  ~EditedFileScope() { g_edited_file = saved; }
  EditedFileScope(const EditedFileScope&) = delete;
  EditedFileScope& operator=(const EditedFileScope&) = delete;
};

// Adds `pad` to every non-empty line of `s` (a block of text moved one level deeper).
inline std::string indentLines(const std::string& s, const std::string& pad) {
  std::string out;
  bool line_start = true;
  for (char c : s) {
    if (line_start && c != '\n') out += pad;
    out += c;
    line_start = c == '\n';
  }
  return out;
}

// Removes up to n leading blanks from every line (indentLines' inverse for a pad of n blanks).
inline std::string dedentLines(const std::string& s, size_t n) {
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    size_t k = 0;
    while (k < n && i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i, ++k;
    while (i < s.size() && s[i] != '\n') out += s[i++];
    if (i < s.size()) out += s[i++];
  }
  return out;
}

struct SourceBuffer {
  const clang::ASTContext& ctx;
  const clang::SourceManager& sm;
  clang::FileID fid;
  llvm::StringRef text;
  explicit SourceBuffer(const clang::ASTContext& c)
      : ctx(c), sm(c.getSourceManager()), fid(editedFileOf(c)), text(sm.getBufferData(fid)) {}
  bool inFile(clang::SourceLocation l) const { return l.isValid() && l.isFileID() && sm.getFileID(l) == fid; }
  bool inFile(const clang::Stmt* s) const { return inFile(s->getBeginLoc()) && inFile(s->getEndLoc()); }
  unsigned off(clang::SourceLocation l) const { return sm.getFileOffset(l); }
  unsigned tokEnd(clang::SourceLocation l) const {
    return off(l) + clang::Lexer::MeasureTokenLength(l, sm, ctx.getLangOpts());
  }
  clang::SourceLocation at(unsigned o) const { return sm.getLocForStartOfFile(fid).getLocWithOffset(o); }
  std::string slice(unsigned a, unsigned b) const { return text.substr(a, b - a).str(); }
  // End of a statement including the ';' that an expression/return/... statement ends with.
  unsigned stmtEnd(const clang::Stmt* s) const {
    if (auto* cs = llvm::dyn_cast<clang::CompoundStmt>(s)) return off(cs->getRBracLoc()) + 1;
    unsigned e = tokEnd(s->getEndLoc());
    if (e > 0 && (text[e - 1] == ';' || text[e - 1] == '}')) return e;
    unsigned p = e;
    while (p < text.size() && (text[p] == ' ' || text[p] == '\t' || text[p] == '\n' || text[p] == '\r')) ++p;
    return p < text.size() && text[p] == ';' ? p + 1 : e;
  }
  unsigned lineStart(unsigned o) const {
    while (o > 0 && text[o - 1] != '\n') --o;
    return o;
  }
  bool blankBefore(unsigned o) const {
    for (unsigned p = lineStart(o); p < o; ++p)
      if (text[p] != ' ' && text[p] != '\t') return false;
    return true;
  }
  // Offset just past the newline ending o's line when only blanks follow o on it, else npos.
  size_t restOfLineBlank(unsigned o) const {
    for (size_t p = o; p < text.size(); ++p) {
      if (text[p] == '\n') return p + 1;
      if (text[p] != ' ' && text[p] != '\t' && text[p] != '\r') return std::string::npos;
    }
    return text.size();
  }
  std::string indentOf(unsigned o) const {
    unsigned s = lineStart(o), p = s;
    while (p < text.size() && (text[p] == ' ' || text[p] == '\t')) ++p;
    return slice(s, p);
  }
};

}  // namespace klineage
