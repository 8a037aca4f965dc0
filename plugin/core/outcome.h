// Named gate outcomes (Kernel Tuner style): every variant ends in exactly one, with a reason.
#pragma once
#include <string>

namespace klineage {

enum class Outcome { Passed, Slower, WrongResult, RuntimeFailed, Timeout, CompileFailed, NotRun };

// Every outcome, in the order reports list them.
constexpr Outcome kAllOutcomes[] = {Outcome::Passed,  Outcome::Slower,        Outcome::WrongResult, Outcome::RuntimeFailed,
                                    Outcome::Timeout, Outcome::CompileFailed, Outcome::NotRun};

// `klineage gate`'s exit code for a variant with this outcome (docs/gate.md): 0 for passed and
// slower, a code of its own for each rejection.
inline int gateExitCode(Outcome o) {
  switch (o) {
    case Outcome::Passed: return 0;
    case Outcome::Slower: return 0;
    case Outcome::WrongResult: return 10;
    case Outcome::RuntimeFailed: return 11;
    case Outcome::Timeout: return 12;
    case Outcome::CompileFailed: return 13;
    case Outcome::NotRun: return 14;
  }
  return 1;
}

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
  for (Outcome o : kAllOutcomes)
    if (s == outcomeName(o)) return o;
  return Outcome::NotRun;
}

}  // namespace klineage
