// Ahead-of-time compilation: a system's kernels as a relocatable, position-independent object
// file, to be linked into a program or a shared library that has no LLVM (an FMU, an embedded
// controller, another language's build) — the same optimized module the JIT compiles, for a
// named CPU so that the artifact runs on other machines of the architecture.
//
// The object defines, for a prefix P (a C identifier):
//     void P_<kernel>(const mdl_kernel_args*, double*);   for each kernel with outputs
//     const mdl_kernels P_kernels;                        the table of kernel_abi.h
// and nothing else visible (the sections of large kernels are local). The functions call only
// the C library's math functions (libm).
#pragma once

#include "codegen/options.hpp"
#include "symbolic/system.hpp"

#include <string>

namespace mdl::codegen {

struct ObjectTarget {
    std::string triple;         // empty: this machine's
    std::string cpu = "x86-64"; // a CPU of the target, or "native" (this machine's, with its
                                // features: fastest, but may not run on other machines)
};

struct ObjectFile {
    std::string bytes; // the object file's contents (ELF on Linux)
    std::string triple, cpu;
};

// Throws CodegenError for a triple or CPU LLVM does not know, or a prefix that is not a C
// identifier; symbolic::InvalidSystem for a system that breaks the kernel ABI.
ObjectFile emit_object(const symbolic::System& system, const std::string& prefix,
                       const ObjectTarget& target, const CodegenOptions& options = {});

// The target with its triple and CPU spelled out: this machine's triple for an empty one, this
// machine's CPU name for "native".
ObjectTarget resolve_target(const ObjectTarget& target);

// Whether `name` can prefix C symbols: [A-Za-z_][A-Za-z0-9_]*.
bool is_c_identifier(const std::string& name);

} // namespace mdl::codegen
