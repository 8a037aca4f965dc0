// The chat-completions client against a real HTTP server on 127.0.0.1 (chat_server.h): retries
// on 429 (honouring Retry-After) and 5xx, no retry on 401, the timeout, malformed JSON, the caps,
// the cache, and the key kept out of every message.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <chrono>
#include <filesystem>

#include "core/fs.h"
#include "llm/client.h"
#include "llm/prompt.h"
#include "llm/chat_server.h"

using namespace klineage;
using klineage::test::ChatServer;
using klineage::test::chatReply;
namespace fs = std::filesystem;

namespace {

const std::string kKey = "sk-test-0123456789abcdef-SECRET";

LlmOptions optionsFor(const ChatServer& s) {
  LlmOptions o;
  o.url = s.url();
  o.model = "test-model";
  o.api_key = kKey;
  o.backoff_ms = 10;
  o.timeout_ms = 5000;
  o.connect_timeout_ms = 2000;
  return o;
}

double secondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

std::vector<ChatMessage> ask(const std::string& what) { return {{"system", "be brief"}, {"user", what}}; }

}  // namespace

TEST_CASE("a completion is read and the key goes only into the Authorization header", "[llm]") {
  ChatServer server;
  server.push(chatReply("hello", 42));
  LlmSession s(optionsFor(server));
  LlmReply r = s.complete(ask("hi"));
  REQUIRE(r.ok);
  CHECK(r.content == "hello");
  CHECK(r.total_tokens == 42);
  CHECK_FALSE(r.from_cache);
  REQUIRE(server.requests().size() == 1);
  const auto req = server.requests()[0];
  CHECK(req.method == "POST");
  CHECK(req.path == "/v1/chat/completions");
  CHECK(req.headers.at("authorization") == "Bearer " + kKey);
  CHECK(req.body.find(kKey) == std::string::npos);
  const auto body = nlohmann::json::parse(req.body);
  CHECK(body["model"] == "test-model");
  CHECK(body["messages"][1]["content"] == "hi");
  CHECK(s.requestsSent() == 1);
  CHECK(s.tokensUsed() == 42);
}

TEST_CASE("429 with Retry-After is retried after that many seconds, then succeeds", "[llm]") {
  ChatServer server;
  server.push({429, {{"Retry-After", "1"}}, "{\"error\": {\"message\": \"slow down\"}}", 0});
  server.push(chatReply("after the wait"));
  LlmSession s(optionsFor(server));
  const auto t0 = std::chrono::steady_clock::now();
  LlmReply r = s.complete(ask("hi"));
  REQUIRE(r.ok);
  CHECK(r.content == "after the wait");
  CHECK(server.requests().size() == 2);
  CHECK(secondsSince(t0) >= 0.95);  // Retry-After: 1, not the 10 ms backoff
  CHECK(s.requestsSent() == 1);     // one prompt, retried
}

TEST_CASE("5xx is retried with backoff, and after the last retry the status is the error", "[llm]") {
  ChatServer server;
  server.push({503, {}, "busy", 0});
  server.push({502, {}, "busy", 0});
  server.push(chatReply("third time"));
  LlmSession s(optionsFor(server));
  LlmReply r = s.complete(ask("a"));
  REQUIRE(r.ok);
  CHECK(server.requests().size() == 3);

  ChatServer always;
  for (int i = 0; i < 5; ++i) always.push({500, {}, "down", 0});
  LlmOptions o = optionsFor(always);
  o.max_retries = 2;
  LlmSession s2(o);
  LlmReply bad = s2.complete(ask("b"));
  CHECK_FALSE(bad.ok);
  CHECK(always.requests().size() == 3);
  CHECK(bad.error.find("HTTP 500 after 3 attempts") != std::string::npos);
}

TEST_CASE("401 is not retried, names the URL and status, never the key, and stops the run's requests", "[llm]") {
  ChatServer server;
  server.push({401, {}, "{\"error\": {\"message\": \"Incorrect API key provided: " + kKey + "\"}}", 0});
  server.push(chatReply("never asked"));
  LlmSession s(optionsFor(server));
  LlmReply r = s.complete(ask("hi"));
  CHECK_FALSE(r.ok);
  CHECK(r.http_status == 401);
  CHECK(server.requests().size() == 1);
  CHECK(r.error.find("HTTP 401") != std::string::npos);
  CHECK(r.error.find(server.url()) != std::string::npos);
  CHECK(r.error.find("KLINEAGE_LLM_API_KEY") != std::string::npos);
  CHECK(r.error.find(kKey) == std::string::npos);
  CHECK(r.error.find("[redacted]") != std::string::npos);  // what the server echoed
  LlmReply again = s.complete(ask("another prompt"));
  CHECK_FALSE(again.ok);
  CHECK(again.refused);
  CHECK(server.requests().size() == 1);
  CHECK(again.error.find(kKey) == std::string::npos);
}

