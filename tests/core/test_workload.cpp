#include <catch2/catch.hpp>

#include "support/input_error.h"
#include "support/temp_dir.h"

#include <atomic>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "core/diag.h"
#include "core/workload.h"

using namespace klineage;
namespace fs = std::filesystem;

namespace {

struct TempDir : test::TempDir {
  TempDir() : test::TempDir("workload") {}
};

using test::inputError;
using test::writeFile;

ParamInfo scalarParam(const std::string& name, const std::string& type, unsigned size) {
  ParamInfo p;
  p.name = name;
  p.type = type;
  p.size_bytes = size;
  return p;
}

ParamInfo pointerParam(const std::string& name, const std::string& pointee, bool is_const) {
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

// saxpy(int n, float a, const float* x, float* y, float* out, const float* p)
KernelInfo saxpyKernel() {
  KernelInfo k;
  k.name = k.qualified_name = "saxpy";
  k.mangled_name = "_Z5saxpyifPKfPfS1_S0_";
  k.params = {scalarParam("n", "int", 4), scalarParam("a", "float", 4), pointerParam("x", "float", true),
              pointerParam("y", "float", false), pointerParam("out", "float", false), pointerParam("p", "float", true)};
  return k;
}

const char* kSaxpy = R"TOML([kernel.saxpy]
grid = ["(n + 255) / 256"]
block = [256]
args.n = 67108864
args.a = 2.0
args.x = { elements = "n", init = "uniform(-1, 1)" }
args.y = { elements = "n", init = "uniform(-1, 1)", output = true }
args.out = { elements = "n", output = true }
args.p = { elements = "n", init = "iota", offset = 1 }
check = { rtol = 1e-4, atol = 1e-7 }
timeout = 5
)TOML";

Manifest manifestWith(KernelInfo k) {
  Manifest m;
  m.target = "app";
  KernelInfo scale;
  scale.name = scale.qualified_name = "scale";
  m.kernels = {std::move(k), scale};
  return m;
}

const ParamSpec& param(const PreparedLaunch& l, const std::string& name) {
  for (const auto& p : l.params)
    if (p.name == name) return p;
  FAIL("no param " << name);
  throw;
}

}  // namespace

TEST_CASE("workload: the saxpy example loads with its values", "[workload]") {
  TempDir tmp;
  const fs::path& dir = tmp.path;
  std::string path = writeFile(dir, "saxpy.toml", kSaxpy);
  Workload w = loadWorkload(path);
  CHECK(w.path == path);
  REQUIRE(w.kernels.size() == 1);
  const WorkloadKernel& k = w.kernels[0];
  CHECK(k.name == "saxpy");
  CHECK(k.line == 1);
  REQUIRE(k.grid.size() == 1);
  CHECK(k.grid[0].text == "(n + 255) / 256");
  CHECK(k.grid[0].line == 2);
  REQUIRE(k.block.size() == 1);
  CHECK(k.block[0].text == "256");
  CHECK(k.shmem.text == "0");
  CHECK(k.check.rtol == Approx(1e-4));
  CHECK(k.check.atol == Approx(1e-7));
  REQUIRE(k.timeout_s);
  CHECK(*k.timeout_s == 5);
  REQUIRE(k.args.size() == 6);
  const WorkloadArg* n = k.findArg("n");
  REQUIRE(n);
  CHECK_FALSE(n->is_buffer);
  CHECK(n->is_int);
  CHECK(n->ivalue == 67108864);
  const WorkloadArg* a = k.findArg("a");
  REQUIRE(a);
  CHECK_FALSE(a->is_int);
  CHECK(a->fvalue == 2.0);
  const WorkloadArg* x = k.findArg("x");
  REQUIRE(x);
  CHECK(x->is_buffer);
  CHECK(x->elements.text == "n");
  REQUIRE(x->init);
  CHECK(x->init->kind == InitSpec::Uniform);
  CHECK(x->init->lo == -1);
  CHECK(x->init->hi == 1);
  CHECK_FALSE(x->output);
  const WorkloadArg* out = k.findArg("out");
  REQUIRE(out);
  CHECK(out->output);
  CHECK_FALSE(out->init);
  const WorkloadArg* p = k.findArg("p");
  REQUIRE(p);
  CHECK(p->offset.text == "1");
  CHECK(p->init->kind == InitSpec::Iota);
}

