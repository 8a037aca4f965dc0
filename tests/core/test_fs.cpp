// core/fs.h: fileHash, the one "hash of a file's bytes, or nothing when it cannot be read" that the
// result cache, the no-op run's key and the identical-variant check share.
#include <catch2/catch.hpp>

#include <filesystem>

#include "core/fs.h"
#include "core/manifest.h"
#include "support/temp_dir.h"

using namespace klineage;

TEST_CASE("fs: fileHash is the hash of the file's bytes, nullopt when it cannot be read", "[fs]") {
  test::TempDir dir("fs");
  const std::string a = dir.write("a.cubin", std::string("\x7f" "ELF\0\1\2", 7));
  const std::string b = dir.write("b.cubin", std::string("\x7f" "ELF\0\1\3", 7));
  const std::string same = dir.write("sub/same.cubin", std::string("\x7f" "ELF\0\1\2", 7));
  const std::string empty = dir.write("empty.cu", "");

  const std::optional<std::string> ha = fileHash(a);
  REQUIRE(ha);
  CHECK(*ha == fnv1a64Hex(std::string("\x7f" "ELF\0\1\2", 7)));  // every byte, the NUL and after included
  CHECK(fileHash(same) == ha);                                   // by content, not by path
  REQUIRE(fileHash(b));
  CHECK(*fileHash(b) != *ha);
  REQUIRE(fileHash(empty));  // an empty file is readable
  CHECK(*fileHash(empty) == fnv1a64Hex(""));

  // changed on disk: the new bytes (nothing is remembered)
  dir.write("a.cubin", "other");
  CHECK(fileHash(a) == fnv1a64Hex("other"));

  CHECK_FALSE(fileHash(dir.path / "missing.cubin"));
  CHECK_FALSE(fileHash(""));
  CHECK_FALSE(fileHash(dir.path / "sub"));  // a directory is not a file's content
}
