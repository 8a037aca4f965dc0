#include "report_html.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/fs.h"

namespace klineage {

std::string htmlEscape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default:
        // Control characters other than tab and newline are not allowed in HTML text.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r') out += "\xEF\xBF\xBD";
        else out += c;
    }
  }
  return out;
}

namespace {

using json = nlohmann::json;

// ---- reading the JSON without trusting its types -------------------------------------------

const json& at(const json& j, const char* key) {
  static const json null_value;
  if (!j.is_object()) return null_value;
  auto it = j.find(key);
  return it == j.end() ? null_value : *it;
}
std::string str(const json& j, const char* key) {
  const json& v = at(j, key);
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number() || v.is_boolean()) return v.dump();
  return "";
}
std::optional<double> num(const json& j, const char* key) {
  const json& v = at(j, key);
  if (v.is_number()) return v.get<double>();
  return std::nullopt;
}
bool flag(const json& j, const char* key) {
  const json& v = at(j, key);
  return v.is_boolean() && v.get<bool>();
}
std::vector<double> nums(const json& v) {
  std::vector<double> out;
  if (v.is_array())
    for (const auto& x : v)
      if (x.is_number() && std::isfinite(x.get<double>())) out.push_back(x.get<double>());
  return out;
}
std::vector<std::string> strs(const json& v) {
  std::vector<std::string> out;
  if (v.is_array())
    for (const auto& x : v)
      if (x.is_string()) out.push_back(x.get<std::string>());
  return out;
}
const json& arr(const json& j, const char* key) {
  static const json empty = json::array();
  const json& v = at(j, key);
  return v.is_array() ? v : empty;
}

// ---- formatting ------------------------------------------------------------------------------

std::string fmt(const char* f, double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, x);
  return buf;
}
std::string fmtMs(double ms) {
  if (ms > 0 && ms < 0.01) return fmt("%.2f \xC2\xB5s", ms * 1000);
  if (ms < 10) return fmt("%.4g ms", ms);
  return fmt("%.1f ms", ms);
}
std::string fmtX(double s) { return fmt("%.2fx", s); }
std::string esc(const std::string& s) { return htmlEscape(s); }
std::string slug(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ? c : '-';
  return out.empty() ? "x" : out;
}
std::string chain(const std::vector<std::string>& skills, const std::string& fallback) {
  std::string c;
  for (const auto& s : skills) c += (c.empty() ? "" : "+") + s;
  return c.empty() ? fallback : c;
}
std::string shorten(const std::string& s, size_t n) { return s.size() <= n ? s : s.substr(0, n - 1) + "\xE2\x80\xA6"; }
std::string dim3(const json& d) {
  std::vector<double> v = nums(d);
  if (v.empty()) return "";
  std::string out;
  for (double x : v) out += (out.empty() ? "" : ",") + fmt("%.0f", x);
  return "(" + out + ")";
}

std::string outcomeColor(const std::string& o) {
  static const std::map<std::string, std::string> c = {
      {"passed", "#2e7d32"},        {"slower", "#e39b00"},  {"wrong-result", "#c62828"}, {"runtime-failed", "#ad1457"},
      {"timeout", "#6a1b9a"},       {"compile-failed", "#5d4037"}, {"not-run", "#8a8a8a"},
      // klineage ci verdicts
      {"faster", "#2e7d32"},        {"same", "#5b7ea4"},    {"wrong", "#c62828"},        {"new", "#1565c0"},
      {"not-measured", "#8a8a8a"},  {"pass", "#2e7d32"},    {"regression", "#e39b00"},   {"cannot-measure", "#8a8a8a"}};
  auto it = c.find(o);
  return it == c.end() ? "#8a8a8a" : it->second;
}
std::string chip(const std::string& label) {
  return "<span class=\"chip\" style=\"background:" + outcomeColor(label) + "\">" + esc(label.empty() ? "?" : label) +
         "</span>";
}

// A long or multi-line text (a compiler log) folds away behind its first line.
std::string foldable(const std::string& s) {
  if (s.empty()) return "";
  const size_t nl = s.find('\n');
  if (nl == std::string::npos && s.size() <= 240) return esc(s);
  return "<details><summary>" + esc(shorten(s.substr(0, std::min(nl, size_t{160})), 160)) + "</summary><pre>" + esc(s) +
         "</pre></details>";
}

// ---- SVG -------------------------------------------------------------------------------------

