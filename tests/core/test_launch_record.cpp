#include <catch2/catch.hpp>

#include "support/temp_dir.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/fs.h"
#include "core/launch_record.h"

using namespace klineage;
namespace fs = std::filesystem;

namespace {

struct TempDir : test::TempDir {
  TempDir() : test::TempDir("record") {}
};

std::string bytes(size_t n, unsigned seed) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 131 + seed * 7) & 0xff);
  return s;
}

void writeBlob(const fs::path& p, const std::string& data) {
  std::ofstream out(p, std::ios::binary);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
}

// A saxpy launch: n, a, x (offset 0 into allocation 0), y (offset 64 into allocation 1).
LaunchRecord sampleRecord(const fs::path& dir) {
  LaunchRecord r;
  r.kernel = "saxpy";
  r.mangled = "_Z5saxpyifPKfPf";
  r.grid = {4096, 1, 1};
  r.block = {256, 2, 1};
  r.shmem = 128;
  r.stream = 0x7f00deadbeefull;
  r.params = {{0, 0, 4, "00100000", std::nullopt},
              {1, 4, 4, "00000040", std::nullopt},
              {2, 8, 8, "00001000007f0000", RecordedPointer{0, 0}},
              {3, 16, 8, "40001000007f0000", RecordedPointer{1, 64}}};
  std::string x = bytes(4096, 1), y0 = bytes(1000, 2), y1 = bytes(1000, 3);
  writeBlob(dir / "a0.before.bin", x);
  writeBlob(dir / "a0.after.bin", x);
  writeBlob(dir / "a1.before.bin", y0);
  writeBlob(dir / "a1.after.bin", y1);
  RecordedAllocation a0{0, 0x7f0000100000ull, 4096, "a0.before.bin", "a0.after.bin", crc32Of(x.data(), x.size()),
                        crc32Of(x.data(), x.size())};
  RecordedAllocation a1{1, 0x7f0000100000ull + 0x40000, 1000, "a1.before.bin", "a1.after.bin",
                        crc32Of(y0.data(), y0.size()), crc32Of(y1.data(), y1.size())};
  r.allocations = {a0, a1};
  return r;
}

// Runs f and expects CorruptRecord whose message names `file`.
template <class F>
void requireCorrupt(F f, const fs::path& file, const std::string& what) {
  try {
    f();
    FAIL("no CorruptRecord thrown (" << what << ")");
  } catch (const CorruptRecord& e) {
    INFO(what << ": " << e.what());
    CHECK(std::string(e.what()).find(file.string()) != std::string::npos);
  }
}

}  // namespace

TEST_CASE("launch record: save and load round trip with verified blobs", "[launch_record]") {
  TempDir t;
  LaunchRecord r = sampleRecord(t.path);
  saveRecord(t.path.string(), r);
  REQUIRE(fs::exists(t.path / "record.json"));

  LaunchRecord l = loadRecord(t.path.string());
  CHECK(l.kernel == "saxpy");
  CHECK(l.mangled == "_Z5saxpyifPKfPf");
  CHECK(l.grid == Dim3{4096, 1, 1});
  CHECK(l.block == Dim3{256, 2, 1});
  CHECK(l.shmem == 128);
  CHECK(l.stream == 0x7f00deadbeefull);
  CHECK(l.dir == fs::absolute(t.path).string());
  REQUIRE(l.params.size() == 4);
  for (size_t i = 0; i < 4; ++i) {
    CHECK(l.params[i].index == r.params[i].index);
    CHECK(l.params[i].offset == r.params[i].offset);
    CHECK(l.params[i].size == r.params[i].size);
    CHECK(l.params[i].bytes_hex == r.params[i].bytes_hex);
    CHECK(l.params[i].pointer.has_value() == r.params[i].pointer.has_value());
  }
  CHECK(l.params[2].pointer->allocation == 0);
  CHECK(l.params[2].pointer->offset == 0);
  CHECK(l.params[3].pointer->allocation == 1);
  CHECK(l.params[3].pointer->offset == 64);
  REQUIRE(l.allocations.size() == 2);
  for (size_t i = 0; i < 2; ++i) {
    CHECK(l.allocations[i].id == r.allocations[i].id);
    CHECK(l.allocations[i].base == r.allocations[i].base);
    CHECK(l.allocations[i].size == r.allocations[i].size);
    CHECK(l.allocations[i].before == r.allocations[i].before);
    CHECK(l.allocations[i].after == r.allocations[i].after);
    CHECK(l.allocations[i].before_crc32 == r.allocations[i].before_crc32);
    CHECK(l.allocations[i].after_crc32 == r.allocations[i].after_crc32);
  }
  CHECK(l.allocations[1].before_crc32 != l.allocations[1].after_crc32);

  // Saving what was loaded gives the same file.
  std::string first = readFile(t.path / "record.json");
  saveRecord(t.path.string(), l);
  CHECK(readFile(t.path / "record.json") == first);
}

TEST_CASE("launch record: CRC-32 is the standard (zlib, IEEE 802.3) one", "[launch_record]") {
  CHECK(crc32Of("123456789", 9) == 0xCBF43926u);
  CHECK(crc32Of(nullptr, 0) == 0u);
}

