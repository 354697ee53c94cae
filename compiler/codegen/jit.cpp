#include "codegen/jit.hpp"

#include <llvm/CodeGen/MachineModuleInfo.h>
#include <llvm/CodeGen/Passes.h>
#include <llvm/CodeGen/TargetPassConfig.h>
#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SmallVectorMemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/SubtargetFeature.h>

#include <fmt/format.h>

#include <array>
#include <cstring>
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
    // Runs of zero outputs are a memset, which LLVM turns into a call when they are long.
    define("memset", static_cast<void* (*)(void*, int, std::size_t)>(::memset));
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

llvm::TargetMachine& host_target_machine(OptLevel level) {
    // Describing the host (CPUID, feature string) and building a target machine with its
    // subtarget, cost model and scheduling tables takes about half a millisecond; nothing of it
    // depends on the model. So each thread builds one per level on first use and keeps it: a
    // target machine may serve any number of compilations, one at a time (hence per thread).
    thread_local std::array<std::unique_ptr<llvm::TargetMachine>, 4> machines;
    std::unique_ptr<llvm::TargetMachine>& machine = machines.at(static_cast<std::size_t>(level));
    if (!machine) {
        initialize_llvm();
        // detectHost fills in the CPU name and its features (AVX2, FMA, ...), so the code is
        // tuned for the machine that runs it.
        auto builder = take(llvm::orc::JITTargetMachineBuilder::detectHost(),
                            "cannot describe the host CPU to LLVM");
        builder.setCodeGenOptLevel(codegen_level(level));
        machine = take(builder.createTargetMachine(), "cannot create an LLVM target for the host");
    }
    return *machine;
}

std::unique_ptr<llvm::TargetMachine>
ahead_of_time_target_machine(const std::string& triple, const std::string& cpu, OptLevel level) {
    initialize_llvm();
    const std::string target_triple = triple.empty() ? llvm::sys::getDefaultTargetTriple() : triple;
    std::string error;
    const llvm::Target* target = llvm::TargetRegistry::lookupTarget(target_triple, error);
    if (target == nullptr) {
        throw CodegenError(fmt::format("target '{}': {} (this mdl generates code for its own "
                                       "architecture, {}, only)",
                                       target_triple, error, llvm::sys::getDefaultTargetTriple()));
    }
    std::string cpu_name = cpu, features;
    if (cpu == "native") {
        cpu_name = llvm::sys::getHostCPUName().str();
        llvm::SubtargetFeatures host;
        for (const auto& feature : llvm::sys::getHostCPUFeatures()) {
            host.AddFeature(feature.getKey(), feature.getValue());
        }
        features = host.getString();
    }
    llvm::TargetOptions options;
    std::unique_ptr<llvm::TargetMachine> machine(
        target->createTargetMachine(target_triple, cpu_name, features, options, llvm::Reloc::PIC_,
                                    std::nullopt, codegen_level(level)));
    if (!machine) {
        throw CodegenError(
            fmt::format("LLVM cannot create a target machine for '{}'", target_triple));
    }
    if (!machine->getMCSubtargetInfo()->isCPUStringValid(cpu_name)) {
        throw CodegenError(fmt::format("unknown CPU '{}' for target '{}' (e.g. x86-64, x86-64-v2, "
                                       "x86-64-v3, native)",
                                       cpu_name, target_triple));
    }
    return machine;
}

std::unique_ptr<llvm::MemoryBuffer> compile_to_object(llvm::Module& module,
                                                      llvm::TargetMachine& target) {
    if (target.getOptLevel() == llvm::CodeGenOptLevel::None ||
        target.getOptLevel() == llvm::CodeGenOptLevel::Aggressive) {
        // O0 and O3: LLVM's standard code generation pipeline for the level.
        llvm::orc::SimpleCompiler compiler(target);
        return take(compiler(module), "LLVM failed to generate machine code");
    }
    // O1 and O2: the standard pipeline (what SimpleCompiler runs through addPassesToEmitMC),
    // less the machine passes that cannot change a straight-line kernel but cost time on every
    // function: the loop-invariant code motion passes (kernels have no loops), machine sinking
    // (it moves code into successor blocks; kernels are one block) and the second, post-RA
    // scheduling pass, which only reorders already allocated instructions and gains nothing on
    // out-of-order CPUs; it was a fifth of the code generation time of the largest kernels.
    // Nor the pre-RA machine scheduler: the SelectionDAG scheduler already orders each block
    // with register pressure in view, and on the shipped models the second pass took 8% of
    // compile time and moved no kernel's speed beyond the noise (hand-written/JIT ratios
    // 1.00-1.43 with and without it, spring_chain's df/dq within 2%).
    auto& machine = static_cast<llvm::LLVMTargetMachine&>(target);
    llvm::SmallVector<char, 0> buffer;
    llvm::raw_svector_ostream stream(buffer);
    llvm::legacy::PassManager passes;
    llvm::TargetPassConfig* config = machine.createPassConfig(passes);
    config->setDisableVerify(true);
    passes.add(config);
    auto* machine_module = new llvm::MachineModuleInfoWrapperPass(&machine);
    passes.add(machine_module);
    for (llvm::AnalysisID pass :
         {&llvm::EarlyMachineLICMID, &llvm::MachineLICMID, &llvm::MachineSinkingID,
          &llvm::PostRAMachineSinkingID, &llvm::PostRASchedulerID, &llvm::PostMachineSchedulerID,
          &llvm::MachineSchedulerID}) {
        config->disablePass(pass);
    }
    if (config->addISelPasses()) {
        throw CodegenError("LLVM failed to set up instruction selection");
    }
    config->addMachinePasses();
    config->setInitialized();
    if (machine.addAsmPrinter(passes, stream, nullptr, llvm::CodeGenFileType::ObjectFile,
                              machine_module->getMMI().getContext())) {
        throw CodegenError("LLVM cannot emit object code for the host");
    }
    passes.add(llvm::createFreeMachineFunctionPass());
    passes.run(module);
    return std::make_unique<llvm::SmallVectorMemoryBuffer>(
        std::move(buffer), module.getModuleIdentifier() + "-jitted-objectbuffer",
        /*RequiresNullTerminator=*/false);
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
