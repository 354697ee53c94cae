// The hand-written kernels again, compiled with -O2 -march=native (bench/CMakeLists.txt): the
// same instruction set the JIT uses, for comparison.
#define MDL_HANDWRITTEN_NAMESPACE handwritten_native
#include "handwritten.cpp"
