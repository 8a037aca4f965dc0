// For the loaders' tests: write an input file, and catch the InputError a bad one must raise.
#pragma once
#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "core/diag.h"

namespace klineage::test {

inline std::string writeFile(const std::filesystem::path& dir, const std::string& name, const std::string& text) {
  std::filesystem::path p = dir / name;
  std::ofstream(p) << text;
  return p.string();
}

// Runs f, which must throw InputError; returns it (the test then checks its message).
template <class F>
InputError inputError(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e;
  }
  FAIL("expected an InputError");
  throw;  // not reached: FAIL throws
}

}  // namespace klineage::test
