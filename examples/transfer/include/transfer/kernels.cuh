// The kernels that live in headers: activations (GELU, in-place ReLU) and the generic sum template.
// Include from one .cu only: the activation kernels are ordinary (non-template) definitions.
#pragma once

#include "transfer/detail/activations.cuh"
#include "transfer/detail/reduce_generic.cuh"
