#include "core/launch_record.h"

#include <zlib.h>

#include <filesystem>
#include <fstream>

#include "core/fs.h"

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
unsigned long long unhex(const nlohmann::json& j) {
  if (j.is_number()) return j.get<unsigned long long>();
  return std::stoull(j.get<std::string>(), nullptr, 0);
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

void from_json(const nlohmann::json& j, LaunchRecord& r) {
  r = LaunchRecord{};
  if (j.value("format", "") != "klineage-launch-record-1") throw std::runtime_error("not a klineage-launch-record-1 file");
  r.kernel = j.value("kernel", "");
  r.mangled = j.at("mangled").get<std::string>();
  r.grid = j.at("grid").get<Dim3>();
  r.block = j.at("block").get<Dim3>();
  r.shmem = j.value("shmem", 0u);
  r.stream = j.contains("stream") ? unhex(j["stream"]) : 0;
  for (const auto& q : j.at("params")) {
    RecordedParam p;
    p.index = q.at("index").get<unsigned>();
    p.offset = q.at("offset").get<unsigned>();
    p.size = q.at("size").get<unsigned>();
    p.bytes_hex = q.at("bytes").get<std::string>();
    if (p.bytes_hex.size() != 2 * p.size) throw std::runtime_error("param " + std::to_string(p.index) + ": bytes do not match its size");
    if (q.contains("pointer") && !q["pointer"].is_null())
      p.pointer = RecordedPointer{q["pointer"].at("allocation").get<unsigned>(), q["pointer"].at("offset").get<unsigned long long>()};
    r.params.push_back(p);
  }
  for (const auto& x : j.at("allocations")) {
    RecordedAllocation a;
    a.id = x.at("id").get<unsigned>();
    a.base = unhex(x.at("base"));
    a.size = x.at("size").get<unsigned long long>();
    a.before = x.value("before", "");
    a.after = x.value("after", "");
    a.before_crc32 = x.value("before_crc32", 0u);
    a.after_crc32 = x.value("after_crc32", 0u);
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
  for (const auto& a : r.allocations) {
    for (auto [name, crc] : {std::pair{a.before, a.before_crc32}, std::pair{a.after, a.after_crc32}}) {
      if (name.empty()) continue;
      fs::path blob = fs::path(dir) / name;
      std::error_code ec;
      auto size = fs::file_size(blob, ec);
      if (ec) throw CorruptRecord(blob.string() + ": missing");
      if (size != a.size)
        throw CorruptRecord(blob.string() + ": " + std::to_string(size) + " bytes, the record says " + std::to_string(a.size));
      std::string data = readFile(blob);
      if (crc32Of(data.data(), data.size()) != crc) throw CorruptRecord(blob.string() + ": CRC-32 does not match the record");
    }
  }
  return r;
}

void saveRecord(const std::string& dir, const LaunchRecord& r) {
  atomicWrite(fs::path(dir) / "record.json", nlohmann::json(r).dump(2) + "\n");
}

}  // namespace klineage
