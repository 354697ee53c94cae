// What the code generator can be asked for, and how it fails.
#pragma once

#include <cstddef>
#include <stdexcept>

namespace mdl::codegen {

enum class OptLevel { O0, O1, O2, O3 };

struct CodegenOptions {
    // O2 by default: kernels are straight-line code, where O3 rarely adds anything but time.
    OptLevel opt_level = OptLevel::O2;
    // Opt-in: lets LLVM reassociate, contract a*b + c into FMA, use reciprocals, ignore the
    // sign of zero and use approximate library functions. Results then differ from the
    // reference evaluator in the last bits. NaN and infinity keep their IEEE meaning
    // (no nnan/ninf), so a diverging simulation still shows up as NaN.
    bool fast_math = false;
    // Keep the optimized LLVM IR as text (mdl compile --emit-llvm).
    bool keep_ir = false;
    // Reuse the machine code of an identical earlier compilation in this process, and with
    // use_disk_cache of any process of this user (disk_cache.hpp). False: compile afresh and
    // store nothing.
    bool use_object_cache = true;
    // Also look up and store the machine code in the cache folder on disk ($MDL_CACHE_DIR,
    // else $XDG_CACHE_HOME/mdl, else ~/.cache/mdl), shared by processes (mdl --no-cache: off).
    bool use_disk_cache = true;
    // A kernel of more operations than this (arithmetic, calls, output stores) is split into
    // sections of about this size, each its own function (see emit_ir.cpp): LLVM's
    // scheduling, register allocation and vectorization grow faster than linearly with a
    // function's size, so sections keep large models compiling in a fraction of the time, at
    // the cost of passing values between sections through memory. Results do not change.
    std::size_t section_operations = 300;
    // At O2, SLP-vectorize the functions (the kernel, or its sections) of the force Jacobians
    // df/dq and df/dv only up to this many IR instructions (optimize.hpp): the vectorizer's
    // time grows faster than linearly with a function's size, and an implicit integrator
    // factorises the Jacobian after each evaluation at a cost that dwarfs it. The per-step
    // kernels (force, constraints, ...) are always vectorized. Results do not change.
    std::size_t slp_max_jacobian_instructions = 250;
    // The sections of a force Jacobian split into sections (a large model's df/dq and df/dv)
    // are compiled without optimization (optnone: fast instruction selection, no machine-code
    // optimization), a third of a large model's compile time: an implicit integrator calls
    // them once per step or Newton iteration, next to an LU factorisation of the n x n
    // Jacobian that costs far more. True: optimized like the other kernels. Results do not
    // change (the same IEEE operations; fast_math's contractions aside).
    bool optimize_jacobian_sections = false;
    // Likewise the sections of a large potential: the energy, evaluated per output row (the
    // integrators step with the force), a quarter of the IR of a chain of masses. True:
    // optimized. Results do not change.
    bool optimize_potential_sections = false;
    // Threads that compile one model's kernels at once (partition.hpp): 0 for as many as the
    // machine has, 1 for none but the caller's. A small model is compiled on the caller's
    // thread alone whatever this says (handing work over would cost more than it saves). The
    // machine code does not depend on it.
    std::size_t threads = 0;
};

// LLVM could not set up a JIT for this host, or failed to compile or link the kernels. A
// system that breaks the calling convention is reported as symbolic::InvalidSystem instead.
class CodegenError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

} // namespace mdl::codegen
