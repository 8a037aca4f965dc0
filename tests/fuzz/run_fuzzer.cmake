# cmake -P script run by the CTest tests fuzz-<name> (tests.cmake): runs one fuzzer for SECONDS
# over a fresh copy of its seed corpus in WORK (the seeds in the source tree are never written),
# and fails on any crash, hang, leak, out-of-memory or sanitizer report, printing the report and
# how to reproduce it.
#   -DFUZZER=<build>/fuzz_<name> -DCORPUS=tests/fuzz/corpus/<name> -DWORK=<dir> -DSECONDS=60 [-DDICT=...]
foreach(v FUZZER CORPUS WORK SECONDS)
  if(NOT DEFINED ${v} OR "${${v}}" STREQUAL "")
    message(FATAL_ERROR "fuzz: ${v} is not set")
  endif()
endforeach()
get_filename_component(_name "${FUZZER}" NAME)
if(NOT EXISTS "${FUZZER}")
  message(FATAL_ERROR "${_name}: ${FUZZER} was not built (the fuzz-build test builds it)")
endif()
if(NOT IS_DIRECTORY "${CORPUS}")
  message(FATAL_ERROR "${_name}: no seed corpus ${CORPUS}")
endif()

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/corpus" "${WORK}/artifacts" "${WORK}/tmp")
file(COPY "${CORPUS}/" DESTINATION "${WORK}/corpus")
set(ENV{TMPDIR} "${WORK}/tmp")  # the fuzz targets' scratch files
set(ENV{UBSAN_OPTIONS} "print_stacktrace=1:halt_on_error=1")
set(ENV{ASAN_OPTIONS} "detect_leaks=1:abort_on_error=0")

if(SECONDS GREATER 0)
  set(_length -max_total_time=${SECONDS})
else()
  set(_length -runs=0)  # only run the seeds
endif()
set(_args ${_length} -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 "-artifact_prefix=${WORK}/artifacts/")
if(DICT AND EXISTS "${DICT}")
  list(APPEND _args "-dict=${DICT}")
endif()
set(_log "${WORK}/fuzzer.log")
string(REPLACE ";" " " _shown "${FUZZER};${_args};${WORK}/corpus")
message(STATUS "${_name}: ${_shown}")
execute_process(COMMAND "${FUZZER}" ${_args} "${WORK}/corpus"
  WORKING_DIRECTORY "${WORK}"
  RESULT_VARIABLE rc
  OUTPUT_FILE "${_log}" ERROR_FILE "${_log}")

file(READ "${_log}" _out)
set(_problem "")
if(NOT rc EQUAL 0)
  set(_problem "exit status ${rc}")
endif()
foreach(_marker "fuzz: FAILED" "ERROR: AddressSanitizer" "ERROR: LeakSanitizer" "runtime error:"
                "ERROR: libFuzzer" "==ERROR:" "SUMMARY: ")
  string(FIND "${_out}" "${_marker}" _at)
  if(_at GREATER -1)
    if(_problem STREQUAL "")  # the first reason only
      set(_problem "the log has \"${_marker}\"")
    endif()
  endif()
endforeach()

# The last status line ("#123456 DONE cov: 812 ft: 3141 corp: 210/14Kb ...") and the final stats.
# (Plain string operations: log lines with brackets or semicolons do not survive CMake lists.)
set(_last "(no status line)")
string(FIND "${_out}" " cov: " _at REVERSE)
if(_at GREATER -1)
  string(SUBSTRING "${_out}" 0 ${_at} _before)
  string(FIND "${_before}" "\n" _bol REVERSE)
  math(EXPR _bol "${_bol} + 1")
  string(SUBSTRING "${_out}" ${_bol} -1 _last)
  string(FIND "${_last}" "\n" _eol)
  string(SUBSTRING "${_last}" 0 ${_eol} _last)
  string(REPLACE "\t" " " _last "${_last}")
endif()
string(REGEX MATCH "stat::number_of_executed_units: [0-9]+" _execs "${_out}")
string(REGEX REPLACE ".*: " "" _execs "${_execs}")

if(_problem STREQUAL "")
  if(SECONDS GREATER 0)
    set(_what "${_execs} inputs in ${SECONDS} s")
  else()
    set(_what "the ${_execs} seeds only")
  endif()
  message(STATUS "${_name}: OK, ${_what}, no crash, hang, leak or sanitizer report; ${_last}")
  message(STATUS "${_name}: log ${_log}")
  return()
endif()

# Show the end of the log (the sanitizer report or the fuzz target's "fuzz: FAILED" line).
string(LENGTH "${_out}" _len)
set(_from 0)
if(_len GREATER 12000)
  math(EXPR _from "${_len} - 12000")
endif()
string(SUBSTRING "${_out}" ${_from} -1 _tail)
file(GLOB _artifacts "${WORK}/artifacts/*")
set(_repro "")
foreach(_a IN LISTS _artifacts)
  string(APPEND _repro "\n  reproduce: ${FUZZER} ${_a}")
endforeach()
message("${_tail}")
message(FATAL_ERROR "${_name}: FAILED (${_problem}); full log ${_log}${_repro}\n"
                    "  (tests/fuzz/README.md: fix the loader, then add the input to ${CORPUS})")
