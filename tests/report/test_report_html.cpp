// report.html from a real report.json (runOptimize with the fakes) and a klineage-ci-1 document:
// every variant with its outcome, reasons escaped, the kept diff, SVG charts with a size, the CI
// section, nothing fetched from the network.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <regex>
#include <set>

#include "core/fs.h"
#include "report/report_fixture.h"
#include "report.h"
#include "report_html.h"

using namespace klineage;

namespace {

const nlohmann::json& realReport() {
  static const nlohmann::json j = test::makeReportJson();
  return j;
}

struct Chart {
  std::string id;
  double w, h;
};
std::vector<Chart> charts(const std::string& html) {
  std::vector<Chart> out;
  static const std::regex re("<svg class=\"klineage-chart[^\"]*\" id=\"([^\"]+)\" width=\"([0-9.]+)\" height=\"([0-9.]+)\"");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), re); it != std::sregex_iterator(); ++it)
    out.push_back({(*it)[1], std::stod((*it)[2]), std::stod((*it)[3])});
  return out;
}
bool has(const std::string& html, const std::string& part) { return html.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("report: every variant appears with its outcome and escaped reason", "[report]") {
  const nlohmann::json& rep = realReport();
  const std::string html = renderHtmlReport(&rep, nullptr);
  REQUIRE(rep["variants"].size() > 4);
  bool saw_wrong = false;
  for (const auto& v : rep["variants"]) {
    const std::string id = v["variant"]["id"], outcome = v["outcome"];
    INFO(id);
    const size_t row = html.find("data-variant=\"" + htmlEscape(id) + "\"");
    REQUIRE(row != std::string::npos);
    const std::string tr = html.substr(row, html.find("</tr>", row) - row);
    if (v["variant"]["is_original"] == true && outcome == "not-run") CHECK(has(tr, ">reference</span>"));  // not gated itself
    else CHECK(has(tr, ">" + outcome + "</span>"));
    if (!v["reason"].get<std::string>().empty()) CHECK(has(tr, htmlEscape(v["reason"].get<std::string>())));
    // a variant not gated in this run says why: a result from the result cache, the same code as another
    CHECK(has(tr, ">cached</span>") == v.value("cached", false));
    CHECK(has(tr, ">same as ") == v.contains("same_as"));
    saw_wrong |= outcome == "wrong-result";
  }
  CHECK(saw_wrong);  // the fake's reason with <script> in it
  CHECK_FALSE(has(html, "<script>alert"));
  CHECK(has(html, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;more&quot;"));
}

TEST_CASE("report: a variant from the result cache or the same as another says so in its row", "[report]") {
  nlohmann::json rep = realReport();
  std::vector<nlohmann::json*> saxpy;  // its variants, not the original
  for (auto& v : rep["variants"])
    if (v["variant"]["kernel"] == "saxpy" && !v["variant"]["is_original"].get<bool>()) saxpy.push_back(&v);
  REQUIRE(saxpy.size() >= 3);
  nlohmann::json& cached = *saxpy[0];
  nlohmann::json& same = *saxpy[1];
  cached["cached"] = true;
  cached["cache_key"] = "0123abcd";
  const std::string cached_id = cached["variant"]["id"], same_id = same["variant"]["id"], plain_id = (*saxpy[2])["variant"]["id"];
  same["same_as"] = cached_id;
  same["outcome"] = "not-run";
  same["reason"] = "the same machine code and launch as " + cached_id + ": gated once, not again";
  same["speedup"] = 0;
  same["run"] = nullptr;
  rep["from_result_cache"] = 1;
  rep["not_gated_identical"] = 1;
  const std::string html = renderHtmlReport(&rep, nullptr);
  auto row = [&](const std::string& id) {
    const size_t at = html.find("data-variant=\"" + htmlEscape(id) + "\"");
    REQUIRE(at != std::string::npos);
    return html.substr(at, html.find("</tr>", at) - at);
  };
  const std::string c = row(cached_id), s = row(same_id), plain = row(plain_id);
  CHECK(has(c, "<span class=\"badge cached\""));
  CHECK(has(c, ">cached</span>"));
  CHECK(has(c, "cache/results/0123abcd.json"));
  CHECK_FALSE(has(c, "same as"));
  CHECK(has(s, "<span class=\"badge same-as\""));
  CHECK(has(s, ">same as " + htmlEscape(cached_id) + "</span>"));
  CHECK_FALSE(has(s, ">cached</span>"));
  CHECK_FALSE(has(plain, "class=\"badge"));
  // the summary counts them
  CHECK(has(html, "1 from the result cache"));
  CHECK(has(html, "1 the same code as another variant or the original"));
  CHECK_FALSE(has(renderHtmlReport(&realReport(), nullptr), "Not gated in this run"));

  // report.json (reportJson) carries both per variant, and the counts
  Report r;
  VariantReport a, b, o;
  a.variant.id = "k/1";
  a.variant.kernel = "k";
  a.outcome = Outcome::Passed;
  a.cached = true;
  a.cache_key = "ab12";
  b.variant.id = "k/2";
  b.variant.kernel = "k";
  b.same_as = "k/1";
  o.variant.id = "k/3";
  o.variant.kernel = "k";
  r.variants = {a, b, o};
  const nlohmann::json j = reportJson(r);
  CHECK(j["variants"][0]["cached"] == true);
  CHECK(j["variants"][0]["cache_key"] == "ab12");
  CHECK_FALSE(j["variants"][0].contains("same_as"));
  CHECK(j["variants"][1]["same_as"] == "k/1");
  CHECK_FALSE(j["variants"][1].contains("cached"));
  CHECK_FALSE(j["variants"][2].contains("cached"));
  CHECK_FALSE(j["variants"][2].contains("same_as"));
  CHECK(j["from_result_cache"] == 1);
  CHECK(j["not_gated_identical"] == 1);
}

TEST_CASE("report: the kept variant's diff, lineage and facts are on the page", "[report]") {
  const nlohmann::json& rep = realReport();
  const std::string html = renderHtmlReport(&rep, nullptr);
  REQUIRE(rep["selected"].contains("saxpy"));
  const std::string kept = rep["selected"]["saxpy"]["variant"];
  std::string diff;
  for (const auto& v : rep["variants"])
    if (v["variant"]["id"] == kept) diff = v["variant"]["diff"];
  REQUIRE_FALSE(diff.empty());
  // every added line of the diff, escaped and marked as an addition
  size_t added = 0;
  std::istringstream in(diff);
  for (std::string l; std::getline(in, l);)
    if (l.size() > 1 && l[0] == '+' && l.rfind("+++", 0) != 0) {
      CHECK(has(html, "<span class=\"add\">" + htmlEscape(l) + "</span>"));
      ++added;
    }
  CHECK(added > 0);
  // the lineage table: one row per skill of the kept chain, the kept variant in the last one
  const size_t lin = html.find("<table class=\"lineage\">", html.find("id=\"lineage-saxpy\""));
  REQUIRE(lin != std::string::npos);
  const std::string table = html.substr(lin, html.find("</table>", lin) - lin);
  for (const auto& s : rep["selected"]["saxpy"]["skills"]) CHECK(has(table, s.get<std::string>()));
  CHECK(has(table, htmlEscape(kept)));
  // the facts it was gated on
  for (const auto& k : rep["kernels"]) {
    CHECK(has(html, "id=\"kernel-" + k["kernel"].get<std::string>() + "\""));
    if (!k["facts"].get<std::string>().empty()) CHECK(has(html, htmlEscape(k["facts"].get<std::string>())));
  }
  CHECK(has(html, "grid (262144,1,1)"));
}

TEST_CASE("report: SVG charts with a size, one set per kernel, ids unique", "[report]") {
  const nlohmann::json& rep = realReport();
  const nlohmann::json ci = test::makeCiJson();
  const std::string html = renderHtmlReport(&rep, &ci);
  const auto cs = charts(html);
  std::set<std::string> ids;
  for (const auto& c : cs) {
    INFO(c.id);
    CHECK(c.w > 0);
    CHECK(c.h > 0);
    CHECK(ids.insert(c.id).second);
  }
  for (const char* id : {"chart-overview", "speedup-saxpy", "dist-saxpy", "lineage-saxpy", "speedup-relu", "dist-relu",
                         "ci-times"})
    CHECK(ids.count(id) == 1);
  // the distribution shows every timed run: one dot per sample of the kept variant and its original
  const std::string kept = rep["selected"]["saxpy"]["variant"];
  size_t samples = 0;
  for (const auto& v : rep["variants"])
    if (v["variant"]["id"] == kept)
      samples = v["run"]["original_time"]["samples_ms"].size() + v["run"]["variant_time"]["samples_ms"].size();
  REQUIRE(samples == 80);
  const size_t a = html.find("id=\"dist-saxpy\""), b = html.find("</svg>", a);
  const std::string dist = html.substr(a, b - a);
  size_t dots = 0;
  for (size_t p = dist.find("<circle"); p != std::string::npos; p = dist.find("<circle", p + 1)) ++dots;
  CHECK(dots == samples);
}

TEST_CASE("report: the CI section has every kernel's verdict, bars and distributions", "[report]") {
  const nlohmann::json ci = test::makeCiJson();
  const std::string html = renderHtmlReport(nullptr, &ci);
  CHECK(has(html, "id=\"ci\""));
  CHECK(has(html, ">regression</span>"));
  for (const auto& k : ci["kernels"]) {
    const size_t row = html.find("<tr data-kernel=\"" + k["kernel"].get<std::string>() + "\"");
    REQUIRE(row != std::string::npos);
    const std::string tr = html.substr(row, html.find("</tr>", row) - row);
    CHECK(has(tr, ">" + k["verdict"].get<std::string>() + "</span>"));
  }
  CHECK(has(html, "&lt;b&gt;beyond&lt;/b&gt;"));
  CHECK_FALSE(has(html, "<b>beyond"));
  const auto cs = charts(html);
  CHECK(cs.size() == 3);  // the bars and one distribution per kernel
  // a null expected_ms is shown as none, not as 0
  CHECK(has(html, "<span class=\"muted\">none</span>"));
}

TEST_CASE("report: the page is self-contained and well-formed at the top level", "[report]") {
  const nlohmann::json& rep = realReport();
  const nlohmann::json ci = test::makeCiJson();
  for (const std::string& html :
       {renderHtmlReport(&rep, &ci), renderHtmlReport(&rep, nullptr), renderHtmlReport(nullptr, nullptr)}) {
    CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
    CHECK_FALSE(has(html, "http://"));
    CHECK_FALSE(has(html, "https://"));
    CHECK_FALSE(has(html, " src="));
    CHECK_FALSE(has(html, "<link"));
    CHECK_FALSE(has(html, "@import"));
    CHECK(has(html, "</html>"));
    CHECK(has(html, "id=\"klineage-selfcheck\""));
  }
}

TEST_CASE("report: a run without a GPU and wrongly typed values still give a page", "[report]") {
  nlohmann::json rep = realReport();
  rep["device"] = nullptr;
  rep["device_reason"] = "no device in this test";
  rep["selected"] = nlohmann::json::object();
  for (auto& v : rep["variants"]) {
    v["speedup"] = 0;
    v["run"] = nullptr;
    v["outcome"] = "not-run";
  }
  std::string html = renderHtmlReport(&rep, nullptr);
  CHECK(has(html, "No CUDA device: no device in this test"));
  CHECK(has(html, "original kept"));
  for (const auto& c : charts(html)) CHECK((c.w > 0 && c.h > 0));
  CHECK(charts(html).size() >= 5);  // the overview, then speedups and distributions saying nothing was measured
  nlohmann::json bad = {{"format", 3}, {"kernels", "x"}, {"variants", {1, "a", {{"variant", 2}}}}, {"selected", 5}};
  CHECK_NOTHROW(html = renderHtmlReport(&bad, &bad));
  CHECK(has(html, "</html>"));
}

TEST_CASE("report: optimize writes report.html and names it in the summary", "[report]") {
  test::Project p(2);
  test::FakeCompiler cc;
  test::SpreadRunner gpu;
  RecordingStatus status;
  OptimizeOptions opt;
  opt.config = p.config;
  PipelineSeams seams;
  seams.compiler = &cc;
  seams.runner = &gpu;
  seams.status = &status;
  REQUIRE(runOptimize(opt, seams) == 0);
  const auto html_path = p.root / "build/klineage/kernels/report.html";
  REQUIRE(std::filesystem::exists(html_path));
  CHECK(status.saw("klineage: report page: " + html_path.string()));
  const nlohmann::json rep = p.report();
  CHECK(readFile(html_path) == renderHtmlReport(&rep, nullptr));
}

// Not run by ctest: writes the page the headless-Chromium test opens (tests/report/chromium.sh).
TEST_CASE("report: write the page for the browser test", "[.make-report]") {
  const char* out = std::getenv("KLINEAGE_REPORT_HTML");
  REQUIRE(out != nullptr);
  const nlohmann::json& rep = realReport();
  const nlohmann::json ci = test::makeCiJson();
  writeHtmlReport(&rep, &ci, out);
}

TEST_CASE("report: the page says where the run's time went, stage by stage", "[report]") {
  const nlohmann::json& rep = realReport();
  const std::string html = renderHtmlReport(&rep, nullptr);
  REQUIRE(rep["stages"].size() >= 8);
  const size_t at = html.find("<p class=\"meta\" id=\"stages\">time:");
  REQUIRE(at != std::string::npos);
  const std::string line = html.substr(at, html.find("</p>", at) - at);
  char buf[64];
  for (const auto& st : rep["stages"]) {
    std::snprintf(buf, sizeof buf, " %.1f s", st["seconds"].get<double>());
    CHECK(has(line, " " + st["stage"].get<std::string>() + buf));
  }
  // A report without stages (older, or hand-made) has no such line.
  nlohmann::json old = rep;
  old.erase("stages");
  CHECK_FALSE(has(renderHtmlReport(&old, nullptr), "id=\"stages\""));
}
