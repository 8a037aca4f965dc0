// The precondition probes of `klineage mine --probe` (core/precondition_probes.h): each breaks
// exactly one precondition of a mined step, and a precondition no probe can break says why.
#include <catch2/catch.hpp>

#include "core/lineage.h"
#include "core/precondition_probes.h"
#include "core/skill.h"
#include "support/temp_dir.h"

using namespace klineage;

namespace {

ParamInfo scalar(const std::string& name, const std::string& type) {
  ParamInfo p;
  p.name = name;
  p.type = type;
  p.size_bytes = 4;
  return p;
}

ParamInfo pointer(const std::string& name, const std::string& pointee, bool is_const) {
  ParamInfo p;
  p.name = name;
  p.type = (is_const ? "const " : "") + pointee + " *";
  p.is_pointer = true;
  p.pointee = pointee;
  p.pointee_const = is_const;
  p.size_bytes = 8;
  p.read = true;
  p.written = !is_const;
  return p;
}

// scale(int n, float a, const float* x, float* y), launched at a constant block of 256
KernelInfo scaleKernel() {
  KernelInfo k;
  k.name = k.qualified_name = "scale";
  k.params = {scalar("n", "int"), scalar("a", "float"), pointer("x", "float", true), pointer("y", "float", false)};
  LaunchSite l;
  l.file = "/src/app.cu";
  l.line = 10;
  l.block = "256";
  l.block_value = 256;
  k.launches = {l};
  return k;
}

struct Entry {
  test::TempDir dir{"precondition-probes"};
  Workload w;
  const WorkloadKernel* wk = nullptr;
  KernelInfo k = scaleKernel();
  PreparedLaunch base;
  explicit Entry(const std::string& toml) {
    w = loadWorkload(dir.write("w.toml", toml));
    wk = w.find("scale");
    base = prepareLaunch(*wk, k);
  }
};

const char* kScale = R"TOML([kernel.scale]
grid = ["(n + 255) / 256"]
block = [256]
args.n = 1048576
args.a = 2.0
args.x = { elements = "n", init = "uniform(-1, 1)" }
args.y = { elements = "n", output = true }
)TOML";

const ParamSpec& param(const PreparedLaunch& l, const std::string& name) {
  for (const auto& p : l.params)
    if (p.name == name) return p;
  FAIL("no parameter " << name);
  return l.params[0];
}

std::vector<const PreconditionProbe*> of(const PreconditionProbes& ps, const std::string& pre) {
  std::vector<const PreconditionProbe*> out;
  for (const auto& p : ps.probes)
    if (p.precondition == pre) out.push_back(&p);
  return out;
}

}  // namespace

TEST_CASE("precondition probes: each breaks one fact and keeps the others", "[probes][mine]") {
  Entry e(kScale);
  const std::vector<std::string> facts = {"aligned16(all pointers)", "no-overlap", "uniform-block-size"};
  REQUIRE(probedPreconditions(facts) == std::vector<std::string>{"aligned16(all pointers)", "no-overlap",
                                                                 "uniform-block-size", "divisible-sizes"});
  const PreconditionProbes ps = preconditionProbes(*e.wk, e.k, e.base, probedPreconditions(facts));
  CHECK(ps.unprobed.empty());

  auto mis = of(ps, "aligned16(all pointers)");
  REQUIRE(mis.size() == 1);
  CHECK(mis[0]->name == "misaligned: x +4 bytes, y +4 bytes");
  CHECK(param(mis[0]->launch, "x").offset_elements == 1);
  CHECK(param(mis[0]->launch, "x").elements == 1048576);
  CHECK(mis[0]->timed);
  CHECK_FALSE(mis[0]->own_geometry);

  auto alias = of(ps, "no-overlap");
  REQUIRE(alias.size() == 1);
  CHECK(alias[0]->name == "aliased: y = x (in place)");
  CHECK(param(alias[0]->launch, "y").alias_of == "x");
  CHECK(deriveFacts(alias[0]->launch).any_overlap);
  CHECK(deriveFacts(alias[0]->launch).alignment.at("y") == 256);

  auto blocks = of(ps, "uniform-block-size");
  REQUIRE(blocks.size() == 2);
  CHECK(blocks[0]->name == "block 128 (grid 8192)");
  CHECK(blocks[0]->launch.block.x == 128);
  CHECK(blocks[0]->launch.grid.x == 8192);
  CHECK(blocks[1]->name == "block 512 (grid 2048)");
  CHECK(blocks[1]->own_geometry);

  auto sizes = of(ps, "divisible-sizes");
  REQUIRE(sizes.size() == 3);
  CHECK(sizes[0]->name == "n = 1048577");
  CHECK(sizes[0]->timed);  // as large as the gated launch
  CHECK(sizes[1]->name == "n = 1013");
  CHECK_FALSE(sizes[1]->timed);
  CHECK(sizes[2]->name == "n = 37");
}

