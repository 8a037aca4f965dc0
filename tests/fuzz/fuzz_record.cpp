// Fuzzes the launch-record reader (core/launch_record.h loadRecord): the input is a record.json,
// optionally followed by blob files, each introduced by a line "@@ NAME" (NAME: 1-32 of
// [A-Za-z0-9._-], not "record.json"; other "@@" lines are part of the previous file):
//   {"format": "klineage-launch-record-1", ... "before": "a0.before.bin", ...}
//   @@ a0.before.bin
//   <the blob's bytes>
// The input is written to a fresh directory each time and loaded with and without blob checks.
#include "fuzz_common.h"

#include <cctype>
#include <cstring>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/launch_record.h"

using namespace klineage;
namespace fs = std::filesystem;

namespace {

bool validName(std::string_view n) {
  if (n.empty() || n.size() > 32 || n == "." || n == ".." || n == "record.json") return false;
  for (char c : n)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) return false;
  return true;
}

// Splits the input into record.json and named blobs, and writes them to `dir`.
void writeRecordDir(const fs::path& dir, std::string_view in) {
  std::vector<std::pair<std::string, std::string_view>> files;
  std::string name = "record.json";
  size_t start = 0, pos = 0;
  while ((pos = in.find("\n@@ ", pos)) != std::string_view::npos) {
    size_t eol = in.find('\n', pos + 4);
    std::string_view n = in.substr(pos + 4, (eol == std::string_view::npos ? in.size() : eol) - (pos + 4));
    if (eol == std::string_view::npos || !validName(n)) {
      pos += 1;
      continue;
    }
    files.emplace_back(name, in.substr(start, pos - start));
    name = std::string(n);
    start = pos = eol + 1;
  }
  files.emplace_back(name, in.substr(start));
  for (const auto& [n, content] : files) fuzz::writeFile(dir / n, content.data(), content.size());
}

void requireCorrupt(const CorruptRecord& e, const fs::path& dir) {
  // Names record.json or the blob that does not match, both in the record's directory.
  fuzz::requireNames(e.what(), dir.string() + "/", "CorruptRecord");
}

// What loadRecord promises about a record it returns (launch_record.cpp from_json).
void checkAccepted(const LaunchRecord& r, const fs::path& dir) {
  for (const auto& p : r.params) {
    if (p.bytes_hex.size() != 2ull * p.size)
      fuzz::fail("accepted param " + std::to_string(p.index) + " of size " + std::to_string(p.size) + " with " +
                 std::to_string(p.bytes_hex.size()) + " hex digits");
    if (p.pointer && p.pointer->allocation >= r.allocations.size())
      fuzz::fail("accepted param " + std::to_string(p.index) + " pointing into missing allocation " +
                 std::to_string(p.pointer->allocation));
  }
  if (r.dir != fs::absolute(dir).string()) fuzz::fail("record dir " + r.dir + ", expected " + dir.string());
  // Writing it back gives a record that loads again, unchanged (what saveRecord/replay rely on).
  nlohmann::json j;
  try {
    j = r;
    LaunchRecord again = nlohmann::json::parse(j.dump()).get<LaunchRecord>();
    if (nlohmann::json(again) != j) fuzz::fail("record changes when written and read back: " + j.dump());
  } catch (const std::exception& e) {
    fuzz::fail(std::string("an accepted record does not read back after writing: ") + e.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const fs::path dir = fuzz::scratch() / "record";
  fs::remove_all(dir);
  fs::create_directories(dir);
  writeRecordDir(dir, std::string_view(reinterpret_cast<const char*>(data), size));

  for (bool verify : {false, true}) {
    try {
      LaunchRecord r = loadRecord(dir.string(), verify);
      checkAccepted(r, dir);
      fuzz::verdict(std::string(verify ? "blobs checked" : "json only") + ": accepted " + r.kernel);
    } catch (const CorruptRecord& e) {
      requireCorrupt(e, dir);
      fuzz::verdict(std::string(verify ? "blobs checked" : "json only") + ": rejected: " + e.what());
    } catch (const std::exception& e) {
      fuzz::unexpected(e, verify ? "loadRecord" : "loadRecord(verify_blobs = false)");
    }
  }
  return 0;
}
