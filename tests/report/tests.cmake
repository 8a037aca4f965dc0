# report.html in a real browser: headless Chromium opens the page test_report writes (its hidden
# "[.make-report]" case), takes a screenshot and checks that the charts rendered with no console
# errors. Fails without chromium unless KLINEAGE_ALLOW_NO_CHROMIUM=1 (then skipped).
add_test(NAME "report: chromium renders report.html"
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/chromium.sh $<TARGET_FILE:test_report> ${CMAKE_CURRENT_BINARY_DIR}/report/chromium)
set_tests_properties("report: chromium renders report.html" PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS "report")
