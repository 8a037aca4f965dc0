// A fresh directory per test, removed afterwards, so test cases never see each other's files.
#pragma once
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>

namespace klineage::test {

struct TempDir {
  std::filesystem::path path;  // canonical
  explicit TempDir(const std::string& tag = "test") {
    static std::atomic<int> counter{0};
    path = std::filesystem::temp_directory_path() /
           ("klineage-" + tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
    path = std::filesystem::canonical(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  // Writes `text` to path/name (creating directories); returns the file's path.
  std::string write(const std::string& name, const std::string& text, bool executable = false) const {
    std::filesystem::path p = path / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    if (executable) ::chmod(p.c_str(), 0755);
    return p.string();
  }
};

}  // namespace klineage::test