TEST_CASE("launch record: every kind of corruption throws CorruptRecord naming the file", "[launch_record]") {
  TempDir t;
  saveRecord(t.path.string(), sampleRecord(t.path));
  std::string dir = t.path.string();
  REQUIRE_NOTHROW(loadRecord(dir));

  SECTION("truncated blob") {
    fs::resize_file(t.path / "a1.after.bin", 999);
    requireCorrupt([&] { loadRecord(dir); }, t.path / "a1.after.bin", "truncated blob");
  }
  SECTION("one flipped byte: the CRC does not match") {
    std::string data = readFile(t.path / "a0.before.bin");
    data[2000] = static_cast<char>(data[2000] ^ 0x10);
    writeBlob(t.path / "a0.before.bin", data);
    requireCorrupt([&] { loadRecord(dir); }, t.path / "a0.before.bin", "flipped byte");
    // Without blob verification the record itself still loads.
    CHECK_NOTHROW(loadRecord(dir, false));
  }
  SECTION("missing blob") {
    fs::remove(t.path / "a1.before.bin");
    requireCorrupt([&] { loadRecord(dir); }, t.path / "a1.before.bin", "missing blob");
  }
  SECTION("record.json truncated: not JSON") {
    std::string text = readFile(t.path / "record.json");
    writeBlob(t.path / "record.json", text.substr(0, text.size() / 2));
    requireCorrupt([&] { loadRecord(dir); }, t.path / "record.json", "truncated record.json");
    requireCorrupt([&] { loadRecord(dir, false); }, t.path / "record.json", "truncated record.json, unverified");
  }
  SECTION("record.json missing") {
    fs::remove(t.path / "record.json");
    requireCorrupt([&] { loadRecord(dir); }, t.path / "record.json", "missing record.json");
  }
  SECTION("a parameter points into an allocation the record does not have") {
    LaunchRecord r = sampleRecord(t.path);
    r.params[3].pointer = RecordedPointer{2, 0};
    saveRecord(dir, r);
    requireCorrupt([&] { loadRecord(dir); }, t.path / "record.json", "missing allocation");
  }
  SECTION("a parameter's bytes do not match its size") {
    LaunchRecord r = sampleRecord(t.path);
    r.params[0].bytes_hex = "0010";
    saveRecord(dir, r);
    requireCorrupt([&] { loadRecord(dir); }, t.path / "record.json", "short parameter bytes");
  }
}

TEST_CASE("launch record: an unchanged allocation's after blob is its before blob, stored once", "[launch_record]") {
  // What the capture library writes when a launch leaves an allocation (an input) unchanged.
  TempDir t;
  LaunchRecord r = sampleRecord(t.path);
  fs::remove(t.path / "a0.after.bin");
  r.allocations[0].after = "a0.before.bin";
  saveRecord(t.path.string(), r);
  LaunchRecord l = loadRecord(t.path.string());
  CHECK(l.allocations[0].after == "a0.before.bin");
  CHECK(l.allocations[0].after_crc32 == l.allocations[0].before_crc32);
  // Still verified: a corrupt shared blob is named.
  {
    std::fstream f(t.path / "a0.before.bin", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(7);
    f.put('\x5a');
  }
  requireCorrupt([&] { loadRecord(t.path.string()); }, t.path / "a0.before.bin", "corrupt shared blob");
}

TEST_CASE("launch record: the content key ignores where the launch was, not what it ran on", "[launch_record]") {
  TempDir t;
  const LaunchRecord r = sampleRecord(t.path);
  const std::string key = recordContentKey(r);
  SECTION("another run of the program: other addresses, another stream, another directory") {
    LaunchRecord moved = r;
    moved.stream = 0;
    moved.dir = "/elsewhere/saxpy.0";
    for (auto& a : moved.allocations) a.base += 0x200000000ull;
    moved.params[2].bytes_hex = "00001000027f0000";
    moved.params[3].bytes_hex = "40001000027f0000";
    CHECK(recordContentKey(moved) == key);
  }
  SECTION("what the replay reads or checks differs: another key") {
    LaunchRecord other = r;
    SECTION("a scalar") { other.params[0].bytes_hex = "00200000"; }
    SECTION("an input's bytes") { other.allocations[0].before_crc32 ^= 1; }
    SECTION("the memory after") { other.allocations[1].after_crc32 ^= 1; }
    SECTION("a pointer's offset") { other.params[3].pointer->offset = 128; }
    SECTION("an allocation's size") { other.allocations[1].size = 2000; }
    SECTION("the grid") { other.grid.x = 2048; }
    SECTION("the shared memory") { other.shmem = 0; }
    CHECK(recordContentKey(other) != key);
  }
}

TEST_CASE("launch record: without the after state, a launch that differs only in its result keeps its key",
          "[launch_record]") {
  TempDir t;
  const LaunchRecord r = sampleRecord(t.path);
  LaunchRecord other_sum = r;  // float atomics: another order, another rounding of the output
  other_sum.allocations[1].after_crc32 ^= 0x55;
  CHECK(recordContentKey(other_sum, false) == recordContentKey(r, false));
  CHECK(recordContentKey(other_sum) != recordContentKey(r));
  LaunchRecord other_input = r;
  other_input.allocations[1].before_crc32 ^= 0x55;
  CHECK(recordContentKey(other_input, false) != recordContentKey(r, false));
}
