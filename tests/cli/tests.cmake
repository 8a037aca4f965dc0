# The command line as users type it (a script: it runs the real klineage binary).
add_test(NAME cli-extract-source
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/extract_cli.sh $<TARGET_FILE:klineage> ${CMAKE_CURRENT_BINARY_DIR}/cli/extract)
set_tests_properties(cli-extract-source PROPERTIES LABELS "cli")
