#include "codegen/object_file.hpp"

#include "codegen/emit_ir.hpp"
#include "codegen/jit.hpp"
#include "codegen/optimize.hpp"

#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <vector>

namespace mdl::codegen {

bool is_c_identifier(const std::string& name) {
    if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) {
        return false;
    }
    for (char c : name) {
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) {
            return false;
        }
    }
    return true;
}

ObjectTarget resolve_target(const ObjectTarget& target) {
    ObjectTarget resolved = target;
    if (resolved.triple.empty()) {
        resolved.triple = llvm::sys::getDefaultTargetTriple();
    }
    if (resolved.cpu == "native") {
        resolved.cpu = llvm::sys::getHostCPUName().str();
    }
    return resolved;
}

namespace {

// `const mdl_kernels P_kernels = {...}` with the layout of kernel_abi.h: five unsigned sizes,
// eleven kernel pointers, two int flags, the mass_matrix pointer, three int flags, two
// unsigned event counts and the two event kernels, the four values kernels and the four
// mdl_sparsity patterns (three unsigned, two pointers) with their arrays as constant data
// (natural alignment, as a C compiler lays the structs out for the target).
void define_table(llvm::Module& module, const symbolic::System& system, const std::string& prefix) {
    llvm::LLVMContext& context = module.getContext();
    llvm::Type* u32 = llvm::Type::getInt32Ty(context);
    llvm::Type* ptr = llvm::PointerType::getUnqual(context);
    std::vector<llvm::Type*> fields(5, u32);
    fields.insert(fields.end(), 11, ptr);
    fields.insert(fields.end(), 2, u32);
    fields.push_back(ptr);
    fields.insert(fields.end(), 3, u32);
    fields.insert(fields.end(), 2, u32);
    fields.insert(fields.end(), 2, ptr);
    fields.insert(fields.end(), 4, ptr);
    llvm::StructType* sparsity_type =
        llvm::StructType::create(context, {u32, u32, u32, ptr, ptr}, "struct.mdl_sparsity");
    fields.insert(fields.end(), 4, sparsity_type);
    fields.push_back(ptr); // constraint_rate
    fields.push_back(ptr); // event_rate
    llvm::StructType* type = llvm::StructType::create(context, fields, "struct.mdl_kernels");

    const symbolic::SystemSizes& sizes = system.sizes();
    auto number = [&](std::uint32_t v) -> llvm::Constant* {
        return llvm::ConstantInt::get(u32, v);
    };
    llvm::Constant* null = llvm::ConstantPointerNull::get(llvm::PointerType::getUnqual(context));
    auto kernel = [&](symbolic::Kernel k, std::string_view suffix = "") -> llvm::Constant* {
        if (!system.has_kernel(k)) {
            return null;
        }
        llvm::Function* f = module.getFunction(
            prefix + "_" + std::string(symbolic::kernel_name(k)) + std::string(suffix));
        if (f == nullptr) {
            throw CodegenError(
                fmt::format("internal error: no function for kernel {}", symbolic::kernel_name(k)));
        }
        return f;
    };
    using K = symbolic::Kernel;
    std::vector<llvm::Constant*> values = {number(sizes.positions),
                                           number(sizes.states),
                                           number(sizes.constraints),
                                           number(sizes.vibrations),
                                           number(sizes.parameters),
                                           kernel(K::mass),
                                           kernel(K::force),
                                           kernel(K::rates),
                                           kernel(K::potential),
                                           kernel(K::constraint),
                                           kernel(K::constraint_jacobian),
                                           kernel(K::curvature),
                                           kernel(K::force_dq),
                                           kernel(K::force_dv),
                                           kernel(K::phase),
                                           kernel(K::phase_rate),
                                           number(system.velocity_dependent ? 1 : 0),
                                           number(system.time_dependent ? 1 : 0),
                                           kernel(K::mass_matrix),
                                           number(system.mass_depends_on_positions ? 1 : 0),
                                           number(system.mass_coupled ? 1 : 0),
                                           number(system.applied_velocity_dependent ? 1 : 0),
                                           number(sizes.events),
                                           number(sizes.reinits),
                                           kernel(K::event_indicator),
                                           kernel(K::event_reinit)};
    for (K k : {K::constraint_jacobian, K::force_dq, K::force_dv, K::mass_matrix}) {
        values.push_back(kernel(k, "_values"));
    }
    for (K k : {K::constraint_jacobian, K::force_dq, K::force_dv, K::mass_matrix}) {
        if (!system.has_kernel(k)) {
            values.push_back(llvm::ConstantStruct::get(
                sparsity_type, {number(0), number(0), number(0), null, null}));
            continue;
        }
        const symbolic::Sparsity pattern = system.sparsity(k);
        const auto array = [&](const std::vector<std::uint32_t>& data,
                               const char* what) -> llvm::Constant* {
            if (data.empty()) {
                return null;
            }
            auto* array_type = llvm::ArrayType::get(u32, data.size());
            std::vector<llvm::Constant*> elements;
            elements.reserve(data.size());
            for (std::uint32_t d : data) {
                elements.push_back(number(d));
            }
            auto* global = new llvm::GlobalVariable(
                module, array_type, /*isConstant=*/true, llvm::GlobalValue::PrivateLinkage,
                llvm::ConstantArray::get(array_type, elements),
                prefix + "_" + std::string(symbolic::kernel_name(k)) + "_" + what);
            return global;
        };
        values.push_back(llvm::ConstantStruct::get(
            sparsity_type,
            {number(pattern.rows), number(pattern.columns),
             number(static_cast<std::uint32_t>(pattern.nonzeros())),
             array(pattern.row_start, "row_start"), array(pattern.column, "column")}));
    }
    values.push_back(kernel(K::constraint_rate));
    values.push_back(kernel(K::event_rate));
    new llvm::GlobalVariable(module, type, /*isConstant=*/true, llvm::GlobalValue::ExternalLinkage,
                             llvm::ConstantStruct::get(type, values), prefix + "_kernels");
}

} // namespace

