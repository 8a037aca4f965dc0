#include "llm/client.h"

#include <curl/curl.h>
#include <openssl/evp.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/fs.h"

namespace klineage {
namespace fs = std::filesystem;

std::string sha256Hex(const std::string& data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (!EVP_Digest(data.data(), data.size(), md, &len, EVP_sha256(), nullptr)) throw std::runtime_error("SHA-256 failed");
  std::string hex;
  char b[3];
  for (unsigned i = 0; i < len; ++i) {
    std::snprintf(b, sizeof b, "%02x", md[i]);
    hex += b;
  }
  return hex;
}

std::string urlForMessages(const std::string& url) {
  std::string u = url.substr(0, url.find_first_of("?#"));
  const size_t scheme = u.find("://");
  const size_t host = scheme == std::string::npos ? 0 : scheme + 3;
  const size_t at = u.find('@', host);
  if (at != std::string::npos && at < u.find('/', host)) u.erase(host, at + 1 - host);
  return u;
}

namespace {

void initCurlOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

size_t onBody(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

// Keeps the Retry-After header of the last response.
size_t onHeader(char* data, size_t size, size_t n, void* out) {
  std::string line(data, size * n);
  const std::string name = "retry-after:";
  if (line.size() > name.size()) {
    std::string head = line.substr(0, name.size());
    for (char& c : head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (head == name) {
      std::string v = line.substr(name.size());
      while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.erase(v.begin());
      while (!v.empty() && (v.back() == '\r' || v.back() == '\n' || v.back() == ' ')) v.pop_back();
      *static_cast<std::string*>(out) = v;
    }
  }
  return size * n;
}

struct HttpResult {
  CURLcode code = CURLE_OK;
  long status = 0;
  std::string body, retry_after, curl_error;
};

HttpResult post(const LlmOptions& o, const std::string& body) {
  initCurlOnce();
  HttpResult r;
  CURL* c = curl_easy_init();
  if (!c) {
    r.code = CURLE_FAILED_INIT;
    r.curl_error = "curl_easy_init failed";
    return r;
  }
  char err[CURL_ERROR_SIZE] = {0};
  curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
  headers = curl_slist_append(headers, "Accept: application/json");
  if (!o.api_key.empty()) headers = curl_slist_append(headers, ("Authorization: Bearer " + o.api_key).c_str());
  curl_easy_setopt(c, CURLOPT_URL, o.url.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, o.connect_timeout_ms);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, o.timeout_ms);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_VERBOSE, 0L);         // would print the Authorization header
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);  // the key goes to the URL given, nowhere else
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, err);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, onBody);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &r.body);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, onHeader);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &r.retry_after);
  curl_easy_setopt(c, CURLOPT_USERAGENT, "klineage");
  r.code = curl_easy_perform(c);
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
  r.curl_error = err[0] ? err : curl_easy_strerror(r.code);
  curl_slist_free_all(headers);
  curl_easy_cleanup(c);
  return r;
}

long retryDelayMs(const LlmOptions& o, const std::string& retry_after, unsigned retry) {
  long ms = o.backoff_ms << std::min(retry, 16u);
  if (!retry_after.empty() && retry_after.find_first_not_of("0123456789") == std::string::npos && retry_after.size() < 9)
    ms = std::stol(retry_after) * 1000;
  return std::min(ms, o.max_retry_after_ms);
}

std::string excerpt(const std::string& s, size_t n = 300) {
  std::string e = s.substr(0, n);
  for (char& c : e)
    if (c == '\n' || c == '\r') c = ' ';
  return e + (s.size() > n ? "..." : "");
}

}  // namespace

LlmSession::LlmSession(LlmOptions o) : o_(std::move(o)) {}
LlmSession::~LlmSession() = default;

std::string LlmSession::redact(std::string text) const {
  if (o_.api_key.empty()) return text;
  for (size_t at = text.find(o_.api_key); at != std::string::npos; at = text.find(o_.api_key, at))
    text.replace(at, o_.api_key.size(), "[redacted]");
  return text;
}