TEST_CASE("precondition probes: what no probe can break is unprobed, with why", "[probes][mine]") {
  SECTION("no fact of uniform-block-size: the block is probed as the implicit block-size") {
    Entry e(kScale);
    const auto pre = probedPreconditions({"no-overlap"});
    CHECK(pre == std::vector<std::string>{"no-overlap", "divisible-sizes", "block-size"});
    const PreconditionProbes ps = preconditionProbes(*e.wk, e.k, e.base, pre);
    CHECK(of(ps, "block-size").size() == 2);
  }
  SECTION("aligned4 cannot be broken on float pointers") {
    Entry e(kScale);
    const PreconditionProbes ps = preconditionProbes(*e.wk, e.k, e.base, {"aligned4(all pointers)"});
    CHECK(ps.probes.empty());
    CHECK_THAT(ps.unprobed.at("aligned4(all pointers)"), Catch::Contains("4 bytes or larger"));
  }
  SECTION("aligned8 on float pointers: 4 bytes off") {
    Entry e(kScale);
    const PreconditionProbes ps = preconditionProbes(*e.wk, e.k, e.base, {"aligned8(all pointers)"});
    REQUIRE(ps.probes.size() == 1);
    CHECK(deriveFacts(ps.probes[0].launch).alignment.at("x") == 4);
  }
  SECTION("no input of the output's type: no-overlap is unprobed") {
    Entry e(R"TOML([kernel.scale]
grid = ["(n + 255) / 256"]
block = [256]
args.n = 1024
args.a = 2.0
args.x = { elements = "n", init = "uniform(-1, 1)", output = true }
args.y = { elements = "n", output = true }
)TOML");
    const PreconditionProbes ps = preconditionProbes(*e.wk, e.k, e.base, {"no-overlap"});
    CHECK(ps.probes.empty());
    CHECK_THAT(ps.unprobed.at("no-overlap"), Catch::Contains("nothing to overlap"));
  }
  SECTION("a block of 1024 is only halved; a size argument that no size uses is not varied") {
    Entry e(R"TOML([kernel.scale]
grid = [4]
block = [1024]
args.n = 4096
args.a = 2.0
args.x = { elements = 4096, init = "uniform(-1, 1)" }
args.y = { elements = 4096, output = true }
)TOML");
    const PreconditionProbes ps = preconditionProbes(*e.wk, e.k, e.base, {"block-size", "divisible-sizes"});
    auto blocks = of(ps, "block-size");
    REQUIRE(blocks.size() == 1);
    CHECK(blocks[0]->launch.block.x == 512);
    CHECK(blocks[0]->launch.grid.x == 8);
    CHECK(of(ps, "divisible-sizes").empty());
    CHECK_THAT(ps.unprobed.at("divisible-sizes"), Catch::Contains("no size argument"));
  }
  SECTION("a fact no probe knows how to break") {
    Entry e(kScale);
    CHECK(preconditionProbes(*e.wk, e.k, e.base, {"something-new"}).unprobed.at("something-new") ==
          "no probe breaks this precondition");
  }
}

TEST_CASE("precondition verdicts: a break verifies, conclusive probes that all held drop it, else unverified",
          "[probes][mine]") {
  // docs/lineage.md: "not required" when probes ran and every conclusive one held; a probe that
  // said nothing (inconclusive, not run) neither verifies nor clears a precondition.
  auto probe = [](const std::string& pre, const std::string& outcome) {
    StepProbe p;
    p.precondition = pre;
    p.outcome = outcome;
    return p;
  };
  LineageStep a, b;
  a.probes = {probe("uniform-block-size", "holds"), probe("uniform-block-size", "inconclusive"),  // mine_reduce_sum's
              probe("no-overlap", "holds"), probe("aligned16(all pointers)", "holds"),
              probe("aligned16(all pointers)", "breaks-speed"), probe("divisible-sizes", "not-run"),
              probe("block-size", "unprobed"), probe("lost", "not-run"), probe("lost", "inconclusive")};
  b.probes = {probe("no-overlap", "holds"), probe("divisible-sizes", "holds"), probe("misc", "inconclusive"),
              probe("misc", "holds")};
  const auto v = preconditionVerdicts({&a, &b});
  CHECK(v.at("uniform-block-size") == "not-required");
  CHECK(v.at("no-overlap") == "not-required");
  CHECK(v.at("aligned16(all pointers)") == "required");
  CHECK(v.at("divisible-sizes") == "not-required");  // not run in one step, held in the other
  CHECK(v.at("misc") == "not-required");              // in either order
  CHECK(v.at("block-size") == "unverified");          // no probe can break it
  CHECK(v.at("lost") == "unverified");                // nothing conclusive
  // A break wins over anything before or after it.
  LineageStep c;
  c.probes = {probe("x", "holds"), probe("x", "breaks-correctness"), probe("x", "holds")};
  CHECK(preconditionVerdicts({&c}).at("x") == "required");
  CHECK(preconditionVerdicts({}).empty());
}