TEST_CASE("workload: prepareLaunch evaluates geometry and maps parameters in kernel order", "[workload]") {
  TempDir tmp;
  const fs::path& dir = tmp.path;
  Workload w = loadWorkload(writeFile(dir, "saxpy.toml", kSaxpy));
  KernelInfo k = saxpyKernel();
  validateWorkload(w, manifestWith(k));  // consistent: must not throw
  PreparedLaunch l = prepareLaunch(w.kernels[0], k);
  CHECK(l.grid == Dim3{262144, 1, 1});
  CHECK(l.block == Dim3{256, 1, 1});
  CHECK(l.shmem == 0);
  CHECK(l.timeout_s == 5);
  CHECK(l.tol.rtol == Approx(1e-4));
  REQUIRE(l.params.size() == 6);
  std::vector<std::string> order;
  for (const auto& p : l.params) order.push_back(p.name);
  CHECK(order == std::vector<std::string>{"n", "a", "x", "y", "out", "p"});

  const ParamSpec& n = l.params[0];
  CHECK_FALSE(n.is_buffer);
  CHECK(n.type == ElemType::I32);
  CHECK(n.size_bytes == 4);
  CHECK(n.ivalue == 67108864);
  const ParamSpec& a = l.params[1];
  CHECK(a.type == ElemType::F32);
  CHECK(a.fvalue == 2.0);
  const ParamSpec& x = param(l, "x");
  CHECK(x.is_buffer);
  CHECK(x.type == ElemType::F32);
  CHECK(x.elements == 67108864ull);
  CHECK(x.init.kind == InitSpec::Uniform);
  CHECK_FALSE(x.output);
  CHECK(param(l, "y").output);
  CHECK(param(l, "y").init.kind == InitSpec::Uniform);
  CHECK(param(l, "out").init.kind == InitSpec::Poison);
  CHECK(param(l, "out").output);
  CHECK(param(l, "p").offset_elements == 1);
  CHECK(l.scalars.at("n") == 67108864);
  CHECK(l.scalars.at("a") == 2.0);

  WorkloadFacts f = deriveFacts(l);
  CHECK(f.alignment.at("x") == 256);  // allocation alignment: 16-aligned
  CHECK(f.alignment.at("x") % 16 == 0);
  CHECK(f.alignment.at("p") == 4);    // x + 1 on floats: only 4-byte aligned
  CHECK(f.alignment.count("n") == 0);
  CHECK_FALSE(f.any_overlap);
  CHECK(f.block_threads == 256);
  CHECK(f.scalars.at("n") == 67108864);
}

TEST_CASE("workload: offsets on wider types and multi-dimensional geometry", "[workload]") {
  TempDir tmp;
  const fs::path& dir = tmp.path;
  std::string path = writeFile(dir, "w.toml", R"TOML([kernel.k2]
grid = [4, "ceil_div(h, 16)"]
block = [16, 16]
shmem = "16 * 16 * 4"
args.h = 100
args.d = { elements = 64, init = "constant(3)", offset = 2 }
)TOML");
  KernelInfo k;
  k.name = "k2";
  k.params = {scalarParam("h", "unsigned int", 4), pointerParam("d", "double", false)};
  PreparedLaunch l = prepareLaunch(loadWorkload(path).kernels[0], k);
  CHECK(l.grid == Dim3{4, 7, 1});
  CHECK(l.block == Dim3{16, 16, 1});
  CHECK(l.shmem == 1024);
  CHECK(l.params[0].type == ElemType::U32);
  CHECK(l.params[1].type == ElemType::F64);
  CHECK(l.params[1].init.kind == InitSpec::Constant);
  CHECK(l.params[1].init.value == 3);
  CHECK(l.timeout_s == kDefaultTimeoutS);
  WorkloadFacts f = deriveFacts(l);
  CHECK(f.alignment.at("d") == 16);  // 2 doubles = 16 bytes
  CHECK(f.block_threads == 256);
}

TEST_CASE("workload: syntax errors carry TOML++'s line and column", "[workload]") {
  TempDir tmp;
  const fs::path& dir = tmp.path;
  std::string path = writeFile(dir, "bad.toml", "[kernel.saxpy]\ngrid = [1\nblock = [256]\n");
  InputError e = inputError([&] { loadWorkload(path); });
  CHECK(e.file == path);
  // The array opened on line 2 runs into "block" at the start of line 3.
  CHECK(e.line == 3);
  CHECK(e.column == 1);
  CHECK_THAT(e.message, Catch::Contains("expected comma or closing ']'"));
  CHECK_THAT(e.what(), Catch::StartsWith(path + ":" + std::to_string(e.line) + ":" + std::to_string(e.column) + ": error: "));
}

