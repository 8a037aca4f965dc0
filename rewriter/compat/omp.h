// Stand-in for parsing only: clang 16's include path has no omp.h. Host OpenMP code still parses
// (the pragmas are ignored without -fopenmp); the declarations below cover the common calls.
#pragma once
#ifdef __cplusplus
extern "C" {
#endif
int omp_get_thread_num(void);
int omp_get_num_threads(void);
int omp_get_max_threads(void);
void omp_set_num_threads(int);
double omp_get_wtime(void);
#ifdef __cplusplus
}
#endif
