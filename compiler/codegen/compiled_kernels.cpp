#include "codegen/compiled_kernels.hpp"

#include "codegen/compile_pool.hpp"
#include "codegen/disk_cache.hpp"
#include "codegen/emit_ir.hpp"
#include "codegen/jit.hpp"
#include "codegen/object_cache.hpp"
#include "codegen/optimize.hpp"
#include "codegen/partition.hpp"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Triple.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <optional>

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

std::function<void(const std::string&)>& cache_warning_handler() {
    static std::function<void(const std::string&)> handler;
    return handler;
}

// A cache that fails is not the user's problem but may be worth knowing about: one warning per
// process, not one per compilation (a sweep compiles many times), to the host's handler.
void warn_once(const std::string& warning) {
    static std::atomic<bool> warned{false};
    if (!warning.empty() && !warned.exchange(true) && cache_warning_handler()) {
        cache_warning_handler()(warning);
    }
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
    case Kernel::mass_matrix:
        return &table.mass_matrix;
    case Kernel::event_indicator:
        return &table.event_indicator;
    case Kernel::event_reinit:
        return &table.event_reinit;
    case Kernel::constraint_rate:
        return &table.constraint_rate;
    case Kernel::event_rate:
        return &table.event_rate;
    }
    return nullptr;
}

// The values kernel and the pattern of a matrix kernel in the table, or nulls.
struct SparseSlots {
    mdl_kernel* values;
    mdl_sparsity* pattern;
};
SparseSlots sparse_slots_of(mdl_kernels& table, symbolic::Kernel k) {
    using symbolic::Kernel;
    switch (k) {
    case Kernel::constraint_jacobian:
        return {&table.constraint_jacobian_values, &table.constraint_jacobian_pattern};
    case Kernel::force_dq:
        return {&table.force_dq_values, &table.force_dq_pattern};
    case Kernel::force_dv:
        return {&table.force_dv_values, &table.force_dv_pattern};
    case Kernel::mass_matrix:
        return {&table.mass_matrix_values, &table.mass_matrix_pattern};
    default:
        return {nullptr, nullptr};
    }
}

// A module with the context that owns it (optimized or not: emit_module returns it as emitted).
struct OwnedModule {
    std::unique_ptr<llvm::LLVMContext> context;
    std::unique_ptr<llvm::Module> module;
};

std::string print_module(const llvm::Module& module) {
    std::string text;
    llvm::raw_string_ostream stream(text);
    module.print(stream, nullptr);
    stream.flush();
    return text;
}

OwnedModule emit_module(const symbolic::System& system, const CodegenOptions& options,
                        const llvm::TargetMachine& target) {
    OwnedModule result;
    result.context = std::make_unique<llvm::LLVMContext>();
    result.context->setDiscardValueNames(!options.keep_ir);
    result.module = emit_kernels(system, *result.context, target.createDataLayout(),
                                 target.getTargetTriple(), options);
    return result;
}

OwnedModule build_module(const symbolic::System& system, const CodegenOptions& options,
                         llvm::TargetMachine& target) {
    OwnedModule result = emit_module(system, options, target);
    optimize(*result.module, target, options);
    return result;
}

// Below this estimated cost (partition.hpp, in units of about 12 µs: 3 ms) a system is
// compiled on the calling thread alone: a second partition costs its thread an emission of
// the whole module and a pass pipeline of its own, and the JIT another object to link, which
// on the shipped models below it (harmonic oscillator, Kapitza pendulum) ate all of the gain.
constexpr double parallel_threshold = 250.0;

std::size_t partition_count(const symbolic::System& system, const CodegenOptions& options) {
    if (options.keep_ir || estimated_compile_cost(system) < parallel_threshold) {
        return 1; // (the IR is printed from one module)
    }
    std::size_t kernels = 0;
    for (symbolic::Kernel k : symbolic::all_kernels) {
        kernels += system.has_kernel(k) ? 1 : 0;
    }
    const std::size_t threads = options.threads == 0 ? hardware_compile_threads() : options.threads;
    return std::max<std::size_t>(1, std::min(threads, kernels));
}

struct PartitionTimes {
    double emit_ms = 0.0;
    double optimize_ms = 0.0;
    double codegen_ms = 0.0;
};

