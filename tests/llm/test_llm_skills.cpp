// The skill file's `materialize` and `prompt` keys (skills/README.md), and the shipped LLM skills.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>

#include "core/fs.h"
#include "core/skill.h"
#include "features/feature.h"
#include "transform.h"

using namespace klineage;
namespace fs = std::filesystem;

namespace {

struct SkillDir {
  fs::path dir;
  SkillDir() {
    static int n = 0;
    dir = fs::temp_directory_path() / ("klineage-llm-skills-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~SkillDir() { fs::remove_all(dir); }
  std::vector<Skill> load(const std::string& head) {
    atomicWrite(dir / "s.toml", "schema = 1\nid = \"s\"\nintent = \"x\"\n" + head +
                                    "\n[anchor]\ndescription = \"d\"\n[effect]\nexpected = \"e\"\n[provenance]\nkind = "
                                    "\"hand-written\"\n");
    return loadSkills({dir.string()}, transformIds(), featureIds());
  }
};

}  // namespace

TEST_CASE("skills: materialize = llm needs no transform and may have a prompt", "[llm]") {
  SkillDir d;
  auto s = d.load("materialize = \"llm\"\nprompt = \"Rewrite {{kernel}} in {{kernel_file}}:\\n{{kernel_source}}\"");
  REQUIRE(s.size() == 1);
  CHECK(s[0].materialize == Materialize::Llm);
  CHECK(s[0].transform.empty());
  CHECK_FALSE(s[0].hasTransform());
  CHECK(s[0].usesLlm());
  CHECK(skillToJson(s[0])["materialize"] == "llm");
  auto t = d.load("transform = \"restrict-pointers\"");
  CHECK(t[0].materialize == Materialize::Transform);
  auto both = d.load("transform = \"restrict-pointers\"\nmaterialize = \"transform+llm\"");
  CHECK(both[0].materialize == Materialize::TransformThenLlm);
  CHECK(both[0].hasTransform());
  CHECK(both[0].usesLlm());
}

TEST_CASE("skills: wrong combinations are errors at their line", "[llm]") {
  SkillDir d;
  CHECK_THROWS_WITH(d.load("materialize = \"llm\"\ntransform = \"restrict-pointers\""),
                    Catch::Contains("s.toml:5") && Catch::Contains("has no transform; use materialize = \"transform+llm\""));
  CHECK_THROWS_WITH(d.load("materialize = \"magic\""),
                    Catch::Contains("s.toml:4") && Catch::Contains("expected \"transform\" (the default), \"llm\" or \"transform+llm\""));
  CHECK_THROWS_WITH(d.load("materialize = \"transform+llm\""), Catch::Contains("missing 'transform'"));
  CHECK_THROWS_WITH(d.load(""), Catch::Contains("missing 'transform'") && Catch::Contains("materialize = \"llm\""));
  CHECK_THROWS_WITH(d.load("transform = \"restrict-pointers\"\nprompt = \"p\""),
                    Catch::Contains("only a skill a language model materializes has a prompt"));
  CHECK_THROWS_WITH(d.load("transform = \"restrict-pointers\"\nexample = \"-a\\n+b\\n\""),
                    Catch::Contains("s.toml:5") && Catch::Contains("only a skill a language model materializes has an example"));
  CHECK(d.load("materialize = \"llm\"\nexample = \"-a\\n+b\\n\"")[0].example == "-a\n+b\n");
  CHECK_THROWS_WITH(d.load("materialize = \"llm\"\nprompt = \"see {{kernal}}\""),
                    Catch::Contains("unknown placeholder '{{kernal}}'") && Catch::Contains("kernel_source"));
}

TEST_CASE("skills: the shipped skills load, and some are materialized by a language model", "[llm]") {
  auto skills = loadSkills({std::string(KLINEAGE_SOURCE_DIR) + "/skills"}, transformIds(), featureIds());
  unsigned llm = 0;
  for (const auto& s : skills)
    if (s.materialize == Materialize::Llm) {
      ++llm;
      CHECK_FALSE(s.risks.empty());
    }
  CHECK(llm >= 1);
}
