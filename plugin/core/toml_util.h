// Small helpers shared by the TOML loaders (skills, workloads): names for messages.
#pragma once
#include <string>
#include <vector>

#include <toml++/toml.h>

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

}  // namespace klineage
