#include "codegen/compiled_kernels.hpp"

#include "codegen/emit_ir.hpp"
#include "codegen/jit.hpp"
#include "codegen/object_cache.hpp"
#include "codegen/optimize.hpp"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Triple.h>

#include <chrono>

namespace mdl::codegen {

namespace {

using Clock = std::chrono::steady_clock;

double milliseconds_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::string target_description(const llvm::TargetMachine& target) {
    return target.getTargetTriple().str() + "/" + target.getTargetCPU().str() + "/" +
           target.getTargetFeatureString().str();
}

mdl_kernel* slot_of(mdl_kernels& table, symbolic::Kernel k) {
    using symbolic::Kernel;
    switch (k) {
    case Kernel::mass:
        return &table.mass;
    case Kernel::force:
        return &table.force;
    case Kernel::rates:
        return &table.rates;
    case Kernel::potential:
        return &table.potential;
    case Kernel::constraint:
        return &table.constraint;
    case Kernel::constraint_jacobian:
        return &table.constraint_jacobian;
    case Kernel::curvature:
        return &table.curvature;
    case Kernel::force_dq:
        return &table.force_dq;
    case Kernel::force_dv:
        return &table.force_dv;
    case Kernel::phase:
        return &table.phase;
    case Kernel::phase_rate:
        return &table.phase_rate;
    }
    return nullptr;
}

struct OptimizedModule {
    std::unique_ptr<llvm::LLVMContext> context;
    std::unique_ptr<llvm::Module> module;
};

OptimizedModule build_module(const symbolic::System& system, const CodegenOptions& options,
                             llvm::TargetMachine& target, CompileTimings& timings) {
    OptimizedModule result;
    result.context = std::make_unique<llvm::LLVMContext>();
    result.context->setDiscardValueNames(!options.keep_ir);
    auto start = Clock::now();
    result.module = emit_kernels(system, *result.context, target.createDataLayout(),
                                 target.getTargetTriple(), options);
    timings.emit_ms = milliseconds_since(start);
    start = Clock::now();
    optimize(*result.module, target, options.opt_level);
    timings.optimize_ms = milliseconds_since(start);
    return result;
}

std::string print_module(const llvm::Module& module) {
    std::string text;
    llvm::raw_string_ostream stream(text);
    module.print(stream, nullptr);
    stream.flush();
    return text;
}

} // namespace

struct CompiledKernels::State {
    std::unique_ptr<Jit> jit; // owns the machine code the table points into
    mdl_kernels table{};
    std::string ir;
    CompileTimings timings;
};

CompiledKernels::CompiledKernels(std::unique_ptr<State> state) : state_(std::move(state)) {}
CompiledKernels::CompiledKernels(CompiledKernels&&) noexcept = default;
CompiledKernels& CompiledKernels::operator=(CompiledKernels&&) noexcept = default;
CompiledKernels::~CompiledKernels() = default;

const mdl_kernels& CompiledKernels::kernels() const {
    return state_->table;
}
const std::string& CompiledKernels::ir() const {
    return state_->ir;
}
const CompileTimings& CompiledKernels::timings() const {
    return state_->timings;
}

CompiledKernels CompiledKernels::compile(const symbolic::System& system,
                                         const CodegenOptions& options) {
    const auto start = Clock::now();
    system.validate();
    auto state = std::make_unique<State>();
    CompileTimings& timings = state->timings;

    auto stage = Clock::now();
    llvm::TargetMachine& target = host_target_machine(options.opt_level);
    timings.target_ms = milliseconds_since(stage);

    const bool cacheable = options.use_object_cache && !options.keep_ir;
    ObjectKey key;
    std::unique_ptr<llvm::MemoryBuffer> object;
    if (cacheable) {
        key = object_key(system, options, target_description(target));
        if (auto cached = ObjectCache::process().find(key)) {
            object = llvm::MemoryBuffer::getMemBufferCopy(*cached, "mdl_kernels");
            timings.from_cache = true;
        }
    }
    if (!object) {
        OptimizedModule built = build_module(system, options, target, timings);
        if (options.keep_ir) {
            state->ir = print_module(*built.module);
        }
        stage = Clock::now();
        object = compile_to_object(*built.module, target);
        timings.codegen_ms = milliseconds_since(stage);
        if (cacheable) {
            ObjectCache::process().store(key, std::string(object->getBuffer()));
        }
    }

    stage = Clock::now();
    state->jit = std::make_unique<Jit>(target);
    state->jit->add_object(std::move(object));
    mdl_kernels& table = state->table;
    const symbolic::SystemSizes& sizes = system.sizes();
    table.n_positions = sizes.positions;
    table.n_states = sizes.states;
    table.n_constraints = sizes.constraints;
    table.n_vibrations = sizes.vibrations;
    table.n_parameters = sizes.parameters;
    for (symbolic::Kernel k : symbolic::all_kernels) {
        if (!system.outputs(k).empty()) {
            const std::uintptr_t address = state->jit->lookup(kernel_symbol(k));
            *slot_of(table, k) = reinterpret_cast<mdl_kernel>(address);
        }
    }
    table.velocity_dependent = system.velocity_dependent ? 1 : 0;
    table.time_dependent = system.time_dependent ? 1 : 0;
    timings.link_ms = milliseconds_since(stage);
    timings.total_ms = milliseconds_since(start);
    return CompiledKernels(std::move(state));
}

std::string optimized_ir(const symbolic::System& system, const CodegenOptions& options) {
    system.validate();
    llvm::TargetMachine& target = host_target_machine(options.opt_level);
    CodegenOptions keep = options;
    keep.keep_ir = true;
    CompileTimings ignored;
    return print_module(*build_module(system, keep, target, ignored).module);
}

} // namespace mdl::codegen
