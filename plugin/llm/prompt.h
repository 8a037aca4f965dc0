// The prompt a skill materialized by a language model sends (docs/llm.md), and the code taken
// from the reply.
#pragma once
#include <map>
#include <string>

namespace klineage {

// The system message: the reply is one fenced block holding the complete source file.
const std::string& llmSystemPrompt();

// The user message of skills without a `prompt` of their own. Its placeholders are those of
// promptPlaceholders() (core/skill.h), written {{name}}.
const std::string& defaultPromptTemplate();

// The user message of `klineage mine`'s LLM-proposed simplifications (docs/lineage.md): one
// de-optimization of an expert kernel's current version. Placeholders {{kernel}}, {{kernel_file}},
// {{kernel_source}}, {{launch_site}} and {{taken}} (the steps already taken from this version).
const std::string& simplificationPromptTemplate();

// The step a simplification reply names on its first `// simplification: ...` line ("" when none).
std::string simplificationOf(const std::string& code);

// `tmpl` with every {{name}} replaced by fields[name] (an unknown name is left as written; the
// skill loader rejects them).
std::string renderPrompt(const std::string& tmpl, const std::map<std::string, std::string>& fields);

// The code of a reply: the first fenced block tagged cuda, cu, cpp, c++, cxx, c or nothing;
// without one, the whole reply.
std::string extractCode(const std::string& reply);

}  // namespace klineage
