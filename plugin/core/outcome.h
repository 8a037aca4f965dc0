// Named gate outcomes (Kernel Tuner style): every variant ends in exactly one, with a reason.
#pragma once
#include <string>

namespace klineage {

enum class Outcome { Passed, Slower, WrongResult, RuntimeFailed, Timeout, CompileFailed, NotRun };

inline const char* outcomeName(Outcome o) {
  switch (o) {
    case Outcome::Passed: return "passed";
    case Outcome::Slower: return "slower";
    case Outcome::WrongResult: return "wrong-result";
    case Outcome::RuntimeFailed: return "runtime-failed";
    case Outcome::Timeout: return "timeout";
    case Outcome::CompileFailed: return "compile-failed";
    case Outcome::NotRun: return "not-run";
  }
  return "?";
}

inline Outcome outcomeFromName(const std::string& s) {
  for (Outcome o : {Outcome::Passed, Outcome::Slower, Outcome::WrongResult, Outcome::RuntimeFailed,
                    Outcome::Timeout, Outcome::CompileFailed, Outcome::NotRun})
    if (s == outcomeName(o)) return o;
  return Outcome::NotRun;
}

}  // namespace klineage
