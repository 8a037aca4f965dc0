#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "core/capture_facts.h"
#include "core/job.h"
#include "core/skill.h"

using namespace klineage;

namespace {

// The registered transforms: one folder each under rewriter/transforms/ (transformIds() needs
// Clang, which core's tests do not link), so that every shipped skill loads.
const std::vector<std::string> kTransforms = [] {
  std::vector<std::string> ids;
  for (const auto& e : std::filesystem::directory_iterator(std::string(KLINEAGE_SOURCE_DIR) + "/rewriter/transforms"))
    if (e.is_directory()) ids.push_back(e.path().filename().string());
  return ids;
}();

// saxpy(int n, float a, const float* x, float* y) as a grid-stride loop.
KernelInfo saxpyKernel() {
  KernelInfo k;
  k.name = "saxpy";
  k.mangled_name = "_Z5saxpyifPKfPf";
  auto scalar = [](const char* name, const char* type) {
    ParamInfo p;
    p.name = name;
    p.type = type;
    p.size_bytes = 4;
    return p;
  };
  auto pointer = [](const char* name, bool is_const) {
    ParamInfo p;
    p.name = name;
    p.type = is_const ? "const float *" : "float *";
    p.is_pointer = true;
    p.pointee = "float";
    p.pointee_const = is_const;
    p.size_bytes = 8;
    p.read = true;
    p.written = !is_const;
    return p;
  };
  k.params = {scalar("n", "int"), scalar("a", "float"), pointer("x", true), pointer("y", false)};
  k.features.thread_index = "blockIdx.x * blockDim.x + threadIdx.x";
  k.features.index_var = "i";
  k.features.grid_stride_loop = true;
  k.features.loops = 1;
  return k;
}

template <typename T>
std::string hexOf(T v) {
  unsigned char b[sizeof(T)];
  std::memcpy(b, &v, sizeof v);
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (unsigned char c : b) {
    s += digits[c >> 4];
    s += digits[c & 15];
  }
  return s;
}

constexpr unsigned long long kBaseA = 0x7f1200000000ull, kBaseB = 0x7f1200400000ull;  // 256-aligned

RecordedParam scalarParam(unsigned index, unsigned offset, const std::string& hex) {
  RecordedParam p;
  p.index = index;
  p.offset = offset;
  p.size = static_cast<unsigned>(hex.size() / 2);
  p.bytes_hex = hex;
  return p;
}

RecordedParam pointerParam(unsigned index, unsigned offset, const LaunchRecord& r, unsigned alloc,
                           unsigned long long byte_offset) {
  RecordedParam p = scalarParam(index, offset, hexOf(r.allocations.at(alloc).base + byte_offset));
  p.pointer = RecordedPointer{alloc, byte_offset};
  return p;
}

// One saxpy launch: x = allocation x_alloc + x_off bytes, y = allocation y_alloc + y_off bytes.
LaunchRecord saxpyRecord(int n, float a, unsigned x_alloc, unsigned long long x_off, unsigned y_alloc,
                         unsigned long long y_off, Dim3 grid = {4097, 1, 1}) {
  LaunchRecord r;
  r.kernel = "saxpy";
  r.mangled = "_Z5saxpyifPKfPf";
  r.grid = grid;
  r.block = {256, 1, 1};
  for (unsigned id : {0u, 1u}) {
    RecordedAllocation al;
    al.id = id;
    al.base = id == 0 ? kBaseA : kBaseB;
    al.size = 8u << 20;
    r.allocations.push_back(al);
  }
  r.params = {scalarParam(0, 0, hexOf(n)), scalarParam(1, 4, hexOf(a)), pointerParam(2, 8, r, x_alloc, x_off),
              pointerParam(3, 16, r, y_alloc, y_off)};
  return r;
}

const Skill& skill(const std::vector<Skill>& skills, const std::string& id) {
  for (const auto& s : skills)
    if (s.id == id) return s;
  FAIL("no skill " << id);
  throw std::logic_error("not reached");
}

}  // namespace

