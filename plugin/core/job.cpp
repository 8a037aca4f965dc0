#include "core/job.h"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace klineage {

namespace {
struct TypeRow {
  ElemType t;
  const char* name;
  unsigned size;
  bool is_float;
};
const TypeRow kTypes[] = {
    {ElemType::F32, "f32", 4, true},  {ElemType::F64, "f64", 8, true},  {ElemType::I8, "i8", 1, false},
    {ElemType::U8, "u8", 1, false},   {ElemType::I16, "i16", 2, false}, {ElemType::U16, "u16", 2, false},
    {ElemType::I32, "i32", 4, false}, {ElemType::U32, "u32", 4, false}, {ElemType::I64, "i64", 8, false},
    {ElemType::U64, "u64", 8, false},
};
const TypeRow& row(ElemType t) {
  for (const auto& r : kTypes)
    if (r.t == t) return r;
  return kTypes[0];
}
std::string normalize(std::string s) {
  // drop qualifiers and collapse spaces: "const unsigned  int" -> "unsigned int"
  for (const char* q : {"const ", "volatile ", "__restrict__ ", "__restrict ", "struct "}) {
    size_t p;
    while ((p = s.find(q)) != std::string::npos) s.erase(p, std::char_traits<char>::length(q));
  }
  std::string out;
  bool space = false;
  for (char c : s) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = !out.empty();
    } else {
      if (space) out += ' ';
      space = false;
      out += c;
    }
  }
  return out;
}
}  // namespace

std::optional<ElemType> elemTypeFromCType(const std::string& ctype) {
  std::string t = normalize(ctype);
  static const std::pair<const char*, ElemType> names[] = {
      {"float", ElemType::F32}, {"double", ElemType::F64}, {"char", ElemType::I8},
      {"signed char", ElemType::I8}, {"int8_t", ElemType::I8}, {"unsigned char", ElemType::U8},
      {"uint8_t", ElemType::U8}, {"uchar", ElemType::U8}, {"short", ElemType::I16}, {"int16_t", ElemType::I16},
      {"unsigned short", ElemType::U16}, {"uint16_t", ElemType::U16}, {"int", ElemType::I32},
      {"signed int", ElemType::I32}, {"int32_t", ElemType::I32}, {"unsigned int", ElemType::U32},
      {"unsigned", ElemType::U32}, {"uint32_t", ElemType::U32}, {"uint", ElemType::U32},
      {"long", ElemType::I64}, {"long int", ElemType::I64}, {"long long", ElemType::I64},
      {"long long int", ElemType::I64}, {"int64_t", ElemType::I64}, {"ptrdiff_t", ElemType::I64},
      {"unsigned long", ElemType::U64}, {"unsigned long int", ElemType::U64},
      {"unsigned long long", ElemType::U64}, {"unsigned long long int", ElemType::U64},
      {"uint64_t", ElemType::U64}, {"size_t", ElemType::U64}, {"std::size_t", ElemType::U64},
      {"bool", ElemType::U8}};
  for (const auto& [n, e] : names)
    if (t == n) return e;
  return std::nullopt;
}
const char* elemTypeName(ElemType t) { return row(t).name; }
std::optional<ElemType> elemTypeFromName(const std::string& name) {
  for (const auto& r : kTypes)
    if (name == r.name) return r.t;
  return std::nullopt;
}
unsigned elemSize(ElemType t) { return row(t).size; }
bool isFloat(ElemType t) { return row(t).is_float; }

