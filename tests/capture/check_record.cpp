// capture_record_check: loads launch records the way the gate does (loadRecord, blobs verified)
// and prints what the capture tests check, one fact a line:
//   record <dir> kernel=<name> mangled=<m> grid=x,y,z block=x,y,z shmem=<n> params=<n> allocations=<n>
//   param <index> size <n> [pointer allocation <id> offset <bytes>]
//   alloc <id> size <n> changed <0|1> after <file>   (whether the after blob differs from the before
//                                            blob; the after blob's file, the before one's when unchanged)
// Exit 0: every record loaded; 1: one is corrupt (the message names the file); 2: usage.
#include <filesystem>
#include <iostream>

#include "core/fs.h"
#include "core/launch_record.h"

using namespace klineage;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: capture_record_check <record dir>...\n";
    return 2;
  }
  int rc = 0;
  for (int i = 1; i < argc; ++i) {
    try {
      LaunchRecord r = loadRecord(argv[i]);
      std::cout << "record " << argv[i] << " kernel=" << r.kernel << " mangled=" << r.mangled << " grid=" << r.grid.x << ","
                << r.grid.y << "," << r.grid.z << " block=" << r.block.x << "," << r.block.y << "," << r.block.z
                << " shmem=" << r.shmem << " params=" << r.params.size() << " allocations=" << r.allocations.size() << "\n";
      for (const auto& p : r.params) {
        std::cout << "param " << p.index << " size " << p.size;
        if (p.pointer) std::cout << " pointer allocation " << p.pointer->allocation << " offset " << p.pointer->offset;
        std::cout << "\n";
      }
      for (const auto& a : r.allocations) {
        bool changed = readFile(std::filesystem::path(r.dir) / a.before) != readFile(std::filesystem::path(r.dir) / a.after);
        std::cout << "alloc " << a.id << " size " << a.size << " changed " << (changed ? 1 : 0) << " after " << a.after << "\n";
      }
    } catch (const std::exception& e) {
      std::cerr << "capture_record_check: " << e.what() << "\n";
      rc = 1;
    }
  }
  return rc;
}
