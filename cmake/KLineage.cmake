# Distributed under the terms of the KLineage license.
#[=======================================================================[.rst:
KLineage
--------

Optimize the CUDA kernels of a target as part of its build: KLineage extracts the
kernels with Clang, rewrites them with optimization *skills*, gates every variant on
a GPU against the original (same results within tolerance, faster), and keeps the
fastest passing version of each kernel in the build tree. The target then compiles
that version; the source tree is never modified.

This module is loaded by ``find_package(KLineage)`` (install tree) or by
``add_subdirectory(<klineage source dir>)``; in both cases ``klineage_optimize()``
is defined right away (``include(KLineage)`` is accepted too and does nothing more).

Commands
^^^^^^^^

.. command:: klineage_optimize

  .. code-block:: cmake

    klineage_optimize(<target>
                      [WORKLOAD <file>]
                      [SKILLS <dir>...]
                      [BUDGET <n>]
                      [SEARCH planned|subsets]
                      [TIMEOUT <seconds>]
                      [REQUIRE_GPU]
                      [SANITIZE memcheck|racecheck|synccheck]
                      [BACKEND local|slurm]
                      [SLURM_PARTITION <p>] [SLURM_ACCOUNT <a>] [SLURM_GRES <gres>]
                      [SLURM_RUNNER <path>] [SLURM_MAX_JOBS <n>] [SLURM_ARGS <arg>...]
                      [LLM_URL <url>] [LLM_MODEL <name>] [LLM_MAX_REQUESTS <n>]
                      [LLM_MAX_TOKENS <n>] [LLM_REPAIR_ROUNDS <n>] [LLM_TIMEOUT <seconds>]
                      [CI_BASELINE <file> [CI_ARGS <arg>...]]
                      [RUN <target-or-command> [ARGS <arg>...]])

  Call it after the target's sources are known (after ``add_library()`` /
  ``add_executable()`` and any ``target_sources()``). It

  * makes every CUDA source ``S`` of ``<target>`` (``.cu`` files, or any source with
    the ``LANGUAGE`` property ``CUDA``) compile from a *materialized* copy
    ``${CMAKE_BINARY_DIR}/klineage/<target>/src/<path of S relative to
    CMAKE_CURRENT_SOURCE_DIR>`` (files outside that directory go under
    ``src/_external/<hash of their directory>/``). The copy is written by
    ``klineage materialize`` from the original and the current selection
    (``selection.json``); until ``optimize`` has run it equals the original.
    The copy is given ``-I${CMAKE_BINARY_DIR}/klineage/<target>/include`` (the
    selected headers, below) and ``-I<directory of S>`` so that its quoted includes
    still resolve, and inherits ``S``'s ``LANGUAGE``, ``COMPILE_DEFINITIONS``,
    ``COMPILE_OPTIONS``, ``COMPILE_FLAGS``, ``INCLUDE_DIRECTORIES`` and
    ``OBJECT_DEPENDS`` source properties;
  * puts ``${CMAKE_BINARY_DIR}/klineage/<target>/include`` first on the target's
    CUDA include path (``BEFORE PRIVATE``): ``klineage materialize`` copies a
    selected header (a kernel defined in a header the sources include) there while
    it and every file it was made from are unchanged, and removes it otherwise (the
    original header is used, with a warning naming the stale kernels). The
    materialize step writes a depfile naming those headers, so editing one re-runs
    it;
  * turns on the ``EXPORT_COMPILE_COMMANDS`` property of ``<target>`` (KLineage reads
    ``${CMAKE_BINARY_DIR}/compile_commands.json``; Makefile and Ninja generators);
  * writes ``${CMAKE_BINARY_DIR}/klineage/<target>/config.json`` at generate time;
  * adds the targets ``optimize-<target>`` (runs ``klineage optimize``) and
    ``optimize`` (all of them). They are not part of ``all``: run
    ``cmake --build <dir> --target optimize`` (``ninja optimize``), then build as usual.

  ``WORKLOAD <file>``
    Launch geometry, argument values and tolerances of each kernel (TOML, see
    ``docs/workload.md``). Relative to ``CMAKE_CURRENT_SOURCE_DIR``; must exist.
    Kernels without a workload entry are kept as they are.

  ``SKILLS <dir>...``
    Skill directories to use instead of the skills that come with KLineage
    (``KLINEAGE_SKILLS_DIR``). Relative to ``CMAKE_CURRENT_SOURCE_DIR``; must exist.

  ``BUDGET <n>``
    At most ``<n>`` variants are gated per kernel (positive integer, default 10).
    ``KLINEAGE_BUDGET`` sets a default for every target.

  ``SEARCH planned|subsets``
    How the skill chains to gate are chosen. ``planned`` (the default): a few
    variants per kernel at a time, each round chosen from the gate's results of the
    last (only chains whose last step paid are extended), candidates ordered by what
    each skill did on kernels with the same features (``docs/pipeline.md``, "The
    planner"). ``subsets``: every set of skills once, breadth first, up to ``BUDGET``.
    ``KLINEAGE_SEARCH`` sets a default for every target.

  ``TIMEOUT <seconds>``
    Time limit of one gated run (positive number, default 10).

  ``REQUIRE_GPU``
    Fail ``optimize-<target>`` when no CUDA device is available, instead of keeping
    the original kernels with a warning. ``KLINEAGE_REQUIRE_GPU=ON`` does this for
    every target.

  ``SANITIZE memcheck|racecheck|synccheck``
    Before a winning variant is kept, run it once under ``compute-sanitizer`` with
    that tool (from the CUDA toolkit beside ``nvcc``, else on the ``PATH``); any error
    it reports rejects the variant and the next best is checked the same way.
    ``KLINEAGE_SANITIZE`` sets a default for every target.

  ``BACKEND local|slurm``
    Where the gate's runner jobs run. ``local`` (the default): every CUDA device of
    this machine, one job per device at a time, so a machine with several GPUs (of the
    architecture of device 0) gates several variants at once. ``slurm``: each job is
    packed into a bundle (the job, both cubins, the captured launch) and sent to
    ``srun`` on its standard input; the Slurm job unpacks it on the node and runs
    ``klineage-runner`` there, so no shared file system is needed.
    ``KLINEAGE_BACKEND`` sets a default for every target.

  ``SLURM_PARTITION``, ``SLURM_ACCOUNT``, ``SLURM_GRES``, ``SLURM_RUNNER``, ``SLURM_MAX_JOBS``, ``SLURM_ARGS``
    For ``BACKEND slurm``: ``srun --partition``/``--account``/``--gres`` (default
    ``gpu:1``; empty for none), the ``klineage-runner`` on the compute nodes (default
    ``klineage-runner`` on their ``PATH``), how many jobs are in flight at once (4),
    and more ``srun`` arguments. Defaults from ``KLINEAGE_SLURM_PARTITION``,
    ``KLINEAGE_SLURM_ACCOUNT``, ``KLINEAGE_SLURM_GRES``, ``KLINEAGE_SLURM_RUNNER``,
    ``KLINEAGE_SLURM_MAX_JOBS``.

  ``LLM_URL``, ``LLM_MODEL``, ``LLM_MAX_REQUESTS``, ``LLM_MAX_TOKENS``, ``LLM_REPAIR_ROUNDS``, ``LLM_TIMEOUT``
    Skills with ``materialize = "llm"`` are written by a language model behind an
    OpenAI-compatible chat-completions URL and gated like every variant
    (``docs/llm.md``): the URL and model (``KLINEAGE_LLM_URL`` and
    ``KLINEAGE_LLM_MODEL`` in the environment of ``ninja optimize`` override them),
    prompts and tokens per run at most (32, 500000), re-prompts of a failed attempt
    (2), seconds per request (300). Without a URL nothing is sent. The API key is read
    only from ``KLINEAGE_LLM_API_KEY`` at run time and never written anywhere.

  ``CI_BASELINE <file> [CI_ARGS <arg>...]``
    The performance gate for CI (``docs/ci.md``): adds the CTest test
    ``klineage-ci-<target>`` (call ``enable_testing()`` or ``include(CTest)``), which
    runs ``klineage ci`` against the committed baseline ``<file>`` (relative to the
    current source directory) and fails on a regression (exit 1) or a wrong result
    (exit 2); without a GPU it is reported as skipped. ``ninja ci-<target>`` runs the
    same, and ``ninja update-baseline-<target>`` rewrites the baseline from this
    machine. ``CI_ARGS`` are more ``klineage ci`` options (``--max-slowdown 3%``,
    ``--min-ms 0.01``, ``--strict``).

  ``RUN <target-or-command> [ARGS <arg>...]``
    Gate the kernels on the launches a program of the project really makes
    (``docs/capture.md``): ``klineage optimize`` runs it under CUPTI capture,
    records the first launch shapes of each kernel of ``<target>`` (geometry,
    arguments, the device memory they read) and replays them for the original and
    every variant. An executable target is built in a *capture build* of this project
    under ``${CMAKE_BINARY_DIR}/klineage/_capture-build`` (configured with
    ``KLINEAGE_CAPTURE_BUILD=ON``, where ``klineage_optimize()`` selects nothing), so
    the captured launches always come from the original kernels; ``optimize-<target>``
    builds it first. A command is run as given (make sure it runs original kernels).
    A program that fails stops ``optimize-<target>`` with its output, nothing selected.
    Kernels whose replay does not reproduce the captured memory fall back to the
    ``WORKLOAD`` entry, if any. ``ARGS`` takes every remaining argument that is not
    one of this command's keywords.

Cache variables
^^^^^^^^^^^^^^^

``KLINEAGE_REQUIRE_GPU``
  ``OFF`` by default. ``ON`` makes a missing GPU an error for every
  ``klineage_optimize()`` target, as if each had ``REQUIRE_GPU``.

``KLINEAGE_SANITIZE``
  Empty by default. ``memcheck``, ``racecheck`` or ``synccheck``: the ``SANITIZE``
  of every ``klineage_optimize()`` target that does not give its own.

``KLINEAGE_RESULT_CACHE``
  ``ON`` by default: ``klineage optimize`` keeps each gate result under
  ``klineage/<target>/cache/results/``, keyed by everything the result depends on (the
  variant's and the original's machine code, the jobs the runner gets, the skills' files,
  the GPU model, its driver and CUDA versions), and reuses it instead of gating the same
  variant again; a run in which nothing changed (sources, headers, config, flags,
  skills, the tools, the device) stops at once and keeps the selection. On another GPU
  or driver every variant is gated again. ``OFF`` gates everything every time, as
  ``klineage optimize --no-cache`` does (``docs/pipeline.md``).

``KLINEAGE_CAPTURE_TIMEOUT``, ``KLINEAGE_CAPTURE_MAX_SHAPES``, ``KLINEAGE_CAPTURE_MAX_BYTES``
  Limits of a ``RUN`` capture: seconds before the program is killed (300), distinct
  launch shapes recorded per kernel (3), device bytes snapshotted in all (4 GiB).

``KLINEAGE_EXECUTABLE``, ``KLINEAGE_RUNNER_EXECUTABLE``, ``KLINEAGE_SKILLS_DIR``
  The ``klineage`` and ``klineage-runner`` programs and the default skill directory.
  Set by the package configuration file; when KLineage is part of the build
  (``add_subdirectory``) its targets are used instead. A value given by the user
  (``-DKLINEAGE_EXECUTABLE=...``) always wins, so any program implementing the
  command line contract (``optimize --config <file>``,
  ``materialize --config <file> --source <file> [--depfile <file>]``) can stand in for
  ``klineage``.

Build tree
^^^^^^^^^^

``${CMAKE_BINARY_DIR}/klineage/<target>/`` holds ``config.json`` (written here),
``selection.json`` (a placeholder with no kernels until ``optimize`` has run),
``src/`` (the materialized sources) and ``include/`` (the fresh selected headers);
``klineage optimize`` adds ``manifest.json``,
``variants/``, ``gate/``, ``report.json``, ``selected/`` and ``cache/``.
#]=======================================================================]

include_guard(GLOBAL)
if(CMAKE_VERSION VERSION_LESS 3.21)   # cmake_path, CMAKE_CURRENT_FUNCTION_LIST_DIR, DEFER
  message(FATAL_ERROR "KLineage needs CMake 3.21 or later (this is ${CMAKE_VERSION})")
endif()
cmake_policy(VERSION 3.21...3.28)     # include() scopes this; the functions below keep it

set(KLINEAGE_CAPTURE_TIMEOUT 300 CACHE STRING
  "Seconds a RUN program may take under capture before it is killed")
set(KLINEAGE_CAPTURE_MAX_SHAPES 3 CACHE STRING
  "Distinct launch shapes (grid, block, shared memory) captured per kernel")
set(KLINEAGE_CAPTURE_MAX_BYTES 4294967296 CACHE STRING
  "Bytes of device memory a capture may snapshot in all; a launch over it is skipped")
option(KLINEAGE_CAPTURE_BUILD
  "Internal: set in the capture build, where klineage_optimize() leaves every target as written" OFF)
mark_as_advanced(KLINEAGE_CAPTURE_BUILD)

option(KLINEAGE_REQUIRE_GPU
  "Make a missing CUDA device an error in klineage_optimize() targets (default: keep the original kernels)"
  OFF)
option(KLINEAGE_RESULT_CACHE
  "Reuse earlier gate results of identical variants, and skip ninja optimize when nothing changed" ON)
set(KLINEAGE_SANITIZE "" CACHE STRING
  "compute-sanitizer tool every winning variant is run under before it is kept: memcheck, racecheck, synccheck or empty")
set(KLINEAGE_BACKEND "local" CACHE STRING "Where gate jobs run: local (this machine's GPUs) or slurm (srun)")
set_property(CACHE KLINEAGE_BACKEND PROPERTY STRINGS local slurm)
set(KLINEAGE_SLURM_PARTITION "" CACHE STRING "srun --partition for BACKEND slurm")
set(KLINEAGE_SLURM_ACCOUNT "" CACHE STRING "srun --account for BACKEND slurm")
set(KLINEAGE_SLURM_GRES "gpu:1" CACHE STRING "srun --gres for BACKEND slurm (empty: none)")
set(KLINEAGE_SLURM_RUNNER "klineage-runner" CACHE STRING "klineage-runner on the Slurm compute nodes")
set(KLINEAGE_SLURM_MAX_JOBS "4" CACHE STRING "Slurm jobs in flight at once for BACKEND slurm")

# The package configuration file sets these before including this module; keep them globally so
# that klineage_optimize() also finds them in directories where the variables are not visible.
foreach(_klineage_v IN ITEMS EXECUTABLE RUNNER_EXECUTABLE SKILLS_DIR)
  if(KLINEAGE_${_klineage_v})
    set_property(GLOBAL PROPERTY _KLINEAGE_PACKAGE_${_klineage_v} "${KLINEAGE_${_klineage_v}}")
  endif()
endforeach()
unset(_klineage_v)

# --- JSON text helpers ----------------------------------------------------------------------------

function(_klineage_json_string out value)
  string(REPLACE "\\" "\\\\" value "${value}")
  string(REPLACE "\"" "\\\"" value "${value}")
  string(REPLACE "\n" "\\n" value "${value}")
  string(REPLACE "\r" "\\r" value "${value}")
  string(REPLACE "\t" "\\t" value "${value}")
  set(${out} "\"${value}\"" PARENT_SCOPE)
endfunction()

# _klineage_json_string_array(<out> <indent> [<item>...]): a JSON array of strings, one per line.
function(_klineage_json_string_array out indent)
  if(ARGC LESS 3)
    set(${out} "[]" PARENT_SCOPE)
    return()
  endif()
  set(items "")
  foreach(i RANGE 2 ${ARGC})
    if(i EQUAL ARGC)
      break()
    endif()
    _klineage_json_string(q "${ARGV${i}}")
    list(APPEND items "${indent}  ${q}")
  endforeach()
  list(JOIN items ",\n" body)
  set(${out} "[\n${body}\n${indent}]" PARENT_SCOPE)
endfunction()

# --- tools ----------------------------------------------------------------------------------------

# Sets _klineage_exe, _klineage_runner (may be empty), _klineage_exe_target (klineage when it is a
# target of this build) and _klineage_tool_targets (the tool targets of this build) in the caller.
# Precedence: a value set by the user or the package file, then the targets of an add_subdirectory()
# build of KLineage, then a search of PATH.
macro(_klineage_find_tools)
  set(_klineage_tool_targets "")
  set(_klineage_exe_target "")
  get_property(_klineage_pkg_exe GLOBAL PROPERTY _KLINEAGE_PACKAGE_EXECUTABLE)
  get_property(_klineage_pkg_runner GLOBAL PROPERTY _KLINEAGE_PACKAGE_RUNNER_EXECUTABLE)
  if(KLINEAGE_EXECUTABLE)
    set(_klineage_exe "${KLINEAGE_EXECUTABLE}")
  elseif(_klineage_pkg_exe)
    set(_klineage_exe "${_klineage_pkg_exe}")
  elseif(TARGET klineage)
    set(_klineage_exe "$<TARGET_FILE:klineage>")
    set(_klineage_exe_target klineage)
    list(APPEND _klineage_tool_targets klineage)
  else()
    find_program(KLINEAGE_EXECUTABLE klineage DOC "The klineage command line tool")
    if(NOT KLINEAGE_EXECUTABLE)
      message(FATAL_ERROR
        "klineage_optimize: cannot find the 'klineage' program. Install KLineage and use "
        "find_package(KLineage), add its source tree with add_subdirectory(), or set "
        "KLINEAGE_EXECUTABLE.")
    endif()
    set(_klineage_exe "${KLINEAGE_EXECUTABLE}")
  endif()

  if(KLINEAGE_RUNNER_EXECUTABLE)
    set(_klineage_runner "${KLINEAGE_RUNNER_EXECUTABLE}")
  elseif(_klineage_pkg_runner)
    set(_klineage_runner "${_klineage_pkg_runner}")
  elseif(TARGET klineage-runner)
    set(_klineage_runner "$<TARGET_FILE:klineage-runner>")
    list(APPEND _klineage_tool_targets klineage-runner)
  else()
    set(_klineage_runner "")
    if(NOT _klineage_exe MATCHES "^\\$<")
      get_filename_component(_klineage_exe_dir "${_klineage_exe}" DIRECTORY)
      if(_klineage_exe_dir AND EXISTS "${_klineage_exe_dir}/klineage-runner")
        set(_klineage_runner "${_klineage_exe_dir}/klineage-runner")
      endif()
    endif()
    if(NOT _klineage_runner)
      find_program(KLINEAGE_RUNNER_EXECUTABLE klineage-runner
        DOC "The klineage-runner program (loads and times kernels on the GPU)")
      if(KLINEAGE_RUNNER_EXECUTABLE)
        set(_klineage_runner "${KLINEAGE_RUNNER_EXECUTABLE}")
      endif()
    endif()
  endif()
endmacro()

# Default skill directories: the user's or the package's KLINEAGE_SKILLS_DIR, else the skills/ next
# to this module in a source tree.
function(_klineage_default_skills out)
  get_property(pkg GLOBAL PROPERTY _KLINEAGE_PACKAGE_SKILLS_DIR)
  if(KLINEAGE_SKILLS_DIR)
    set(dirs "${KLINEAGE_SKILLS_DIR}")
  elseif(pkg)
    set(dirs "${pkg}")
  elseif(IS_DIRECTORY "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/../skills")
    get_filename_component(dirs "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/../skills" ABSOLUTE)
  else()
    set(dirs "")
  endif()
  set(${out} "${dirs}" PARENT_SCOPE)
endfunction()

# --- sources --------------------------------------------------------------------------------------

# Where the materialized copy of <abs> goes, relative to <out_dir>/src.
function(_klineage_materialized_relpath out abs)
  cmake_path(IS_PREFIX CMAKE_CURRENT_SOURCE_DIR "${abs}" NORMALIZE inside)
  if(inside)
    file(RELATIVE_PATH rel "${CMAKE_CURRENT_SOURCE_DIR}" "${abs}")
  else()
    get_filename_component(dir "${abs}" DIRECTORY)
    get_filename_component(name "${abs}" NAME)
    string(SHA1 hash "${dir}")
    string(SUBSTRING "${hash}" 0 12 hash)
    set(rel "_external/${hash}/${name}")
  endif()
  set(${out} "${rel}" PARENT_SCOPE)
endfunction()

# --- klineage_optimize ----------------------------------------------------------------------------

function(klineage_optimize target)
  set(options REQUIRE_GPU)
  set(one WORKLOAD BUDGET SEARCH TIMEOUT SANITIZE BACKEND SLURM_PARTITION SLURM_ACCOUNT SLURM_GRES SLURM_RUNNER SLURM_MAX_JOBS
          LLM_URL LLM_MODEL LLM_MAX_REQUESTS LLM_MAX_TOKENS LLM_REPAIR_ROUNDS LLM_TIMEOUT CI_BASELINE)
  set(multi SKILLS RUN ARGS SLURM_ARGS CI_ARGS)
  cmake_parse_arguments(PARSE_ARGV 1 arg "${options}" "${one}" "${multi}")
  set(fn "klineage_optimize(${target})")

  if("LLM_API_KEY" IN_LIST arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "${fn}: LLM_API_KEY: the API key is read only from the environment variable "
                        "KLINEAGE_LLM_API_KEY when `ninja optimize` runs; it is never written to config.json")
  endif()
  if(arg_UNPARSED_ARGUMENTS)
    list(JOIN arg_UNPARSED_ARGUMENTS " " unknown)
    message(FATAL_ERROR
      "${fn}: unknown arguments: ${unknown}\n"
      "Expected: klineage_optimize(<target> [WORKLOAD <file>] [SKILLS <dir>...] [BUDGET <n>] [SEARCH planned|subsets] "
      "[TIMEOUT <seconds>] [REQUIRE_GPU] [SANITIZE memcheck|racecheck|synccheck] [BACKEND local|slurm] "
      "[SLURM_PARTITION <p>] [SLURM_ACCOUNT <a>] [SLURM_GRES <gres>] [SLURM_RUNNER <path>] [SLURM_MAX_JOBS <n>] "
      "[SLURM_ARGS <arg>...] [LLM_URL <url>] [LLM_MODEL <name>] [LLM_MAX_REQUESTS <n>] [LLM_MAX_TOKENS <n>] "
      "[LLM_REPAIR_ROUNDS <n>] [LLM_TIMEOUT <seconds>] [CI_BASELINE <file> [CI_ARGS <arg>...]] "
      "[RUN <target-or-command> [ARGS <arg>...]])")
  endif()
  if(arg_KEYWORDS_MISSING_VALUES)
    list(JOIN arg_KEYWORDS_MISSING_VALUES ", " missing)
    message(FATAL_ERROR "${fn}: no value given for ${missing}")
  endif()

  # The target.
  if(NOT TARGET "${target}")
    message(FATAL_ERROR
      "${fn}: no target named '${target}' (call klineage_optimize() after add_library() or "
      "add_executable())")
  endif()
  get_target_property(aliased "${target}" ALIASED_TARGET)
  if(aliased)
    set(target "${aliased}")
  endif()
  get_target_property(imported "${target}" IMPORTED)
  get_target_property(type "${target}" TYPE)
  if(imported)
    message(FATAL_ERROR "${fn}: '${target}' is an imported target; KLineage optimizes targets built here")
  endif()
  if(NOT type MATCHES "^(EXECUTABLE|STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY)$")
    message(FATAL_ERROR "${fn}: '${target}' is a ${type} target and has no CUDA sources to optimize")
  endif()
  get_property(done GLOBAL PROPERTY _KLINEAGE_TARGET_${target})
  if(done)
    message(FATAL_ERROR "${fn}: klineage_optimize() was already called for '${target}'")
  endif()

  # Its CUDA sources.
  get_target_property(target_src_dir "${target}" SOURCE_DIR)
  get_target_property(sources "${target}" SOURCES)
  if(NOT sources)
    set(sources "")
  endif()
  set(cuda_sources "")        # absolute paths, in target order
  set(generated_prereqs "")   # generated sources the extractor may need
  foreach(s IN LISTS sources)
    if(s MATCHES "\\$<")
      if(s MATCHES "\\.cu([>,;]|$)")
        message(WARNING "${fn}: source '${s}' is a generator expression; it is compiled as is, not optimized")
      endif()
      continue()
    endif()
    cmake_path(ABSOLUTE_PATH s BASE_DIRECTORY "${target_src_dir}" NORMALIZE OUTPUT_VARIABLE abs)
    get_source_file_property(lang "${abs}" TARGET_DIRECTORY "${target}" LANGUAGE)
    get_source_file_property(header_only "${abs}" TARGET_DIRECTORY "${target}" HEADER_FILE_ONLY)
    get_source_file_property(generated "${abs}" TARGET_DIRECTORY "${target}" GENERATED)
    if(generated)
      list(APPEND generated_prereqs "${abs}")
    endif()
    if(header_only)
      continue()
    endif()
    if(lang STREQUAL "CUDA" OR (NOT lang AND abs MATCHES "\\.cu$"))
      list(APPEND cuda_sources "${abs}")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES cuda_sources)
  if(NOT cuda_sources)
    message(FATAL_ERROR
      "${fn}: target '${target}' has no CUDA sources (.cu files or sources with LANGUAGE CUDA)")
  endif()
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(NOT "CUDA" IN_LIST languages)
    message(FATAL_ERROR
      "${fn}: the CUDA language is not enabled; use project(... LANGUAGES CXX CUDA) or "
      "enable_language(CUDA)")
  endif()

  # Options.
  set(workload "")
  if(DEFINED arg_WORKLOAD)
    cmake_path(ABSOLUTE_PATH arg_WORKLOAD BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE
               OUTPUT_VARIABLE workload)
    if(NOT EXISTS "${workload}" OR IS_DIRECTORY "${workload}")
      message(FATAL_ERROR "${fn}: WORKLOAD file '${workload}' does not exist")
    endif()
  endif()

  set(skills "")
  if(DEFINED arg_SKILLS)
    foreach(d IN LISTS arg_SKILLS)
      cmake_path(ABSOLUTE_PATH d BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE OUTPUT_VARIABLE d)
      if(NOT IS_DIRECTORY "${d}")
        message(FATAL_ERROR "${fn}: SKILLS directory '${d}' does not exist")
      endif()
      list(APPEND skills "${d}")
    endforeach()
  else()
    _klineage_default_skills(skills)
  endif()

  set(search "${KLINEAGE_SEARCH}")
  if(DEFINED arg_SEARCH)
    set(search "${arg_SEARCH}")
  endif()
  if(search STREQUAL "")
    set(search planned)
  endif()
  if(NOT search MATCHES "^(planned|subsets)$")
    message(FATAL_ERROR "${fn}: SEARCH must be planned or subsets, got '${search}'")
  endif()

  set(budget 10)
  set(budget_from "BUDGET")
  if(NOT "${KLINEAGE_BUDGET}" STREQUAL "")
    set(budget "${KLINEAGE_BUDGET}")
    set(budget_from "KLINEAGE_BUDGET")
  endif()
  if(DEFINED arg_BUDGET)
    set(budget "${arg_BUDGET}")
    set(budget_from "BUDGET")
  endif()
  if(NOT budget MATCHES "^[0-9]+$" OR budget EQUAL 0)
    message(FATAL_ERROR "${fn}: ${budget_from} must be a positive integer, got '${budget}'")
  endif()
  math(EXPR budget "${budget}")

  set(timeout 10)
  if(DEFINED arg_TIMEOUT)
    if(NOT arg_TIMEOUT MATCHES "^([0-9]+|[0-9]*\\.[0-9]+)$" OR NOT arg_TIMEOUT MATCHES "[1-9]")
      message(FATAL_ERROR "${fn}: TIMEOUT must be a positive number of seconds, got '${arg_TIMEOUT}'")
    endif()
    set(timeout "${arg_TIMEOUT}")
    if(timeout MATCHES "^\\.")
      set(timeout "0${timeout}")
    endif()
  endif()

  set(sanitize "${KLINEAGE_SANITIZE}")
  if(DEFINED arg_SANITIZE)
    set(sanitize "${arg_SANITIZE}")
  endif()
  if(NOT sanitize STREQUAL "" AND NOT sanitize MATCHES "^(memcheck|racecheck|synccheck)$")
    message(FATAL_ERROR "${fn}: SANITIZE must be memcheck, racecheck or synccheck, got '${sanitize}'")
  endif()

  set(backend "${KLINEAGE_BACKEND}")
  if(DEFINED arg_BACKEND)
    set(backend "${arg_BACKEND}")
  endif()
  if(NOT backend MATCHES "^(local|slurm)$")
    message(FATAL_ERROR "${fn}: BACKEND must be local or slurm, got '${backend}'")
  endif()
  foreach(k IN ITEMS PARTITION ACCOUNT GRES RUNNER MAX_JOBS)
    set(slurm_${k} "${KLINEAGE_SLURM_${k}}")
    if(DEFINED arg_SLURM_${k})
      set(slurm_${k} "${arg_SLURM_${k}}")
    endif()
    if(NOT backend STREQUAL "slurm" AND DEFINED arg_SLURM_${k})
      message(FATAL_ERROR "${fn}: SLURM_${k} needs BACKEND slurm")
    endif()
  endforeach()
  if(NOT slurm_MAX_JOBS MATCHES "^[1-9][0-9]*$")
    message(FATAL_ERROR "${fn}: SLURM_MAX_JOBS must be a positive integer, got '${slurm_MAX_JOBS}'")
  endif()
  foreach(k IN ITEMS PARTITION ACCOUNT GRES RUNNER)
    _klineage_json_string(j_slurm_${k} "${slurm_${k}}")
  endforeach()
  _klineage_json_string_array(j_slurm_args "    " ${arg_SLURM_ARGS})

  # Language-model skills (docs/llm.md); the key never comes through here.
  set(llm_MAX_REQUESTS 32)
  set(llm_MAX_TOKENS 500000)
  set(llm_REPAIR_ROUNDS 2)
  foreach(k IN ITEMS MAX_REQUESTS MAX_TOKENS REPAIR_ROUNDS)
    if(DEFINED arg_LLM_${k})
      if(NOT arg_LLM_${k} MATCHES "^[0-9]+$")
        message(FATAL_ERROR "${fn}: LLM_${k} must be a non-negative integer, got '${arg_LLM_${k}}'")
      endif()
      math(EXPR llm_${k} "${arg_LLM_${k}}")
    endif()
  endforeach()
  set(llm_TIMEOUT 300)
  if(DEFINED arg_LLM_TIMEOUT)
    if(NOT arg_LLM_TIMEOUT MATCHES "^([0-9]+|[0-9]*\\.[0-9]+)$" OR NOT arg_LLM_TIMEOUT MATCHES "[1-9]")
      message(FATAL_ERROR "${fn}: LLM_TIMEOUT must be a positive number of seconds, got '${arg_LLM_TIMEOUT}'")
    endif()
    set(llm_TIMEOUT "${arg_LLM_TIMEOUT}")
    if(llm_TIMEOUT MATCHES "^\\.")
      set(llm_TIMEOUT "0${llm_TIMEOUT}")
    endif()
  endif()
  _klineage_json_string(j_llm_URL "${arg_LLM_URL}")
  _klineage_json_string(j_llm_MODEL "${arg_LLM_MODEL}")

  if(arg_REQUIRE_GPU OR KLINEAGE_REQUIRE_GPU)
    set(require_gpu true)
  else()
    set(require_gpu false)
  endif()
  if(KLINEAGE_RESULT_CACHE)
    set(result_cache true)
  else()
    set(result_cache false)
  endif()

  if(DEFINED arg_ARGS AND NOT DEFINED arg_RUN)
    message(FATAL_ERROR "${fn}: ARGS given without RUN")
  endif()

  # Inside the capture build (see RUN) every kernel stays as written: the program captured there
  # runs the original kernels, never an already optimized one.
  if(KLINEAGE_CAPTURE_BUILD)
    return()
  endif()

  _klineage_find_tools()

  # Build tree layout.
  set(out_dir "${CMAKE_BINARY_DIR}/klineage/${target}")
  set(config "${out_dir}/config.json")
  set(selection "${out_dir}/selection.json")
  file(MAKE_DIRECTORY "${out_dir}/src")
  if(NOT EXISTS "${selection}")
    file(WRITE "${selection}" "{\"format\": \"klineage-selection-1\", \"kernels\": []}\n")
  endif()

  # Source swap: S -> <out_dir>/src/<rel>, written by `klineage materialize`.
  set(materialized_sources "")
  set(new_sources "")
  foreach(s IN LISTS sources)
    set(replacement "${s}")
    if(NOT s MATCHES "\\$<")
      cmake_path(ABSOLUTE_PATH s BASE_DIRECTORY "${target_src_dir}" NORMALIZE OUTPUT_VARIABLE abs)
      if(abs IN_LIST cuda_sources)
        _klineage_materialized_relpath(rel "${abs}")
        set(replacement "${out_dir}/src/${rel}")
      endif()
    endif()
    list(APPEND new_sources "${replacement}")
  endforeach()

  foreach(abs IN LISTS cuda_sources)
    _klineage_materialized_relpath(rel "${abs}")
    set(mat "${out_dir}/src/${rel}")
    list(APPEND materialized_sources "${mat}")
    # The depfile names the selected headers S includes, so that editing one re-decides (stale).
    set(depfile_opt "")
    set(depfile_kw "")
    if(CMAKE_GENERATOR MATCHES "Ninja|Makefiles")
      set(depfile_opt --depfile "${mat}.d")
      set(depfile_kw DEPFILE "${mat}.d")
    endif()
    add_custom_command(OUTPUT "${mat}"
      COMMAND ${_klineage_exe} materialize --config "${config}" --source "${abs}" ${depfile_opt}
      DEPENDS ${cuda_sources} "${selection}" "${config}" ${_klineage_exe_target}
      ${depfile_kw}
      COMMENT "KLineage: materializing ${rel} for ${target}"
      VERBATIM)

    # The copy compiles like S, as CUDA, with S's directory on the include path.
    get_filename_component(src_dir "${abs}" DIRECTORY)
    get_source_file_property(incs "${abs}" TARGET_DIRECTORY "${target}" INCLUDE_DIRECTORIES)
    if(NOT incs)
      set(incs "")
    endif()
    # The selected headers' directory comes first of all, before S's own directory, so that a
    # header beside S is found there first too.
    list(PREPEND incs "${out_dir}/include" "${src_dir}")
    set_property(SOURCE "${mat}" TARGET_DIRECTORY "${target}" PROPERTY INCLUDE_DIRECTORIES "${incs}")
    set_property(SOURCE "${mat}" TARGET_DIRECTORY "${target}" PROPERTY LANGUAGE CUDA)
    set_property(SOURCE "${mat}" TARGET_DIRECTORY "${target}" PROPERTY GENERATED ON)
    foreach(p IN ITEMS COMPILE_DEFINITIONS COMPILE_OPTIONS COMPILE_FLAGS OBJECT_DEPENDS
                       SKIP_PRECOMPILE_HEADERS SKIP_UNITY_BUILD_INCLUSION)
      get_source_file_property(v "${abs}" TARGET_DIRECTORY "${target}" ${p})
      if(v)
        set_property(SOURCE "${mat}" TARGET_DIRECTORY "${target}" PROPERTY ${p} "${v}")
      endif()
    endforeach()
  endforeach()

  set_property(TARGET "${target}" PROPERTY SOURCES "${new_sources}")
  # Selected headers (kernels defined in headers): `klineage materialize` puts each fresh one in
  # <out_dir>/include under the name the sources include it by; first on the CUDA include path
  # (each copy above also has it first among its own include directories).
  file(MAKE_DIRECTORY "${out_dir}/include")
  target_include_directories("${target}" BEFORE PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:${out_dir}/include>")
  set_property(TARGET "${target}" PROPERTY EXPORT_COMPILE_COMMANDS ON)
  if(NOT CMAKE_GENERATOR MATCHES "Ninja|Makefiles")
    message(WARNING "${fn}: the ${CMAKE_GENERATOR} generator writes no compile_commands.json, which "
                    "`klineage optimize` reads; use Ninja or a Makefile generator")
  endif()

  # Called from another directory than the target's: the custom commands above belong to this
  # directory, so a target here must drive them.
  cmake_path(COMPARE "${target_src_dir}" EQUAL "${CMAKE_CURRENT_SOURCE_DIR}" same_dir)
  if(NOT same_dir)
    add_custom_target(klineage-materialize-${target} DEPENDS ${materialized_sources})
    add_dependencies("${target}" klineage-materialize-${target})
  endif()

  # optimize-<target> and optimize.
  add_custom_target(optimize-${target}
    COMMAND ${_klineage_exe} optimize --config "${config}"
    DEPENDS ${generated_prereqs}
    WORKING_DIRECTORY "${CMAKE_BINARY_DIR}"
    COMMENT "KLineage: optimizing the CUDA kernels of ${target}"
    USES_TERMINAL
    VERBATIM)
  if(_klineage_tool_targets)
    add_dependencies(optimize-${target} ${_klineage_tool_targets})
  endif()
  get_target_property(manual_deps "${target}" MANUALLY_ADDED_DEPENDENCIES)
  if(manual_deps)
    add_dependencies(optimize-${target} ${manual_deps})
  endif()

  # The CI gate: a CTest test and ci-/update-baseline- targets over `klineage ci`.
  if(arg_CI_ARGS AND NOT arg_CI_BASELINE)
    message(FATAL_ERROR "${fn}: CI_ARGS needs CI_BASELINE <file>")
  endif()
  if(arg_CI_BASELINE)
    get_filename_component(baseline "${arg_CI_BASELINE}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    set(ci_command ${_klineage_exe} ci --config "${config}" --baseline "${baseline}" ${arg_CI_ARGS})
    add_custom_target(ci-${target} COMMAND ${ci_command} WORKING_DIRECTORY "${CMAKE_BINARY_DIR}"
      COMMENT "KLineage: timing the kernels of ${target} against ${arg_CI_BASELINE}" USES_TERMINAL VERBATIM)
    add_custom_target(update-baseline-${target} COMMAND ${ci_command} --update-baseline
      WORKING_DIRECTORY "${CMAKE_BINARY_DIR}" COMMENT "KLineage: rewriting ${arg_CI_BASELINE}" USES_TERMINAL VERBATIM)
    if(_klineage_tool_targets)
      add_dependencies(ci-${target} ${_klineage_tool_targets})
      add_dependencies(update-baseline-${target} ${_klineage_tool_targets})
    endif()
    # 77: no GPU on this machine, which CTest reports as skipped rather than passed.
    add_test(NAME klineage-ci-${target} COMMAND ${ci_command} --no-gpu-exit 77 WORKING_DIRECTORY "${CMAKE_BINARY_DIR}")
    set_tests_properties(klineage-ci-${target} PROPERTIES SKIP_RETURN_CODE 77 LABELS klineage-ci)
  endif()
  get_property(have_optimize GLOBAL PROPERTY _KLINEAGE_OPTIMIZE_TARGET)
  if(NOT have_optimize)
    if(TARGET optimize)
      message(WARNING "${fn}: a target named 'optimize' already exists; use optimize-${target}")
    else()
      add_custom_target(optimize COMMENT "KLineage: optimized every klineage_optimize() target")
      set_property(GLOBAL PROPERTY _KLINEAGE_OPTIMIZE_TARGET ON)
      set(have_optimize ON)
    endif()
  endif()
  if(have_optimize)
    add_dependencies(optimize optimize-${target})
  endif()

  # config.json is written once every directory is processed (RUN may name a target defined later,
  # and CUDA_ARCHITECTURES may still change).
  _klineage_json_string(j_target "${target}")
  _klineage_json_string(j_source_dir "${CMAKE_CURRENT_SOURCE_DIR}")
  _klineage_json_string(j_build_dir "${CMAKE_BINARY_DIR}")
  _klineage_json_string(j_out_dir "${out_dir}")
  _klineage_json_string(j_compile_commands "${CMAKE_BINARY_DIR}/compile_commands.json")
  set(entries "")
  foreach(abs mat IN ZIP_LISTS cuda_sources materialized_sources)
    _klineage_json_string(o "${abs}")
    _klineage_json_string(m "${mat}")
    list(APPEND entries "    {\n      \"original\": ${o},\n      \"materialized\": ${m}\n    }")
  endforeach()
  list(JOIN entries ",\n" entries)
  set(j_workload null)
  if(workload)
    _klineage_json_string(j_workload "${workload}")
  endif()
  _klineage_json_string_array(j_skills "  " ${skills})
  set(j_runner null)
  if(_klineage_runner)
    _klineage_json_string(j_runner "${_klineage_runner}")
  endif()
  _klineage_json_string(j_nvcc "${CMAKE_CUDA_COMPILER}")

  string(CONCAT head
    "{\n"
    "  \"format\": \"klineage-config-1\",\n"
    "  \"target\": ${j_target},\n"
    "  \"source_dir\": ${j_source_dir},\n"
    "  \"build_dir\": ${j_build_dir},\n"
    "  \"out_dir\": ${j_out_dir},\n"
    "  \"compile_commands\": ${j_compile_commands},\n"
    "  \"sources\": [\n${entries}\n  ],\n"
    "  \"workload\": ${j_workload},\n"
    "  \"skills\": ${j_skills},\n"
    "  \"budget\": ${budget},\n"
    "  \"search\": \"${search}\",\n"
    "  \"timeout_s\": ${timeout},\n"
    "  \"require_gpu\": ${require_gpu},\n"
    "  \"sanitize\": \"${sanitize}\",\n"
    "  \"result_cache\": ${result_cache},\n"
    "  \"runner\": ${j_runner},\n"
    "  \"nvcc\": ${j_nvcc},\n"
    "  \"backend\": \"${backend}\",\n"
    "  \"slurm\": {\"partition\": ${j_slurm_PARTITION}, \"account\": ${j_slurm_ACCOUNT}, \"gres\": ${j_slurm_GRES}, "
    "\"runner\": ${j_slurm_RUNNER}, \"max_jobs\": ${slurm_MAX_JOBS}, \"args\": ${j_slurm_args}},\n"
    "  \"llm\": {\"url\": ${j_llm_URL}, \"model\": ${j_llm_MODEL}, \"max_requests\": ${llm_MAX_REQUESTS}, "
    "\"max_tokens\": ${llm_MAX_TOKENS}, \"repair_rounds\": ${llm_REPAIR_ROUNDS}, \"timeout_s\": ${llm_TIMEOUT}},\n")
  set_property(GLOBAL PROPERTY _KLINEAGE_TARGET_${target} ON)
  set_property(GLOBAL PROPERTY _KLINEAGE_CONFIG_HEAD_${target} "${head}")
  set_property(GLOBAL PROPERTY _KLINEAGE_CONFIG_PATH_${target} "${config}")
  set_property(GLOBAL PROPERTY _KLINEAGE_RUN_${target} "${arg_RUN}")
  set_property(GLOBAL PROPERTY _KLINEAGE_ARGS_${target} "${arg_ARGS}")
  cmake_language(EVAL CODE
    "cmake_language(DEFER DIRECTORY [==[${CMAKE_SOURCE_DIR}]==] CALL _klineage_write_config [==[${target}]==])")
endfunction()

# klineage-capture-build-<program>: configures this project once more in <dir> with
# KLINEAGE_CAPTURE_BUILD=ON (same generator and the cache settings that shape the build) and builds
# <program> there. Re-configuring an existing build is quick and picks up source-list changes.
function(_klineage_capture_build_target dir program)
  if(TARGET klineage-capture-build-${program})
    return()
  endif()
  set(cache_args -DKLINEAGE_CAPTURE_BUILD=ON)
  foreach(v IN ITEMS CMAKE_BUILD_TYPE CMAKE_CUDA_ARCHITECTURES CMAKE_PREFIX_PATH KLineage_DIR
                     CMAKE_TOOLCHAIN_FILE CMAKE_C_COMPILER CMAKE_CXX_COMPILER CMAKE_CUDA_COMPILER
                     CMAKE_CUDA_HOST_COMPILER CMAKE_CUDA_FLAGS CMAKE_CXX_FLAGS
                     KLINEAGE_EXECUTABLE KLINEAGE_RUNNER_EXECUTABLE KLINEAGE_SKILLS_DIR)
    if(DEFINED CACHE{${v}} AND NOT "$CACHE{${v}}" STREQUAL "")
      list(APPEND cache_args "-D${v}=$CACHE{${v}}")
    endif()
  endforeach()
  add_custom_target(klineage-capture-build-${program}
    COMMAND "${CMAKE_COMMAND}" -S "${CMAKE_SOURCE_DIR}" -B "${dir}" -G "${CMAKE_GENERATOR}" ${cache_args}
    COMMAND "${CMAKE_COMMAND}" --build "${dir}" --target "${program}"
    COMMENT "KLineage: building ${program} with the original kernels (capture build in ${dir})"
    USES_TERMINAL
    VERBATIM)
endfunction()

# Deferred to the end of the top-level directory: finishes and writes <out_dir>/config.json.
function(_klineage_write_config target)
  get_property(head GLOBAL PROPERTY _KLINEAGE_CONFIG_HEAD_${target})
  get_property(config GLOBAL PROPERTY _KLINEAGE_CONFIG_PATH_${target})
  get_property(run GLOBAL PROPERTY _KLINEAGE_RUN_${target})
  get_property(run_args GLOBAL PROPERTY _KLINEAGE_ARGS_${target})

  get_target_property(archs "${target}" CUDA_ARCHITECTURES)
  if(NOT archs AND NOT archs STREQUAL "OFF")
    set(archs "${CMAKE_CUDA_ARCHITECTURES}")
  endif()
  _klineage_json_string_array(j_archs "  " ${archs})

  set(j_run null)
  if(run)
    list(GET run 0 program)
    set(j_capture_build null)
    if(TARGET "${program}")
      get_target_property(program_type "${program}" TYPE)
      if(NOT program_type STREQUAL "EXECUTABLE")
        message(FATAL_ERROR "klineage_optimize(${target}): RUN ${program} is a ${program_type} target; "
                            "RUN takes an executable target or a command")
      endif()
      # The program is built and captured in a second build of this project under the build tree
      # (KLINEAGE_CAPTURE_BUILD=ON), where klineage_optimize() selects nothing: its launches are
      # those of the original kernels.
      set(capture_dir "${CMAKE_BINARY_DIR}/klineage/_capture-build")
      _klineage_capture_build_target("${capture_dir}" "${program}")
      add_dependencies(optimize-${target} klineage-capture-build-${program})
      list(POP_FRONT run)
      list(PREPEND run "${capture_dir}/$<PATH:RELATIVE_PATH,$<TARGET_FILE:${program}>,${CMAKE_BINARY_DIR}>")
      _klineage_json_string(j_capture_build "${capture_dir}")
    endif()
    _klineage_json_string_array(j_command "    " ${run})
    _klineage_json_string_array(j_args "    " ${run_args})
    string(CONCAT j_run "{\n    \"command\": ${j_command},\n    \"args\": ${j_args},\n    \"capture_build\": ${j_capture_build},\n"
              "    \"timeout_s\": ${KLINEAGE_CAPTURE_TIMEOUT},\n    \"max_shapes\": ${KLINEAGE_CAPTURE_MAX_SHAPES},\n"
              "    \"max_bytes\": ${KLINEAGE_CAPTURE_MAX_BYTES}\n  }")
  endif()

  string(CONCAT content "${head}"
    "  \"cuda_architectures\": ${j_archs},\n"
    "  \"run\": ${j_run}\n"
    "}\n")
  # Multi-config generators: one config.json, naming the first configuration's tools.
  get_property(multi GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
  if(multi AND CMAKE_CONFIGURATION_TYPES)
    list(GET CMAKE_CONFIGURATION_TYPES 0 first)
    file(GENERATE OUTPUT "${config}" CONTENT "${content}" CONDITION "$<CONFIG:${first}>")
  else()
    file(GENERATE OUTPUT "${config}" CONTENT "${content}")
  endif()
endfunction()