Dim3 applyGrid(const GeometryChange& g, Dim3 grid) {
  const long long d = g.grid_x_divisor ? g.grid_x_divisor : 1;
  grid.x = (grid.x * g.grid_x_multiplier + d - 1) / d;
  const long long dy = g.grid_y_divisor ? g.grid_y_divisor : 1;
  grid.y = (grid.y * g.grid_y_multiplier + dy - 1) / dy;
  if (grid.x < 1) grid.x = 1;
  if (grid.y < 1) grid.y = 1;
  return grid;
}
std::string geometryText(const GeometryChange& g) {
  std::vector<std::string> parts;
  if (g.grid_x_multiplier != 1 || g.grid_x_divisor != 1) {
    std::string x = "grid.x";
    if (g.grid_x_multiplier != 1) x += "*" + std::to_string(g.grid_x_multiplier);
    if (g.grid_x_divisor != 1) x += "/" + std::to_string(g.grid_x_divisor);
    parts.push_back(x);
  }
  if (g.grid_y_multiplier != 1 || g.grid_y_divisor != 1) {
    std::string y = "grid.y";
    if (g.grid_y_multiplier != 1) y += "*" + std::to_string(g.grid_y_multiplier);
    if (g.grid_y_divisor != 1) y += "/" + std::to_string(g.grid_y_divisor);
    parts.push_back(y);
  }
  if (g.block_x && g.block_y) parts.push_back("block " + std::to_string(*g.block_x) + "x" + std::to_string(*g.block_y));
  else if (g.block_x) parts.push_back("block.x " + std::to_string(*g.block_x));
  else if (g.block_y) parts.push_back("block.y " + std::to_string(*g.block_y));
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

std::string dimText(const Dim3& d) {
  if (d.y == 1 && d.z == 1) return std::to_string(d.x);
  return "[" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + "]";
}

Dim3 applyBlock(const GeometryChange& g, Dim3 block) {
  if (g.block_x) block.x = *g.block_x;
  if (g.block_y) block.y = *g.block_y;
  return block;
}

void to_json(nlohmann::json& j, const Dim3& d) { j = nlohmann::json::array({d.x, d.y, d.z}); }
void from_json(const nlohmann::json& j, Dim3& d) {
  d = Dim3{};
  if (j.is_number()) {
    d.x = j.get<long long>();
    return;
  }
  if (j.size() > 0) d.x = j.at(0).get<long long>();
  if (j.size() > 1) d.y = j.at(1).get<long long>();
  if (j.size() > 2) d.z = j.at(2).get<long long>();
}

void to_json(nlohmann::json& j, const GeometryChange& g) {
  j = {{"grid_x_divisor", g.grid_x_divisor},
       {"grid_x_multiplier", g.grid_x_multiplier},
       {"grid_y_divisor", g.grid_y_divisor}};
  if (g.grid_y_multiplier != 1) j["grid_y_multiplier"] = g.grid_y_multiplier;
  j["block_x"] = g.block_x ? nlohmann::json(*g.block_x) : nlohmann::json(nullptr);
  j["block_y"] = g.block_y ? nlohmann::json(*g.block_y) : nlohmann::json(nullptr);
}
void from_json(const nlohmann::json& j, GeometryChange& g) {
  g.grid_x_divisor = j.value("grid_x_divisor", 1u);
  g.grid_x_multiplier = j.value("grid_x_multiplier", 1u);
  g.grid_y_divisor = j.value("grid_y_divisor", 1u);
  g.grid_y_multiplier = j.value("grid_y_multiplier", 1u);
  if (j.contains("block_x") && !j.at("block_x").is_null()) g.block_x = j.at("block_x").get<long long>();
  if (j.contains("block_y") && !j.at("block_y").is_null()) g.block_y = j.at("block_y").get<long long>();
}

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(TimingStats, median_ms, p10_ms, p90_ms, min_ms, runs, samples_ms)

static const char* initName(InitSpec::Kind k) {
  switch (k) {
    case InitSpec::Uniform: return "uniform";
    case InitSpec::Constant: return "constant";
    case InitSpec::Iota: return "iota";
    case InitSpec::Zeros: return "zeros";
    case InitSpec::Poison: return "poison";
  }
  return "zeros";
}

namespace {
nlohmann::json paramsToJson(const std::vector<ParamSpec>& ps) {
  nlohmann::json params = nlohmann::json::array();
  for (const auto& p : ps) {
    nlohmann::json q = {{"name", p.name}, {"kind", p.is_buffer ? "buffer" : "scalar"},
                        {"type", elemTypeName(p.type)}, {"size_bytes", p.size_bytes}};
    if (p.is_buffer) {
      q["elements"] = p.elements;
      q["offset_elements"] = p.offset_elements;
      q["init"] = {{"kind", initName(p.init.kind)}, {"lo", p.init.lo}, {"hi", p.init.hi}, {"value", p.init.value}};
      q["output"] = p.output;
      if (!p.alias_of.empty()) q["alias_of"] = p.alias_of;
    } else if (isFloat(p.type)) {
      q["value"] = p.fvalue;
    } else {
      q["value"] = p.ivalue;
    }
    params.push_back(q);
  }
  return params;
}

std::vector<ParamSpec> paramsFromJson(const nlohmann::json& param_list);

nlohmann::json geometryToJson(const Geometry& g) { return {{"grid", g.grid}, {"block", g.block}, {"shmem", g.shmem}}; }
Geometry geometryFromJson(const nlohmann::json& l) {
  Geometry g;
  if (l.contains("grid")) g.grid = l.at("grid").get<Dim3>();
  if (l.contains("block")) g.block = l.at("block").get<Dim3>();
  g.shmem = l.value("shmem", 0u);
  return g;
}
}  // namespace

void to_json(nlohmann::json& j, const ErrorNorms& e) { j = {{"max_rel", e.max_rel}, {"l2_rel", e.l2_rel}}; }
void from_json(const nlohmann::json& j, ErrorNorms& e) {
  e.max_rel = j.value("max_rel", 0.0);
  e.l2_rel = j.value("l2_rel", 0.0);
}

void to_json(nlohmann::json& j, const RunnerJob& job) {
  auto launch = [](const LaunchSpec& l) {
    nlohmann::json x{{"cubin", l.cubin}, {"function", l.function}, {"grid", l.grid},
                     {"block", l.block}, {"shmem", l.shmem}};
    if (l.globals) {
      x["globals"] = nlohmann::json::array();
      for (const auto& g : *l.globals) x["globals"].push_back({{"name", g.name}, {"bytes", g.bytes}});
    }
    return x;
  };
  nlohmann::json probes = nlohmann::json::array();
  for (const auto& p : job.probes)
    probes.push_back({{"name", p.name}, {"params", paramsToJson(p.params)},
                      {"original", geometryToJson(p.original)}, {"variant", geometryToJson(p.variant)}});
  j = {{"format", "klineage-runner-job-1"},
       {"original", launch(job.original)},
       {"variant", launch(job.variant)},
       {"params", paramsToJson(job.params)},
       {"seeds", job.seeds},
       {"random_seeds", job.random_seeds},
       {"probes", probes},
       {"guard_bytes", job.guard_bytes},
       {"launch_timeout_s", job.launch_timeout_s},
       {"tolerance", {{"rtol", job.tolerance.rtol}, {"atol", job.tolerance.atol}}},
       {"profile",
        {{"enabled", job.profile.enabled}, {"warmup", job.profile.warmup}, {"min_runs", job.profile.min_runs},
         {"min_ms", job.profile.min_ms}, {"max_ms", job.profile.max_ms}, {"max_runs", job.profile.max_runs},
         {"flush_bytes", job.profile.flush_bytes}, {"check_runs", job.profile.check_runs}}}};
  if (job.replay) {  // absent otherwise, so declared-workload jobs read as before
    nlohmann::json types = nlohmann::json::array();
    for (const auto& t : job.replay->param_elem_types)
      types.push_back(t ? nlohmann::json(elemTypeName(*t)) : nlohmann::json(nullptr));
    j["replay"] = {{"record_dir", job.replay->record_dir}, {"param_elem_types", types},
                   {"param_names", job.replay->param_names},
                   {"check_fidelity", job.replay->check_fidelity}, {"determinism_runs", job.replay->determinism_runs}};
    if (job.replay->misalign_bytes) j["replay"]["misalign_bytes"] = job.replay->misalign_bytes;
  }
  if (job.oracle)
    j["oracle"] = {{"cubin", job.oracle->cubin}, {"function", job.oracle->function},
                   {"k", job.oracle->rule.k}, {"floor_ulps", job.oracle->rule.floor_ulps}};
  else if (!job.oracle_none.empty())
    j["oracle"] = {{"none", job.oracle_none}};
}

namespace {
std::vector<ParamSpec> paramsFromJson(const nlohmann::json& param_list) {
  std::vector<ParamSpec> out;
  for (const auto& q : param_list) {
    ParamSpec p;
    p.name = q.value("name", "");
    p.is_buffer = q.value("kind", "scalar") == "buffer";
    auto t = elemTypeFromName(q.value("type", "f32"));
    if (!t) throw std::runtime_error("runner job: unknown element type '" + q.value("type", "") + "'");
    p.type = *t;
    p.size_bytes = q.value("size_bytes", elemSize(p.type));
    if (p.is_buffer) {
      p.elements = q.value("elements", 0ull);
      p.offset_elements = q.value("offset_elements", 0ull);
      p.output = q.value("output", false);
      p.alias_of = q.value("alias_of", "");
      if (q.contains("init")) {
        const auto& in = q.at("init");
        std::string k = in.value("kind", "zeros");
        for (auto kind : {InitSpec::Uniform, InitSpec::Constant, InitSpec::Iota, InitSpec::Zeros, InitSpec::Poison})
          if (k == initName(kind)) p.init.kind = kind;
        p.init.lo = in.value("lo", 0.0);
        p.init.hi = in.value("hi", 1.0);
        p.init.value = in.value("value", 0.0);
      }
    } else if (isFloat(p.type)) {
      p.fvalue = q.value("value", 0.0);
    } else {
      p.ivalue = q.value("value", 0ll);
    }
    out.push_back(p);
  }
  return out;
}
}  // namespace

void from_json(const nlohmann::json& j, RunnerJob& job) {
  auto launch = [](const nlohmann::json& l) {
    LaunchSpec s;
    s.cubin = l.value("cubin", "");
    s.function = l.value("function", "");
    const Geometry g = geometryFromJson(l);
    s.grid = g.grid;
    s.block = g.block;
    s.shmem = g.shmem;
    if (l.contains("globals")) {
      s.globals.emplace();
      for (const auto& x : l.at("globals")) s.globals->push_back({x.at("name").get<std::string>(), x.at("bytes").get<unsigned long long>()});
    }
    return s;
  };
  job = RunnerJob{};
  job.original = launch(j.at("original"));
  job.variant = launch(j.at("variant"));
  // A replay job needs no params; any other job must have them.
  const nlohmann::json no_params = nlohmann::json::array();
  job.params = paramsFromJson(j.contains("replay") && !j.contains("params") ? no_params : j.at("params"));
  for (const auto& q : j.value("probes", nlohmann::json::array())) {
    ProbeSpec p;
    p.name = q.value("name", "");
    p.params = paramsFromJson(q.at("params"));
    p.original = geometryFromJson(q.at("original"));
    p.variant = geometryFromJson(q.at("variant"));
    job.probes.push_back(std::move(p));
  }
  job.random_seeds = j.value("random_seeds", 1u);
  job.guard_bytes = j.value("guard_bytes", kDefaultGuardBytes);
  job.launch_timeout_s = j.value("launch_timeout_s", 0.0);
  job.seeds = j.value("seeds", std::vector<uint64_t>{1, 2});
  if (j.contains("tolerance")) {
    job.tolerance.rtol = j["tolerance"].value("rtol", 1e-5);
    job.tolerance.atol = j["tolerance"].value("atol", 1e-6);
  }
  if (j.contains("profile")) {
    const auto& p = j.at("profile");
    const ProfileSpec d;  // the defaults live in one place: job.h
    job.profile.enabled = p.value("enabled", d.enabled);
    job.profile.warmup = p.value("warmup", d.warmup);
    job.profile.min_runs = p.value("min_runs", d.min_runs);
    job.profile.min_ms = p.value("min_ms", d.min_ms);
    job.profile.max_ms = p.value("max_ms", d.max_ms);
    job.profile.max_runs = p.value("max_runs", d.max_runs);
    job.profile.flush_bytes = p.value("flush_bytes", d.flush_bytes);
    job.profile.check_runs = p.value("check_runs", d.check_runs);
  }
  if (j.contains("replay") && !j.at("replay").is_null()) {
    const auto& r = j.at("replay");
    ReplaySpec spec;
    spec.record_dir = r.value("record_dir", "");
    if (r.contains("param_elem_types")) {
      size_t i = 0;
      for (const auto& t : r.at("param_elem_types")) {
        if (t.is_null()) {
          spec.param_elem_types.push_back(std::nullopt);
        } else {
          auto e = t.is_string() ? elemTypeFromName(t.get<std::string>()) : std::nullopt;
          if (!e)
            throw std::runtime_error("runner job: replay.param_elem_types[" + std::to_string(i) + "] is " + t.dump() +
                                     ", not null or one of f32, f64, i8, u8, i16, u16, i32, u32, i64, u64");
          spec.param_elem_types.push_back(e);
        }
        ++i;
      }
    }
    spec.param_names = r.value("param_names", std::vector<std::string>{});
    spec.check_fidelity = r.value("check_fidelity", true);
    spec.determinism_runs = r.value("determinism_runs", 2u);
    spec.misalign_bytes = r.value("misalign_bytes", 0u);
    if (spec.misalign_bytes != 0 && spec.misalign_bytes != 8)
      throw std::runtime_error("runner job: replay.misalign_bytes is " + std::to_string(spec.misalign_bytes) +
                               ", not 0 or 8");
    job.replay = std::move(spec);
  }
  if (j.contains("oracle") && !j.at("oracle").is_null()) {
    const auto& o = j.at("oracle");
    if (o.contains("none")) {
      job.oracle_none = o.at("none").get<std::string>();
    } else {
      OracleSpec spec;
      spec.cubin = o.value("cubin", "");
      spec.function = o.value("function", "");
      const OracleRule d;
      spec.rule.k = o.value("k", d.k);
      spec.rule.floor_ulps = o.value("floor_ulps", d.floor_ulps);
      if (!(spec.rule.k >= 1) || !(spec.rule.floor_ulps >= 0))
        throw std::runtime_error("runner job: oracle.k must be >= 1 and oracle.floor_ulps >= 0");
      job.oracle = std::move(spec);
    }
  }
}

const char* runStatusName(RunStatus s) {
  switch (s) {
    case RunStatus::Ok: return "ok";
    case RunStatus::NoDevice: return "no-device";
    case RunStatus::Error: return "error";
  }
  return "error";
}

void to_json(nlohmann::json& j, const RunnerResult& r) {
  nlohmann::json cmp = nlohmann::json::array();
  for (const auto& c : r.compares) {
    nlohmann::json x = {{"param", c.param}, {"ok", c.ok}, {"mismatches", c.mismatches},
                        {"max_abs_err", c.max_abs_err}, {"max_rel_err", c.max_rel_err},
                        {"expected", c.expected}, {"actual", c.actual}};
    x["first_mismatch"] = c.first_mismatch ? nlohmann::json(*c.first_mismatch) : nlohmann::json(nullptr);
    x["samples"] = nlohmann::json::array();
    for (const auto& smp : c.samples)
      x["samples"].push_back({{"index", smp.index}, {"expected", smp.expected}, {"actual", smp.actual}});
    if (c.error_original && c.error_variant)
      x["error"] = {{"original", *c.error_original}, {"variant", *c.error_variant}, {"detail", c.oracle_detail}};
    cmp.push_back(x);
  }
  j = {{"format", "klineage-runner-result-1"}, {"status", runStatusName(r.status)}, {"outcome", outcomeName(r.outcome)},
       {"reason", r.reason}, {"device", r.device}, {"compares", cmp}, {"speedup", r.speedup}, {"noise", r.noise}};
  if (!r.oracle.empty()) j["oracle"] = r.oracle;
  j["original_time"] = r.original_time ? nlohmann::json(*r.original_time) : nlohmann::json(nullptr);
  j["variant_time"] = r.variant_time ? nlohmann::json(*r.variant_time) : nlohmann::json(nullptr);
  j["fidelity_ok"] = r.fidelity_ok ? nlohmann::json(*r.fidelity_ok) : nlohmann::json(nullptr);
  j["fidelity_reason"] = r.fidelity_reason;
  j["nondeterministic"] = r.nondeterministic;
  j["widened_atol"] = r.widened_atol;
  j["widened_rtol"] = r.widened_rtol;
  j["seeds_used"] = r.seeds_used;
  j["timed_runs_checked"] = r.timed_runs_checked;
  j["timed_runs_checked_on_gpu"] = r.timed_runs_checked_on_gpu;
  j["probes_checked"] = r.probes_checked;
  j["input_sets_checked_on_gpu"] = r.input_sets_checked_on_gpu;
  j["probes_checked_on_gpu"] = r.probes_checked_on_gpu;
  if (!r.original_failed_probe.empty()) j["original_failed_probe"] = r.original_failed_probe;
}

void from_json(const nlohmann::json& j, RunnerResult& r) {
  r = RunnerResult{};
  {
    const std::string st = j.value("status", "error");
    r.status = st == "ok" ? RunStatus::Ok : st == "no-device" ? RunStatus::NoDevice : RunStatus::Error;
  }
  r.outcome = outcomeFromName(j.value("outcome", "not-run"));
  r.reason = j.value("reason", "");
  r.device = j.value("device", "");
  r.oracle = j.value("oracle", "");
  for (const auto& x : j.value("compares", nlohmann::json::array())) {
    BufferCompare c;
    c.param = x.value("param", "");
    c.ok = x.value("ok", false);
    c.mismatches = x.value("mismatches", 0ull);
    c.max_abs_err = x.value("max_abs_err", 0.0);
    c.max_rel_err = x.value("max_rel_err", 0.0);
    c.expected = x.value("expected", "");
    c.actual = x.value("actual", "");
    if (x.contains("first_mismatch") && !x["first_mismatch"].is_null())
      c.first_mismatch = x["first_mismatch"].get<unsigned long long>();
    for (const auto& smp : x.value("samples", nlohmann::json::array()))
      c.samples.push_back({smp.value("index", 0ull), smp.value("expected", ""), smp.value("actual", "")});
    if (x.contains("error") && x["error"].is_object()) {
      c.error_original = x["error"].value("original", ErrorNorms{});
      c.error_variant = x["error"].value("variant", ErrorNorms{});
      c.oracle_detail = x["error"].value("detail", "");
    }
    r.compares.push_back(c);
  }
  r.speedup = j.value("speedup", 0.0);
  r.noise = j.value("noise", 0.0);
  if (j.contains("original_time") && !j["original_time"].is_null()) r.original_time = j["original_time"].get<TimingStats>();
  if (j.contains("variant_time") && !j["variant_time"].is_null()) r.variant_time = j["variant_time"].get<TimingStats>();
  if (j.contains("fidelity_ok") && !j["fidelity_ok"].is_null()) r.fidelity_ok = j["fidelity_ok"].get<bool>();
  r.fidelity_reason = j.value("fidelity_reason", "");
  r.nondeterministic = j.value("nondeterministic", false);
  r.widened_atol = j.value("widened_atol", 0.0);
  r.widened_rtol = j.value("widened_rtol", 0.0);
  r.seeds_used = j.value("seeds_used", std::vector<uint64_t>{});
  r.timed_runs_checked = j.value("timed_runs_checked", 0u);
  r.timed_runs_checked_on_gpu = j.value("timed_runs_checked_on_gpu", 0u);
  r.probes_checked = j.value("probes_checked", 0u);
  r.input_sets_checked_on_gpu = j.value("input_sets_checked_on_gpu", 0u);
  r.probes_checked_on_gpu = j.value("probes_checked_on_gpu", 0u);
  r.original_failed_probe = j.value("original_failed_probe", std::string());
}

}  // namespace klineage
