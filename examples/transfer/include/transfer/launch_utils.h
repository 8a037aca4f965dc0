// Small host-side helpers shared by the launchers.
#pragma once

// Number of blocks of `b` threads needed to cover `a` items.
inline int ceil_div(int a, int b) { return (a + b - 1) / b; }