// Emits, optimizes and compiles a model's kernels: on this thread alone, or split among
// threads (partition.hpp), each compiling its share of the functions in its own LLVM
// context. Returns the objects, one per partition.
ObjectCache::Objects compile_objects(const symbolic::System& system, const CodegenOptions& options,
                                     CompileTimings& timings, std::string* ir) {
    const std::size_t partitions = partition_count(system, options);
    ObjectCache::Objects objects(partitions);
    std::vector<PartitionTimes> times(partitions);
    // Every partition emits the whole module in its own context (emission is a small part of
    // the work) and plans the split itself: the plan depends only on the module, so all agree.
    run_concurrently(partitions, [&](std::size_t p) {
        llvm::TargetMachine& machine = host_target_machine(options.opt_level); // this thread's
        auto start = Clock::now();
        OwnedModule built = emit_module(system, options, machine);
        times[p].emit_ms = milliseconds_since(start);
        llvm::Module& module = *built.module;
        if (partitions > 1) {
            keep_partition(module, plan_partitions(module, partitions, options), p);
        }
        start = Clock::now();
        optimize(module, machine, options);
        times[p].optimize_ms = milliseconds_since(start);
        if (ir != nullptr) {
            *ir = print_module(module);
        }
        start = Clock::now();
        objects[p] = std::string(compile_to_object(module, machine)->getBuffer());
        times[p].codegen_ms = milliseconds_since(start);
    });
    // The stages as they delay the result: the slowest partition's.
    for (const PartitionTimes& t : times) {
        timings.emit_ms = std::max(timings.emit_ms, t.emit_ms);
        timings.optimize_ms = std::max(timings.optimize_ms, t.optimize_ms);
        timings.codegen_ms = std::max(timings.codegen_ms, t.codegen_ms);
    }
    timings.partitions = partitions;
    return objects;
}

} // namespace

void set_cache_warning_handler(std::function<void(const std::string&)> handler) {
    cache_warning_handler() = std::move(handler);
}

const char* to_string(CacheUse use) {
    switch (use) {
    case CacheUse::off:
        return "off";
    case CacheUse::miss:
        return "miss";
    case CacheUse::memory:
        return "memory";
    case CacheUse::disk:
        return "disk";
    }
    return "off";
}

struct CompiledKernels::State {
    std::unique_ptr<Jit> jit; // owns the machine code the table points into
    mdl_kernels table{};
    std::vector<symbolic::Sparsity> patterns; // the table's mdl_sparsity arrays point into them
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
    std::optional<ObjectCache::Objects> objects;
    std::optional<DiskCache> disk;
    std::string warning;
    if (cacheable) {
        key = object_key(system, options, target_description(target));
        objects = ObjectCache::process().find(key);
        timings.cache = objects ? CacheUse::memory : CacheUse::miss;
        if (!objects && options.use_disk_cache) {
            disk = DiskCache::from_environment(warning);
        }
        if (!objects && disk) {
            objects = disk->find(key, warning);
            if (objects) {
                timings.cache = CacheUse::disk;
                ObjectCache::process().store(key, *objects);
            }
        }
        timings.from_cache = objects.has_value();
    }
    if (!objects) {
        objects = compile_objects(system, options, timings, options.keep_ir ? &state->ir : nullptr);
        if (cacheable) {
            ObjectCache::process().store(key, *objects);
            if (disk) {
                disk->store(key, *objects, warning);
            }
        }
    }
    warn_once(warning);

    stage = Clock::now();
    state->jit = std::make_unique<Jit>(target);
    for (const std::string& object : *objects) {
        state->jit->add_object(llvm::MemoryBuffer::getMemBufferCopy(object, "mdl_kernels"));
    }
    mdl_kernels& table = state->table;
    const symbolic::SystemSizes& sizes = system.sizes();
    table.n_positions = sizes.positions;
    table.n_states = sizes.states;
    table.n_constraints = sizes.constraints;
    table.n_vibrations = sizes.vibrations;
    table.n_parameters = sizes.parameters;
    table.n_events = sizes.events;
    table.n_reinits = sizes.reinits;
    state->patterns.reserve(symbolic::kernel_count);
    for (symbolic::Kernel k : symbolic::all_kernels) {
        if (!system.has_kernel(k)) {
            continue;
        }
        const std::uintptr_t address = state->jit->lookup(kernel_symbol(k));
        *slot_of(table, k) = reinterpret_cast<mdl_kernel>(address);
        if (symbolic::is_matrix_kernel(k)) {
            const SparseSlots sparse = sparse_slots_of(table, k);
            *sparse.values = reinterpret_cast<mdl_kernel>(state->jit->lookup(values_symbol(k)));
            const symbolic::Sparsity& p = state->patterns.emplace_back(system.sparsity(k));
            *sparse.pattern = {p.rows, p.columns, static_cast<unsigned>(p.nonzeros()),
                               p.row_start.data(), p.column.data()};
        }
    }
    table.velocity_dependent = system.velocity_dependent ? 1 : 0;
    table.time_dependent = system.time_dependent ? 1 : 0;
    table.mass_depends_on_positions = system.mass_depends_on_positions ? 1 : 0;
    table.mass_coupled = system.mass_coupled ? 1 : 0;
    table.applied_velocity_dependent = system.applied_velocity_dependent ? 1 : 0;
    timings.link_ms = milliseconds_since(stage);
    timings.total_ms = milliseconds_since(start);
    return CompiledKernels(std::move(state));
}

std::string optimized_ir(const symbolic::System& system, const CodegenOptions& options) {
    system.validate();
    llvm::TargetMachine& target = host_target_machine(options.opt_level);
    CodegenOptions keep = options;
    keep.keep_ir = true;
    return print_module(*build_module(system, keep, target).module);
}

} // namespace mdl::codegen
