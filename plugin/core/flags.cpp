#include "core/flags.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/diag.h"
#include "core/fs.h"

namespace klineage {
namespace fs = std::filesystem;

std::vector<std::string> splitCommandLine(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool in_token = false;
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quote) {
      if (c == quote) {
        quote = 0;
      } else if (c == '\\' && quote == '"' && i + 1 < line.size() &&
                 (line[i + 1] == '"' || line[i + 1] == '\\')) {
        cur += line[++i];
      } else {
        cur += c;
      }
    } else if (c == '"' || c == '\'') {
      quote = c;
      in_token = true;
    } else if (c == '\\' && i + 1 < line.size()) {
      cur += line[++i];
      in_token = true;
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (in_token) out.push_back(cur);
      cur.clear();
      in_token = false;
    } else {
      cur += c;
      in_token = true;
    }
  }
  if (in_token) out.push_back(cur);
  return out;
}

std::vector<CompileCommand> loadCompileCommands(const std::string& path) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(readFile(path));
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(path, 0, 0, std::string("not valid JSON: ") + e.what());
  }
  if (!j.is_array()) throw InputError(path, 1, 1, "expected a JSON array of compile commands");
  std::vector<CompileCommand> out;
  for (const auto& e : j) {
    CompileCommand c;
    try {  // wrong types (a number for "directory", a string for "arguments") are bad input too
      c.directory = e.value("directory", "");
      c.file = e.value("file", "");
      if (e.contains("arguments"))
        c.arguments = e.at("arguments").get<std::vector<std::string>>();
      else
        c.arguments = splitCommandLine(e.value("command", ""));
    } catch (const nlohmann::json::exception& ex) {
      throw InputError(path, 0, 0, "entry " + std::to_string(out.size()) + " is not a compile command: " + ex.what());
    }
    if (!c.file.empty() && fs::path(c.file).is_relative()) c.file = (fs::path(c.directory) / c.file).lexically_normal().string();
    out.push_back(std::move(c));
  }
  return out;
}

