// Workload facts from captured launches (core/launch_record.h): what the user's program really
// passed, for skill preconditions (core/skill.h), instead of what a declared workload promises.
#pragma once
#include <string>
#include <vector>

#include "core/launch_record.h"
#include "core/manifest.h"
#include "core/workload.h"

namespace klineage {

// Facts over every record of one kernel (parameters matched to `k.params` by index; a parameter
// the manifest does not know is named "param<i>" and is a pointer when the record says so):
//  - alignment: for each pointer parameter, the largest power of two (<= 256) dividing the address
//    it was passed (allocation base + offset; the raw value when it points into no recorded
//    allocation, so nullptr counts as 256-aligned), minimum over all records; 1 when some record
//    lacks the parameter;
//  - any_overlap: true when, in some launch, two pointer parameters point into the same allocation.
//    Conservative: their byte ranges are unknown (the kernel's extent is not recorded), so x and
//    x + n/2 of one allocation count as overlapping;
//  - grid, block, block_threads: from the first record;
//  - scalars: every non-pointer parameter whose ParamInfo type elemTypeFromCType knows (int,
//    unsigned, long, size_t, float, double, ...) and whose recorded size matches, decoded from its
//    bytes. When records disagree the first record's value is kept (facts about scalars describe
//    one launch, like grid and block).
// Throws std::invalid_argument when `records` is empty: no launch proves anything.
WorkloadFacts factsFromRecords(const std::vector<LaunchRecord>& records, const KernelInfo& k);

// Whether grid * block threads (x dimension) cover `elements` indices, i.e. a one-thread-per-element
// kernel reaches every element: grid.x * block.x >= elements.
bool gridCoversIndexRange(const WorkloadFacts& facts, unsigned long long elements);

// For reports: "x: 4-byte aligned, y: 256-byte aligned, no overlap, grid 4097, block 256,
// a=2, n=1048577" (pointers and scalars in name order).
std::string describeFacts(const WorkloadFacts& facts);

}  // namespace klineage
