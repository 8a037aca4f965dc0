// Links the optimized libraries; never run by the tests (no GPU needed).
#include "klt.h"
int main(int argc, char**) {
  if (argc > 99) {
    launch_a(0, nullptr);
    launch_b(0, nullptr);
    launch_as_cuda(0, nullptr);
    launch_outside(0, nullptr);
    launch_more(0, nullptr);
  }
  return 0;
}