TEST_CASE("workload: wrong types and unknown keys are reported at the node", "[workload]") {
  TempDir tmp;
  const fs::path& dir = tmp.path;
  auto load = [&](const std::string& text) {
    std::string path = writeFile(dir, "w.toml", text);
    return inputError([&] { loadWorkload(path); });
  };
  const std::string head = "[kernel.saxpy]\ngrid = [1]\nblock = [256]\nargs.n = 4\n";

  InputError e = load(head + "args.x = { elements = 1.5, init = \"zeros\" }\n");
  CHECK(e.line == 5);
  CHECK(e.column == 23);
  CHECK_THAT(e.what(), Catch::Contains((dir / "w.toml").string() + ":5:23"));
  CHECK_THAT(e.what(), Catch::Contains("args.x.elements: expected an integer or an expression string, found a float"));

  e = load(head + "gird = [1]\n");
  CHECK(e.line == 5);
  CHECK_THAT(e.what(), Catch::Contains("unknown key 'gird' in [kernel.saxpy]; expected one of: args, block, check"));

  e = load("[kernel.saxpy]\ngrid = [1, 2, 3, 4]\nblock = [256]\n");
  CHECK(e.line == 2);
  CHECK_THAT(e.what(), Catch::Contains("grid: expected an array of 1 to 3 integers or expression strings"));

  e = load("[kernel.saxpy]\ngrid = [1]\n");
  CHECK(e.line == 1);
  CHECK_THAT(e.what(), Catch::Contains("missing 'block'"));

  e = load(head + "args.x = { elements = \"n\", init = \"normal(0, 1)\" }\n");
  CHECK(e.line == 5);
  CHECK_THAT(e.what(), Catch::Contains("expected one of \"uniform(lo, hi)\", \"constant(v)\", \"iota\", \"zeros\""));

  e = load(head + "args.x = { elements = \"n\", init = \"uniform(1)\" }\n");
  CHECK_THAT(e.what(), Catch::Contains("expected uniform(lo, hi) (2 arguments)"));

  e = load(head + "args.x = { elements = \"n\" }\n");
  CHECK(e.line == 5);
  CHECK_THAT(e.what(), Catch::Contains("args.x: expected init ="));

  e = load(head + "args.x = { elements = \"n\", init = \"zeros\", output = \"yes\" }\n");
  CHECK_THAT(e.what(), Catch::Contains("args.x.output: expected true or false, found a string"));

  e = load(head + "args.x = \"n\"\n");
  CHECK_THAT(e.what(), Catch::Contains("args.x: expected a number (scalar parameter) or a table"));

  e = load(head + "check = { rtol = -1 }\n");
  CHECK(e.line == 5);
  CHECK_THAT(e.what(), Catch::Contains("check.rtol: expected a non-negative number"));

  e = load(head + "timeout = 0\n");
  CHECK_THAT(e.what(), Catch::Contains("timeout: expected a positive number"));

  e = load("[kernel.saxpy]\ngrid = [\"(n + 255 / 256\"]\nblock = [256]\nargs.n = 4\n");
  CHECK(e.line == 2);
  CHECK_THAT(e.what(), Catch::Contains("grid[0]: in expression \"(n + 255 / 256\": column 15: expected ')'"));

  e = load("[kernel.saxpy]\ngrid = [\"(m + 255) / 256\"]\nblock = [256]\nargs.n = 4\nargs.a = 1.0\n");
  CHECK(e.line == 2);
  CHECK_THAT(e.what(), Catch::Contains("uses 'm', which is not an argument of this kernel; expected a scalar argument: a, n"));

  e = load("title = \"x\"\n");
  CHECK_THAT(e.what(), Catch::Contains("unknown key 'title'"));

  e = load("# nothing\n");
  CHECK_THAT(e.what(), Catch::Contains("expected at least one [kernel.NAME] table"));
}

