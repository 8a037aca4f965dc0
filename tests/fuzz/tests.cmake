# Fuzz tests (tests/fuzz/README.md): libFuzzer targets for the skill, workload, config and
# launch-record readers, in their own CMake project (clang++-16 with -fsanitize=fuzzer,address,
# undefined). Included by tests/CMakeLists.txt. `fuzz-build` configures and builds that project in
# <build>/tests/fuzz/build and fails when it cannot (no clang++-16, no libFuzzer); each
# `fuzz-<name>` then runs its fuzzer for KLINEAGE_FUZZ_SECONDS over a copy of corpus/<name>/.
# No GPU needed. Run them alone with `ctest -L fuzz`.
set(KLINEAGE_FUZZ_SECONDS 60 CACHE STRING "Seconds each fuzz-<name> test runs its fuzzer (0: only the seed corpus)")
set(KLINEAGE_FUZZ_BUILD_JOBS 2 CACHE STRING "Parallel jobs of the fuzz-build test")
find_program(KLINEAGE_FUZZ_CXX NAMES clang++-16 DOC "clang++ with libFuzzer (Debian: clang-16 libclang-rt-16-dev) for tests/fuzz")
if(NOT KLINEAGE_FUZZ_CXX)
  message(STATUS "KLineage: clang++-16 not found, the fuzz-build test will fail (install clang-16 libclang-rt-16-dev)")
endif()

set(_klineage_fuzz_dir "${CMAKE_CURRENT_BINARY_DIR}/fuzz")
add_test(NAME fuzz-build
  COMMAND "${CMAKE_COMMAND}"
    "-DSOURCE_DIR=${CMAKE_CURRENT_LIST_DIR}"
    "-DBINARY_DIR=${_klineage_fuzz_dir}/build"
    "-DCXX=${KLINEAGE_FUZZ_CXX}"
    "-DGENERATOR=${CMAKE_GENERATOR}"
    "-DMAKE_PROGRAM=${CMAKE_MAKE_PROGRAM}"
    "-DJOBS=${KLINEAGE_FUZZ_BUILD_JOBS}"
    -P "${CMAKE_CURRENT_LIST_DIR}/build_fuzzers.cmake")
set_tests_properties(fuzz-build PROPERTIES FIXTURES_SETUP klineage_fuzzers LABELS fuzz TIMEOUT 1800)

math(EXPR _klineage_fuzz_timeout "${KLINEAGE_FUZZ_SECONDS} + 300")
foreach(_name IN ITEMS skill workload config record)
  add_test(NAME fuzz-${_name}
    COMMAND "${CMAKE_COMMAND}"
      "-DFUZZER=${_klineage_fuzz_dir}/build/fuzz_${_name}"
      "-DCORPUS=${CMAKE_CURRENT_LIST_DIR}/corpus/${_name}"
      "-DDICT=${CMAKE_CURRENT_LIST_DIR}/dict/${_name}.dict"
      "-DWORK=${_klineage_fuzz_dir}/run/${_name}"
      "-DSECONDS=${KLINEAGE_FUZZ_SECONDS}"
      -P "${CMAKE_CURRENT_LIST_DIR}/run_fuzzer.cmake")
  set_tests_properties(fuzz-${_name} PROPERTIES
    FIXTURES_REQUIRED klineage_fuzzers LABELS fuzz TIMEOUT ${_klineage_fuzz_timeout})
endforeach()
unset(_name)
unset(_klineage_fuzz_dir)
unset(_klineage_fuzz_timeout)
