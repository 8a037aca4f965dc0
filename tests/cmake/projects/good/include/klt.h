#pragma once
void launch_a(int n, float* x);
void launch_b(int n, float* x);
void launch_as_cuda(int n, float* x);
void launch_outside(int n, float* x);
void launch_more(int n, float* x);
