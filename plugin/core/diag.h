// Errors in user input (skills, workloads, sources lists). They carry where the problem is and
// what was expected; the CLI prints them as "file:line:col: error: message" and exits 2.
#pragma once
#include <stdexcept>
#include <string>

namespace klineage {

struct InputError : std::runtime_error {
  std::string file;
  unsigned line = 0, column = 0;
  std::string message;
  InputError(std::string file_, unsigned line_, unsigned column_, std::string message_)
      : std::runtime_error(format(file_, line_, column_, message_)),
        file(std::move(file_)), line(line_), column(column_), message(std::move(message_)) {}
  static std::string format(const std::string& f, unsigned l, unsigned c, const std::string& m) {
    std::string s = f;
    if (l) s += ":" + std::to_string(l);
    if (l && c) s += ":" + std::to_string(c);
    return s + ": error: " + m;
  }
};

// Exit codes shared by the CLI and the CMake module.
constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;    // something went wrong running (a tool crashed, I/O failed)
constexpr int kExitBadInput = 2;   // malformed or inconsistent input files

}  // namespace klineage