// "Nice" axis ticks between lo and hi (about n of them).
std::vector<double> ticks(double lo, double hi, int n) {
  std::vector<double> t;
  if (!(hi > lo)) return {lo};
  const double raw = (hi - lo) / n, mag = std::pow(10.0, std::floor(std::log10(raw))), f = raw / mag;
  const double step = (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * mag;
  for (double x = std::ceil(lo / step) * step; x <= hi + step * 1e-9; x += step) t.push_back(std::abs(x) < step * 1e-9 ? 0 : x);
  return t;
}

class Svg {
 public:
  Svg(const std::string& id, const std::string& kind, double w, double h, const std::string& label) : w_(w), h_(h) {
    os_ << "<svg class=\"klineage-chart " << kind << "\" id=\"" << esc(id)
        << "\" width=\"" << n(w) << "\" height=\"" << n(h) << "\" viewBox=\"0 0 " << n(w) << " " << n(h)
        << "\" role=\"img\" aria-label=\"" << esc(label) << "\"><title>" << esc(label) << "</title>"
        << "<rect x=\"0\" y=\"0\" width=\"" << n(w) << "\" height=\"" << n(h) << "\" fill=\"#ffffff\"/>";
  }
  static std::string n(double x) { return fmt("%.1f", x); }
  void rect(double x, double y, double w, double h, const std::string& fill, const std::string& tip = "",
            const std::string& extra = "") {
    os_ << "<rect x=\"" << n(x) << "\" y=\"" << n(y) << "\" width=\"" << n(std::max(w, 0.0)) << "\" height=\""
        << n(std::max(h, 0.0)) << "\" fill=\"" << fill << "\"" << extra << ">";
    if (!tip.empty()) os_ << "<title>" << esc(tip) << "</title>";
    os_ << "</rect>";
  }
  void line(double x1, double y1, double x2, double y2, const std::string& stroke, double width = 1,
            const std::string& extra = "") {
    os_ << "<line x1=\"" << n(x1) << "\" y1=\"" << n(y1) << "\" x2=\"" << n(x2) << "\" y2=\"" << n(y2)
        << "\" stroke=\"" << stroke << "\" stroke-width=\"" << n(width) << "\"" << extra << "/>";
  }
  void text(double x, double y, const std::string& s, const std::string& anchor = "start", double size = 12,
            const std::string& fill = "#222", const std::string& extra = "") {
    os_ << "<text x=\"" << n(x) << "\" y=\"" << n(y) << "\" text-anchor=\"" << anchor << "\" font-size=\"" << n(size)
        << "\" fill=\"" << fill << "\"" << extra << ">" << esc(s) << "</text>";
  }
  void circle(double x, double y, double r, const std::string& fill, const std::string& tip = "",
              const std::string& extra = "") {
    os_ << "<circle cx=\"" << n(x) << "\" cy=\"" << n(y) << "\" r=\"" << n(r) << "\" fill=\"" << fill << "\"" << extra
        << ">";
    if (!tip.empty()) os_ << "<title>" << esc(tip) << "</title>";
    os_ << "</circle>";
  }
  void raw(const std::string& s) { os_ << s; }
  std::string done() {
    os_ << "</svg>";
    return os_.str();
  }
  double w() const { return w_; }
  double h() const { return h_; }

 private:
  std::ostringstream os_;
  double w_, h_;
};

// A chart with nothing to draw still renders, saying why.
std::string emptyChart(const std::string& id, const std::string& kind, const std::string& why) {
  Svg s(id, kind + " empty", 780, 44, why);
  s.rect(0.5, 0.5, 779, 43, "#fafafa", "", " stroke=\"#ddd\"");
  s.text(16, 27, why, "start", 13, "#666");
  return s.done();
}

struct Bar {
  std::string label, tip, color, value_text;
  double value = 0;
  bool highlight = false;
};

// Horizontal bars, one row each, on a linear axis from 0; `ref` draws a dashed reference line
// (1.0x for speedups).
std::string barChart(const std::string& id, const std::string& kind, const std::string& title,
                     const std::vector<Bar>& bars, std::optional<double> ref, const std::string& axis_unit) {
  if (bars.empty()) return emptyChart(id, kind, title + ": nothing measured");
  const double label_w = 230, plot_w = 380, right_w = 170, row = 20, top = 38, bottom = 30;
  const double W = label_w + plot_w + right_w, H = top + row * bars.size() + bottom;
  double hi = ref ? *ref * 1.1 : 0;
  for (const auto& b : bars) hi = std::max(hi, b.value);
  hi = hi > 0 ? hi * 1.08 : 1;
  auto X = [&](double v) { return label_w + plot_w * std::clamp(v / hi, 0.0, 1.0); };
  Svg s(id, kind, W, H, title);
  s.text(8, 16, title, "start", 13, "#222", " font-weight=\"600\"");
  const double axis_y = top + row * bars.size() + 4;
  for (double t : ticks(0, hi, 5)) {
    s.line(X(t), top - 2, X(t), axis_y, "#e4e4e4");
    s.text(X(t), axis_y + 14, fmt("%g", t) + axis_unit, "middle", 10, "#555");
  }
  for (size_t i = 0; i < bars.size(); ++i) {
    const Bar& b = bars[i];
    const double y = top + row * i;
    if (b.highlight) s.rect(2, y, W - 4, row, "#fff6d5");
    s.text(label_w - 8, y + 14, shorten(b.label, 34), "end", 11, "#222", b.highlight ? " font-weight=\"700\"" : "");
    s.rect(label_w, y + 3, X(b.value) - label_w, row - 6, b.color, b.tip.empty() ? b.label : b.tip,
           b.highlight ? " stroke=\"#222\" stroke-width=\"1.5\"" : "");
    s.text(X(b.value) + 5, y + 14, shorten(b.value_text + (b.highlight ? "  kept" : ""), 28), "start", 11, "#222");
  }
  s.line(label_w, top - 2, label_w, axis_y, "#888");
  if (ref) {
    s.line(X(*ref), top - 6, X(*ref), axis_y, "#333", 1.2, " stroke-dasharray=\"4 3\"");
    s.text(X(*ref), top - 9, fmt("%g", *ref) + axis_unit, "middle", 10, "#333");
  }
  return s.done();
}

struct Dist {
  std::string label, color;
  std::vector<double> samples;  // in run order
  std::optional<double> median;  // the reported median (drawn when there are no samples)
};

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = q * (v.size() - 1);
  const size_t i = static_cast<size_t>(pos);
  return i + 1 < v.size() ? v[i] + (pos - i) * (v[i + 1] - v[i]) : v[i];
}