TEST_CASE("malformed JSON and replies without a message are errors, not retried", "[llm]") {
  ChatServer server;
  server.push({200, {{"Content-Type", "application/json"}}, "{\"choices\": [ {\"message\": ", 0});
  server.push({200, {}, "{\"choices\": []}", 0});
  LlmSession s(optionsFor(server));
  LlmReply r = s.complete(ask("one"));
  CHECK_FALSE(r.ok);
  CHECK(r.error.find("malformed reply") != std::string::npos);
  LlmReply r2 = s.complete(ask("two"));
  CHECK_FALSE(r2.ok);
  CHECK(r2.error.find("malformed reply") != std::string::npos);
  CHECK(server.requests().size() == 2);
}

TEST_CASE("a server that hangs hits the total timeout", "[llm]") {
  ChatServer server;
  server.push({200, {}, "{}", 4000});
  LlmOptions o = optionsFor(server);
  o.timeout_ms = 300;
  LlmSession s(o);
  const auto t0 = std::chrono::steady_clock::now();
  LlmReply r = s.complete(ask("hi"));
  const double took = secondsSince(t0);
  CHECK_FALSE(r.ok);
  CHECK(r.error.find("did not answer within 300 ms") != std::string::npos);
  CHECK(took < 2.5);
  CHECK(server.requests().size() == 1);  // a timeout is not retried
}

TEST_CASE("nothing is sent without a URL, and connection errors say where", "[llm]") {
  LlmSession none(LlmOptions{});
  CHECK_FALSE(none.enabled());
  LlmReply r = none.complete(ask("hi"));
  CHECK(r.refused);
  CHECK(r.error.find("KLINEAGE_LLM_URL is not set") != std::string::npos);

  std::string url;
  {
    ChatServer gone;
    url = gone.url();
  }
  LlmOptions o;
  o.url = url;
  o.api_key = kKey;
  LlmSession s(o);
  LlmReply c = s.complete(ask("hi"));
  CHECK_FALSE(c.ok);
  CHECK(c.error.find("cannot reach the LLM server http://127.0.0.1:") != std::string::npos);
  CHECK(c.error.find(kKey) == std::string::npos);
}

TEST_CASE("the request and token caps refuse further prompts with the reason", "[llm]") {
  ChatServer server;
  for (int i = 0; i < 4; ++i) server.push(chatReply("ok", 100));
  LlmOptions o = optionsFor(server);
  o.max_requests = 2;
  LlmSession s(o);
  CHECK(s.complete(ask("1")).ok);
  CHECK(s.complete(ask("2")).ok);
  LlmReply third = s.complete(ask("3"));
  CHECK(third.refused);
  CHECK(third.error.find("cap of 2 LLM requests") != std::string::npos);
  CHECK(server.requests().size() == 2);

  o.max_requests = 10;
  o.max_tokens = 150;
  LlmSession t(o);
  CHECK(t.complete(ask("4")).ok);   // 100 tokens
  CHECK(t.complete(ask("5")).ok);   // 200: over the cap now
  LlmReply over = t.complete(ask("6"));
  CHECK(over.refused);
  CHECK(over.error.find("cap of 150 LLM tokens") != std::string::npos);
}

TEST_CASE("replies are cached by prompt and model, and the cache answers with the server gone", "[llm]") {
  const fs::path dir = fs::temp_directory_path() / ("klineage-llm-cache-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  std::string url;
  {
    ChatServer server;
    url = server.url();
    server.push(chatReply("cached answer"));
    LlmOptions o = optionsFor(server);
    o.cache_dir = dir.string();
    LlmSession s(o);
    LlmReply r = s.complete(ask("same prompt"));
    REQUIRE(r.ok);
    CHECK(r.cache_key.size() == 64);
    CHECK(fs::exists(dir / (r.cache_key + ".json")));
  }
  LlmOptions o;
  o.url = url;
  o.model = "test-model";
  o.api_key = kKey;
  o.cache_dir = dir.string();
  LlmSession s(o);
  LlmReply again = s.complete(ask("same prompt"));
  REQUIRE(again.ok);
  CHECK(again.from_cache);
  CHECK(again.content == "cached answer");
  CHECK(s.requestsSent() == 0);
  o.model = "another-model";  // the model is part of the key
  LlmSession other(o);
  CHECK_FALSE(other.complete(ask("same prompt")).ok);
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) CHECK(readFile(e.path()).find(kKey) == std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("sha256 and urls for messages", "[llm]") {
  CHECK(sha256Hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(urlForMessages("https://user:pw@api.example.com/v1/chat/completions?key=x") ==
        "https://api.example.com/v1/chat/completions");
}

TEST_CASE("the code of a reply is its first cuda/cpp/plain fenced block, else the whole reply", "[llm]") {
  CHECK(extractCode("Here:\n```cuda\nint a;\n```\nmore\n```cuda\nint b;\n```\n") == "int a;\n");
  CHECK(extractCode("```text\nnotes\n```\n```cpp\nint c;\n```") == "int c;\n");
  CHECK(extractCode("```\nint d;\n```") == "int d;\n");
  CHECK(extractCode("int e;\n") == "int e;\n");
  CHECK(extractCode("```cuda\nint f;\n") == "int f;\n");  // unclosed: to the end
  CHECK(renderPrompt("a {{kernel}} b {{nope}}", {{"kernel", "saxpy"}}) == "a saxpy b {{nope}}");
}
