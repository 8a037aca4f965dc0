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
