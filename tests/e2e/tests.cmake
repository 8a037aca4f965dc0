# End-to-end test of the real tools of this build on examples/quickstart: configure it with Ninja,
# `ninja optimize`, `ninja`, staleness of a selection, KLINEAGE_REQUIRE_GPU. Without a GPU it checks
# that everything up to the gate runs and the originals are built; with one, that saxpy is selected
# and the program's own check passes. Needs ninja and nvcc (no GPU). Run with `ctest -L e2e`.
find_program(KLINEAGE_E2E_NINJA NAMES ninja ninja-build DOC "Ninja for the end-to-end test")
if(DEFINED CUDAToolkit_NVCC_EXECUTABLE AND EXISTS "${CUDAToolkit_NVCC_EXECUTABLE}")
  set(_klineage_e2e_nvcc "${CUDAToolkit_NVCC_EXECUTABLE}")
else()
  find_program(KLINEAGE_E2E_NVCC nvcc HINTS /usr/local/cuda/bin DOC "nvcc for the end-to-end test")
  set(_klineage_e2e_nvcc "${KLINEAGE_E2E_NVCC}")
endif()
find_program(KLINEAGE_E2E_BASH bash)

if(NOT KLINEAGE_E2E_NINJA OR NOT _klineage_e2e_nvcc OR NOT KLINEAGE_E2E_BASH)
  message(STATUS "KLineage: end-to-end test skipped (it needs ninja, nvcc and bash)")
else()
  add_test(NAME "e2e: quickstart without GPU"
    COMMAND "${KLINEAGE_E2E_BASH}" "${CMAKE_CURRENT_LIST_DIR}/quickstart_nogpu.sh"
            "$<TARGET_FILE:klineage>" "$<TARGET_FILE:klineage-runner>" "${PROJECT_SOURCE_DIR}"
            "${CMAKE_CURRENT_BINARY_DIR}/e2e/quickstart" "${KLINEAGE_E2E_NINJA}" "${_klineage_e2e_nvcc}"
            "${CMAKE_COMMAND}")
  set_tests_properties("e2e: quickstart without GPU" PROPERTIES LABELS e2e TIMEOUT 900)
  add_test(NAME "e2e: experts without GPU"
    COMMAND "${KLINEAGE_E2E_BASH}" "${CMAKE_CURRENT_LIST_DIR}/experts_nogpu.sh"
            "$<TARGET_FILE:klineage>" "$<TARGET_FILE:klineage-runner>" "${PROJECT_SOURCE_DIR}"
            "${CMAKE_CURRENT_BINARY_DIR}/e2e/experts" "${KLINEAGE_E2E_NINJA}" "${_klineage_e2e_nvcc}"
            "${CMAKE_COMMAND}")
  set_tests_properties("e2e: experts without GPU" PROPERTIES LABELS e2e TIMEOUT 1200 SKIP_RETURN_CODE 77)
endif()
unset(_klineage_e2e_nvcc)
