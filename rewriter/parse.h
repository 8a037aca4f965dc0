// Building a Clang AST for one CUDA translation unit, with other target sources (and edited
// copies of them) mapped in memory so variants never touch the disk until they are written.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace clang {
class ASTUnit;
}

namespace klineage {

// Files whose in-memory contents replace what is on disk while parsing (absolute path -> text).
using Overlay = std::map<std::string, std::string>;

struct ParsedUnit {
  // The texts of the overlay's other files: clang maps them without copying, and a header's
  // buffer is read after the parse (a kernel in a header is rewritten there). Outlives `ast`.
  std::shared_ptr<const std::vector<std::pair<std::string, std::string>>> mapped;
  std::unique_ptr<clang::ASTUnit> ast;  // null when clang could not build one at all
  std::vector<std::string> errors;      // "file:line:col: message", first ones only
  unsigned error_count = 0;
  ParsedUnit();
  ParsedUnit(ParsedUnit&&) noexcept;
  ParsedUnit& operator=(ParsedUnit&&) noexcept;
  ~ParsedUnit();
};

// Parses `file` with clang arguments `args` (from clangArgsFor). The main file's text comes from
// the overlay when present there, else from disk; every other overlay entry is mapped too.
ParsedUnit parseUnit(const std::string& file, const std::vector<std::string>& args, const Overlay& overlay);

// parseUnit, shared: the same file, arguments and overlay (every entry, compared whole) give the
// same parse. A skill search starts from the same sources again and again (each single skill from
// the original, a chain's next step from its last step's re-parse), and transforms only read the
// AST (their edits go to a Rewriter of their own), so one parse serves them all. The
// `kSharedParses` most recently used are kept (an AST with the CUDA headers is tens of MiB), per
// thread: a parse is only shared within the thread that made it (Clang's AST is not for two threads
// at once), and the threads that rewrite kernels at once (per_kernel.h) each keep their own.
inline constexpr size_t kSharedParses = 4;
std::shared_ptr<ParsedUnit> sharedParse(const std::string& file, const std::vector<std::string>& args,
                                        const Overlay& overlay);
// How many of this thread's sharedParse calls were answered from the kept parses, and how many
// parsed (tests).
struct SharedParseStats {
  size_t hits = 0, parses = 0;
};
SharedParseStats sharedParseStats();

}  // namespace klineage