TEST_CASE("capture facts: a pointer passed as base+4 is only 4-byte aligned", "[capture]") {
  KernelInfo k = saxpyKernel();
  WorkloadFacts f = factsFromRecords({saxpyRecord(1048577, 2.0f, 0, 4, 1, 0)}, k);
  CHECK(f.alignment.at("x") == 4);
  CHECK(f.alignment.at("y") == 256);
  CHECK_FALSE(f.any_overlap);
  std::string why;
  CHECK_FALSE(factHolds("aligned16(all pointers)", k, f, &why));
  CHECK_THAT(why, Catch::Contains("pointer 'x' is only 4-byte aligned"));
  CHECK(factHolds("aligned4(all pointers)", k, f, nullptr));

  std::vector<Skill> skills = loadSkills({std::string(KLINEAGE_SOURCE_DIR) + "/skills"}, kTransforms);
  CHECK_FALSE(preconditionsHold(skill(skills, "vectorize-float4"), k, &f, &why));
  CHECK_THAT(why, Catch::Contains("aligned16(all pointers)") && Catch::Contains("'x'"));
  CHECK(describeFacts(f) == "x: 4-byte aligned, y: 256-byte aligned, no overlap, grid 4097, block 256, a=2, n=1048577");
}

TEST_CASE("capture facts: separate allocations do not overlap, one allocation does", "[capture]") {
  KernelInfo k = saxpyKernel();
  std::vector<Skill> skills = loadSkills({std::string(KLINEAGE_SOURCE_DIR) + "/skills"}, kTransforms);
  const Skill& restrict_ = skill(skills, "restrict-pointers");
  const Skill& vectorize = skill(skills, "vectorize-float4");
  std::string why;

  WorkloadFacts apart = factsFromRecords({saxpyRecord(1024, 2.0f, 0, 0, 1, 0)}, k);
  CHECK_FALSE(apart.any_overlap);
  CHECK(factHolds("no-overlap", k, apart, &why));
  CHECK(preconditionsHold(restrict_, k, &apart, &why));
  CHECK(preconditionsHold(vectorize, k, &apart, &why));

  // x = buf + 4096 floats, y = buf: both in allocation 0 (16-byte aligned, so only overlap fails)
  WorkloadFacts same = factsFromRecords({saxpyRecord(1024, 2.0f, 0, 16384, 0, 0)}, k);
  CHECK(same.any_overlap);
  CHECK(same.alignment.at("x") == 256);
  CHECK_FALSE(factHolds("no-overlap", k, same, &why));
  CHECK_FALSE(preconditionsHold(restrict_, k, &same, &why));
  CHECK_THAT(why, Catch::Contains("no-overlap"));
  CHECK_FALSE(preconditionsHold(vectorize, k, &same, &why));
  CHECK_THAT(why, Catch::Contains("no-overlap"));
  CHECK_THAT(describeFacts(same), Catch::Contains("pointers may overlap"));
}

TEST_CASE("capture facts: scalars are decoded by their declared type", "[capture]") {
  KernelInfo k = saxpyKernel();
  WorkloadFacts f = factsFromRecords({saxpyRecord(-7, 2.5f, 0, 0, 1, 0)}, k);
  CHECK(f.scalars.at("n") == -7);
  CHECK(f.scalars.at("a") == 2.5);
  CHECK(f.block_threads == 256);
  CHECK(f.grid == Dim3{4097, 1, 1});

  // size_t and double, and a type the harness does not know (skipped)
  KernelInfo k2 = k;
  k2.params[0].type = "size_t";
  k2.params[0].size_bytes = 8;
  k2.params[1].type = "const double";
  k2.params[1].size_bytes = 8;
  LaunchRecord r = saxpyRecord(0, 0, 0, 0, 1, 0);
  r.params[0] = scalarParam(0, 0, hexOf<unsigned long long>(1ull << 40));
  r.params[1] = scalarParam(1, 8, hexOf(0.125));
  r.params[2].offset = 16;
  r.params[3].offset = 24;
  WorkloadFacts f2 = factsFromRecords({r}, k2);
  CHECK(f2.scalars.at("n") == static_cast<double>(1ull << 40));
  CHECK(f2.scalars.at("a") == 0.125);
  k2.params[1].type = "struct Params";
  CHECK(factsFromRecords({r}, k2).scalars.count("a") == 0);
}