// One row per series: every sample as a dot (jittered vertically), a box from the first to the
// third quartile, whiskers to the extremes, the median as a bar.
std::string distChart(const std::string& id, const std::string& title, const std::vector<Dist>& rows) {
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& r : rows) {
    for (double x : r.samples) lo = std::min(lo, x), hi = std::max(hi, x);
    if (r.median) lo = std::min(lo, *r.median), hi = std::max(hi, *r.median);
  }
  if (!std::isfinite(lo)) return emptyChart(id, "klineage-dist", title + ": no timed runs");
  const double pad = hi > lo ? (hi - lo) * 0.06 : std::max(std::abs(lo) * 0.05, 1e-6);
  lo = std::max(0.0, lo - pad), hi += pad;
  const double label_w = 210, plot_w = 540, right_w = 30, row = 44, top = 26, bottom = 32;
  const double W = label_w + plot_w + right_w, H = top + row * rows.size() + bottom;
  auto X = [&](double v) { return label_w + plot_w * (v - lo) / (hi - lo); };
  Svg s(id, "klineage-dist", W, H, title);
  s.text(8, 16, title, "start", 13, "#222", " font-weight=\"600\"");
  const double axis_y = top + row * rows.size() + 2;
  for (double t : ticks(lo, hi, 6)) {
    s.line(X(t), top, X(t), axis_y, "#eeeeee");
    s.text(X(t), axis_y + 14, fmtMs(t), "middle", 10, "#555");
  }
  s.line(label_w, axis_y, label_w + plot_w, axis_y, "#888");
  for (size_t i = 0; i < rows.size(); ++i) {
    const Dist& r = rows[i];
    const double y0 = top + row * i, mid = y0 + row / 2;
    std::string sub = r.samples.empty() ? "no samples" : std::to_string(r.samples.size()) + " runs";
    std::optional<double> med = r.samples.empty() ? r.median : std::optional<double>(quantile(r.samples, 0.5));
    if (med) sub += ", median " + fmtMs(*med);
    s.text(label_w - 10, mid - 2, shorten(r.label, 32), "end", 11, "#222", " font-weight=\"600\"");
    s.text(label_w - 10, mid + 12, sub, "end", 10, "#555");
    if (!r.samples.empty()) {
      const double q1 = quantile(r.samples, 0.25), q3 = quantile(r.samples, 0.75);
      const double mn = *std::min_element(r.samples.begin(), r.samples.end());
      const double mx = *std::max_element(r.samples.begin(), r.samples.end());
      s.line(X(mn), mid, X(mx), mid, r.color, 1);
      s.line(X(mn), mid - 6, X(mn), mid + 6, r.color, 1);
      s.line(X(mx), mid - 6, X(mx), mid + 6, r.color, 1);
      s.rect(X(q1), mid - 11, std::max(X(q3) - X(q1), 1.0), 22, r.color, "quartiles " + fmtMs(q1) + " .. " + fmtMs(q3),
             " fill-opacity=\"0.18\" stroke=\"" + r.color + "\"");
      for (size_t k = 0; k < r.samples.size(); ++k) {
        const double jitter = (static_cast<double>((k * 7919) % 23) / 22.0 - 0.5) * 26;
        s.circle(X(r.samples[k]), mid + jitter, 2.2, r.color, "run " + std::to_string(k + 1) + ": " + fmtMs(r.samples[k]),
                 " fill-opacity=\"0.55\"");
      }
    }
    if (med) s.line(X(*med), mid - 14, X(*med), mid + 14, "#111", 2.2);
  }
  return s.done();
}

struct Step {
  std::string label, id, outcome;
  std::optional<double> speedup;
};

// The kept variant's chain one skill at a time: the speedup after each step, where that prefix
// was gated as a variant of its own.
std::string lineageChart(const std::string& id, const std::string& title, const std::vector<Step>& steps) {
  const double left = 60, right = 90, top = 30, plot_h = 150, bottom = 56;
  const double step_w = std::max(110.0, std::min(200.0, 690.0 / std::max<size_t>(1, steps.size() - 1)));
  const double W = left + right + step_w * (steps.size() - 1) + 20, H = top + plot_h + bottom;
  double lo = 1, hi = 1;
  for (const auto& st : steps)
    if (st.speedup) lo = std::min(lo, *st.speedup), hi = std::max(hi, *st.speedup);
  lo = std::max(0.0, lo - (hi - lo) * 0.15 - 0.05), hi = hi + (hi - lo) * 0.15 + 0.05;
  auto X = [&](size_t i) { return left + 10 + step_w * i; };
  auto Y = [&](double v) { return top + plot_h * (1 - (v - lo) / (hi - lo)); };
  Svg s(id, "klineage-lineage", std::max(W, 400.0), H, title);
  s.text(8, 16, title, "start", 13, "#222", " font-weight=\"600\"");
  for (double t : ticks(lo, hi, 4)) {
    s.line(left, Y(t), X(steps.size() - 1) + 10, Y(t), "#eeeeee");
    s.text(left - 6, Y(t) + 4, fmtX(t), "end", 10, "#555");
  }
  s.line(left, Y(1), X(steps.size() - 1) + 10, Y(1), "#333", 1.2, " stroke-dasharray=\"4 3\"");
  std::optional<size_t> prev;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (!steps[i].speedup) continue;
    if (prev) s.line(X(*prev), Y(*steps[*prev].speedup), X(i), Y(*steps[i].speedup), "#1565c0", 2);
    prev = i;
  }
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step& st = steps[i];
    s.text(X(i), top + plot_h + 18, shorten(st.label, 26), "middle", 11, "#222", " font-weight=\"600\"");
    s.text(X(i), top + plot_h + 33, st.id.empty() ? "not gated" : shorten(st.id, 26), "middle", 10, "#666");
    if (st.speedup) {
      s.circle(X(i), Y(*st.speedup), 5, outcomeColor(st.outcome), st.label + ": " + fmtX(*st.speedup) + " (" + st.outcome + ")",
               " stroke=\"#fff\" stroke-width=\"1.5\"");
      s.text(X(i), Y(*st.speedup) - 9, fmtX(*st.speedup), "middle", 11, "#222");
    } else {
      s.text(X(i), top + plot_h / 2, st.outcome.empty() ? "not measured" : st.outcome, "middle", 10, "#999");
    }
  }
  return s.done();
}