TEST_CASE("workload: validation against the manifest", "[workload]") {
  TempDir tmp;
  const fs::path& dir = tmp.path;
  Manifest m = manifestWith(saxpyKernel());
  const std::string rest = R"TOML(grid = ["(n + 255) / 256"]
block = [256]
args.n = 1024
args.a = 2.0
args.x = { elements = "n", init = "uniform(-1, 1)" }
args.y = { elements = "n", init = "uniform(-1, 1)", output = true }
args.out = { elements = "n", output = true }
args.p = { elements = "n", init = "iota", offset = 1 }
)TOML";
  auto validate = [&](const std::string& text) {
    std::string path = writeFile(dir, "w.toml", text);
    return inputError([&] { validateWorkload(loadWorkload(path), m); });
  };
  auto replace = [](std::string s, const std::string& from, const std::string& to) {
    size_t pos = s.find(from);
    REQUIRE(pos != std::string::npos);
    return s.replace(pos, from.size(), to);
  };

  InputError e = validate("[kernel.saxpi]\n" + rest);
  CHECK(e.line == 1);
  CHECK_THAT(e.what(), Catch::Contains((dir / "w.toml").string() + ":1:"));
  CHECK_THAT(e.what(), Catch::Contains("unknown kernel 'saxpi'; the kernels of target 'app' are: saxpy, scale"));

  e = validate("[kernel.saxpy]\n" + rest + "args.q = 3\n");
  CHECK(e.line == 10);
  CHECK_THAT(e.what(), Catch::Contains("args.q: kernel 'saxpy' has no parameter 'q'; its parameters are: n, a, x, y, out, p"));

  e = validate("[kernel.saxpy]\n" + replace(rest, "args.out = { elements = \"n\", output = true }\n", ""));
  CHECK(e.line == 1);
  CHECK_THAT(e.what(), Catch::Contains("missing parameter 'out' (float *); expected args.out = { elements = ..., init = ... }"));

  e = validate("[kernel.saxpy]\n" + replace(rest, "args.x = { elements = \"n\", init = \"uniform(-1, 1)\" }", "args.x = 3"));
  CHECK(e.line == 6);
  CHECK_THAT(e.what(), Catch::Contains("args.x: parameter 'x' is a pointer (const float *); expected a buffer table"));

  e = validate("[kernel.saxpy]\n" + replace(rest, "args.a = 2.0", "args.a = { elements = 4, init = \"zeros\" }"));
  CHECK(e.line == 5);
  CHECK_THAT(e.what(), Catch::Contains("args.a: parameter 'a' is a scalar (float); expected a number, found a buffer table"));

  // Sizes cannot depend on a buffer: caught when loading, before the manifest is consulted.
  e = validate("[kernel.saxpy]\n" + replace(rest, "args.n = 1024", "args.n = { elements = 4, init = \"zeros\" }"));
  CHECK(e.line == 2);
  CHECK_THAT(e.what(), Catch::Contains("grid[0]: \"(n + 255) / 256\" uses 'n', which is a buffer argument; expected a scalar argument: a"));

  e = validate("[kernel.saxpy]\n" + replace(rest, "args.n = 1024", "args.n = 10.5"));
  CHECK_THAT(e.what(), Catch::Contains("args.n: parameter 'n' is 'int'; expected an integer, found a float"));

  e = validate("[kernel.saxpy]\n" + replace(rest, "args.n = 1024", "args.n = 4294967296"));
  CHECK_THAT(e.what(), Catch::Contains("4294967296 does not fit in 'int'"));

  e = validate("[kernel.saxpy]\n" + replace(rest, "block = [256]", "block = [64, 32]"));
  CHECK(e.line == 3);
  CHECK_THAT(e.what(), Catch::Contains("block: 2048 threads per block; expected at most 1024"));

  e = validate("[kernel.saxpy]\n" + replace(rest, "args.out = { elements = \"n\"", "args.out = { elements = \"n - 1024\""));
  CHECK(e.line == 8);
  CHECK_THAT(e.what(), Catch::Contains("args.out.elements: \"n - 1024\" gives 0; expected an integer from 1"));

  e = validate("[kernel.saxpy]\n" + replace(rest, "[\"(n + 255) / 256\"]", "[\"n / 2.0\"]"));
  CHECK_THAT(e.what(), Catch::Contains("grid[0]: \"n / 2.0\" gives 512; expected an integer"));

  // A pointer to a struct: the harness has no way to fill it.
  Manifest ms = m;
  ms.kernels[0].params[2].pointee = "Particle";
  ms.kernels[0].params[2].type = "const Particle *";
  std::string path = writeFile(dir, "w.toml", "[kernel.saxpy]\n" + rest);
  e = inputError([&] { validateWorkload(loadWorkload(path), ms); });
  CHECK(e.line == 6);
  CHECK_THAT(e.what(), Catch::Contains("the harness cannot fill 'Particle' (expected float, double"));
}
