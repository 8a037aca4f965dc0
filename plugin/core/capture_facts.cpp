#include "core/capture_facts.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <stdexcept>

namespace klineage {

namespace {

unsigned alignmentOf(unsigned long long address) {
  if (address == 0) return kAllocationAlignment;
  return static_cast<unsigned>(std::min<unsigned long long>(kAllocationAlignment, address & (~address + 1)));
}

// The recorded bytes, in memory order; false when they are not hexadecimal.
bool decodeHex(const std::string& hex, std::vector<unsigned char>* out) {
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  if (hex.size() % 2) return false;
  out->clear();
  for (size_t i = 0; i < hex.size(); i += 2) {
    const int hi = digit(hex[i]), lo = digit(hex[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out->push_back(static_cast<unsigned char>(hi * 16 + lo));
  }
  return true;
}

template <typename T>
double load(const std::vector<unsigned char>& b) {
  T v;
  std::memcpy(&v, b.data(), sizeof v);
  return static_cast<double>(v);
}

std::optional<double> decodeScalar(ElemType t, const std::vector<unsigned char>& b) {
  if (b.size() != elemSize(t)) return std::nullopt;
  switch (t) {
    case ElemType::F32: return load<float>(b);
    case ElemType::F64: return load<double>(b);
    case ElemType::I8: return load<int8_t>(b);
    case ElemType::U8: return load<uint8_t>(b);
    case ElemType::I16: return load<int16_t>(b);
    case ElemType::U16: return load<uint16_t>(b);
    case ElemType::I32: return load<int32_t>(b);
    case ElemType::U32: return load<uint32_t>(b);
    case ElemType::I64: return load<int64_t>(b);
    case ElemType::U64: return load<uint64_t>(b);
  }
  return std::nullopt;
}

std::string number(double v) {
  char b[64];
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15) std::snprintf(b, sizeof b, "%.0f", v);
  else std::snprintf(b, sizeof b, "%.9g", v);
  return b;
}


}  // namespace

WorkloadFacts factsFromRecords(const std::vector<LaunchRecord>& records, const KernelInfo& k) {
  if (records.empty())
    throw std::invalid_argument("factsFromRecords: no launch records of kernel '" + k.name + "' prove anything");
  auto name = [&](unsigned i) { return i < k.params.size() ? k.params[i].name : "param" + std::to_string(i); };
  auto isPointer = [&](const RecordedParam& p) {
    return p.index < k.params.size() ? k.params[p.index].is_pointer : p.pointer.has_value();
  };

  WorkloadFacts f;
  f.grid = records.front().grid;
  f.block = records.front().block;
  f.block_threads = f.block.x * f.block.y * f.block.z;
  for (const auto& r : records)
    if (std::find(f.captured_blocks.begin(), f.captured_blocks.end(), r.block) == f.captured_blocks.end())
      f.captured_blocks.push_back(r.block);
  f.captured_launches = static_cast<unsigned>(records.size());
  for (size_t i = 0; i < k.params.size(); ++i)
    if (k.params[i].is_pointer) f.alignment[k.params[i].name] = kAllocationAlignment;

  for (const LaunchRecord& r : records) {
    std::map<unsigned, unsigned> pointers_into;  // allocation -> pointer parameters into it
    std::vector<bool> present(k.params.size(), false);
    for (const RecordedParam& p : r.params) {
      if (p.index < present.size()) present[p.index] = true;
      std::vector<unsigned char> bytes;
      const bool decoded = decodeHex(p.bytes_hex, &bytes);
      if (isPointer(p)) {
        unsigned long long address = 0;
        if (p.pointer && p.pointer->allocation < r.allocations.size()) {
          address = r.allocations[p.pointer->allocation].base + p.pointer->offset;
          if (++pointers_into[p.pointer->allocation] > 1) f.any_overlap = true;
        } else if (decoded && bytes.size() == 8) {
          std::memcpy(&address, bytes.data(), 8);
        } else {
          address = 1;  // unknown: nothing proven
        }
        auto [it, fresh] = f.alignment.emplace(name(p.index), alignmentOf(address));
        if (!fresh) it->second = std::min(it->second, alignmentOf(address));
        continue;
      }
      if (p.index >= k.params.size() || !decoded) continue;
      const std::optional<ElemType> t = elemTypeFromCType(k.params[p.index].type);
      if (!t) continue;
      const std::optional<double> v = decodeScalar(*t, bytes);
      if (v) f.scalars.emplace(name(p.index), *v);  // emplace keeps the first record's value
    }
    for (size_t i = 0; i < k.params.size(); ++i)
      if (k.params[i].is_pointer && !present[i]) f.alignment[k.params[i].name] = 1;  // not recorded
  }
  return f;
}

bool gridCoversIndexRange(const WorkloadFacts& facts, unsigned long long elements) {
  const unsigned long long threads =
      static_cast<unsigned long long>(std::max(0ll, facts.grid.x)) * static_cast<unsigned long long>(std::max(0ll, facts.block.x));
  return threads >= elements;
}

std::string describeFacts(const WorkloadFacts& facts) {
  std::string s;
  auto add = [&](const std::string& part) { s += (s.empty() ? "" : ", ") + part; };
  for (const auto& [param, align] : facts.alignment) add(param + ": " + std::to_string(align) + "-byte aligned");
  add(facts.any_overlap ? "pointers may overlap" : "no overlap");
  add("grid " + dimText(facts.grid));
  add("block " + dimText(facts.block));
  for (const auto& [param, value] : facts.scalars) add(param + "=" + number(value));
  return s;
}

}  // namespace klineage
