#include "core/workload.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include <toml++/toml.h>

#include "core/diag.h"
#include "core/toml_util.h"
#include "core/expr.h"
#include "core/fs.h"

namespace klineage {

const WorkloadArg* WorkloadKernel::findArg(const std::string& n) const {
  for (const auto& a : args)
    if (a.name == n) return &a;
  return nullptr;
}

const WorkloadKernel* Workload::find(const std::string& n) const {
  for (const auto& k : kernels)
    if (k.name == n) return &k;
  return nullptr;
}

namespace {


[[noreturn]] void failAt(const std::string& file, const toml::source_region& src, const std::string& msg) {
  throw InputError(file, src.begin.line, src.begin.column, msg);
}

void checkKeys(const std::string& file, const toml::table& t, const std::vector<std::string>& allowed,
               const std::string& where) {
  checkTomlKeys(file, t, allowed, where);
}

WorkloadExpr readExpr(const std::string& file, const toml::node& n, const std::string& label) {
  WorkloadExpr e;
  e.line = n.source().begin.line;
  e.column = n.source().begin.column;
  if (auto i = n.as_integer()) {
    e.text = std::to_string(i->get());
  } else if (auto s = n.as_string()) {
    e.text = s->get();
    try {
      exprNames(e.text);
    } catch (const ExprError& err) {
      failAt(file, n.source(), label + ": in expression \"" + e.text + "\": " + err.what());
    }
  } else {
    failAt(file, n.source(), label + ": expected an integer or an expression string, found a " + tomlTypeName(n));
  }
  return e;
}

double evalNumber(const std::string& text) { return evalExpr(text, std::map<std::string, ExprValue>{}).toDouble(); }

// "uniform(lo, hi)", "constant(v)", "iota", "zeros"; the arguments are constant expressions.
InitSpec parseInit(const std::string& file, const toml::node& n, const std::string& label) {
  const std::string expected = "expected one of \"uniform(lo, hi)\", \"constant(v)\", \"iota\", \"zeros\"";
  auto s = n.as_string();
  if (!s) failAt(file, n.source(), label + ": " + expected + ", found a " + tomlTypeName(n));
  std::string text = s->get();
  auto trim = [](std::string x) {
    size_t b = x.find_first_not_of(" \t"), e = x.find_last_not_of(" \t");
    return b == std::string::npos ? std::string() : x.substr(b, e - b + 1);
  };
  std::string t = trim(text), name = t;
  std::vector<std::string> args;
  size_t open = t.find('(');
  if (open != std::string::npos) {
    if (t.back() != ')') failAt(file, n.source(), label + ": \"" + text + "\": expected ')' at the end");
    name = trim(t.substr(0, open));
    std::string inner = t.substr(open + 1, t.size() - open - 2);
    size_t start = 0;
    int depth = 0;
    for (size_t i = 0; i <= inner.size(); ++i) {
      if (i == inner.size() || (inner[i] == ',' && depth == 0)) {
        args.push_back(trim(inner.substr(start, i - start)));
        start = i + 1;
      } else if (inner[i] == '(') {
        ++depth;
      } else if (inner[i] == ')') {
        --depth;
      }
    }
    if (args.size() == 1 && args[0].empty()) args.clear();
  }
  std::vector<double> v;
  for (const auto& a : args) {
    try {
      v.push_back(evalNumber(a));
    } catch (const ExprError& err) {
      failAt(file, n.source(), label + ": \"" + text + "\": argument \"" + a + "\": " + err.what());
    }
  }
  auto arity = [&](size_t want, const char* form) {
    if (v.size() != want)
      failAt(file, n.source(), label + ": \"" + text + "\": expected " + form + " (" + std::to_string(want) +
                                   " argument" + (want == 1 ? "" : "s") + ")");
  };
  InitSpec init;
  if (name == "uniform") {
    arity(2, "uniform(lo, hi)");
    init.kind = InitSpec::Uniform;
    init.lo = v[0];
    init.hi = v[1];
    if (!(init.lo <= init.hi)) failAt(file, n.source(), label + ": \"" + text + "\": expected lo <= hi");
  } else if (name == "constant") {
    arity(1, "constant(v)");
    init.kind = InitSpec::Constant;
    init.value = v[0];
  } else if (name == "iota") {
    arity(0, "iota");
    init.kind = InitSpec::Iota;
  } else if (name == "zeros") {
    arity(0, "zeros");
    init.kind = InitSpec::Zeros;
  } else {
    failAt(file, n.source(), label + ": unknown init \"" + text + "\"; " + expected);
  }
  return init;
}

std::vector<WorkloadExpr> readDims(const std::string& file, const toml::table& kt, const char* key) {
  const std::string label = key;
  const toml::node* n = kt.get(key);
  if (!n) failAt(file, kt.source(), std::string("missing '") + key + "'; expected " + key + " = [x] , [x, y] or [x, y, z]");
  auto arr = n->as_array();
  if (!arr || arr->empty() || arr->size() > 3)
    failAt(file, n->source(), label + ": expected an array of 1 to 3 integers or expression strings, found " +
                                  (arr ? "an array of " + std::to_string(arr->size()) : std::string("a ") + tomlTypeName(*n)));
  std::vector<WorkloadExpr> out;
  for (size_t i = 0; i < arr->size(); ++i) out.push_back(readExpr(file, *arr->get(i), label + "[" + std::to_string(i) + "]"));
  return out;
}

double readNonNegative(const std::string& file, const toml::node& n, const std::string& label, bool positive) {
  double v;
  if (auto i = n.as_integer()) v = static_cast<double>(i->get());
  else if (auto f = n.as_floating_point()) v = f->get();
  else failAt(file, n.source(), label + ": expected a number, found a " + tomlTypeName(n));
  if (!std::isfinite(v) || v < 0 || (positive && v == 0))
    failAt(file, n.source(), label + ": expected a " + (positive ? "positive" : "non-negative") + " number");
  return v;
}

WorkloadArg readArg(const std::string& file, const std::string& name, const toml::node& n) {
  const std::string label = "args." + name;
  WorkloadArg a;
  a.name = name;
  a.line = n.source().begin.line;
  a.column = n.source().begin.column;
  if (auto i = n.as_integer()) {
    a.ivalue = i->get();
    a.fvalue = static_cast<double>(a.ivalue);
  } else if (auto b = n.as_boolean()) {
    a.ivalue = b->get() ? 1 : 0;
    a.fvalue = static_cast<double>(a.ivalue);
  } else if (auto f = n.as_floating_point()) {
    a.is_int = false;
    a.fvalue = f->get();
  } else if (auto t = n.as_table()) {
    a.is_buffer = true;
    checkKeys(file, *t, {"elements", "init", "offset", "output"}, label);
    const toml::node* el = t->get("elements");
    if (!el) failAt(file, n.source(), label + ": missing 'elements'; expected elements = <integer or expression string>");
    a.elements = readExpr(file, *el, label + ".elements");
    if (const toml::node* off = t->get("offset")) a.offset = readExpr(file, *off, label + ".offset");
    if (const toml::node* out = t->get("output")) {
      auto ob = out->as_boolean();
      if (!ob) failAt(file, out->source(), label + ".output: expected true or false, found a " + tomlTypeName(*out));
      a.output = ob->get();
    }
    if (const toml::node* in = t->get("init")) {
      a.init = parseInit(file, *in, label + ".init");
      a.init_text = in->as_string()->get();
    } else if (!a.output) {
      // An input without contents would feed the kernel garbage; only outputs may be left unset.
      failAt(file, n.source(), label + ": expected init = \"uniform(lo, hi)\" | \"constant(v)\" | \"iota\" | \"zeros\" "
                               "(a buffer without init must be an output: output = true)");
    }
  } else {
    failAt(file, n.source(), label + ": expected a number (scalar parameter) or a table { elements = ..., init = ..., "
                                     "output = ..., offset = ... } (pointer parameter), found a " + tomlTypeName(n));
  }
  return a;
}

WorkloadKernel readKernel(const std::string& file, const std::string& name, const toml::node& n) {
  WorkloadKernel k;
  k.name = name;
  k.file = file;
  k.line = n.source().begin.line;
  k.column = n.source().begin.column;
  auto kt = n.as_table();
  if (!kt) failAt(file, n.source(), "kernel." + name + ": expected a table [kernel." + name + "], found a " + tomlTypeName(n));
  checkKeys(file, *kt, {"args", "block", "check", "grid", "shmem", "timeout"}, "[kernel." + name + "]");
  k.grid = readDims(file, *kt, "grid");
  k.block = readDims(file, *kt, "block");
  if (const toml::node* s = kt->get("shmem")) k.shmem = readExpr(file, *s, "shmem");
  if (const toml::node* args = kt->get("args")) {
    auto at = args->as_table();
    if (!at) failAt(file, args->source(), "args: expected a table of arguments (args.NAME = ...), found a " + tomlTypeName(*args));
    for (auto&& [key, val] : *at) k.args.push_back(readArg(file, std::string(key.str()), val));
  }
  if (const toml::node* c = kt->get("check")) {
    auto ct = c->as_table();
    if (!ct) failAt(file, c->source(), "check: expected a table { rtol = ..., atol = ... }, found a " + tomlTypeName(*c));
    checkKeys(file, *ct, {"atol", "rtol"}, "check");
    k.check_given = true;
    if (const toml::node* r = ct->get("rtol")) k.check.rtol = readNonNegative(file, *r, "check.rtol", false);
    if (const toml::node* a = ct->get("atol")) k.check.atol = readNonNegative(file, *a, "check.atol", false);
  }
  if (const toml::node* t = kt->get("timeout")) k.timeout_s = readNonNegative(file, *t, "timeout", true);

  // Expressions may only name scalar arguments of the same kernel.
  std::vector<std::string> scalars;
  for (const auto& a : k.args)
    if (!a.is_buffer) scalars.push_back(a.name);
  auto checkNames = [&](const WorkloadExpr& e, const std::string& label) {
    for (const auto& used : exprNames(e.text))
      if (std::find(scalars.begin(), scalars.end(), used) == scalars.end())
        throw InputError(file, e.line, e.column,
                         label + ": \"" + e.text + "\" uses '" + used + "', which is " +
                             (k.findArg(used) ? "a buffer argument" : "not an argument of this kernel") +
                             "; expected a scalar argument: " + joinNames(scalars));
  };
  for (size_t i = 0; i < k.grid.size(); ++i) checkNames(k.grid[i], "grid[" + std::to_string(i) + "]");
  for (size_t i = 0; i < k.block.size(); ++i) checkNames(k.block[i], "block[" + std::to_string(i) + "]");
  checkNames(k.shmem, "shmem");
  for (const auto& a : k.args)
    if (a.is_buffer) {
      checkNames(a.elements, "args." + a.name + ".elements");
      checkNames(a.offset, "args." + a.name + ".offset");
    }
  return k;
}

// ---- checks against the extracted kernel ----

const char* kSupported = "float, double, and 8/16/32/64-bit signed or unsigned integers";

bool inRange(ElemType t, long long v) {
  switch (t) {
    case ElemType::I8: return v >= -128 && v <= 127;
    case ElemType::U8: return v >= 0 && v <= 255;
    case ElemType::I16: return v >= -32768 && v <= 32767;
    case ElemType::U16: return v >= 0 && v <= 65535;
    case ElemType::I32: return v >= std::numeric_limits<int>::min() && v <= std::numeric_limits<int>::max();
    case ElemType::U32: return v >= 0 && v <= 4294967295LL;
    case ElemType::U64: return v >= 0;
    default: return true;
  }
}

// Checks the pairing of workload arguments and kernel parameters; returns each param's element type.
std::vector<ElemType> checkKernel(const WorkloadKernel& wk, const KernelInfo& k) {
  std::vector<std::string> names;
  for (const auto& p : k.params) names.push_back(p.name);
  for (const auto& a : wk.args) {
    if (std::find(names.begin(), names.end(), a.name) == names.end())
      throw InputError(wk.file, a.line, a.column,
                       "args." + a.name + ": kernel '" + wk.name + "' has no parameter '" + a.name +
                           "'; its parameters are: " + joinNames(names));
  }
  std::vector<ElemType> types;
  for (const auto& p : k.params) {
    const WorkloadArg* a = wk.findArg(p.name);
    if (!a)
      throw InputError(wk.file, wk.line, wk.column,
                       "[kernel." + wk.name + "]: missing parameter '" + p.name + "' (" + p.type + "); expected args." +
                           p.name + (p.is_pointer ? " = { elements = ..., init = ... }" : " = <number>"));
    const std::string label = "args." + p.name;
    if (p.is_pointer && !a->is_buffer)
      throw InputError(wk.file, a->line, a->column,
                       label + ": parameter '" + p.name + "' is a pointer (" + p.type +
                           "); expected a buffer table { elements = ..., init = ... }, found a number");
    if (!p.is_pointer && a->is_buffer)
      throw InputError(wk.file, a->line, a->column,
                       label + ": parameter '" + p.name + "' is a scalar (" + p.type + "); expected a number, found a buffer table");
    const std::string& ctype = p.is_pointer ? p.pointee : p.type;
    auto t = elemTypeFromCType(ctype);
    if (!t)
      throw InputError(wk.file, a->line, a->column,
                       label + ": parameter '" + p.name + "' has type '" + p.type + "'; the harness cannot fill '" +
                           ctype + "' (expected " + kSupported + ")");
    if (!p.is_pointer && !isFloat(*t)) {
      if (!a->is_int)
        throw InputError(wk.file, a->line, a->column,
                         label + ": parameter '" + p.name + "' is '" + p.type + "'; expected an integer, found a float");
      if (!inRange(*t, a->ivalue))
        throw InputError(wk.file, a->line, a->column,
                         label + ": " + std::to_string(a->ivalue) + " does not fit in '" + p.type + "'");
    }
    types.push_back(*t);
  }
  return types;
}

ExprValue evalAt(const WorkloadKernel& wk, const WorkloadExpr& e, const std::map<std::string, ExprValue>& vars,
                 const std::string& label) {
  try {
    return evalExpr(e.text, vars);
  } catch (const ExprError& err) {
    throw InputError(wk.file, e.line, e.column, label + ": in expression \"" + e.text + "\": " + err.what());
  }
}

long long evalInt(const WorkloadKernel& wk, const WorkloadExpr& e, const std::map<std::string, ExprValue>& vars,
                  const std::string& label, long long lo, long long hi) {
  ExprValue v = evalAt(wk, e, vars, label);
  if (!v.is_int)
    throw InputError(wk.file, e.line, e.column,
                     label + ": \"" + e.text + "\" gives " + v.str() + "; expected an integer (use integer operands)");
  if (v.i < lo || v.i > hi)
    throw InputError(wk.file, e.line, e.column,
                     label + ": \"" + e.text + "\" gives " + v.str() + "; expected an integer from " + std::to_string(lo) +
                         " to " + std::to_string(hi));
  return v.i;
}

Dim3 evalDims(const WorkloadKernel& wk, const std::vector<WorkloadExpr>& dims, const std::map<std::string, ExprValue>& vars,
              const char* what, const long long (&limit)[3]) {
  long long d[3] = {1, 1, 1};
  for (size_t i = 0; i < dims.size() && i < 3; ++i)
    d[i] = evalInt(wk, dims[i], vars, std::string(what) + "[" + std::to_string(i) + "]", 1, limit[i]);
  return Dim3{d[0], d[1], d[2]};
}

}  // namespace

Workload loadWorkload(const std::string& path) {
  const toml::table root = parseTomlFile(path, "workload file");
  checkKeys(path, root, {"kernel"}, "the workload file");
  Workload w;
  w.path = path;
  const toml::node* kn = root.get("kernel");
  const toml::table* kt = kn ? kn->as_table() : nullptr;
  if (kn && !kt) failAt(path, kn->source(), "kernel: expected tables [kernel.NAME], found a " + std::string(tomlTypeName(*kn)));
  if (!kt || kt->empty()) throw InputError(path, 1, 0, "expected at least one [kernel.NAME] table");
  for (auto&& [key, node] : *kt) w.kernels.push_back(readKernel(path, std::string(key.str()), node));
  return w;
}

PreparedLaunch prepareLaunch(const WorkloadKernel& wk, const KernelInfo& k) {
  std::vector<ElemType> types = checkKernel(wk, k);
  PreparedLaunch out;
  // Expression variables take the kernel's parameter type: "a = 2" for a float param is 2.0.
  std::map<std::string, ExprValue> vars;
  for (size_t i = 0; i < k.params.size(); ++i) {
    const ParamInfo& p = k.params[i];
    if (p.is_pointer) continue;
    const WorkloadArg& a = *wk.findArg(p.name);
    bool f = isFloat(types[i]);
    vars[p.name] = f ? ExprValue::real(a.fvalue) : ExprValue::integer(a.ivalue);
    out.scalars[p.name] = f ? a.fvalue : static_cast<double>(a.ivalue);
  }
  const long long kMax = std::numeric_limits<long long>::max();
  for (size_t i = 0; i < k.params.size(); ++i) {
    const ParamInfo& p = k.params[i];
    const WorkloadArg& a = *wk.findArg(p.name);
    ParamSpec s;
    s.name = p.name;
    s.type = types[i];
    s.is_buffer = p.is_pointer;
    if (p.is_pointer) {
      s.size_bytes = 8;
      s.elements = static_cast<unsigned long long>(evalInt(wk, a.elements, vars, "args." + p.name + ".elements", 1, kMax));
      s.offset_elements = static_cast<unsigned long long>(evalInt(wk, a.offset, vars, "args." + p.name + ".offset", 0, kMax));
      s.output = a.output;
      if (a.init) s.init = *a.init;
      else s.init.kind = InitSpec::Poison;
    } else {
      s.size_bytes = p.size_bytes ? p.size_bytes : elemSize(s.type);
      if (isFloat(s.type)) s.fvalue = a.fvalue;
      else s.ivalue = a.ivalue;
    }
    out.params.push_back(s);
  }
  // CUDA's limits for every current GPU; a clear error here beats a launch failure in the runner.
  static const long long kGrid[3] = {2147483647LL, 65535, 65535}, kBlock[3] = {1024, 1024, 64};
  out.grid = evalDims(wk, wk.grid, vars, "grid", kGrid);
  out.block = evalDims(wk, wk.block, vars, "block", kBlock);
  long long threads = out.block.x * out.block.y * out.block.z;
  if (threads > 1024)
    throw InputError(wk.file, wk.block[0].line, wk.block[0].column,
                     "block: " + std::to_string(threads) + " threads per block; expected at most 1024");
  out.shmem = static_cast<unsigned>(evalInt(wk, wk.shmem, vars, "shmem", 0, std::numeric_limits<unsigned>::max()));
  out.tol = wk.check;
  out.timeout_s = wk.timeout_s.value_or(kDefaultTimeoutS);
  return out;
}

void validateWorkload(const Workload& w, const Manifest& m) {
  for (const auto& wk : w.kernels) {
    const KernelInfo* k = m.find(wk.name);
    if (!k) {
      std::vector<std::string> names;
      for (const auto& x : m.kernels) names.push_back(x.name);
      throw InputError(w.path, wk.line, wk.column,
                       "[kernel." + wk.name + "]: unknown kernel '" + wk.name + "'; the kernels of target '" + m.target +
                           "' are: " + joinNames(names));
    }
    // Evaluates every expression, so bad sizes surface here; a template kernel with the types of
    // the instantiation it is gated on.
    const TemplateInstance* ti = k->is_template ? workloadInstance(*k) : nullptr;
    prepareLaunch(wk, ti ? instantiate(*k, *ti) : *k);
  }
}

WorkloadFacts deriveFacts(const PreparedLaunch& launch) {
  WorkloadFacts f;
  f.any_overlap = false;  // every buffer is its own allocation, unless one aliases another
  for (const auto& p : launch.params) {
    if (!p.is_buffer) continue;
    unsigned long long bytes = p.offset_elements * elemSize(p.type);
    unsigned align = kAllocationAlignment;
    if (bytes != 0) align = static_cast<unsigned>(std::min<unsigned long long>(kAllocationAlignment, bytes & (~bytes + 1)));
    f.alignment[p.name] = align;
    if (!p.alias_of.empty()) f.any_overlap = true;  // a probe's (core/precondition_probes.h)
  }
  f.grid = launch.grid;
  f.block = launch.block;
  f.block_threads = launch.block.x * launch.block.y * launch.block.z;
  f.scalars = launch.scalars;
  return f;
}

}  // namespace klineage
