// Host-only C++: not swapped.
int klt_host_answer() { return 42; }
