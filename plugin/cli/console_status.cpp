#include "console_status.h"

#include <iostream>

#include "gate/gate.h"

namespace klineage {

void ConsoleStatus::info(const std::string& line) { std::cout << line << std::endl; }
void ConsoleStatus::warning(const std::string& line) { std::cerr << "klineage: warning: " << line << std::endl; }
void ConsoleStatus::error(const std::string& line) { std::cerr << "klineage: error: " << line << std::endl; }
void ConsoleStatus::variantFinished(const VariantReport& r, size_t, size_t) { std::cout << progressLine(r) << std::endl; }

}  // namespace klineage
