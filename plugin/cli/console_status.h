// The console Status: progress on stdout, flushed (ninja's console pool shows it live), warnings
// and errors on stderr.
#pragma once
#include "status.h"

namespace klineage {

class ConsoleStatus : public Status {
 public:
  void info(const std::string& line) override;
  void warning(const std::string& line) override;
  void error(const std::string& line) override;
  void variantFinished(const VariantReport& r, size_t done, size_t total) override;
};

}  // namespace klineage
