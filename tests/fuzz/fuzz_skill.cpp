// Fuzzes the skill reader (core/skill.h loadSkills): the input is one skills/*.toml file.
#include "fuzz_common.h"

#include "core/diag.h"
#include "core/skill.h"

using namespace klineage;
namespace fs = std::filesystem;

namespace {
// rewriter/transforms/registry.cpp transformIds() (the rewriter needs Clang, so not linked here).
const std::vector<std::string> kTransforms = {"grid-stride-loop", "launch-bounds", "restrict-pointers",
                                              "vectorize-access"};

void requireInputError(const InputError& e, const std::string& file) {
  if (e.file != file) fuzz::fail("InputError names " + e.file + ", not the skill file " + file + ": " + e.what());
  fuzz::requireNames(e.what(), file, "InputError");
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const fs::path dir = fuzz::scratch() / "skills";
  static const std::string file = (dir / "skill.toml").string();
  static bool made = (fs::create_directories(dir), true);
  (void)made;
  fuzz::writeFile(file, data, size);

  std::vector<Skill> skills;
  try {
    skills = loadSkills({dir.string()}, kTransforms);
  } catch (const InputError& e) {
    requireInputError(e, file);
    fuzz::verdict(std::string("rejected: ") + e.what());
    return 0;
  } catch (const std::exception& e) {
    fuzz::unexpected(e, "loadSkills");
  }
  if (skills.size() != 1) fuzz::fail("loadSkills returned " + std::to_string(skills.size()) + " skills for one file");
  const Skill& s = skills[0];
  fuzz::verdict("accepted skill " + s.id);
  if (s.id.empty() || s.path != file) fuzz::fail("accepted skill without an id or with path " + s.path);
  try {
    (void)skillToJson(s).dump();  // what `klineage skills` prints
  } catch (const std::exception& e) {
    fuzz::fail(std::string("skillToJson(accepted skill).dump() threw: ") + e.what());
  }
  // The same directory twice: the second copy is a duplicate id, reported in the skill file.
  try {
    loadSkills({dir.string(), dir.string()}, kTransforms);
    fuzz::fail("a skill id defined twice was accepted");
  } catch (const InputError& e) {
    requireInputError(e, file);
  } catch (const std::exception& e) {
    fuzz::unexpected(e, "loadSkills (duplicate id)");
  }
  return 0;
}
