# klineage-runner tests. Scripts rather than Catch2 (the runner is an executable); without a GPU
# they report Skipped, except runner-job-errors, which needs none.
find_program(NVCC nvcc HINTS /usr/local/cuda/bin)

# Passes on a GPU machine, Skipped without one; fails if the probe line is missing or malformed.
add_test(NAME runner-probe COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/probe.sh $<TARGET_FILE:klineage-runner>)
set_tests_properties(runner-probe PROPERTIES SKIP_RETURN_CODE 77 LABELS "runner;gpu")

add_test(NAME runner-job-errors
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/run_runner_job_errors.sh $<TARGET_FILE:klineage-runner>
          ${CMAKE_CURRENT_BINARY_DIR}/gpu/runner-job-errors)
set_tests_properties(runner-job-errors PROPERTIES LABELS "runner")

add_test(NAME runner-gpu-saxpy
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/run_runner_gpu.sh $<TARGET_FILE:klineage-runner> "${NVCC}"
          ${CMAKE_CURRENT_LIST_DIR}/kernels.cu ${CMAKE_CURRENT_BINARY_DIR}/gpu/runner-gpu-saxpy)
set_tests_properties(runner-gpu-saxpy PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS "runner;gpu")

# Replaying captured launches: make_record.cu writes real launch records, the runner replays them
# (fidelity, nondeterminism, wrong-result, corrupt record). Skipped without a GPU.
add_test(NAME runner-gpu-replay
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/replay_gpu.sh $<TARGET_FILE:klineage-runner> "${NVCC}"
          ${CMAKE_CURRENT_LIST_DIR}/make_record.cu ${CMAKE_CURRENT_BINARY_DIR}/gpu/runner-gpu-replay)
set_tests_properties(runner-gpu-replay PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS "runner;gpu")
