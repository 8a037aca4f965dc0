// report.html: one self-contained HTML5 page (inline CSS, charts as inline SVG written here, no
// network and no JavaScript needed to read it) about one run, for people. It reads only the
// documented JSON formats, so `ninja optimize` (report.json) and `klineage ci` (its ci result,
// plus the last report.json when there is one) write the same page. docs/report.md says what each
// part shows and where its data comes from.
#pragma once
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace klineage {

// `report`: a klineage-report-1 document (reportJson(), report.h); `ci`: a klineage-ci-1 document
// (`klineage ci`). Either may be null; the page has a section for each one given. Values of the
// wrong type or missing are shown as absent, never an exception.
std::string renderHtmlReport(const nlohmann::json* report, const nlohmann::json* ci);

// renderHtmlReport() written to `path` with atomicWrite.
void writeHtmlReport(const nlohmann::json* report, const nlohmann::json* ci, const std::string& path);

// Text for HTML element content and attribute values (& < > " ').
std::string htmlEscape(const std::string& s);

}  // namespace klineage