LlmReply LlmSession::complete(const std::vector<ChatMessage>& messages) {
  nlohmann::json msgs = nlohmann::json::array();
  for (const auto& m : messages) msgs.push_back({{"role", m.role}, {"content", redact(m.content)}});
  nlohmann::json req = {{"messages", msgs}, {"temperature", o_.temperature}, {"stream", false}};
  if (!o_.model.empty()) req["model"] = o_.model;
  LlmReply out;
  out.cache_key = sha256Hex(nlohmann::json{{"model", o_.model}, {"messages", msgs}, {"temperature", o_.temperature}}.dump());
  const fs::path cached = o_.cache_dir.empty() ? fs::path() : fs::path(o_.cache_dir) / (out.cache_key + ".json");
  if (!cached.empty() && fs::exists(cached)) {
    try {
      nlohmann::json c = nlohmann::json::parse(readFile(cached));
      out.content = c.at("content").get<std::string>();
      out.total_tokens = c.value("total_tokens", 0ull);
      out.ok = out.from_cache = true;
      return out;
    } catch (const std::exception&) {
      // unreadable: asked again, and written over
    }
  }
  auto refuse = [&](const std::string& why) {
    out.refused = true;
    out.error = redact(why);
    return out;
  };
  if (o_.url.empty()) return refuse("KLINEAGE_LLM_URL is not set");
  if (!dead_.empty()) return refuse(dead_);
  if (requests_ >= o_.max_requests)
    return refuse("the cap of " + std::to_string(o_.max_requests) + " LLM requests per run is reached (LLM_MAX_REQUESTS)");
  if (tokens_ >= o_.max_tokens)
    return refuse("the cap of " + std::to_string(o_.max_tokens) + " LLM tokens per run is reached (" +
                  std::to_string(tokens_) + " used; LLM_MAX_TOKENS)");
  ++requests_;
  LlmReply sent = send(req.dump());
  sent.cache_key = out.cache_key;
  if (!sent.ok) return sent;
  if (sent.total_tokens == 0) {  // no usage in the reply: about 4 characters a token
    size_t chars = sent.content.size();
    for (const auto& m : messages) chars += m.content.size();
    sent.total_tokens = chars / 4 + 1;
  }
  tokens_ += sent.total_tokens;
  if (!cached.empty())
    atomicWrite(cached, nlohmann::json{{"format", "klineage-llm-cache-1"},
                                       {"key", out.cache_key},
                                       {"model", o_.model},
                                       {"messages", msgs},
                                       {"temperature", o_.temperature},
                                       {"content", redact(sent.content)},
                                       {"total_tokens", sent.total_tokens}}
                                .dump(2) + "\n");
  return sent;
}

LlmReply LlmSession::send(const std::string& body) {
  LlmReply out;
  const std::string where = urlForMessages(o_.url);
  for (unsigned attempt = 0;; ++attempt) {
    HttpResult h = post(o_, body);
    out.http_status = h.status;
    if (h.code == CURLE_OPERATION_TIMEDOUT) {
      out.error = redact("the LLM server " + where + " did not answer within " + std::to_string(o_.timeout_ms) +
                         " ms (LLM_TIMEOUT): " + h.curl_error);
      return out;
    }
    if (h.code != CURLE_OK) {
      out.error = redact("cannot reach the LLM server " + where + ": " + h.curl_error);
      return out;
    }
    const bool retryable = h.status == 429 || (h.status >= 500 && h.status < 600);
    if (retryable && attempt < o_.max_retries) {
      std::this_thread::sleep_for(std::chrono::milliseconds(retryDelayMs(o_, h.retry_after, attempt)));
      continue;
    }
    if (h.status == 401 || h.status == 403) {
      dead_ = "the LLM server " + where + " answered HTTP " + std::to_string(h.status) +
              (h.status == 401 ? " (unauthorized" : " (forbidden") +
              ": check KLINEAGE_LLM_API_KEY); no further LLM requests this run";
      out.error = redact(dead_ + "; it said: " + excerpt(h.body));
      dead_ = redact(dead_);
      return out;
    }
    if (h.status < 200 || h.status >= 300) {
      out.error = redact("the LLM server " + where + " answered HTTP " + std::to_string(h.status) +
                         (retryable ? " after " + std::to_string(attempt + 1) + " attempts" : "") + ": " + excerpt(h.body));
      return out;
    }
    try {
      const nlohmann::json j = nlohmann::json::parse(h.body);
      if (j.contains("error") && !j.contains("choices"))
        throw std::runtime_error("an error object: " + excerpt(j["error"].dump()));
      out.content = j.at("choices").at(0).at("message").at("content").get<std::string>();
      if (j.contains("usage") && j["usage"].is_object() && j["usage"].contains("total_tokens") &&
          j["usage"]["total_tokens"].is_number_unsigned())
        out.total_tokens = j["usage"]["total_tokens"].get<unsigned long long>();
    } catch (const std::exception& e) {
      out.error = redact("malformed reply from the LLM server " + where +
                         " (expected chat-completions JSON with choices[0].message.content): " + excerpt(e.what(), 200) +
                         "; the reply began: " + excerpt(h.body, 200));
      return out;
    }
    out.ok = true;
    return out;
  }
}

}  // namespace klineage