std::string diffHtml(const std::string& diff) {
  std::ostringstream os;
  os << "<pre class=\"diff\">";
  std::istringstream in(diff);
  for (std::string l; std::getline(in, l);) {
    const char* cls = l.rfind("+++", 0) == 0 || l.rfind("---", 0) == 0 ? "hdr"
                      : l.rfind("@@", 0) == 0                          ? "hunk"
                      : !l.empty() && l[0] == '+'                      ? "add"
                      : !l.empty() && l[0] == '-'                      ? "del"
                                                                       : "ctx";
    os << "<span class=\"" << cls << "\">" << (l.empty() ? " " : esc(l)) << "</span>";  // a block each
  }
  os << "</pre>";
  return os.str();
}

const char* kCss = R"css(
body{font-family:-apple-system,"Segoe UI",Roboto,"DejaVu Sans",Arial,sans-serif;margin:0;color:#222;background:#f4f5f7}
main{max-width:1200px;margin:0 auto;padding:16px 24px 40px}
header{background:#1f2a36;color:#fff;padding:18px 24px}
header h1{margin:0 0 6px;font-size:22px}
header .meta{margin:0;color:#c9d3dd;font-size:13px}
nav{font-size:13px;margin:10px 0}
nav a{margin-right:12px;color:#1565c0}
section{background:#fff;border:1px solid #dde1e6;border-radius:6px;padding:14px 18px;margin:16px 0}
h2{font-size:18px;margin:4px 0 10px}
h3{font-size:14px;margin:16px 0 6px;color:#333}
table{border-collapse:collapse;font-size:12.5px;width:100%}
th,td{border-bottom:1px solid #e6e8eb;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f7f8fa;font-weight:600}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.kept td{background:#fff6d5}
.chip{display:inline-block;color:#fff;border-radius:9px;padding:1px 8px;font-size:11.5px;white-space:nowrap}
.badge{display:inline-block;border:1px solid #b0bec5;background:#eceff1;color:#37474f;border-radius:9px;padding:0 6px;font-size:11px;white-space:nowrap}
.verdict{font-size:16px;padding:3px 12px;border-radius:12px}
pre{background:#f7f8fa;border:1px solid #e6e8eb;padding:8px;overflow-x:auto;font-size:12px;white-space:pre-wrap;word-break:break-word}
pre.diff{white-space:pre;word-break:normal}
pre.diff span{display:block}
pre.diff .add{background:#e6ffec;color:#116329}
pre.diff .del{background:#ffebe9;color:#82071e}
pre.diff .hunk{color:#0550ae;background:#ddf4ff}
pre.diff .hdr{color:#57606a;font-weight:600}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:3px 14px;font-size:13px;margin:0}
dl.facts dt{font-weight:600;color:#444}
dl.facts dd{margin:0}
svg.klineage-chart{display:block;margin:6px 0 10px;max-width:100%;height:auto}
.muted{color:#666;font-size:12.5px}
details summary{cursor:pointer}
footer{color:#777;font-size:12px;text-align:center;margin-top:20px}
)css";

// Installed first: errors of the page (there should be none) are counted for the self-check.
const char* kHeadScript =
    "<script>window.klineageErrors=[];window.addEventListener('error',function(e){"
    "window.klineageErrors.push(String(e.message||e));});</script>";

// Written last: what the headless-browser test reads back from the DOM (each chart's rendered
// size, the errors seen). The page does not need it to render.
const char* kSelfCheck =
    "<pre id=\"klineage-selfcheck\" hidden></pre>\n<script>(function(){var out=[];"
    "var c=document.querySelectorAll('svg.klineage-chart');"
    "for(var i=0;i<c.length;i++){var r=c[i].getBoundingClientRect();"
    "out.push('chart '+c[i].id+' '+Math.round(r.width)+'x'+Math.round(r.height));}"
    "out.push('charts '+c.length);out.push('errors '+window.klineageErrors.length);"
    "for(var k=0;k<window.klineageErrors.length;k++)out.push('error '+window.klineageErrors[k]);"
    "document.getElementById('klineage-selfcheck').textContent=out.join('\\n');})();</script>\n";

// ---- the report.json part --------------------------------------------------------------------

struct KernelView {
  std::string name;
  const json* entry = nullptr;             // kernels[] entry
  std::vector<const json*> variants;       // its variants, the original included
  const json* kept = nullptr;              // the selected variant
  std::optional<double> kept_speedup;
};

std::vector<KernelView> kernelViews(const json& rep) {
  std::vector<KernelView> out;
  std::map<std::string, size_t> index;
  auto view = [&](const std::string& k) -> KernelView& {
    auto it = index.find(k);
    if (it != index.end()) return out[it->second];
    index[k] = out.size();
    out.push_back({k});
    return out.back();
  };
  for (const auto& k : arr(rep, "kernels")) view(str(k, "kernel")).entry = &k;
  for (const auto& v : arr(rep, "variants")) view(str(at(v, "variant"), "kernel")).variants.push_back(&v);
  const json& sel = at(rep, "selected");
  for (auto& kv : out) {
    const json& s = at(sel, kv.name.c_str());
    if (!s.is_object()) continue;
    kv.kept_speedup = num(s, "speedup");
    const std::string id = str(s, "variant");
    for (const json* v : kv.variants)
      if (str(at(*v, "variant"), "id") == id) kv.kept = v;
  }
  return out;
}

bool isOriginal(const json& v) { return flag(at(v, "variant"), "is_original"); }
std::string variantId(const json& v) { return str(at(v, "variant"), "id"); }
std::vector<std::string> variantSkills(const json& v) { return strs(at(at(v, "variant"), "skills")); }
std::string variantLabel(const json& v) {
  std::string id = variantId(v);
  return chain(variantSkills(v), "(" + id.substr(id.find('/') == std::string::npos ? 0 : id.find('/') + 1) + ")");
}
std::optional<double> measured(const json& v) {
  auto s = num(v, "speedup");
  return s && *s > 0 ? s : std::nullopt;
}
const json& timeOf(const json& v, const char* which) { return at(at(v, "run"), which); }

std::string speedupBars(const KernelView& k) {
  std::vector<Bar> bars;
  for (const json* v : k.variants) {
    if (isOriginal(*v) || !measured(*v)) continue;
    const std::string o = str(*v, "outcome");
    bars.push_back({variantLabel(*v), variantId(*v) + ": " + o + ", " + fmtX(*measured(*v)), outcomeColor(o),
                    fmtX(*measured(*v)), *measured(*v), v == k.kept});
  }
  std::stable_sort(bars.begin(), bars.end(), [](const Bar& a, const Bar& b) { return a.value > b.value; });
  return barChart("speedup-" + slug(k.name), "klineage-speedup",
                  k.name + ": speedup of every gated variant over the original (colour: outcome)", bars, 1.0, "x");
}

std::string distributions(const KernelView& k, std::string* note) {
  // The kept variant's run, else the fastest measured one: its original and variant timings
  // come from the same job (interleaved runs on one device).
  const json* shown = k.kept;
  if (!shown)
    for (const json* v : k.variants)
      if (!isOriginal(*v) && measured(*v) && (!shown || *measured(*v) > *measured(*shown))) shown = v;
  if (!shown) return emptyChart("dist-" + slug(k.name), "klineage-dist", k.name + ": no timed runs (nothing was measured)");
  *note = shown == k.kept ? "the kept variant " + variantId(*shown)
                          : "the fastest measured variant " + variantId(*shown) + " (not kept: " + str(*shown, "outcome") + ")";
  std::vector<Dist> rows;
  const json& o = timeOf(*shown, "original_time");
  const json& t = timeOf(*shown, "variant_time");
  rows.push_back({"original", "#546e7a", nums(at(o, "samples_ms")), num(o, "median_ms")});
  rows.push_back({variantLabel(*shown), outcomeColor(str(*shown, "outcome")), nums(at(t, "samples_ms")), num(t, "median_ms")});
  return distChart("dist-" + slug(k.name), k.name + ": timed runs, original vs " + variantId(*shown), rows);
}

std::string lineage(const KernelView& k) {
  if (!k.kept) return "<p class=\"muted\">No variant was kept for this kernel: the original is built.</p>";
  const std::vector<std::string> skills = variantSkills(*k.kept);
  std::vector<Step> steps{{"original", k.name + "/original", "passed", 1.0}};
  std::ostringstream table;
  table << "<table class=\"lineage\"><tr><th>Step</th><th>Chain</th><th>Variant</th><th>Outcome</th><th class=\"num\">"
           "Speedup</th></tr><tr><td>0</td><td>(original)</td><td>"
        << esc(k.name) << "/original</td><td></td><td class=\"num\">1.00x</td></tr>";
  for (size_t i = 1; i <= skills.size(); ++i) {
    const std::vector<std::string> prefix(skills.begin(), skills.begin() + i);
    const json* match = i == skills.size() ? k.kept : nullptr;
    for (const json* v : k.variants)
      if (!match && !isOriginal(*v) && variantSkills(*v) == prefix) match = v;
    Step st{"+" + skills[i - 1], "", "", std::nullopt};
    if (match) st.id = variantId(*match), st.outcome = str(*match, "outcome"), st.speedup = measured(*match);
    steps.push_back(st);
    table << "<tr" << (match == k.kept ? " class=\"kept\"" : "") << "><td>" << i << "</td><td>" << esc(chain(prefix, ""))
          << "</td><td>" << (match ? esc(st.id) : "<span class=\"muted\">not gated on its own</span>") << "</td><td>"
          << (match ? chip(st.outcome) : "") << "</td><td class=\"num\">" << (st.speedup ? fmtX(*st.speedup) : "")
          << "</td></tr>";
  }
  table << "</table>";
  return lineageChart("lineage-" + slug(k.name), k.name + ": lineage of the kept variant (speedup after each skill)", steps) +
         table.str();
}

// The variant's error against the oracle beside the original's ("3.1e-07 / 1.2e-07"), or why there
// was no oracle (report.json "error").
std::string errorCell(const json& v) {
  const json& e = at(v, "error");
  if (!e.is_object()) return "";
  const std::string oracle = str(e, "oracle");
  const auto o = num(at(e, "original"), "max_rel"), var = num(at(e, "variant"), "max_rel");
  if (o && var)
    return "<span title=\"" + esc("output " + str(e, "output") + "; L2: original " + fmt("%.2g", num(at(e, "original"), "l2_rel").value_or(0)) +
                              ", variant " + fmt("%.2g", num(at(e, "variant"), "l2_rel").value_or(0))) +
           "\">" + fmt("%.2g", *o) + " / " + fmt("%.2g", *var) + "</span>";
  return "<span class=\"muted\" title=\"" + esc(oracle) + "\">no oracle</span>";
}

std::string variantTable(const KernelView& k) {
  std::ostringstream os;
  os << "<table class=\"variants\"><tr><th>Variant</th><th>Skills</th><th>Outcome</th><th class=\"num\">Speedup</th>"
        "<th class=\"num\">Original</th><th class=\"num\">Variant</th><th class=\"num\">Noise</th>"
        "<th class=\"num\" title=\"largest element error against the oracle, relative to its largest element: "
        "original / variant\">Error</th><th>Reason</th></tr>";
  for (const json* v : k.variants) {
    const auto sp = measured(*v);
    const auto om = num(*v, "original_ms"), vm = num(*v, "variant_ms");
    const auto noise = num(at(*v, "run"), "noise");
    std::string reason = foldable(str(*v, "reason"));
    for (const auto& c : strs(at(*v, "checks"))) reason += "<div class=\"muted\">" + esc(c) + "</div>";
    // Not gated in this run: the result came from the result cache, or the code is the same as
    // another variant's (or the original's) and was not gated at all.
    std::string badges;
    if (flag(*v, "cached"))
      badges += " <span class=\"badge cached\" title=\"" +
                esc("the result of an earlier run on this device (cache/results/" + str(*v, "cache_key") +
                    ".json), not gated again") +
                "\">cached</span>";
    if (!str(*v, "same_as").empty())
      badges += " <span class=\"badge same-as\" title=\"not gated: the same code and launch\">same as " +
                esc(str(*v, "same_as")) + "</span>";
    os << "<tr" << (v == k.kept ? " class=\"kept\"" : "") << " data-variant=\"" << esc(variantId(*v)) << "\"><td>"
       << esc(variantId(*v)) << (v == k.kept ? " <b>(kept)</b>" : "") << badges << "</td><td>"
       << esc(chain(variantSkills(*v), isOriginal(*v) ? "(original)" : "")) << "</td><td>"
       << (isOriginal(*v) && str(*v, "outcome") == "not-run" ? "<span class=\"muted\">reference</span>"
                                                              : chip(str(*v, "outcome")))
       << "</td><td class=\"num\">" << (sp ? fmtX(*sp) : "") << "</td><td class=\"num\">"
       << (om && *om > 0 ? fmtMs(*om) : "") << "</td><td class=\"num\">" << (vm && *vm > 0 ? fmtMs(*vm) : "")
       << "</td><td class=\"num\">" << (noise && *noise > 0 ? fmt("%.1f%%", *noise * 100) : "") << "</td><td class=\"num\">"
       << errorCell(*v) << "</td><td>" << reason << "</td></tr>";
  }
  os << "</table>";
  return os.str();
}

std::string factsHtml(const KernelView& k) {
  if (!k.entry) return "<p class=\"muted\">Not planned (see the skipped kernels).</p>";
  const json& e = *k.entry;
  std::ostringstream os;
  os << "<dl class=\"facts\"><dt>Gated on</dt><dd>" << esc(str(e, "gated_on"))
     << (str(e, "record").empty() ? "" : " (" + esc(str(e, "record")) + ")") << "</dd><dt>Launch</dt><dd>grid "
     << esc(dim3(at(e, "grid"))) << ", block " << esc(dim3(at(e, "block"))) << "</dd><dt>Facts</dt><dd>"
     << (str(e, "facts").empty() ? "<span class=\"muted\">none</span>" : esc(str(e, "facts"))) << "</dd>";
  auto list = [&](const char* title, const char* key) {
    const auto items = strs(at(e, key));
    if (items.empty()) return;
    os << "<dt>" << title << "</dt><dd><ul>";
    for (const auto& i : items) os << "<li>" << esc(i) << "</li>";
    os << "</ul></dd>";
  };
  list("Notes", "notes");
  list("Skills not applied", "skills_not_applied");
  os << "</dl>";
  return os.str();
}

std::string reportSections(const json& rep, std::string& nav) {
  std::ostringstream os;
  const auto kernels = kernelViews(rep);
  // Summary: the counts, the kept speedup per kernel.
  os << "<section id=\"summary\"><h2>Summary</h2><p>";
  static const json no_counts = json::object();
  const json& counts = at(rep, "counts").is_object() ? at(rep, "counts") : no_counts;
  for (const auto& [o, n] : counts.items()) os << chip(o) << " " << (n.is_number() ? n.dump() : "?") << " &nbsp; ";
  os << "</p>";
  const auto cached = num(rep, "from_result_cache"), identical = num(rep, "not_gated_identical");
  if ((cached && *cached > 0) || (identical && *identical > 0)) {
    os << "<p class=\"muted not-gated\">Not gated in this run:";
    if (cached && *cached > 0) os << " " << fmt("%.0f", *cached) << " from the result cache (<span class=\"badge cached\">cached</span>)";
    if (cached && *cached > 0 && identical && *identical > 0) os << ";";
    if (identical && *identical > 0)
      os << " " << fmt("%.0f", *identical) << " the same code as another variant or the original (<span class=\"badge "
         << "same-as\">same as</span>)";
    os << ".</p>";
  }
  std::vector<Bar> bars;
  for (const auto& k : kernels) {
    if (!k.entry && k.variants.empty()) continue;
    const double s = k.kept ? k.kept_speedup.value_or(1) : 1.0;
    bars.push_back({k.name, k.kept ? k.name + ": " + variantLabel(*k.kept) : k.name + ": original kept",
                    k.kept ? "#2e7d32" : "#90a4ae", fmtX(s) + (k.kept ? "  " + variantId(*k.kept) : "  original"),
                    s, false});
  }
  os << barChart("chart-overview", "klineage-overview", "Speedup of what is built, per kernel (grey: the original is kept)",
                 bars, 1.0, "x");
  os << "<table><tr><th>Kernel</th><th>Gated on</th><th>Built</th><th class=\"num\">Speedup</th><th class=\"num\">"
        "Variants</th></tr>";
  for (const auto& k : kernels)
    os << "<tr><td><a href=\"#kernel-" << esc(slug(k.name)) << "\">" << esc(k.name) << "</a></td><td>"
       << esc(k.entry ? str(*k.entry, "gated_on") : "") << "</td><td>"
       << (k.kept ? esc(variantId(*k.kept) + " (" + variantLabel(*k.kept) + ")") : "original") << "</td><td class=\"num\">"
       << (k.kept && k.kept_speedup ? fmtX(*k.kept_speedup) : "") << "</td><td class=\"num\">"
       << std::count_if(k.variants.begin(), k.variants.end(), [](const json* v) { return !isOriginal(*v); })
       << "</td></tr>";
  os << "</table>";
  if (!arr(rep, "skipped").empty()) {
    os << "<h3>Kernels not gated</h3><ul>";
    for (const auto& s : arr(rep, "skipped")) os << "<li><b>" << esc(str(s, "kernel")) << "</b>: " << esc(str(s, "reason")) << "</li>";
    os << "</ul>";
  }
  if (!at(rep, "device").is_string() && !str(rep, "device_reason").empty())
    os << "<p class=\"muted\">No CUDA device: " << esc(str(rep, "device_reason")) << ". Nothing was gated.</p>";
  os << "</section>\n";
  nav += "<a href=\"#summary\">Summary</a>";
  for (const auto& k : kernels) {
    const std::string anchor = "kernel-" + slug(k.name);
    nav += "<a href=\"#" + esc(anchor) + "\">" + esc(k.name) + "</a>";
    std::string dist_note;
    os << "<section class=\"kernel\" id=\"" << esc(anchor) << "\"><h2>" << esc(k.name) << " "
       << (k.kept ? chip("passed") + " <span class=\"muted\">kept " + esc(variantId(*k.kept)) + ", " +
                        (k.kept_speedup ? fmtX(*k.kept_speedup) : "") + "</span>"
                  : "<span class=\"muted\">original kept</span>")
       << "</h2><h3>Facts it was gated on</h3>" << factsHtml(k) << "<h3>Speedups</h3>" << speedupBars(k)
       << "<h3>Timing distributions</h3>";
    const std::string dist = distributions(k, &dist_note);
    if (!dist_note.empty()) os << "<p class=\"muted\">The runs behind each median, in one job of " << esc(dist_note) << ".</p>";
    os << dist << "<h3>Lineage</h3>" << lineage(k) << "<h3>Variants</h3>" << variantTable(k);
    if (k.kept) {
      const std::string diff = str(at(*k.kept, "variant"), "diff");
      os << "<h3>Diff of the kept kernel against the original</h3>"
         << (diff.empty() ? "<p class=\"muted\">(no diff recorded)</p>" : diffHtml(diff));
    }
    os << "</section>\n";
  }
  return os.str();
}

// ---- the klineage ci part --------------------------------------------------------------------

std::string ciSection(const json& ci) {
  std::ostringstream os;
  const std::string verdict = str(ci, "verdict");
  os << "<section id=\"ci\"><h2>CI: <span class=\"chip verdict\" style=\"background:" << outcomeColor(verdict) << "\">"
     << esc(verdict.empty() ? "?" : verdict) << "</span>";
  if (auto code = num(ci, "exit_code")) os << " <span class=\"muted\">exit " << fmt("%.0f", *code) << "</span>";
  os << "</h2><dl class=\"facts\"><dt>Device</dt><dd>" << esc(str(ci, "device")) << "</dd><dt>Driver / CUDA</dt><dd>"
     << esc(str(ci, "driver")) << " / " << esc(str(ci, "cuda")) << "</dd><dt>Baseline</dt><dd>"
     << (str(ci, "baseline").empty() ? "<span class=\"muted\">none</span>" : esc(str(ci, "baseline"))) << "</dd>"
     << "<dt>Comparable</dt><dd>" << (flag(ci, "comparable") ? "yes" : "no")
     << (str(ci, "not_comparable_reason").empty() ? "" : ": " + esc(str(ci, "not_comparable_reason"))) << "</dd></dl>";
  os << "<h3>Verdicts</h3><table class=\"ci\"><tr><th>Kernel</th><th>Shape</th><th>Variant</th><th>Verdict</th>"
        "<th class=\"num\">Current</th><th class=\"num\">Expected</th><th class=\"num\">Baseline</th><th class=\"num\">"
        "Original</th><th class=\"num\">Threshold</th><th class=\"num\">Noise</th><th>Reason</th></tr>";
  auto ms = [](const json& k, const char* key) {
    auto v = num(k, key);
    return v ? fmtMs(*v) : std::string("<span class=\"muted\">none</span>");
  };
  auto pct = [](const json& k, const char* key) {
    auto v = num(k, key);
    return v ? fmt("%.1f%%", *v * 100) : std::string();
  };
  std::vector<Bar> bars;
  for (const auto& k : arr(ci, "kernels")) {
    const std::string v = str(k, "verdict"), name = str(k, "kernel") + (str(k, "shape").empty() ? "" : " " + str(k, "shape"));
    os << "<tr data-kernel=\"" << esc(str(k, "kernel")) << "\"><td>" << esc(str(k, "kernel")) << "</td><td>"
       << esc(str(k, "shape")) << "</td><td>" << esc(str(k, "variant")) << "</td><td>" << chip(v) << "</td><td class=\"num\">"
       << ms(k, "median_ms") << "</td><td class=\"num\">" << ms(k, "expected_ms") << "</td><td class=\"num\">"
       << ms(k, "baseline_ms") << "</td><td class=\"num\">" << ms(k, "original_ms") << "</td><td class=\"num\">"
       << pct(k, "threshold") << "</td><td class=\"num\">" << pct(k, "noise") << "</td><td>" << foldable(str(k, "reason"))
       << "</td></tr>";
    auto add = [&](const char* key, const std::string& what, const std::string& color) {
      if (auto x = num(k, key)) bars.push_back({shorten(name, 28) + " " + what, name + " " + what + ": " + fmtMs(*x), color, fmtMs(*x), *x, false});
    };
    add("median_ms", "current", outcomeColor(v));
    add("expected_ms", "expected", "#78909c");
    add("baseline_ms", "baseline", "#b0bec5");
  }
  os << "</table><h3>Current vs expected vs baseline</h3>"
     << barChart("ci-times", "klineage-ci", "Median time per kernel: current (colour: verdict), expected, baseline", bars,
                 std::nullopt, " ms");
  os << "<h3>Distributions</h3>";
  size_t i = 0;
  for (const auto& k : arr(ci, "kernels")) {
    const std::string name = str(k, "kernel") + (str(k, "shape").empty() ? "" : " " + str(k, "shape"));
    std::vector<Dist> rows{{"original", "#546e7a", nums(at(k, "original_samples_ms")), num(k, "original_ms")},
                           {str(k, "variant").empty() ? "current" : str(k, "variant"), outcomeColor(str(k, "verdict")),
                            nums(at(k, "samples_ms")), num(k, "median_ms")}};
    os << distChart("ci-dist-" + std::to_string(i++) + "-" + slug(str(k, "kernel")), name + ": timed runs", rows);
  }
  os << "</section>\n";
  return os.str();
}

}  // namespace

std::string renderHtmlReport(const nlohmann::json* report, const nlohmann::json* ci) {
  const json empty = json::object();
  const json& rep = report ? *report : empty;
  std::string target = str(rep, "target");
  if (target.empty() && ci) target = str(*ci, "target");
  std::ostringstream os;
  os << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
     << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
     << "<meta name=\"generator\" content=\"KLineage\"><title>KLineage report: " << esc(target) << "</title><style>"
     << kCss << "</style>" << kHeadScript << "</head>\n<body><header><h1>KLineage report: " << esc(target) << "</h1><p class=\"meta\">";
  if (report) {
    const json& dev = at(rep, "device");
    os << (dev.is_string() ? esc(dev.get<std::string>()) : "no CUDA device");
    if (!str(rep, "arch").empty()) os << " (" << esc(str(rep, "arch")) << ")";
    if (!str(rep, "backend").empty()) os << " &middot; backend " << esc(str(rep, "backend"));
    if (auto s = num(rep, "seconds")) os << " &middot; " << fmt("%.1f", *s) << " s";
    os << " &middot; " << esc(str(rep, "format"));
  }
  if (ci) os << (report ? " &middot; " : "") << esc(str(*ci, "format"));
  os << "</p>";
  // Where the run's time went (report.json "stages"), one line under the total.
  if (report && at(rep, "stages").is_array() && !at(rep, "stages").empty()) {
    os << "<p class=\"meta\" id=\"stages\">time:";
    for (const auto& st : at(rep, "stages"))
      if (auto sec = num(st, "seconds")) os << " " << esc(str(st, "stage")) << " " << fmt("%.1f", *sec) << " s";
    os << "</p>";
  }
  os << "</header><main>";
  std::string nav, body;
  if (ci) {
    nav += "<a href=\"#ci\">CI</a>";
    body += ciSection(*ci);
  }
  if (report) body += reportSections(rep, nav);
  if (!report && !ci) body = "<section><p>Nothing to report.</p></section>";
  os << "<nav>" << nav << "</nav>" << body << "<footer>Written by KLineage; one file, no network needed.</footer></main>\n"
     << kSelfCheck << "</body></html>\n";
  return os.str();
}

void writeHtmlReport(const nlohmann::json* report, const nlohmann::json* ci, const std::string& path) {
  atomicWrite(path, renderHtmlReport(report, ci));
}

}  // namespace klineage
