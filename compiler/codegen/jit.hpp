// ORC LLJIT for the host CPU: a target machine tuned for this CPU (its name and features),
// object code produced by us (so it can be cached) and linked into an LLJIT instance that
// resolves C library symbols from the process. Internal to mdl_codegen.
#pragma once

#include "codegen/options.hpp"

#include <cstdint>
#include <memory>
#include <string>

namespace llvm {
class DataLayout;
class MemoryBuffer;
class Module;
class TargetMachine;
class Triple;
namespace orc {
class LLJIT;
}
} // namespace llvm

namespace mdl::codegen {

// Registers the native target with LLVM. Once per process; safe to call from any thread.
void initialize_llvm();

// The target machine for the host CPU at the given level, built on the calling thread's first
// use and kept for its later compilations (not to be shared with other threads); throws
// CodegenError.
llvm::TargetMachine& host_target_machine(OptLevel level);

// A target machine for ahead-of-time code (object_file.hpp): `triple` empty for this host's,
// `cpu` "native" for this machine's CPU and features, else a CPU name of the target
// ("x86-64", "x86-64-v3", "skylake"); position-independent code. Throws CodegenError naming the
// triple or CPU when LLVM does not know it (this build registers its native target only).
std::unique_ptr<llvm::TargetMachine>
ahead_of_time_target_machine(const std::string& triple, const std::string& cpu, OptLevel level);

// Object code (an ELF/Mach-O relocatable object) for an optimized module.
std::unique_ptr<llvm::MemoryBuffer> compile_to_object(llvm::Module& module,
                                                      llvm::TargetMachine& target);

// One JIT session: owns the code of the objects added to it until destroyed. Each instance is
// used by one thread at a time; separate instances may be used concurrently.
class Jit {
public:
    // A session for objects made by `target` (same triple and data layout).
    explicit Jit(const llvm::TargetMachine& target);
    ~Jit();
    Jit(const Jit&) = delete;
    Jit& operator=(const Jit&) = delete;

    // Links an object into the session; throws CodegenError.
    void add_object(std::unique_ptr<llvm::MemoryBuffer> object);
    // The address of a defined symbol; throws CodegenError when it is missing.
    std::uintptr_t lookup(const std::string& symbol);

private:
    std::unique_ptr<llvm::orc::LLJIT> jit_;
};

} // namespace mdl::codegen
