// nvcc -> clang flag translation, compile_commands.json loading and the nvcc cubin command
// (plugin/core/flags.h), on command lines shaped like the ones CMake writes.
#include <catch2/catch.hpp>

#include "support/temp_dir.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "core/diag.h"
#include "core/flags.h"

using namespace klineage;
namespace fs = std::filesystem;
using Args = std::vector<std::string>;

namespace {

struct TempDir : test::TempDir {
  TempDir() : test::TempDir("flags") {}
};

bool contains(const Args& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

long indexOf(const Args& v, const std::string& s) {
  auto it = std::find(v.begin(), v.end(), s);
  return it == v.end() ? -1 : static_cast<long>(it - v.begin());
}

// Index of the value following the flag `flag` whose value is `value` ("-isystem", "/b").
long indexOfPair(const Args& v, const std::string& flag, const std::string& value) {
  for (size_t i = 0; i + 1 < v.size(); ++i)
    if (v[i] == flag && v[i + 1] == value) return static_cast<long>(i);
  return -1;
}

// What CMake 3.25 + Ninja writes for a CUDA object of a static library (one line per token).
Args cmakeCommand() {
  return {"/usr/local/cuda/bin/nvcc", "-forward-unknown-to-host-compiler", "-DFOO=1", "-I/a/include",
          "-isystem", "/b", "-isystem=/c", "-O3", "-DNDEBUG",
          "--generate-code=arch=compute_90,code=[compute_90,sm_90]", "-std=c++17", "-Xcompiler=-fPIC",
          "-x", "cu", "-c", "/src/k.cu", "-o", "CMakeFiles/k.dir/k.cu.o"};
}

}  // namespace

TEST_CASE("parseCudaFlags: a CMake-generated nvcc command line", "[flags]") {
  CudaFlags f = parseCudaFlags(cmakeCommand(), "/build");
  CHECK(f.includes == Args{"/a/include"});
  CHECK(f.system_includes == Args{"/b", "/c"});
  CHECK(f.defines == Args{"FOO=1", "NDEBUG"});
  CHECK(f.undefines.empty());
  CHECK(f.forced_includes.empty());
  CHECK(f.std == "c++17");
  CHECK(f.archs == Args{"sm_90"});           // compute_90 and sm_90 name one architecture
  CHECK(f.other_nvcc == Args{"-O3"});        // optimisation level matters to the gate's compile
  // Everything else is for neither compiler here; nothing of it leaks into the parse flags.
  CHECK(contains(f.dropped, "-forward-unknown-to-host-compiler"));
  CHECK(contains(f.dropped, "-Xcompiler=-fPIC"));
  CHECK(contains(f.dropped, "-x cu"));
  CHECK(contains(f.dropped, "-c"));
  CHECK(contains(f.dropped, "/src/k.cu"));
  CHECK(contains(f.dropped, "-o CMakeFiles/k.dir/k.cu.o"));
}

TEST_CASE("parseCudaFlags: architecture spellings", "[flags]") {
  SECTION("-arch=sm_80") {
    CudaFlags f = parseCudaFlags({"nvcc", "-arch=sm_80", "-c", "k.cu"}, "/b");
    CHECK(f.archs == Args{"sm_80"});
    CHECK(highestArch(f) == "sm_80");
  }
  SECTION("-arch sm_80 (separate value) and --gpu-architecture=compute_75") {
    CHECK(parseCudaFlags({"nvcc", "-arch", "sm_80"}, "/b").archs == Args{"sm_80"});
    CHECK(parseCudaFlags({"nvcc", "--gpu-architecture=compute_75"}, "/b").archs == Args{"sm_75"});
  }
  SECTION("two -gencode pairs: both kept in order, the highest wins") {
    CudaFlags f = parseCudaFlags({"nvcc", "-gencode", "arch=compute_75,code=sm_75", "-gencode",
                                  "arch=compute_86,code=sm_86", "-c", "k.cu"},
                                 "/b");
    CHECK(f.archs == Args{"sm_75", "sm_86"});
    CHECK(highestArch(f) == "sm_86");
  }
  SECTION("-gencode=... form") {
    CHECK(parseCudaFlags({"nvcc", "-gencode=arch=compute_80,code=sm_80"}, "/b").archs == Args{"sm_80"});
  }
  SECTION("native/all are no architecture") {
    CudaFlags f = parseCudaFlags({"nvcc", "-arch=native"}, "/b");
    CHECK(f.archs.empty());
    CHECK(highestArch(f) == "sm_90");          // the documented fallback
    CHECK(highestArch(f, "sm_80") == "sm_80");
  }
  SECTION("sm_100 stays sm_100 for nvcc (clangArgsFor clamps it for clang 16)") {
    CudaFlags f = parseCudaFlags({"nvcc", "--generate-code=arch=compute_100,code=[sm_100]", "-arch=sm_80"}, "/b");
    CHECK(f.archs == Args{"sm_100", "sm_80"});
    CHECK(highestArch(f) == "sm_100");
  }
}

TEST_CASE("parseCudaFlags: relative paths are made absolute against the command's directory", "[flags]") {
  CudaFlags f = parseCudaFlags({"nvcc", "-Iinclude", "-I", "../third/inc", "-isystem", "sys", "-include", "pre.h",
                                "-I/abs/x", "-c", "k.cu"},
                               "/proj/build");
  CHECK(f.includes == Args{"/proj/build/include", "/proj/third/inc", "/abs/x"});
  CHECK(f.system_includes == Args{"/proj/build/sys"});
  CHECK(f.forced_includes == Args{"/proj/build/pre.h"});
}

TEST_CASE("parseCudaFlags: dependency-file flags are dropped with their values", "[flags]") {
  CudaFlags f = parseCudaFlags({"nvcc", "-DA", "-MD", "-MT", "x", "-MF", "y", "-DB", "-c", "k.cu"}, "/b");
  CHECK(f.defines == Args{"A", "B"});
  CHECK(contains(f.dropped, "-MD"));
  CHECK(contains(f.dropped, "-MT x"));
  CHECK(contains(f.dropped, "-MF y"));
  CHECK(f.includes.empty());
  CHECK(f.other_nvcc.empty());
  CHECK(!contains(f.dropped, "x"));  // consumed as -MT's value, not a positional argument
}

TEST_CASE("parseCudaFlags: -D/-U with separate values, -std spellings, -stdlib is not -std", "[flags]") {
  CudaFlags f = parseCudaFlags({"nvcc", "-D", "X=2", "-U", "Y", "--define-macro=Z", "--std", "c++20",
                                "-stdlib=libc++", "--expt-relaxed-constexpr"},
                               "/b");
  CHECK(f.defines == Args{"X=2", "Z"});
  CHECK(f.undefines == Args{"Y"});
  CHECK(f.std == "c++20");
  CHECK(contains(f.dropped, "-stdlib=libc++"));
  CHECK(f.other_nvcc == Args{"--expt-relaxed-constexpr"});
}

TEST_CASE("parseCudaFlags: --options-file contents are parsed in place", "[flags]") {
  TempDir t;
  // What CMake writes into includes_CUDA.rsp, plus a quoted path with a space and a define.
  t.write("CMakeFiles/k.dir/includes_CUDA.rsp",
          "-I/opt/one \"-I/opt/with space\" -Irel/inc\n-isystem /opt/sys -DFROM_RSP=\"a b\" -arch=sm_86\n");
  std::string dir = t.path.string();
  SECTION("--options-file <file>, relative to the directory") {
    CudaFlags f = parseCudaFlags({"nvcc", "-I/first", "--options-file", "CMakeFiles/k.dir/includes_CUDA.rsp",
                                  "-I/last", "-DAFTER", "-c", "k.cu"},
                                 dir);
    CHECK(f.includes == Args{"/first", "/opt/one", "/opt/with space", dir + "/rel/inc", "/last"});
    CHECK(f.system_includes == Args{"/opt/sys"});
    CHECK(f.defines == Args{"FROM_RSP=a b", "AFTER"});
    CHECK(f.archs == Args{"sm_86"});
  }
  SECTION("--options-file=<file> and -optf") {
    CudaFlags a = parseCudaFlags({"nvcc", "--options-file=CMakeFiles/k.dir/includes_CUDA.rsp"}, dir);
    CHECK(a.includes == Args{"/opt/one", "/opt/with space", dir + "/rel/inc"});
    CudaFlags b = parseCudaFlags({"nvcc", "-optf", "CMakeFiles/k.dir/includes_CUDA.rsp"}, dir);
    CHECK(b.includes == a.includes);
  }
  SECTION("a missing options file is reported in dropped, not fatal") {
    CudaFlags f = parseCudaFlags({"nvcc", "--options-file", "nope.rsp", "-I/x"}, dir);
    CHECK(f.includes == Args{"/x"});
    bool reported = false;
    for (const auto& d : f.dropped) reported |= d.find("nope.rsp") != std::string::npos;
    CHECK(reported);
  }
}

TEST_CASE("clangArgsFor: host-only CUDA parse with the target's flags in order", "[flags]") {
  CudaFlags f = parseCudaFlags(cmakeCommand(), "/build");
  f.forced_includes.push_back("/build/forced.h");
  f.undefines.push_back("BAR");
  ClangParseSetup s;
  s.cuda_path = "/usr/local/cuda";
  s.resource_dir = "/usr/lib/llvm-16/lib/clang/16";
  s.compat_dir = "/k/compat";
  Args a = clangArgsFor(f, s);
  INFO([&] {
    std::string all;
    for (auto& x : a) all += x + " ";
    return all;
  }());
  CHECK(contains(a, "-xcuda"));
  CHECK(contains(a, "--cuda-host-only"));
  CHECK(contains(a, "--cuda-path=/usr/local/cuda"));
  CHECK(contains(a, "--cuda-gpu-arch=sm_90"));
  CHECK(contains(a, "-std=c++17"));
  CHECK(indexOfPair(a, "-resource-dir", "/usr/lib/llvm-16/lib/clang/16") >= 0);
  CHECK(indexOfPair(a, "-isystem", "/usr/local/cuda/include/cccl") >= 0);
  // no compile-only flags, no source, no output
  CHECK(!contains(a, "-c"));
  CHECK(!contains(a, "-o"));
  CHECK(!contains(a, "/src/k.cu"));
  CHECK(!contains(a, "-O3"));
  // -D in order, then -U, -I, -isystem in order
  long foo = indexOf(a, "-DFOO=1"), ndebug = indexOf(a, "-DNDEBUG"), ubar = indexOf(a, "-UBAR"),
       inc = indexOf(a, "-I/a/include"), sb = indexOfPair(a, "-isystem", "/b"), sc = indexOfPair(a, "-isystem", "/c");
  REQUIRE(foo >= 0);
  REQUIRE(ndebug >= 0);
  REQUIRE(ubar >= 0);
  REQUIRE(inc >= 0);
  REQUIRE(sb >= 0);
  REQUIRE(sc >= 0);
  CHECK(foo < ndebug);
  CHECK(ndebug < inc);
  CHECK(inc < sb);
  CHECK(sb < sc);
  // the compat header is force-included, before the target's own forced includes
  long compat = indexOfPair(a, "-include", "/k/compat/klineage_parse_compat.h");
  long forced = indexOfPair(a, "-include", "/build/forced.h");
  REQUIRE(compat >= 0);
  REQUIRE(forced >= 0);
  CHECK(compat < forced);
  CHECK(indexOfPair(a, "-isystem", "/k/compat") >= 0);
}

TEST_CASE("clangArgsFor: arch and std defaults", "[flags]") {
  ClangParseSetup s;
  SECTION("sm_100 target parses as sm_90") {
    Args a = clangArgsFor(parseCudaFlags({"nvcc", "-arch=sm_100"}, "/b"), s);
    CHECK(contains(a, "--cuda-gpu-arch=sm_90"));
    CHECK(!contains(a, "--cuda-gpu-arch=sm_100"));
  }
  SECTION("highest of several") {
    Args a = clangArgsFor(parseCudaFlags({"nvcc", "-gencode", "arch=compute_75,code=sm_75", "-gencode",
                                          "arch=compute_86,code=sm_86"},
                                         "/b"),
                          s);
    CHECK(contains(a, "--cuda-gpu-arch=sm_86"));
    CHECK(!contains(a, "--cuda-gpu-arch=sm_75"));
  }
  SECTION("no -std: c++17; no compat dir: no compat include") {
    Args a = clangArgsFor(parseCudaFlags({"nvcc", "-c", "k.cu"}, "/b"), s);
    CHECK(contains(a, "-std=c++17"));
    CHECK(!contains(a, "-include"));
  }
}

TEST_CASE("nvccCubinArgs: compiles one source to a cubin with the target's flags", "[flags]") {
  CudaFlags f = parseCudaFlags(cmakeCommand(), "/build");
  Args a = nvccCubinArgs("/usr/local/cuda/bin/nvcc", f, "sm_90", "/out/variants/saxpy/1/k.cu", "/out/gate/k.cubin",
                         {"/src"});
  REQUIRE(a.size() >= 6);
  CHECK(a[0] == "/usr/local/cuda/bin/nvcc");
  CHECK(a[1] == "-cubin");
  CHECK(a[2] == "-arch=sm_90");
  CHECK(a.back() == "/out/variants/saxpy/1/k.cu");
  long o = indexOf(a, "-o");
  REQUIRE(o >= 0);
  CHECK(a[o + 1] == "/out/gate/k.cubin");
  CHECK(contains(a, "-O3"));
  CHECK(contains(a, "-DFOO=1"));
  CHECK(contains(a, "-DNDEBUG"));
  CHECK(contains(a, "-std=c++17"));
  CHECK(indexOfPair(a, "-isystem", "/b") >= 0);
  CHECK(indexOfPair(a, "-isystem", "/c") >= 0);
  // the original source's directory comes before the target's include path
  long extra = indexOf(a, "-I/src"), inc = indexOf(a, "-I/a/include");
  REQUIRE(extra >= 0);
  REQUIRE(inc >= 0);
  CHECK(extra < inc);
  // nothing of the object-file compile
  CHECK(!contains(a, "-c"));
  CHECK(!contains(a, "/src/k.cu"));
  CHECK(!contains(a, "CMakeFiles/k.dir/k.cu.o"));
  CHECK(!contains(a, "-Xcompiler=-fPIC"));
  CHECK(!contains(a, "-forward-unknown-to-host-compiler"));
  CHECK(std::count(a.begin(), a.end(), "-o") == 1);
}

TEST_CASE("splitCommandLine: quotes and escapes like a POSIX shell", "[flags]") {
  CHECK(splitCommandLine("") == Args{});
  CHECK(splitCommandLine("  nvcc\t-c \n k.cu  ") == Args{"nvcc", "-c", "k.cu"});
  CHECK(splitCommandLine(R"(nvcc -DMSG="hello world" -I'/a b/c')") ==
        Args{"nvcc", "-DMSG=hello world", "-I/a b/c"});
  CHECK(splitCommandLine(R"(a\ b "x\"y" "p\\q" 'r\s')") == Args{"a b", "x\"y", "p\\q", "r\\s"});
  CHECK(splitCommandLine(R"(-DQ='it'"'"'s' "" end)") == Args{"-DQ=it's", "", "end"});
  CHECK(splitCommandLine(R"(-DSTR=\"v\")") == Args{"-DSTR=\"v\""});
}

TEST_CASE("loadCompileCommands: command and arguments entries", "[flags]") {
  TempDir t;
  std::string path = t.write("compile_commands.json", R"([
  {
    "directory": "/proj/build",
    "command": "/usr/local/cuda/bin/nvcc -DMSG=\"two words\" -I/proj/inc -c /proj/src/a.cu -o a.o",
    "file": "/proj/src/a.cu",
    "output": "a.o"
  },
  {
    "directory": "/proj/build",
    "arguments": ["/usr/local/cuda/bin/nvcc", "-I../inc", "-c", "../src/b.cu"],
    "file": "../src/b.cu"
  }
])");
  auto cmds = loadCompileCommands(path);
  REQUIRE(cmds.size() == 2);
  CHECK(cmds[0].directory == "/proj/build");
  CHECK(cmds[0].file == "/proj/src/a.cu");
  CHECK(cmds[0].arguments ==
        Args{"/usr/local/cuda/bin/nvcc", "-DMSG=two words", "-I/proj/inc", "-c", "/proj/src/a.cu", "-o", "a.o"});
  CHECK(cmds[1].file == "/proj/src/b.cu");  // relative file resolved against directory
  CHECK(cmds[1].arguments == Args{"/usr/local/cuda/bin/nvcc", "-I../inc", "-c", "../src/b.cu"});
  CudaFlags f = parseCudaFlags(cmds[1].arguments, cmds[1].directory);
  CHECK(f.includes == Args{"/proj/inc"});
}

TEST_CASE("loadCompileCommands: malformed files are InputErrors naming the path", "[flags]") {
  TempDir t;
  auto expectInputError = [](const std::string& path) {
    try {
      loadCompileCommands(path);
      FAIL("no InputError for " << path);
    } catch (const InputError& e) {
      CHECK(e.file == path);
      CHECK(std::string(e.what()).find(path) != std::string::npos);
    }
  };
  SECTION("truncated JSON") { expectInputError(t.write("cc1.json", R"([{"directory": "/x", "file": )")); }
  SECTION("not an array") { expectInputError(t.write("cc2.json", R"({"directory": "/x"})")); }
  SECTION("arguments is not a list of strings") {
    expectInputError(t.write("cc3.json", R"([{"directory": "/x", "file": "/x/a.cu", "arguments": "nvcc -c a.cu"}])"));
  }
  SECTION("directory is not a string") {
    expectInputError(t.write("cc4.json", R"([{"directory": 7, "file": "/x/a.cu", "command": "nvcc"}])"));
  }
}
