// Filesystem helpers. Everything KLineage writes goes through atomicWrite: the file appears whole
// or not at all, so an interrupted `ninja optimize` leaves no half-written file.
#pragma once
#include <filesystem>
#include <optional>
#include <string>

namespace klineage {

// Writes `content` to a temporary file beside `path`, flushes it, then renames it over `path`.
// Creates parent directories. Throws std::runtime_error naming the path on failure.
void atomicWrite(const std::filesystem::path& path, const std::string& content);

// Reads a whole file. Throws std::runtime_error naming the path if it cannot be read.
std::string readFile(const std::filesystem::path& path);

// The hash of a file's bytes (fnv1a64Hex, manifest.h, of what readFile gives); nullopt when it
// cannot be read (missing, no permission, a directory, an empty path). Callers pick their own marker for that.
std::optional<std::string> fileHash(const std::filesystem::path& path);

}  // namespace klineage
