#include "parse.h"

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/ASTUnit.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/raw_ostream.h>

#include <list>

#include "core/fs.h"

namespace klineage {

ParsedUnit::ParsedUnit() = default;
ParsedUnit::ParsedUnit(ParsedUnit&&) noexcept = default;
ParsedUnit& ParsedUnit::operator=(ParsedUnit&&) noexcept = default;
ParsedUnit::~ParsedUnit() = default;

namespace {
// Keeps the first errors with their locations; warnings are not the gate's business.
class CollectingConsumer : public clang::DiagnosticConsumer {
 public:
  explicit CollectingConsumer(ParsedUnit& out) : out_(out) {}
  void HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic& info) override {
    DiagnosticConsumer::HandleDiagnostic(level, info);
    if (level < clang::DiagnosticsEngine::Error) return;
    ++out_.error_count;
    if (out_.errors.size() >= 10) return;
    llvm::SmallString<256> msg;
    info.FormatDiagnostic(msg);
    std::string where;
    if (info.getLocation().isValid() && info.hasSourceManager()) {
      auto ploc = info.getSourceManager().getPresumedLoc(info.getLocation());
      if (ploc.isValid())
        where = std::string(ploc.getFilename()) + ":" + std::to_string(ploc.getLine()) + ":" +
                std::to_string(ploc.getColumn()) + ": ";
    }
    out_.errors.push_back(where + msg.str().str());
  }

 private:
  ParsedUnit& out_;
};
}  // namespace

ParsedUnit parseUnit(const std::string& file, const std::vector<std::string>& args, const Overlay& overlay) {
  ParsedUnit out;
  std::string code;
  auto it = overlay.find(file);
  if (it != overlay.end()) {
    code = it->second;
  } else {
    code = readFile(file);
  }
  auto mapped = std::make_shared<clang::tooling::FileContentMappings>();
  for (const auto& [path, text] : overlay)
    if (path != file) mapped->emplace_back(path, text);
  out.mapped = mapped;
  CollectingConsumer consumer(out);
  out.ast = clang::tooling::buildASTFromCodeWithArgs(code, args, file, "klineage",
                                                     std::make_shared<clang::PCHContainerOperations>(),
                                                     clang::tooling::getClangStripDependencyFileAdjuster(),
                                                     *mapped, &consumer);
  return out;
}

namespace {
struct SharedParses {
  std::list<std::pair<std::string, std::shared_ptr<ParsedUnit>>> lru;  // most recently used first
  SharedParseStats stats;
};
// One set per thread: an AST is not for two threads at once (clang builds its parent map and a
// file's line table lazily, on first use), and the kernels rewritten at once share no chain.
SharedParses& shared() {
  static thread_local SharedParses s;
  return s;
}
// The whole of what a parse depends on: the main file, its arguments, every overlay entry.
std::string parseKey(const std::string& file, const std::vector<std::string>& args, const Overlay& overlay) {
  std::string k = file;
  k += '\0';
  for (const auto& a : args) k += a + '\x1f';
  for (const auto& [path, text] : overlay) {
    k += '\0' + path + '\0' + std::to_string(text.size()) + '\0';
    k += text;
  }
  return k;
}
}  // namespace

std::shared_ptr<ParsedUnit> sharedParse(const std::string& file, const std::vector<std::string>& args,
                                        const Overlay& overlay) {
  std::string key = parseKey(file, args, overlay);
  SharedParses& s = shared();
  for (auto it = s.lru.begin(); it != s.lru.end(); ++it)
    if (it->first == key) {
      s.lru.splice(s.lru.begin(), s.lru, it);
      ++s.stats.hits;
      return s.lru.front().second;
    }
  auto pu = std::make_shared<ParsedUnit>(parseUnit(file, args, overlay));
  ++s.stats.parses;
  s.lru.emplace_front(std::move(key), pu);
  if (s.lru.size() > kSharedParses) s.lru.pop_back();
  return pu;
}

SharedParseStats sharedParseStats() { return shared().stats; }

}  // namespace klineage
