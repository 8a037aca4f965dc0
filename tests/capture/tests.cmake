# Capture tests (docs/capture.md). The launch-record format is tested in tests/core
# (test_launch_record.cpp); the capture library needs a GPU: capture-gpu reports Skipped without one.
if(NOT TARGET klineage_capture)
  return()
endif()
find_program(NVCC nvcc HINTS /usr/local/cuda/bin)

# Loads records as the gate does and prints the facts the scripts check.
add_executable(capture_record_check ${CMAKE_CURRENT_LIST_DIR}/check_record.cpp)
target_link_libraries(capture_record_check PRIVATE klineage_core)
target_compile_options(capture_record_check PRIVATE -Wall -Wextra)

add_test(NAME capture-gpu
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/../gpu/capture_gpu.sh $<TARGET_FILE:klineage-runner> "${NVCC}"
          $<TARGET_FILE:klineage_capture> $<TARGET_FILE:capture_record_check>
          ${CMAKE_CURRENT_LIST_DIR}/../gpu/capture_prog.cu ${CMAKE_CURRENT_BINARY_DIR}/capture/capture-gpu)
set_tests_properties(capture-gpu PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS "capture;gpu")

# The overhead / throughput measurement (tests/gpu/capture_bench.sh, 2 GiB of blobs) is run by
# hand, not by ctest: see docs/capture.md.
