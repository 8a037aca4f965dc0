// An OpenAI-compatible chat-completions client over libcurl (vLLM, llama.cpp's llama-server,
// Ollama, hosted APIs): POST {model, messages, temperature} to the URL, read
// choices[0].message.content and usage.total_tokens. docs/llm.md is the reference.
//
//   * Timeouts: connect and total, per HTTP request.
//   * Retries: 429 and 5xx, with exponential backoff, honouring Retry-After (seconds); other
//     statuses (401, 403, 400, ...), malformed replies and timeouts are not retried.
//   * Caps per run (one LlmSession per `ninja optimize`): prompts sent and tokens used; when one
//     is reached, further prompts are refused with the reason.
//   * Cache: every reply is kept in <cache_dir>/<sha256>.json, keyed by the SHA-256 of the model
//     and the messages; a prompt found there is answered from it without a request (and counts
//     against no cap), so a rebuild is reproducible and works offline.
//   * The API key goes only into the Authorization header of the request. It is never put into
//     an error, a log line, or the cache, and anything the server sends back is redacted.
#pragma once
#include <memory>
#include <string>
#include <vector>

namespace klineage {

struct LlmOptions {
  std::string url;                 // "" : nothing is ever sent
  std::string model;               // "" : the request has no "model" (llama-server takes any)
  std::string api_key;             // from KLINEAGE_LLM_API_KEY only ("" : no Authorization header)
  std::string cache_dir;           // "" : no cache
  long connect_timeout_ms = 10000;
  long timeout_ms = 300000;        // total, per HTTP request
  unsigned max_retries = 3;        // on 429 and 5xx
  long backoff_ms = 1000;          // first retry's delay; doubled each retry
  long max_retry_after_ms = 120000;  // a longer Retry-After is cut to this
  unsigned max_requests = 32;      // prompts sent per run (retries of one prompt count once)
  unsigned long long max_tokens = 500000;  // usage.total_tokens summed over the run
  double temperature = 0;
};

struct ChatMessage {
  std::string role, content;  // "system" / "user" / "assistant"
};

struct LlmReply {
  bool ok = false;
  std::string content;         // the assistant's message
  std::string error;           // when !ok: why (never contains the key)
  bool from_cache = false;
  bool refused = false;        // a cap, or no URL: nothing was sent
  long http_status = 0;
  unsigned long long total_tokens = 0;
  std::string cache_key;       // the SHA-256 the reply is cached under
};

// The hex SHA-256 of `data` (OpenSSL libcrypto).
std::string sha256Hex(const std::string& data);

// `url` without user info and query string, for messages.
std::string urlForMessages(const std::string& url);

class LlmSession {
 public:
  explicit LlmSession(LlmOptions o);
  ~LlmSession();
  LlmSession(const LlmSession&) = delete;
  LlmSession& operator=(const LlmSession&) = delete;

  const LlmOptions& options() const { return o_; }
  bool enabled() const { return !o_.url.empty(); }

  // The cache first, then the server (when under the caps).
  LlmReply complete(const std::vector<ChatMessage>& messages);

  // `text` with every occurrence of the API key replaced by "[redacted]".
  std::string redact(std::string text) const;

  unsigned requestsSent() const { return requests_; }
  unsigned long long tokensUsed() const { return tokens_; }

 private:
  LlmOptions o_;
  unsigned requests_ = 0;
  unsigned long long tokens_ = 0;
  std::string dead_;  // set after a 401/403: every later prompt is refused with it
  LlmReply send(const std::string& body);
};

}  // namespace klineage
