# CTest tests of the klineage_optimize() module (cmake/KLineage.cmake). Each configures a small
# project from tests/cmake/projects/ with Ninja through run_case.cmake, using a fake `klineage`
# (fake_klineage.cmake), so neither the real tool nor a GPU is needed; nvcc is (the projects enable
# CUDA). Included by tests/CMakeLists.txt; run with `ctest -R cmake`.

find_program(KLINEAGE_TEST_NINJA NAMES ninja ninja-build DOC "Ninja for the CMake module tests")
if(DEFINED CUDAToolkit_NVCC_EXECUTABLE AND EXISTS "${CUDAToolkit_NVCC_EXECUTABLE}")
  set(_klineage_test_nvcc "${CUDAToolkit_NVCC_EXECUTABLE}")
else()
  find_program(KLINEAGE_TEST_NVCC nvcc HINTS /usr/local/cuda/bin DOC "nvcc for the CMake module tests")
  set(_klineage_test_nvcc "${KLINEAGE_TEST_NVCC}")
endif()

if(NOT KLINEAGE_TEST_NINJA OR NOT _klineage_test_nvcc)
  message(STATUS "KLineage: CMake module tests skipped (they need ninja and nvcc)")
else()
  set(_klineage_cmake_cases
    ok unknown_target unknown_keyword no_cuda_sources missing_workload bad_budget bad_search args_without_run
    bad_sanitize sanitize bad_backend slurm_without_backend backend_slurm ci_baseline ci_args_without_baseline
    llm llm_api_key bad_llm_requests
    twice configure build subdirectory)
  foreach(_case IN LISTS _klineage_cmake_cases)
    string(REPLACE "_" " " _name "${_case}")
    add_test(NAME "cmake: ${_name}"
      COMMAND "${CMAKE_COMMAND}"
        "-DCASE=${_case}"
        "-DKLINEAGE_ROOT=${PROJECT_SOURCE_DIR}"
        "-DWORK=${CMAKE_CURRENT_BINARY_DIR}/cmake-module-tests/${_case}"
        "-DNINJA=${KLINEAGE_TEST_NINJA}"
        "-DCUDA_COMPILER=${_klineage_test_nvcc}"
        -P "${CMAKE_CURRENT_LIST_DIR}/run_case.cmake")
    set_tests_properties("cmake: ${_name}" PROPERTIES LABELS cmake TIMEOUT 600)
  endforeach()
  unset(_case)
  unset(_name)
endif()
unset(_klineage_test_nvcc)
