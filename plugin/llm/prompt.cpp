#include "llm/prompt.h"

#include <set>
#include <sstream>

namespace klineage {

const std::string& llmSystemPrompt() {
  static const std::string s =
      "You are an expert CUDA performance engineer. You rewrite one kernel at a time for speed without changing "
      "what it computes. You answer with exactly one fenced ```cuda code block that holds the complete new source "
      "file, every line of it, and no other text.";
  return s;
}

const std::string& defaultPromptTemplate() {
  static const std::string t = R"(Apply the optimization "{{skill_id}}" to the CUDA kernel `{{kernel}}`.

What to do: {{intent}}

The code shape it applies to: {{anchor}}
Preconditions, all proven for this kernel: {{preconditions}}
Expected effect: {{effect}}
How an expert wrote it (a diff of the expert's kernel before and after this step; apply the same idea to this kernel, not the same text):
{{example}}
Risks, and what guards against them:
{{risks}}

The kernel's signature, which must stay exactly as it is (same name, same parameters in the same order with the same types):
{{signature}}

How the program launches it. Keep every launch exactly as written (same grid, block, shared memory and arguments); the kernel must be correct for these launches:
{{launch_site}}

The launch and the data it is checked and timed on:
{{facts}}

Earlier attempts of this skill on this kernel and why they were refused:
{{failures}}

The complete source file {{kernel_file}}:
```cuda
{{kernel_source}}
```

Reply with the complete new content of {{kernel_file}} in one ```cuda block: the whole file, not only the kernel. Change only the kernel `{{kernel}}` (you may add __device__ helper functions); keep every include, every other function and every launch as it is. The file is compiled with nvcc and gated on the GPU against the original: it must compute the same results (within the tolerance above) on every launch, and is kept only if it is measurably faster.
)";
  return t;
}

const std::string& simplificationPromptTemplate() {
  static const std::string t = R"(The CUDA kernel `{{kernel}}` below was written by an expert. Undo exactly ONE optimization technique in it, so that it becomes a simpler, more naive kernel that computes the same results: for example, scalar loads instead of vectorized (float4) loads, direct global-memory reads instead of a shared-memory tile, a shared-memory reduction instead of warp shuffles, one element per thread instead of a loop over several, plain loads instead of cache hints, no loop unrolling, a runtime block size instead of a template parameter. Choose the technique whose removal changes the kernel's speed the most.

Steps already taken from this version (choose a different one):
{{taken}}

Rules: keep the kernel's name and signature exactly as they are; keep every launch, every other function and every include as written; the kernel must stay correct for the launches below. The first line of your file must be a comment `// simplification: <the technique you undid, in a few words>`.

How the program launches it:
{{launch_site}}

The complete source file {{kernel_file}}:
```cuda
{{kernel_source}}
```

Reply with the complete new content of {{kernel_file}} in one ```cuda block: the whole file, with only `{{kernel}}` simplified.
)";
  return t;
}

std::string simplificationOf(const std::string& code) {
  std::istringstream in(code);
  std::string line;
  while (std::getline(in, line)) {
    const size_t at = line.find("// simplification:");
    if (at == std::string::npos) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      return "";
    }
    std::string what = line.substr(at + 18);
    while (!what.empty() && (what.front() == ' ' || what.front() == '\t')) what.erase(0, 1);
    while (!what.empty() && (what.back() == ' ' || what.back() == '\r' || what.back() == '\t')) what.pop_back();
    return what.substr(0, 200);
  }
  return "";
}

std::string renderPrompt(const std::string& tmpl, const std::map<std::string, std::string>& fields) {
  std::string out;
  size_t at = 0;
  for (;;) {
    const size_t open = tmpl.find("{{", at);
    if (open == std::string::npos) break;
    const size_t close = tmpl.find("}}", open + 2);
    if (close == std::string::npos) break;
    out += tmpl.substr(at, open - at);
    auto it = fields.find(tmpl.substr(open + 2, close - open - 2));
    out += it != fields.end() ? it->second : tmpl.substr(open, close + 2 - open);
    at = close + 2;
  }
  return out + tmpl.substr(at);
}

std::string extractCode(const std::string& reply) {
  static const std::set<std::string> tags = {"", "cuda", "cu", "cpp", "c++", "cxx", "c", "cc"};
  std::istringstream in(reply);
  std::string line, code;
  bool inside = false, wanted = false;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    size_t lead = line.find_first_not_of(" \t");
    const bool fence = lead != std::string::npos && line.compare(lead, 3, "```") == 0;
    if (!inside && fence) {
      std::string tag = line.substr(lead + 3);
      while (!tag.empty() && (tag.back() == ' ' || tag.back() == '\t')) tag.pop_back();
      for (char& c : tag) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      inside = true;
      wanted = tags.count(tag) > 0;
      continue;
    }
    if (inside && fence && line.find_first_not_of("` \t") == std::string::npos) {
      if (wanted) return code;
      inside = false;
      continue;
    }
    if (inside && wanted) code += line + "\n";
  }
  if (wanted) return code;  // an unclosed block: to the end
  return reply;
}

}  // namespace klineage
