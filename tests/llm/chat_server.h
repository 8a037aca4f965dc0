// A real HTTP/1.1 server on 127.0.0.1 (an ephemeral port) that speaks enough of the OpenAI
// chat-completions protocol for the LLM tests: it records every request and answers each with
// the next prepared reply (or what a handler decides): a completion, any status with any headers
// (429 with Retry-After, 401, 5xx), a malformed body, or a hang. POSIX sockets in one thread.
#pragma once
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace klineage::test {

struct HttpRequest {
  std::string method, path, body;
  std::map<std::string, std::string> headers;  // names lowercased
};

struct CannedReply {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  int hang_ms = 0;  // wait this long before answering (or until the server stops)
};

// A chat-completions answer whose message is `content`.
inline CannedReply chatReply(const std::string& content, unsigned long long total_tokens = 120) {
  nlohmann::json j = {{"id", "chatcmpl-test"},
                      {"object", "chat.completion"},
                      {"model", "test-model"},
                      {"choices", {{{"index", 0}, {"message", {{"role", "assistant"}, {"content", content}}},
                                    {"finish_reason", "stop"}}}},
                      {"usage", {{"prompt_tokens", total_tokens / 2}, {"completion_tokens", total_tokens - total_tokens / 2},
                                 {"total_tokens", total_tokens}}}};
  return {200, {{"Content-Type", "application/json"}}, j.dump(), 0};
}

class ChatServer {
 public:
  ChatServer() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd_ < 0) throw std::runtime_error("socket failed");
    int one = 1;
    ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd_, 16) != 0)
      throw std::runtime_error("bind/listen on 127.0.0.1 failed");
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~ChatServer() { stop(); }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1/chat/completions"; }
  void push(CannedReply r) {
    std::lock_guard<std::mutex> l(m_);
    replies_.push_back(std::move(r));
  }
  // Decides every answer instead of the queue.
  void setHandler(std::function<CannedReply(const HttpRequest&)> h) {
    std::lock_guard<std::mutex> l(m_);
    handler_ = std::move(h);
  }
  std::vector<HttpRequest> requests() const {
    std::lock_guard<std::mutex> l(m_);
    return requests_;
  }
  // The user message of request `i` (the prompt).
  std::string prompt(size_t i) const {
    const auto j = nlohmann::json::parse(requests().at(i).body);
    return j.at("messages").back().at("content").get<std::string>();
  }
  void stop() {
    if (stopping_.exchange(true)) return;
    if (thread_.joinable()) thread_.join();
    ::close(fd_);
  }

 private:
  int fd_ = -1;
  int port_ = 0;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  mutable std::mutex m_;
  std::deque<CannedReply> replies_;
  std::function<CannedReply(const HttpRequest&)> handler_;
  std::vector<HttpRequest> requests_;

  void serve() {
    while (!stopping_) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) continue;
      handle(c);
      ::close(c);
    }
  }

  // Reads until `want` bytes are there or the peer closes (false).
  bool readMore(int c, std::string& buf) {
    char tmp[8192];
    pollfd p{c, POLLIN, 0};
    for (int waited = 0; waited < 5000 && !stopping_; waited += 20) {
      if (::poll(&p, 1, 20) <= 0) continue;
      ssize_t n = ::recv(c, tmp, sizeof tmp, 0);
      if (n <= 0) return false;
      buf.append(tmp, static_cast<size_t>(n));
      return true;
    }
    return false;
  }

  void handle(int c) {
    std::string buf;
    size_t end;
    while ((end = buf.find("\r\n\r\n")) == std::string::npos)
      if (!readMore(c, buf)) return;
    HttpRequest req;
    const std::string head = buf.substr(0, end);
    size_t line_end = head.find("\r\n");
    const std::string first = head.substr(0, line_end);
    req.method = first.substr(0, first.find(' '));
    req.path = first.substr(first.find(' ') + 1, first.rfind(' ') - first.find(' ') - 1);
    size_t content_length = 0;
    for (size_t at = line_end + 2; at < head.size() && line_end != std::string::npos;) {
      size_t next = head.find("\r\n", at);
      if (next == std::string::npos) next = head.size();
      const std::string h = head.substr(at, next - at);
      const size_t colon = h.find(':');
      if (colon != std::string::npos) {
        std::string name = h.substr(0, colon), value = h.substr(colon + 1);
        for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        while (!value.empty() && value.front() == ' ') value.erase(value.begin());
        req.headers[name] = value;
        if (name == "content-length") content_length = std::stoul(value);
      }
      at = next + 2;
    }
    while (buf.size() < end + 4 + content_length)
      if (!readMore(c, buf)) return;
    req.body = buf.substr(end + 4, content_length);
    CannedReply r;
    {
      std::lock_guard<std::mutex> l(m_);
      requests_.push_back(req);
      if (handler_) r = handler_(req);
      else if (!replies_.empty()) {
        r = replies_.front();
        replies_.pop_front();
      } else r = {500, {}, "{\"error\": {\"message\": \"the test server has no more replies\"}}", 0};
    }
    for (int waited = 0; waited < r.hang_ms && !stopping_; waited += 10)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::string out = "HTTP/1.1 " + std::to_string(r.status) + " Test\r\nContent-Length: " + std::to_string(r.body.size()) +
                      "\r\nConnection: close\r\n";
    for (const auto& [k, v] : r.headers) out += k + ": " + v + "\r\n";
    out += "\r\n" + r.body;
    for (size_t sent = 0; sent < out.size();) {
      ssize_t n = ::send(c, out.data() + sent, out.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return;
      sent += static_cast<size_t>(n);
    }
  }
};

}  // namespace klineage::test