namespace {

std::string absolute(const std::string& p, const std::string& dir) {
  if (p.empty() || fs::path(p).is_absolute() || dir.empty()) return p;
  return (fs::path(dir) / p).lexically_normal().string();
}

// "arch=compute_90,code=[compute_90,sm_90]" or "arch=compute_80,code=sm_80" -> sm_XX entries
void archsFromGencode(const std::string& spec, std::vector<std::string>& archs) {
  static const std::regex re("(sm|compute)_([0-9]+[a-z]?)");
  for (std::sregex_iterator it(spec.begin(), spec.end(), re), end; it != end; ++it) {
    std::string a = "sm_" + (*it)[2].str();
    if (std::find(archs.begin(), archs.end(), a) == archs.end()) archs.push_back(a);
  }
}

bool startsWith(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

// Flags whose value is the next argument (or after '='), and which neither compiler needs here.
const char* const kDroppedWithValue[] = {"-o", "-MF", "-MT", "-MQ", "-ccbin", "--compiler-bindir", "-x",
                                         "--output-file", "-Xptxas", "--ptxas-options", "-Xnvlink",
                                         "--linker-options", "-Xfatbin", "-maxrregcount", "--maxrregcount",
                                         "-Xcompiler", "--compiler-options", "-Xlinker", "-l", "-L",
                                         "--dependency-output", "-odir", "--keep-dir", "-t", "--threads",
                                         "--split-compile", "-split-compile", "-diag-suppress",
                                         "--diag-suppress", "-Xcudafe", "--default-stream", "-default-stream"};
const char* const kDroppedAlone[] = {"-c", "-MD", "-MMD", "-M", "-MP", "-lineinfo", "-g", "-G",
                                     "-forward-unknown-to-host-compiler", "--forward-unknown-to-host-compiler",
                                     "-rdc=true", "-rdc=false", "-dc", "--device-c", "-dlink",
                                     "--keep", "-keep", "-v", "--verbose", "-O0", "-O1", "-O2", "-O3", "-Os",
                                     "--use_fast_math", "-use_fast_math", "-Werror", "-w"};

}  // namespace

CudaFlags parseCudaFlags(const std::vector<std::string>& argv, const std::string& directory) {
  CudaFlags f;
  auto take = [&](size_t& i, const std::string& flag, std::string* value) -> bool {
    const std::string& a = argv[i];
    if (a == flag) {
      if (i + 1 < argv.size()) *value = argv[++i];
      return true;
    }
    if (a.size() > flag.size() && startsWith(a, flag.c_str())) {
      std::string rest = a.substr(flag.size());
      if (flag.rfind("--", 0) == 0 || flag == "-isystem" || flag == "-include" || flag == "-arch" ||
          flag == "-gencode" || flag == "-std") {
        if (rest[0] != '=') return false;  // e.g. "-stdlib" is not "-std"
        rest = rest.substr(1);
      }
      *value = rest;
      return true;
    }
    return false;
  };
  for (size_t i = argv.empty() ? 0 : 1; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    std::string v;
    bool optf_eq = startsWith(a, "--options-file=") || startsWith(a, "-optf=");
    if (a == "--options-file" || a == "-optf" || optf_eq) {
      if (optf_eq || i + 1 < argv.size()) {
        std::string file = absolute(optf_eq ? a.substr(a.find('=') + 1) : argv[++i], directory);
        std::vector<std::string> inner{"nvcc"};
        try {
          for (auto& t : splitCommandLine(readFile(file))) inner.push_back(t);
        } catch (const std::exception&) {
          f.dropped.push_back(a + " " + file + " (unreadable)");
          continue;
        }
        CudaFlags sub = parseCudaFlags(inner, directory);
        auto append = [](auto& to, const auto& from) { to.insert(to.end(), from.begin(), from.end()); };
        append(f.includes, sub.includes);
        append(f.system_includes, sub.system_includes);
        append(f.defines, sub.defines);
        append(f.undefines, sub.undefines);
        append(f.forced_includes, sub.forced_includes);
        append(f.other_nvcc, sub.other_nvcc);
        append(f.dropped, sub.dropped);
        for (auto& x : sub.archs)
          if (std::find(f.archs.begin(), f.archs.end(), x) == f.archs.end()) f.archs.push_back(x);
        if (!sub.std.empty()) f.std = sub.std;
      }
      continue;
    }
    if (take(i, "-isystem", &v) || take(i, "--system-include", &v)) {
      f.system_includes.push_back(absolute(v, directory));
    } else if (take(i, "-I", &v) || take(i, "--include-path", &v)) {
      f.includes.push_back(absolute(v, directory));
    } else if (take(i, "-D", &v) || take(i, "--define-macro", &v)) {
      f.defines.push_back(v);
    } else if (take(i, "-U", &v) || take(i, "--undefine-macro", &v)) {
      f.undefines.push_back(v);
    } else if (take(i, "-include", &v) || take(i, "--pre-include", &v)) {
      f.forced_includes.push_back(absolute(v, directory));
    } else if (take(i, "-std", &v) || take(i, "--std", &v)) {
      f.std = v;
    } else if (take(i, "--generate-code", &v) || take(i, "-gencode", &v)) {
      archsFromGencode(v, f.archs);
    } else if (take(i, "-arch", &v) || take(i, "--gpu-architecture", &v) || take(i, "--gpu-code", &v) ||
               take(i, "-code", &v)) {
      if (v == "native" || v == "all" || v == "all-major") {
        f.dropped.push_back(a + (a.find('=') == std::string::npos ? " " + v : ""));
      } else {
        archsFromGencode(v, f.archs);
      }
    } else if (startsWith(a, "--cuda-gpu-arch=")) {
      archsFromGencode(a.substr(16), f.archs);
    } else if (a == "--expt-relaxed-constexpr" || a == "--expt-extended-lambda" || a == "--extended-lambda" ||
               a == "-expt-relaxed-constexpr" || a == "-extended-lambda" || startsWith(a, "-Xptxas=") ||
               startsWith(a, "--ftz=") || startsWith(a, "--prec-div=") || startsWith(a, "--prec-sqrt=") ||
               startsWith(a, "--fmad=") || a == "--use_fast_math" || a == "-use_fast_math" ||
               startsWith(a, "-maxrregcount=") || startsWith(a, "--maxrregcount=") || startsWith(a, "-O")) {
      // Code-generation flags matter to the gate's compile (they change the kernel), not to parsing.
      f.other_nvcc.push_back(a);
    } else {
      bool handled = false;
      for (const char* d : kDroppedWithValue) {
        if (a == d) {
          f.dropped.push_back(a + (i + 1 < argv.size() ? " " + argv[i + 1] : ""));
          ++i;
          handled = true;
          break;
        }
        std::string eq = std::string(d) + "=";
        if (startsWith(a, eq.c_str())) {
          // keep host-compiler defines/includes passed through -Xcompiler=-DFOO
          f.dropped.push_back(a);
          handled = true;
          break;
        }
      }
      if (!handled) {
        if (!a.empty() && a[0] != '-') {
          // the source file or another positional argument
          f.dropped.push_back(a);
        } else {
          f.dropped.push_back(a);
        }
      }
    }
  }
  return f;
}

namespace {
// -D, -U, -I, -isystem, then -include (`first_include` before the command's own), in the order
// both compilers need them.
void appendPreprocessorFlags(std::vector<std::string>& a, const CudaFlags& flags, const std::string& first_include) {
  for (const auto& d : flags.defines) a.push_back("-D" + d);
  for (const auto& u : flags.undefines) a.push_back("-U" + u);
  for (const auto& i : flags.includes) a.push_back("-I" + i);
  for (const auto& i : flags.system_includes) {
    a.push_back("-isystem");
    a.push_back(i);
  }
  if (!first_include.empty()) {
    a.push_back("-include");
    a.push_back(first_include);
  }
  for (const auto& i : flags.forced_includes) {
    a.push_back("-include");
    a.push_back(i);
  }
}
}  // namespace

std::vector<std::string> clangArgsFor(const CudaFlags& flags, const ClangParseSetup& setup) {
  std::vector<std::string> a = {"-xcuda", "--cuda-host-only", "--cuda-path=" + setup.cuda_path,
                                "-nocudalib", "-Wno-unknown-cuda-version", "-Wno-c++11-narrowing",
                                "-Xclang", "-fcuda-allow-variadic-functions", "-fsyntax-only"};
  // clang 16 knows sm_90 (and sm_90a) at most; parsing for it is enough for newer targets
  std::string arch = highestArch(flags);
  if (std::atoi(arch.c_str() + 3) > 90) arch = "sm_90";
  a.push_back("--cuda-gpu-arch=" + arch);
  std::string std = flags.std.empty() ? "c++17" : flags.std;
  a.push_back("-std=" + std);
  if (!setup.resource_dir.empty()) {
    a.push_back("-resource-dir");
    a.push_back(setup.resource_dir);
  }
  if (!setup.compat_dir.empty()) {
    a.push_back("-isystem");
    a.push_back(setup.compat_dir);
  }
  a.push_back("-isystem");
  a.push_back(setup.cuda_path + "/include/cccl");
  appendPreprocessorFlags(a, flags, setup.compat_dir.empty() ? "" : setup.compat_dir + "/klineage_parse_compat.h");
  return a;
}

std::string highestArch(const CudaFlags& flags, const std::string& fallback) {
  std::string best;
  int best_n = -1;
  for (const auto& a : flags.archs) {
    int n = std::atoi(a.c_str() + 3);
    if (n > best_n) {
      best_n = n;
      best = a;
    }
  }
  return best.empty() ? fallback : best;
}

std::vector<std::string> nvccObjectArgs(const std::string& nvcc, const CudaFlags& flags, const std::string& arch,
                                        const std::string& source, const std::string& object,
                                        const std::vector<std::string>& extra_includes) {
  std::vector<std::string> a = nvccCubinArgs(nvcc, flags, arch, source, object, extra_includes);
  a[1] = "-c";
  a[2] = "-arch=" + (arch.rfind("sm_", 0) == 0 ? "compute_" + arch.substr(3) : arch);
  return a;
}

std::vector<std::string> nvccCubinArgs(const std::string& nvcc, const CudaFlags& flags, const std::string& arch,
                                       const std::string& source, const std::string& cubin,
                                       const std::vector<std::string>& extra_includes) {
  std::vector<std::string> a = {nvcc, "-cubin", "-arch=" + arch};
  if (!flags.std.empty()) a.push_back("-std=" + flags.std);
  for (const auto& i : extra_includes) a.push_back("-I" + i);
  appendPreprocessorFlags(a, flags, "");
  for (const auto& o : flags.other_nvcc) a.push_back(o);
  a.push_back("-o");
  a.push_back(cubin);
  a.push_back(source);
  return a;
}

}  // namespace klineage
