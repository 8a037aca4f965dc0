#include "core/launch_record.h"

#include <zlib.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "core/fs.h"
#include "core/manifest.h"

namespace klineage {
namespace fs = std::filesystem;

uint32_t crc32Of(const void* data, size_t n) {
  uLong c = ::crc32(0L, Z_NULL, 0);
  const Bytef* p = static_cast<const Bytef*>(data);
  while (n > 0) {  // zlib takes uInt lengths
    uInt chunk = n > (1u << 30) ? (1u << 30) : static_cast<uInt>(n);
    c = ::crc32(c, p, chunk);
    p += chunk;
    n -= chunk;
  }
  return static_cast<uint32_t>(c);
}

namespace {
std::string hex(unsigned long long v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", v);
  return b;
}
// A non-negative number that fits T (a float is truncated). nlohmann's get<unsigned>() wraps -1 and
// is undefined behaviour for a float out of range ("size": 1e300).
template <class T>
T count(const nlohmann::json& j, const char* what) {
  if (j.is_number_unsigned() && j.get<unsigned long long>() <= std::numeric_limits<T>::max())
    return static_cast<T>(j.get<unsigned long long>());
  if (j.is_number_float() && j.get<double>() >= 0 && j.get<double>() < std::ldexp(1.0, std::numeric_limits<T>::digits))
    return static_cast<T>(j.get<double>());
  if (j.is_number())
    throw std::runtime_error(std::string(what) + ": " + j.dump() + ": expected a non-negative integer up to " +
                             std::to_string(std::numeric_limits<T>::max()));
  return j.get<T>();  // not a number: nlohmann's type_error
}
template <class T>
T count(const nlohmann::json& obj, const char* key, T fallback) {
  return obj.contains(key) ? count<T>(obj[key], key) : fallback;
}
// Dim3's from_json reads long longs: a float entry must be in range.
const nlohmann::json& dims(const nlohmann::json& j, const char* what) {
  auto check = [&](const nlohmann::json& v) {
    if (v.is_number_float() && !(std::fabs(v.get<double>()) < std::ldexp(1.0, 63)))
      throw std::runtime_error(std::string(what) + ": " + v.dump() + ": expected an integer");
  };
  if (j.is_array())
    for (size_t i = 0; i < j.size() && i < 3; ++i) check(j[i]);
  else
    check(j);
  return j;
}
unsigned long long unhex(const nlohmann::json& j, const char* what) {
  if (j.is_number()) return count<unsigned long long>(j, what);
  const std::string s = j.get<std::string>();
  try {
    return std::stoull(s, nullptr, 0);
  } catch (const std::exception&) {  // std::invalid_argument / out_of_range say only "stoull"
    throw std::runtime_error(std::string(what) + ": \"" + s + "\": expected an address (\"0x...\" or a number)");
  }
}
}  // namespace

void to_json(nlohmann::json& j, const LaunchRecord& r) {
  nlohmann::json params = nlohmann::json::array();
  for (const auto& p : r.params) {
    nlohmann::json q = {{"index", p.index}, {"offset", p.offset}, {"size", p.size}, {"bytes", p.bytes_hex}};
    q["pointer"] = p.pointer ? nlohmann::json{{"allocation", p.pointer->allocation}, {"offset", p.pointer->offset}}
                             : nlohmann::json(nullptr);
    params.push_back(q);
  }
  nlohmann::json allocs = nlohmann::json::array();
  for (const auto& a : r.allocations)
    allocs.push_back({{"id", a.id}, {"base", hex(a.base)}, {"size", a.size}, {"before", a.before},
                      {"before_crc32", a.before_crc32}, {"after", a.after}, {"after_crc32", a.after_crc32}});
  j = {{"format", "klineage-launch-record-1"}, {"kernel", r.kernel}, {"mangled", r.mangled}, {"grid", r.grid},
       {"block", r.block}, {"shmem", r.shmem}, {"stream", hex(r.stream)}, {"params", params}, {"allocations", allocs}};
}

std::string recordContentKey(const LaunchRecord& r, bool with_after) {
  nlohmann::json j = r;
  j.erase("stream");
  for (auto& q : j["params"])
    if (!q["pointer"].is_null()) q.erase("bytes");  // the address; the replay re-bases it
  for (auto& a : j["allocations"]) {
    a.erase("base");
    if (!with_after) a.erase("after_crc32");
  }
  return fnv1a64Hex(j.dump());
}

void from_json(const nlohmann::json& j, LaunchRecord& r) {
  r = LaunchRecord{};
  if (j.value("format", "") != "klineage-launch-record-1") throw std::runtime_error("not a klineage-launch-record-1 file");
  r.kernel = j.value("kernel", "");
  r.mangled = j.at("mangled").get<std::string>();
  r.grid = dims(j.at("grid"), "grid").get<Dim3>();
  r.block = dims(j.at("block"), "block").get<Dim3>();
  r.shmem = count(j, "shmem", 0u);
  r.stream = j.contains("stream") ? unhex(j["stream"], "stream") : 0;
  for (const auto& q : j.at("params")) {
    RecordedParam p;
    p.index = count<unsigned>(q.at("index"), "index");
    p.offset = count<unsigned>(q.at("offset"), "offset");
    p.size = count<unsigned>(q.at("size"), "size");
    p.bytes_hex = q.at("bytes").get<std::string>();
    // 2ull: in unsigned, 2 * p.size wraps to 0 for 2^31 and an empty "bytes" would pass.
    if (p.bytes_hex.size() != 2ull * p.size) throw std::runtime_error("param " + std::to_string(p.index) + ": bytes do not match its size");
    if (q.contains("pointer") && !q["pointer"].is_null())
      p.pointer = RecordedPointer{count<unsigned>(q["pointer"].at("allocation"), "allocation"),
                                  count<unsigned long long>(q["pointer"].at("offset"), "offset")};
    r.params.push_back(p);
  }
  for (const auto& x : j.at("allocations")) {
    RecordedAllocation a;
    a.id = count<unsigned>(x.at("id"), "id");
    a.base = unhex(x.at("base"), "base");
    a.size = count<unsigned long long>(x.at("size"), "size");
    a.before = x.value("before", "");
    a.after = x.value("after", "");
    for (const std::string* blob : {&a.before, &a.after})  // "/", "../x" would read outside the record
      if (blob->find_first_of(std::string("/\0", 2)) != std::string::npos || *blob == "." || *blob == "..")
        throw std::runtime_error("allocation " + std::to_string(a.id) + ": blob \"" + *blob +
                                 "\": expected a file name in the record's directory");
    a.before_crc32 = count(x, "before_crc32", 0u);
    a.after_crc32 = count(x, "after_crc32", 0u);
    r.allocations.push_back(a);
  }
  for (const auto& p : r.params)
    if (p.pointer && p.pointer->allocation >= r.allocations.size())
      throw std::runtime_error("param " + std::to_string(p.index) + " points into a missing allocation");
}

void to_json(nlohmann::json& j, const CaptureSummary& s) {
  j = {{"format", "klineage-capture-1"}, {"command", s.command}, {"exit_code", s.exit_code}, {"log", s.log},
       {"kernels_expected", s.kernels_expected}, {"kernels_seen", s.kernels_seen}, {"records", s.records},
       {"skipped", s.skipped}, {"bytes", s.bytes}};
}
void from_json(const nlohmann::json& j, CaptureSummary& s) {
  s.command = j.value("command", std::vector<std::string>{});
  s.exit_code = j.value("exit_code", 0);
  s.log = j.value("log", "");
  s.kernels_expected = j.value("kernels_expected", std::vector<std::string>{});
  s.kernels_seen = j.value("kernels_seen", std::vector<std::string>{});
  s.records = j.value("records", std::vector<std::string>{});
  s.skipped = j.value("skipped", std::vector<std::string>{});
  s.bytes = j.value("bytes", 0ull);
}

LaunchRecord loadRecord(const std::string& dir, bool verify_blobs) {
  fs::path file = fs::path(dir) / "record.json";
  LaunchRecord r;
  try {
    r = nlohmann::json::parse(readFile(file)).get<LaunchRecord>();
  } catch (const std::exception& e) {
    throw CorruptRecord(file.string() + ": " + e.what());
  }
  r.dir = fs::absolute(dir).string();
  if (!verify_blobs) return r;
  checkBlobSizes(r);
  for (const auto& a : r.allocations) {
    // An unchanged allocation's after blob is its before blob (stored once): verified once.
    const bool shared = a.after == a.before && a.after_crc32 == a.before_crc32;
    for (auto [name, crc] : {std::pair{a.before, a.before_crc32}, std::pair{shared ? std::string() : a.after, a.after_crc32}}) {
      if (name.empty()) continue;
      fs::path blob = fs::path(dir) / name;
      std::string data = readFile(blob);
      if (crc32Of(data.data(), data.size()) != crc) throw CorruptRecord(blob.string() + ": CRC-32 does not match the record");
    }
  }
  return r;
}

void checkBlobSizes(const LaunchRecord& r, bool with_after) {
  for (const auto& a : r.allocations)
    for (const std::string& name : {a.before, with_after ? a.after : std::string()}) {
      if (name.empty()) continue;
      const fs::path blob = fs::path(r.dir) / name;
      std::error_code ec;
      const auto size = fs::file_size(blob, ec);
      if (ec) throw CorruptRecord(blob.string() + ": missing");
      if (size != a.size)
        throw CorruptRecord(blob.string() + ": " + std::to_string(size) + " bytes, the record says " + std::to_string(a.size));
    }
}

void saveRecord(const std::string& dir, const LaunchRecord& r) {
  atomicWrite(fs::path(dir) / "record.json", nlohmann::json(r).dump(2) + "\n");
}

}  // namespace klineage
