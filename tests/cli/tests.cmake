# The command line as users type it (a script: it runs the real klineage binary).
add_test(NAME cli-extract-source
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/extract_cli.sh $<TARGET_FILE:klineage> ${CMAKE_CURRENT_BINARY_DIR}/cli/extract)
set_tests_properties(cli-extract-source PROPERTIES LABELS "cli")

# What `cmake --install` puts in place: the skill library with its effect history and the mined
# skills' lineages, found by the installed klineage.
add_test(NAME cli-install-tree
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/install_tree.sh ${CMAKE_COMMAND} ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR}
          ${CMAKE_CURRENT_BINARY_DIR}/cli/install-tree)
set_tests_properties(cli-install-tree PROPERTIES LABELS "cli")
