# The Slurm backend against a real single-node Slurm on localhost (tests/slurm/README.md), with a
# fake GPU runner on the node: skipped (exit 77, with the reason) where the cluster cannot start.
find_program(KLINEAGE_SLURM_NINJA NAMES ninja ninja-build)
find_program(KLINEAGE_SLURM_BASH bash)
if(KLINEAGE_SLURM_NINJA AND KLINEAGE_SLURM_BASH AND DEFINED CUDAToolkit_NVCC_EXECUTABLE)
  add_test(NAME "slurm: quickstart through a local Slurm"
    COMMAND "${KLINEAGE_SLURM_BASH}" "${CMAKE_CURRENT_LIST_DIR}/quickstart_slurm.sh" "$<TARGET_FILE:klineage>"
            "${PROJECT_SOURCE_DIR}" "${CMAKE_CURRENT_BINARY_DIR}/slurm/quickstart" "${KLINEAGE_SLURM_NINJA}"
            "${CUDAToolkit_NVCC_EXECUTABLE}" "${CMAKE_COMMAND}")
  set_tests_properties("slurm: quickstart through a local Slurm" PROPERTIES LABELS slurm TIMEOUT 900 SKIP_RETURN_CODE 77)
  add_test(NAME "slurm: smoke (stdin, exit codes, concurrency)" COMMAND "${KLINEAGE_SLURM_BASH}" "${CMAKE_CURRENT_LIST_DIR}/smoke.sh")
  set_tests_properties("slurm: smoke (stdin, exit codes, concurrency)" PROPERTIES LABELS slurm TIMEOUT 300 SKIP_RETURN_CODE 77)
endif()