ObjectFile emit_object(const symbolic::System& system, const std::string& prefix,
                       const ObjectTarget& target, const CodegenOptions& options) {
    if (!is_c_identifier(prefix)) {
        throw CodegenError(fmt::format("'{}' cannot prefix C symbols: use letters, digits and _, "
                                       "not starting with a digit",
                                       prefix));
    }
    system.validate();
    std::unique_ptr<llvm::TargetMachine> machine =
        ahead_of_time_target_machine(target.triple, target.cpu, options.opt_level);
    llvm::LLVMContext context;
    context.setDiscardValueNames(true);
    std::unique_ptr<llvm::Module> module = emit_kernels(
        system, context, machine->createDataLayout(), machine->getTargetTriple(), options);
    // mdl_<kernel> -> P_<kernel>; the sections of split kernels become local to the object
    for (llvm::Function& f : module->functions()) {
        if (f.isDeclaration()) {
            continue; // libm
        }
        const std::string name = f.getName().str();
        if (name.find(".section") != std::string::npos) {
            f.setLinkage(llvm::GlobalValue::InternalLinkage);
            f.setVisibility(llvm::GlobalValue::DefaultVisibility);
        } else if (name.rfind("mdl_", 0) == 0) {
            f.setName(prefix + "_" + name.substr(4));
        }
    }
    define_table(*module, system, prefix);
    std::string problems;
    llvm::raw_string_ostream stream(problems);
    if (llvm::verifyModule(*module, &stream)) {
        throw CodegenError("internal error: the object's LLVM IR is invalid: " + problems);
    }
    optimize(*module, *machine, options);
    std::unique_ptr<llvm::MemoryBuffer> object = compile_to_object(*module, *machine);
    ObjectFile file;
    file.bytes.assign(object->getBufferStart(), object->getBufferSize());
    file.triple = machine->getTargetTriple().str();
    file.cpu = machine->getTargetCPU().str();
    return file;
}

} // namespace mdl::codegen
