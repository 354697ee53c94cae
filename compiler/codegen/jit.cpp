#include "codegen/jit.hpp"

#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/Module.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Target/TargetMachine.h>

#include <math.h> // the C library functions kernels call (C names, addressable)
#include <mutex>

namespace mdl::codegen {

namespace {

template <class T>
T take(llvm::Expected<T> value, const char* what) {
    if (!value) {
        throw CodegenError(std::string(what) + ": " + llvm::toString(value.takeError()));
    }
    return std::move(*value);
}

llvm::CodeGenOptLevel codegen_level(OptLevel level) {
    switch (level) {
    case OptLevel::O0:
        return llvm::CodeGenOptLevel::None;
    case OptLevel::O1:
        return llvm::CodeGenOptLevel::Less;
    case OptLevel::O2:
        return llvm::CodeGenOptLevel::Default;
    case OptLevel::O3:
        return llvm::CodeGenOptLevel::Aggressive;
    }
    return llvm::CodeGenOptLevel::Default;
}

// Binds the math functions kernels call (directly, or after LLVM rewrote an intrinsic or a
// pow(2, x)) to this program's own C library: the JIT then computes with exactly the functions
// the reference evaluator uses, and works in hosts whose symbols dlsym cannot see (static
// executables). Other symbols still resolve through the process-symbols library.
void define_math_symbols(llvm::orc::LLJIT& jit) {
    using Unary = double (*)(double);
    using Binary = double (*)(double, double);
    llvm::orc::SymbolMap symbols;
    const auto define = [&](const char* name, auto function) {
        symbols[jit.mangleAndIntern(name)] = {llvm::orc::ExecutorAddr::fromPtr(function),
                                              llvm::JITSymbolFlags::Exported |
                                                  llvm::JITSymbolFlags::Callable};
    };
    for (const auto& [name, function] : std::initializer_list<std::pair<const char*, Unary>>{
             {"sin", ::sin},
             {"cos", ::cos},
             {"tan", ::tan},
             {"asin", ::asin},
             {"acos", ::acos},
             {"atan", ::atan},
             {"sinh", ::sinh},
             {"cosh", ::cosh},
             {"tanh", ::tanh},
             {"exp", ::exp},
             {"exp2", ::exp2},
             {"log", ::log},
             {"log2", ::log2},
             {"log10", ::log10},
             {"sqrt", ::sqrt},
             {"cbrt", ::cbrt},
         }) {
        define(name, function);
    }
    define("pow", static_cast<Binary>(::pow));
    define("atan2", static_cast<Binary>(::atan2));
    define("ldexp", static_cast<double (*)(double, int)>(::ldexp));
#ifdef __GLIBC__
    // sin(x) and cos(x) of one x become one sincos call.
    define("sincos", static_cast<void (*)(double, double*, double*)>(::sincos));
#endif
    if (llvm::Error error = jit.getMainJITDylib().define(llvm::orc::absoluteSymbols(symbols))) {
        throw CodegenError("cannot define the math library for the JIT: " +
                           llvm::toString(std::move(error)));
    }
}

} // namespace

void initialize_llvm() {
    static std::once_flag once;
    std::call_once(once, [] {
        llvm::InitializeNativeTarget();
        llvm::InitializeNativeTargetAsmPrinter();
    });
}

std::unique_ptr<llvm::TargetMachine> host_target_machine(OptLevel level) {
    initialize_llvm();
    // detectHost fills in the CPU name and its features (AVX2, FMA, ...), so the code is
    // tuned for the machine that runs it.
    auto builder = take(llvm::orc::JITTargetMachineBuilder::detectHost(),
                        "cannot describe the host CPU to LLVM");
    builder.setCodeGenOptLevel(codegen_level(level));
    return take(builder.createTargetMachine(), "cannot create an LLVM target for the host");
}

std::unique_ptr<llvm::MemoryBuffer> compile_to_object(llvm::Module& module,
                                                      llvm::TargetMachine& target) {
    llvm::orc::SimpleCompiler compiler(target);
    return take(compiler(module), "LLVM failed to generate machine code");
}

Jit::Jit(const llvm::TargetMachine& target) {
    initialize_llvm();
    // Objects are compiled by compile_to_object; the JIT only links them, so it needs the
    // triple and data layout but never a target machine of its own.
    llvm::orc::JITTargetMachineBuilder machine(target.getTargetTriple());
    machine.setCPU(target.getTargetCPU().str());
    jit_ = take(llvm::orc::LLJITBuilder()
                    .setJITTargetMachineBuilder(std::move(machine))
                    .setDataLayout(target.createDataLayout())
                    .create(),
                "cannot create the LLVM JIT");
    define_math_symbols(*jit_);
}

Jit::~Jit() = default;

void Jit::add_object(std::unique_ptr<llvm::MemoryBuffer> object) {
    if (llvm::Error error = jit_->addObjectFile(std::move(object))) {
        throw CodegenError("cannot load the compiled kernels: " + llvm::toString(std::move(error)));
    }
}

std::uintptr_t Jit::lookup(const std::string& symbol) {
    const auto address = take(jit_->lookup(symbol), "cannot link the compiled kernels");
    return static_cast<std::uintptr_t>(address.getValue());
}

} // namespace mdl::codegen
