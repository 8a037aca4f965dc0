// Stand-in: clang 16's CUDA wrapper still includes texture_fetch_functions.h, which CUDA 13
// removed. Used only when KLineage parses sources; never when nvcc compiles them.
#pragma once
