// Small helpers shared by the TOML loaders (skills, workloads): names for messages.
#pragma once
#include <algorithm>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "core/diag.h"
#include "core/fs.h"

namespace klineage {

// "a, b, c" ("(none)" when empty): the valid names an error message lists.
inline std::string joinNames(const std::vector<std::string>& v) {
  if (v.empty()) return "(none)";
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// The TOML type of a node as a message says it ("found a string").
inline std::string tomlTypeName(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::table: return "table";
    case toml::node_type::array: return "array";
    case toml::node_type::string: return "string";
    case toml::node_type::integer: return "integer";
    case toml::node_type::floating_point: return "float";
    case toml::node_type::boolean: return "boolean";
    default: return "date/time";
  }
}

// Reads and parses a TOML file; an unreadable file or a syntax error is an InputError naming the
// file (and the line and column of the error). `what` names the file in messages ("skill file").
inline toml::table parseTomlFile(const std::string& path, const std::string& what) {
  std::string content;
  try {
    content = readFile(path);
  } catch (const std::exception& e) {
    throw InputError(path, 0, 0, "cannot read the " + what + ": " + e.what());
  }
  try {
    return toml::parse(content, path);
  } catch (const toml::parse_error& e) {
    throw InputError(path, e.source().begin.line, e.source().begin.column, std::string(e.description()));
  }
}

// Rejects keys outside `allowed` (a misspelt key would otherwise be silently ignored), naming the
// key's line and column and listing the valid ones.
inline void checkTomlKeys(const std::string& file, const toml::table& t, const std::vector<std::string>& allowed,
                          const std::string& where) {
  for (auto&& [key, node] : t) {
    (void)node;
    if (std::find(allowed.begin(), allowed.end(), std::string(key.str())) == allowed.end())
      throw InputError(file, key.source().begin.line, key.source().begin.column,
                       "unknown key '" + std::string(key.str()) + "' in " + where + "; expected one of: " + joinNames(allowed));
  }
}

}  // namespace klineage