TEST_CASE("capture facts: alignment is the minimum over records, other facts from the first", "[capture]") {
  KernelInfo k = saxpyKernel();
  LaunchRecord first = saxpyRecord(1000, 1.0f, 0, 64, 1, 0, {4, 1, 1});
  LaunchRecord second = saxpyRecord(2000, 3.0f, 0, 8, 1, 32, {8, 1, 1});
  WorkloadFacts f = factsFromRecords({first, second}, k);
  CHECK(f.alignment.at("x") == 8);
  CHECK(f.alignment.at("y") == 32);
  CHECK(f.scalars.at("n") == 1000);  // records disagree: the first is kept
  CHECK(f.grid.x == 4);
  CHECK(gridCoversIndexRange(f, 1024));
  CHECK_FALSE(gridCoversIndexRange(f, 1025));
  CHECK_THROWS_AS(factsFromRecords({}, k), std::invalid_argument);
}

TEST_CASE("capture facts: a replay job and a fidelity result survive JSON", "[capture][job]") {
  RunnerJob job;
  job.original = {"/abs/orig.cubin", "_Z5saxpyifPKfPf", {4097, 1, 1}, {256, 1, 1}, 0};
  job.variant = {"/abs/v1.cubin", "_Z5saxpyifPKfPf", {1025, 1, 1}, {256, 1, 1}, 0};
  ReplaySpec spec;
  spec.record_dir = "/abs/captures/k/saxpy.0";
  spec.param_elem_types = {std::nullopt, std::nullopt, ElemType::F32, ElemType::F32};
  spec.param_names = {"n", "a", "x", "y"};
  spec.check_fidelity = false;
  spec.determinism_runs = 5;
  job.replay = spec;
  const nlohmann::json j = job;
  CHECK(j.at("replay").at("param_elem_types") == nlohmann::json::parse(R"([null, null, "f32", "f32"])"));
  RunnerJob back = nlohmann::json::parse(j.dump()).get<RunnerJob>();
  REQUIRE(back.replay);
  CHECK(back.replay->record_dir == spec.record_dir);
  CHECK(back.replay->param_elem_types == spec.param_elem_types);
  CHECK(back.replay->param_names == spec.param_names);
  CHECK_FALSE(back.replay->check_fidelity);
  CHECK(back.replay->determinism_runs == 5);
  CHECK(back.params.empty());
  CHECK(back.variant.grid.x == 1025);

  // A replay job may leave out params; one without replay reads as before, with no replay key.
  nlohmann::json no_params = j;
  no_params.erase("params");
  CHECK(no_params.get<RunnerJob>().replay);
  RunnerJob plain = job;
  plain.replay.reset();
  const nlohmann::json pj = plain;
  CHECK_FALSE(pj.contains("replay"));
  CHECK_FALSE(pj.get<RunnerJob>().replay);
  nlohmann::json bad = j;
  bad["replay"]["param_elem_types"][2] = "float";
  CHECK_THROWS_WITH(bad.get<RunnerJob>(), Catch::Contains("replay.param_elem_types[2]"));

  RunnerResult r;
  r.outcome = Outcome::NotRun;
  r.fidelity_ok = false;
  r.fidelity_reason = "replaying the original does not reproduce y (allocation 1): ...";
  r.reason = r.fidelity_reason;
  r.nondeterministic = true;
  r.widened_atol = 2e-4;
  r.widened_rtol = 4e-7;
  RunnerResult rb = nlohmann::json::parse(nlohmann::json(r).dump()).get<RunnerResult>();
  REQUIRE(rb.fidelity_ok.has_value());
  CHECK_FALSE(*rb.fidelity_ok);
  CHECK(rb.fidelity_reason == r.fidelity_reason);
  CHECK(rb.nondeterministic);
  CHECK(rb.widened_atol == 2e-4);
  CHECK(rb.widened_rtol == 4e-7);
  CHECK(rb.outcome == Outcome::NotRun);

  // results written before these fields existed
  RunnerResult old = nlohmann::json::parse(R"({"status": "ok", "outcome": "passed"})").get<RunnerResult>();
  CHECK_FALSE(old.fidelity_ok.has_value());
  CHECK_FALSE(old.nondeterministic);
  CHECK(old.widened_atol == 0);
}
