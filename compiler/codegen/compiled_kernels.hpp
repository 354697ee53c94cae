// A symbolic system compiled to native kernels in this process: the filled mdl_kernels table
// of kernel_abi.h, valid as long as the CompiledKernels object lives.
//
//     symbolic::System system = ...;          // kernels derived (derive_kernels)
//     auto compiled = codegen::CompiledKernels::compile(system);
//     const mdl_kernels& k = compiled.kernels();
//     k.force(&args, out);
//
// Parameters are read from args->p at every call, so changing one needs no recompilation.
#pragma once

#include "abi/kernel_abi.h"
#include "codegen/options.hpp"
#include "symbolic/system.hpp"

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

namespace mdl::codegen {

// Where the machine code of a compilation came from.
enum class CacheUse {
    off,    // not looked up (CodegenOptions::use_object_cache off, or keep_ir)
    miss,   // compiled here (and stored)
    memory, // an identical compilation earlier in this process
    disk,   // the cache folder on disk, written by an earlier process (disk_cache.hpp)
};
const char* to_string(CacheUse use); // "off", "miss", "memory", "disk"

// Wall-clock time of each stage of one compilation, in milliseconds. When the kernels were
// compiled on several threads at once (partition.hpp), emit, optimize and codegen are those
// of the slowest partition in each stage.
struct CompileTimings {
    double target_ms = 0.0;         // the host target machine (built once per thread and level)
    double emit_ms = 0.0;           // DAG -> LLVM IR
    double optimize_ms = 0.0;       // pass pipeline
    double codegen_ms = 0.0;        // IR -> machine code
    double link_ms = 0.0;           // JIT session, linking, symbol lookup
    double total_ms = 0.0;          // including validation and the cache lookup
    bool from_cache = false;        // machine code reused from an identical earlier compilation
    CacheUse cache = CacheUse::off; // and from which cache
    std::size_t partitions = 0;     // threads that compiled the kernels (0 when from the cache)
};

// Where the first code-cache warning of the process goes ("removed the damaged entry ..."):
// none installed, nowhere. Set it before compiling (not while another thread compiles).
void set_cache_warning_handler(std::function<void(const std::string&)> handler);

class CompiledKernels {
public:
    // Validates the system (symbolic::InvalidSystem), then emits, optimizes and JIT-compiles
    // one function per kernel with outputs; kernels without outputs are null pointers
    // (rates when k == 0, potential when there is none, the constraint kernels when m == 0).
    // Throws CodegenError when LLVM fails. Thread-safe: independent compilations may run
    // concurrently. Identical systems compiled with identical options reuse the machine code
    // of the first compilation (a bounded in-process cache, then the cache folder on disk
    // shared by processes), unless options.keep_ir. A cache that cannot be read or written
    // is never an error: the kernels are compiled, and the first such failure in a process
    // goes to the handler of set_cache_warning_handler (the library prints nothing).
    static CompiledKernels compile(const symbolic::System& system,
                                   const CodegenOptions& options = {});

    CompiledKernels(CompiledKernels&&) noexcept;
    CompiledKernels& operator=(CompiledKernels&&) noexcept;
    ~CompiledKernels();

    // The kernels and sizes. The kernels are pure functions of their arguments: any number of
    // threads may call them at once.
    const mdl_kernels& kernels() const;
    // The optimized LLVM IR when CodegenOptions::keep_ir was set, else empty.
    const std::string& ir() const;
    const CompileTimings& timings() const;

private:
    struct State;
    explicit CompiledKernels(std::unique_ptr<State> state);
    std::unique_ptr<State> state_;
};

// The optimized LLVM IR of a system's kernels as text, without loading them
// (mdl compile --emit-llvm).
std::string optimized_ir(const symbolic::System& system, const CodegenOptions& options = {});

} // namespace mdl::codegen
