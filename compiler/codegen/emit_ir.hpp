// DAG -> LLVM IR: one function per kernel with the mdl_kernel signature
//     void @mdl_<kernel>(ptr %args, ptr %out)
// Internal to mdl_codegen (exposes LLVM types); users go through compiled_kernels.hpp.
#pragma once

#include "codegen/options.hpp"
#include "symbolic/system.hpp"

#include <memory>
#include <string>

namespace llvm {
class DataLayout;
class LLVMContext;
class Module;
class Triple;
} // namespace llvm

namespace mdl::codegen {

// The symbol of a kernel's function: "mdl_force", "mdl_constraint_jacobian", ...
std::string kernel_symbol(symbolic::Kernel k);
// The symbol of a matrix kernel's values (its structural nonzeros): "mdl_force_dq_values".
std::string values_symbol(symbolic::Kernel k);

// The string attribute of the functions (kernels and their sections) of the force Jacobians
// df/dq and df/dv, which implicit integrators call once per step or Newton iteration, next to
// a factorisation that costs more (optimize.hpp treats them differently).
inline constexpr const char* jacobian_attribute = "mdl-jacobian";

// A module with a function for every kernel that has outputs (none for empty kernels); a
// matrix kernel has two, the values of its structural nonzeros (values_symbol) and the dense
// matrix (kernel_symbol), which calls the first and spreads its values.
// Within a kernel every DAG node is computed once and reused by all outputs: this is the
// common-subexpression elimination across a kernel's outputs. Node by node the operations are
// those of symbolic/numeric.hpp, in the same order, so without fast-math the results are the
// evaluator's. A kernel larger than options.section_operations is emitted as a chain of
// hidden section functions (emit_ir.cpp), which changes compile time, not results. The
// module is verified; a broken one throws CodegenError.
std::unique_ptr<llvm::Module> emit_kernels(const symbolic::System& system,
                                           llvm::LLVMContext& context,
                                           const llvm::DataLayout& layout,
                                           const llvm::Triple& triple,
                                           const CodegenOptions& options);

} // namespace mdl::codegen
