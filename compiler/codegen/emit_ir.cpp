#include "codegen/emit_ir.hpp"

#include "abi/kernel_abi.h"
#include "symbolic/numeric.hpp"

#include <llvm/IR/Constants.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Triple.h>

#include <array>
#include <cmath>
#include <cstddef>
#include <memory>
#include <numeric>
#include <string>
#include <unordered_map>
#include <vector>

namespace mdl::codegen {

namespace {

using symbolic::ExprId;
using symbolic::Func;
using symbolic::Kernel;
using symbolic::Node;
using symbolic::Op;
using symbolic::VarKind;

// The fields of mdl_kernel_args, in declaration order.
enum ArgsField : unsigned { field_t, field_q, field_v, field_x, field_theta, field_p };
constexpr std::array<std::size_t, 6> args_offsets{
    offsetof(mdl_kernel_args, t), offsetof(mdl_kernel_args, q),     offsetof(mdl_kernel_args, v),
    offsetof(mdl_kernel_args, x), offsetof(mdl_kernel_args, theta), offsetof(mdl_kernel_args, p),
};

unsigned field_of(VarKind kind) {
    switch (kind) {
    case VarKind::time:
        return field_t;
    case VarKind::position:
        return field_q;
    case VarKind::velocity:
        return field_v;
    case VarKind::state:
        return field_x;
    case VarKind::phase:
        return field_theta;
    case VarKind::parameter:
        return field_p;
    }
    return field_t;
}

// The C library function for built-ins without an LLVM intrinsic.
const char* libm_name(Func f) {
    switch (f) {
    case Func::tan:
        return "tan";
    case Func::sinh:
        return "sinh";
    case Func::cosh:
        return "cosh";
    case Func::tanh:
        return "tanh";
    case Func::asin:
        return "asin";
    case Func::acos:
        return "acos";
    case Func::atan:
        return "atan";
    case Func::atan2:
        return "atan2";
    default:
        return nullptr;
    }
}

class KernelEmitter {
public:
    KernelEmitter(const symbolic::System& system, llvm::Module& module,
                  const llvm::DataLayout& layout, const CodegenOptions& options)
        : system_(system), pool_(system.pool()), module_(module), context_(module.getContext()),
          options_(options), double_(llvm::Type::getDoubleTy(context_)),
          ptr_(llvm::PointerType::getUnqual(context_)) {
        args_type_ = llvm::StructType::create(context_, {double_, ptr_, ptr_, ptr_, ptr_, ptr_},
                                              "mdl_kernel_args");
        const llvm::StructLayout* sl = layout.getStructLayout(args_type_);
        for (unsigned i = 0; i < args_offsets.size(); ++i) {
            if (sl->getElementOffset(i) != args_offsets[i]) {
                throw CodegenError("mdl_kernel_args has a different layout in LLVM's data layout "
                                   "than in the host compiler's");
            }
        }
        kernel_type_ =
            llvm::FunctionType::get(llvm::Type::getVoidTy(context_), {ptr_, ptr_}, false);
        section_type_ =
            llvm::FunctionType::get(llvm::Type::getVoidTy(context_), {ptr_, ptr_, ptr_}, false);
        fast_math_.setAllowReassoc();
        fast_math_.setAllowContract();
        fast_math_.setAllowReciprocal();
        fast_math_.setNoSignedZeros();
        fast_math_.setApproxFunc();
        values_.assign(pool_.size(), nullptr);
    }

    // A matrix kernel (a Jacobian, the mass matrix) becomes two functions: mdl_<k>_values,
    // which computes the values of the structural nonzeros (the system's outputs), and the
    // dense mdl_<k>, which calls it and spreads the values over the matrix (emit_dense).
    void emit(Kernel k) {
        const std::vector<ExprId>& outputs = system_.outputs(k);
        if (!symbolic::is_matrix_kernel(k)) {
            emit_function(k, kernel_symbol(k), outputs);
            return;
        }
        llvm::Function* values = emit_function(k, values_symbol(k), outputs);
        emit_dense(k, values);
    }

private:
    llvm::Function* emit_function(Kernel k, const std::string& symbol,
                                  const std::vector<ExprId>& outputs) {
        const std::vector<ExprId> order = locality_order(outputs);
        shared_ = symbolic::shared_reciprocals(pool_, order);
        llvm::Function* f =
            llvm::Function::Create(kernel_type_, llvm::Function::ExternalLinkage, symbol, module_);
        describe_function(f, k, outputs.size(), 0);
        if (operations(order, outputs) <= section_budget()) {
            llvm::IRBuilder<> b(start_function(f, nullptr));
            configure(b);
            for (ExprId id : order) {
                if (!is_leaf(id)) {
                    remember(id, emit_node(b, id));
                }
            }
            // All values first, then the stores: no store can feed a later load.
            std::vector<std::uint32_t> all(outputs.size());
            std::iota(all.begin(), all.end(), std::uint32_t{0});
            store_outputs(b, outputs, all);
            b.CreateRetVoid();
        } else {
            emit_sections(f, k, outputs, order);
        }
        return f;
    }

    // The dense kernel of a matrix of `entries` = rows x columns entries, `nonzeros` of them
    // in the pattern at row-major positions p_0 < p_1 < ...: the values kernel writes its
    // values to out[0 .. nonzeros), the rest of out[] is set to +0.0, and then, from the last
    // entry down, out[p_k] = out[k] with out[k] zeroed first. Since p_k >= k, out[k] still
    // holds value k when it is moved, and every position zeroed that is some p_j (j < k) is
    // written later. A loop over a constant table of the positions: code of constant size
    // for any pattern, a dense n x n matrix written in O(n^2) time without O(n^2) code.
    void emit_dense(Kernel k, llvm::Function* values) {
        const symbolic::Sparsity pattern = system_.sparsity(k);
        const std::uint64_t entries = std::uint64_t{pattern.rows} * pattern.columns;
        std::vector<std::uint64_t> position;
        position.reserve(pattern.nonzeros());
        for (std::uint32_t i = 0; i < pattern.rows; ++i) {
            for (std::uint32_t e = pattern.row_start[i]; e < pattern.row_start[i + 1]; ++e) {
                position.push_back(std::uint64_t{i} * pattern.columns + pattern.column[e]);
            }
        }
        const std::uint64_t nonzeros = position.size();
        std::uint64_t in_place = 0; // a leading run with p_k == k needs no move
        while (in_place < nonzeros && position[in_place] == in_place) {
            ++in_place;
        }

        llvm::Function* f = llvm::Function::Create(kernel_type_, llvm::Function::ExternalLinkage,
                                                   kernel_symbol(k), module_);
        using llvm::Attribute;
        if (k == Kernel::force_dq || k == Kernel::force_dv) {
            f->addFnAttr(jacobian_attribute);
        }
        for (auto a :
             {Attribute::NoUnwind, Attribute::WillReturn, Attribute::NoSync, Attribute::NoFree}) {
            f->addFnAttr(a);
        }
        for (auto a :
             {Attribute::NoAlias, Attribute::NoCapture, Attribute::ReadOnly, Attribute::NonNull}) {
            f->addParamAttr(0, a);
        }
        f->addParamAttr(0,
                        Attribute::getWithDereferenceableBytes(context_, sizeof(mdl_kernel_args)));
        f->addParamAttr(0, Attribute::getWithAlignment(context_, llvm::Align(8)));
        for (auto a : {Attribute::NoAlias, Attribute::NoCapture, Attribute::NonNull}) {
            f->addParamAttr(1, a); // read back by the moves: not write-only
        }
        f->addParamAttr(1, Attribute::getWithDereferenceableBytes(context_, entries * 8));
        f->addParamAttr(1, Attribute::getWithAlignment(context_, llvm::Align(8)));

        llvm::IRBuilder<> b(llvm::BasicBlock::Create(context_, "entry", f));
        llvm::Value* args = f->getArg(0);
        llvm::Value* out = f->getArg(1);
        b.CreateCall(kernel_type_, values, {args, out});
        if (entries > nonzeros) {
            b.CreateMemSet(b.CreateConstInBoundsGEP1_64(double_, out, nonzeros), b.getInt8(0),
                           (entries - nonzeros) * sizeof(double), llvm::Align(8));
        }
        if (in_place == nonzeros) {
            b.CreateRetVoid();
            return;
        }
        llvm::Type* i64 = b.getInt64Ty();
        std::vector<llvm::Constant*> table;
        table.reserve(nonzeros);
        for (std::uint64_t p : position) {
            table.push_back(llvm::ConstantInt::get(i64, p));
        }
        auto* table_type = llvm::ArrayType::get(i64, nonzeros);
        auto* positions = new llvm::GlobalVariable(
            module_, table_type, /*isConstant=*/true, llvm::GlobalValue::PrivateLinkage,
            llvm::ConstantArray::get(table_type, table), kernel_symbol(k) + ".positions");
        positions->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);

        llvm::BasicBlock* entry = b.GetInsertBlock();
        llvm::BasicBlock* loop = llvm::BasicBlock::Create(context_, "move", f);
        llvm::BasicBlock* exit = llvm::BasicBlock::Create(context_, "exit", f);
        b.CreateBr(loop);
        b.SetInsertPoint(loop);
        llvm::PHINode* index = b.CreatePHI(i64, 2, "k");
        index->addIncoming(llvm::ConstantInt::get(i64, nonzeros - 1), entry);
        llvm::Value* target =
            b.CreateAlignedLoad(i64, b.CreateInBoundsGEP(i64, positions, index), llvm::Align(8));
        llvm::Value* from = b.CreateInBoundsGEP(double_, out, index);
        llvm::Value* v = b.CreateAlignedLoad(double_, from, llvm::Align(8));
        b.CreateAlignedStore(llvm::ConstantFP::get(double_, 0.0), from, llvm::Align(8));
        b.CreateAlignedStore(v, b.CreateInBoundsGEP(double_, out, target), llvm::Align(8));
        llvm::Value* next = b.CreateSub(index, llvm::ConstantInt::get(i64, 1));
        index->addIncoming(next, loop);
        b.CreateCondBr(b.CreateICmpEQ(index, llvm::ConstantInt::get(i64, in_place)), exit, loop);
        b.SetInsertPoint(exit);
        b.CreateRetVoid();
    }

    // The nodes the outputs need, children before parents, output by output: a depth-first
    // post-order from each output in turn. Unlike ascending ids (which interleave the
    // derivatives of all columns), this keeps a value's uses close to its definition, which
    // shortens live ranges (fewer spills) and, in sectioned kernels, keeps most values inside
    // the section that computes them.
    std::vector<ExprId> locality_order(const std::vector<ExprId>& outputs) const {
        std::vector<ExprId> order;
        std::vector<std::uint8_t> done(pool_.size(), 0);
        struct Frame {
            ExprId id;
            std::uint32_t next; // operand to visit next
        };
        std::vector<Frame> stack;
        for (ExprId root : outputs) {
            if (done[root.index] != 0) {
                continue;
            }
            done[root.index] = 1;
            stack.push_back({root, 0});
            while (!stack.empty()) {
                Frame& top = stack.back();
                if (top.next < pool_.children(top.id).size()) {
                    const ExprId next = operand(top.id, top.next++);
                    if (done[next.index] == 0) {
                        // Marked on entry: in a DAG nothing reaches a node while its own
                        // operands are being visited.
                        done[next.index] = 1;
                        stack.push_back({next, 0});
                    }
                    continue;
                }
                order.push_back(top.id);
                stack.pop_back();
            }
        }
        return order;
    }

    bool is_leaf(ExprId id) const {
        const Op op = pool_.op(id);
        return op == Op::constant || op == Op::variable;
    }

    // The i-th node whose value a node's computation reads: its i-th child, except that a
    // product reads the base of a denominator factor, not the factor (numeric.hpp).
    ExprId operand(ExprId id, std::size_t i) const {
        const ExprId c = pool_.children(id)[i];
        const bool product = pool_.op(id) == Op::mul;
        return product && symbolic::is_denominator_factor(pool_, c) ? pool_.children(c)[0] : c;
    }

    template <class Visit>
    void for_each_operand(ExprId id, Visit visit) const {
        for (std::size_t i = 0; i < pool_.children(id).size(); ++i) {
            visit(operand(id, i));
        }
    }

    std::size_t section_budget() const {
        return std::max<std::size_t>(options_.section_operations, 1);
    }

    // About how many IR instructions a node becomes (its operations, not its leaves).
    std::size_t operations(ExprId id) const {
        switch (pool_.op(id)) {
        case Op::constant:
        case Op::variable:
            return 0;
        case Op::add:
        case Op::mul:
            return pool_.children(id).size();
        case Op::pow:
        case Op::call:
        case Op::compare: // fcmp, uitofp
        case Op::select:  // fcmp, select
            return 2;
        }
        return 1;
    }

    std::size_t operations(const std::vector<ExprId>& order,
                           const std::vector<ExprId>& outputs) const {
        std::size_t total = outputs.size(); // one store each
        for (ExprId id : order) {
            total += operations(id);
        }
        return total;
    }

    // Whether section s is one sum of more terms than the budget (emit_sections).
    bool long_sum(const std::vector<ExprId>& order, const std::vector<std::size_t>& begin,
                  std::size_t s) const {
        const ExprId id = order[begin[s]];
        return begin[s + 1] - begin[s] == 1 && pool_.op(id) == Op::add &&
               pool_.children(id).size() > section_budget();
    }

    // A kernel too large for one function: LLVM's instruction scheduling, register allocation
    // and SLP vectorization cost grows faster than linearly with the size of a basic block
    // (chiefly with the number of memory operations in it), so a kernel of thousands of
    // operations (df/dq of a large model) would take seconds to compile. It is emitted
    // instead as a chain of `section` functions of about section_operations operations and
    // output stores each, called in order by the kernel; a value one section computes and a
    // later one reads travels through a stack array (scratch), whose slots are reused once no
    // later section reads them. Variables and constants are simply loaded again where needed.
    void emit_sections(llvm::Function* kernel, Kernel k, const std::vector<ExprId>& outputs,
                       const std::vector<ExprId>& order) {
        const std::size_t top = pool_.size(); // per-node tables (the order is not by id)
        // The stores of computed outputs count towards their section's budget; outputs that
        // are leaves (the structural zeros of a Jacobian, a constant mass) are stored by
        // sections of their own at the end, so that no section collects the stores of all of
        // them: instruction selection is superlinear in the memory operations of a block.
        std::vector<std::uint32_t> stores(top, 0);
        for (ExprId id : outputs) {
            if (!is_leaf(id)) {
                ++stores[id.index];
            }
        }
        // Consecutive runs of the computation order, each within the budget.
        std::vector<std::size_t> begin{0};
        std::size_t load = 0;
        for (std::size_t pos = 0; pos < order.size(); ++pos) {
            const std::size_t cost = operations(order[pos]) + stores[order[pos].index];
            if (load > 0 && load + cost > section_budget()) {
                begin.push_back(pos);
                load = 0;
            }
            load += cost;
        }
        const std::size_t sections = begin.size();
        begin.push_back(order.size());

        std::vector<std::uint32_t> section_of(top, 0);
        std::vector<std::uint32_t> last_use(top, 0);
        for (std::size_t s = 0; s < sections; ++s) {
            for (std::size_t pos = begin[s]; pos < begin[s + 1]; ++pos) {
                section_of[order[pos].index] = static_cast<std::uint32_t>(s);
                last_use[order[pos].index] = static_cast<std::uint32_t>(s);
            }
        }
        // The outputs each section stores, in ascending order: one pass, not one per section.
        // The leaf outputs in chunks of about the budget of stores and memsets each.
        std::vector<std::vector<std::uint32_t>> stored_by(sections);
        std::vector<std::vector<std::uint32_t>> leaf_chunks;
        std::size_t chunk_load = 0;
        for (std::size_t i = 0; i < outputs.size(); ++i) {
            const auto position = static_cast<std::uint32_t>(i);
            if (!is_leaf(outputs[i])) {
                stored_by[section_of[outputs[i].index]].push_back(position);
                continue;
            }
            const bool zero_run = !leaf_chunks.empty() && !leaf_chunks.back().empty() &&
                                  leaf_chunks.back().back() + 1 == position &&
                                  is_positive_zero(outputs[i]) &&
                                  is_positive_zero(outputs[leaf_chunks.back().back()]);
            if (!zero_run) {
                if (leaf_chunks.empty() || chunk_load >= section_budget()) {
                    leaf_chunks.emplace_back();
                    chunk_load = 0;
                }
                ++chunk_load;
            }
            leaf_chunks.back().push_back(position);
        }
        for (ExprId id : order) {
            for_each_operand(id, [&](ExprId operand) {
                last_use[operand.index] = std::max(last_use[operand.index], section_of[id.index]);
            });
        }
        // Scratch slots: live from the section that stores the value to the last one reading
        // it; a slot is free for reuse from the section after that.
        slot_.assign(top, -1);
        std::vector<std::vector<ExprId>> expiring(sections + 1);
        std::vector<std::int32_t> free_slots;
        std::int32_t slots = 0;
        for (std::size_t s = 0; s < sections; ++s) {
            if (s > 0) {
                for (ExprId id : expiring[s - 1]) {
                    free_slots.push_back(slot_[id.index]);
                }
            }
            for (std::size_t pos = begin[s]; pos < begin[s + 1]; ++pos) {
                const ExprId id = order[pos];
                if (is_leaf(id) || last_use[id.index] <= s) {
                    continue;
                }
                if (free_slots.empty()) {
                    slot_[id.index] = slots++;
                } else {
                    slot_[id.index] = free_slots.back();
                    free_slots.pop_back();
                }
                expiring[last_use[id.index]].push_back(id);
            }
        }

        // A sum of more terms than the budget (a potential of thousands of springs) is alone
        // in its section (the budget puts a boundary on both sides); its left-to-right fold is
        // split over a chain of functions passing the partial sum through one more slot: the
        // same additions in the same order, in functions of bounded size.
        std::int32_t partial_slot = -1;
        for (std::size_t s = 0; s < sections; ++s) {
            if (long_sum(order, begin, s) && partial_slot < 0) {
                partial_slot = slots++;
            }
        }

        llvm::IRBuilder<> kb(llvm::BasicBlock::Create(context_, "entry", kernel));
        llvm::AllocaInst* scratch = kb.CreateAlloca(
            llvm::ArrayType::get(double_,
                                 static_cast<std::uint64_t>(std::max<std::int32_t>(slots, 1))),
            nullptr, "scratch");
        scratch->setAlignment(llvm::Align(8));
        // The next function of the chain, called by the kernel after the previous ones.
        const auto next_section = [&](const std::string& name) {
            llvm::Function* section =
                llvm::Function::Create(section_type_, llvm::Function::ExternalLinkage,
                                       kernel->getName().str() + name, module_);
            // Not internal: the kernel and its sections may be compiled into different objects
            // (partition.hpp) and linked by name; hidden keeps them out of any symbol table a
            // host could see.
            section->setVisibility(llvm::GlobalValue::HiddenVisibility);
            describe_function(section, k, outputs.size(),
                              static_cast<std::size_t>(std::max<std::int32_t>(slots, 1)));
            // Kept apart: inlining them back would rebuild the one huge block.
            section->addFnAttr(llvm::Attribute::NoInline);
            if (((k == Kernel::force_dq || k == Kernel::force_dv) &&
                 !options_.optimize_jacobian_sections) ||
                (k == Kernel::potential && !options_.optimize_potential_sections)) {
                section->addFnAttr(llvm::Attribute::OptimizeNone);
            }
            kb.CreateCall(section_type_, section, {kernel->getArg(0), kernel->getArg(1), scratch});
            return section;
        };
        for (std::size_t s = 0; s < sections; ++s) {
            llvm::Function* section = next_section(".section" + std::to_string(s));
            auto b =
                std::make_unique<llvm::IRBuilder<>>(start_function(section, section->getArg(2)));
            configure(*b);
            if (long_sum(order, begin, s)) {
                const ExprId id = order[begin[s]];
                const std::vector<ExprId> kids(pool_.children(id).begin(),
                                               pool_.children(id).end());
                llvm::Value* sum = value(*b, kids[0]);
                for (std::size_t i = 1; i < kids.size(); ++i) {
                    if (i % section_budget() == 0) { // continue in the next function
                        b->CreateAlignedStore(sum, scratch_slot(*b, partial_slot), llvm::Align(8));
                        b->CreateRetVoid();
                        section = next_section(".section" + std::to_string(s) + ".part" +
                                               std::to_string(i / section_budget()));
                        b = std::make_unique<llvm::IRBuilder<>>(
                            start_function(section, section->getArg(2)));
                        configure(*b);
                        sum = b->CreateAlignedLoad(double_, scratch_slot(*b, partial_slot),
                                                   llvm::Align(8));
                    }
                    sum = b->CreateFAdd(sum, value(*b, kids[i]));
                }
                remember(id, sum);
                if (slot_[id.index] >= 0) {
                    b->CreateAlignedStore(sum, scratch_slot(*b, slot_[id.index]), llvm::Align(8));
                }
            } else {
                for (std::size_t pos = begin[s]; pos < begin[s + 1]; ++pos) {
                    const ExprId id = order[pos];
                    if (is_leaf(id)) {
                        continue;
                    }
                    llvm::Value* v = emit_node(*b, id);
                    remember(id, v);
                    if (slot_[id.index] >= 0) {
                        b->CreateAlignedStore(v, scratch_slot(*b, slot_[id.index]), llvm::Align(8));
                    }
                }
            }
            store_outputs(*b, outputs, stored_by[s]);
            b->CreateRetVoid();
        }
        for (std::size_t c = 0; c < leaf_chunks.size(); ++c) {
            llvm::Function* section = next_section(".section" + std::to_string(sections + c));
            llvm::IRBuilder<> b(start_function(section, section->getArg(2)));
            configure(b);
            store_outputs(b, outputs, leaf_chunks[c]);
            b.CreateRetVoid();
        }
        kb.CreateRetVoid();
        slot_.clear();
    }

    void describe_function(llvm::Function* f, Kernel k, std::size_t outputs,
                           std::size_t scratch_slots) {
        using llvm::Attribute;
        if (k == Kernel::force_dq || k == Kernel::force_dv) {
            f->addFnAttr(jacobian_attribute);
        }
        f->addFnAttr(Attribute::NoUnwind);
        f->addFnAttr(Attribute::WillReturn);
        f->addFnAttr(Attribute::NoSync);
        f->addFnAttr(Attribute::NoFree);
        // args: read-only, never retained; out: written only, disjoint from everything else
        // (kernel_abi.h: a kernel writes out[] and reads args).
        for (auto a :
             {Attribute::NoAlias, Attribute::NoCapture, Attribute::ReadOnly, Attribute::NonNull}) {
            f->addParamAttr(0, a);
        }
        f->addParamAttr(0,
                        Attribute::getWithDereferenceableBytes(context_, sizeof(mdl_kernel_args)));
        f->addParamAttr(0, Attribute::getWithAlignment(context_, llvm::Align(8)));
        for (auto a : {Attribute::NoAlias, Attribute::NoCapture, Attribute::WriteOnly}) {
            f->addParamAttr(1, a);
        }
        if (outputs > 0) { // a sparse pattern of no entries: out may be anything
            f->addParamAttr(1, Attribute::NonNull);
            f->addParamAttr(1, Attribute::getWithDereferenceableBytes(context_, outputs * 8));
        }
        f->addParamAttr(1, Attribute::getWithAlignment(context_, llvm::Align(8)));
        f->getArg(0)->setName("args");
        f->getArg(1)->setName("out");
        if (scratch_slots > 0) {
            for (auto a : {Attribute::NoAlias, Attribute::NoCapture, Attribute::NonNull}) {
                f->addParamAttr(2, a);
            }
            f->addParamAttr(2, Attribute::getWithDereferenceableBytes(context_, scratch_slots * 8));
            f->addParamAttr(2, Attribute::getWithAlignment(context_, llvm::Align(8)));
            f->getArg(2)->setName("scratch");
        }
    }

    // Resets the per-function state and returns the function's entry block.
    llvm::BasicBlock* start_function(llvm::Function* f, llvm::Value* scratch) {
        args_ = f->getArg(0);
        out_ = f->getArg(1);
        scratch_ = scratch;
        fields_.fill(nullptr);
        for (ExprId id : touched_) {
            values_[id.index] = nullptr;
        }
        touched_.clear();
        reciprocals_.clear();
        return llvm::BasicBlock::Create(context_, "entry", f);
    }

    void configure(llvm::IRBuilder<>& b) const {
        if (options_.fast_math) {
            b.setFastMathFlags(fast_math_);
        }
    }

    void remember(ExprId id, llvm::Value* v) {
        values_[id.index] = v;
        touched_.push_back(id);
    }

    llvm::Value* scratch_slot(llvm::IRBuilder<>& b, std::int32_t slot) {
        return b.CreateConstInBoundsGEP1_64(double_, scratch_, static_cast<std::uint64_t>(slot));
    }

    bool is_positive_zero(ExprId id) const {
        return pool_.op(id) == Op::constant && pool_.constant_value(id) == 0.0 &&
               !std::signbit(pool_.constant_value(id));
    }

    // Stores the outputs at `indices` (ascending positions). A run of consecutive +0.0 outputs (the
    // structural zeros of a Jacobian, a velocity Jacobian without dampers) is one memset instead of
    // a store each: fewer instructions for the vectorizer and the instruction selector, whose time
    // grows faster than linearly with the stores in a block, and no different result
    // (+0.0 is all zero bits).
    void store_outputs(llvm::IRBuilder<>& b, const std::vector<ExprId>& outputs,
                       const std::vector<std::uint32_t>& indices) {
        constexpr std::size_t min_run = 4;
        for (std::size_t k = 0; k < indices.size();) {
            const std::size_t i = indices[k];
            std::size_t end = k;
            while (end < indices.size() && indices[end] == i + (end - k) &&
                   is_positive_zero(outputs[indices[end]])) {
                ++end;
            }
            if (end - k >= min_run) {
                b.CreateMemSet(b.CreateConstInBoundsGEP1_64(double_, out_, i), b.getInt8(0),
                               (end - k) * sizeof(double), llvm::Align(8));
                k = end;
                continue;
            }
            store_output(b, i, outputs[i]);
            ++k;
        }
    }

    void store_output(llvm::IRBuilder<>& b, std::size_t i, ExprId id) {
        llvm::Value* slot = b.CreateConstInBoundsGEP1_64(double_, out_, i);
        b.CreateAlignedStore(value(b, id), slot, llvm::Align(8));
    }

    // A node's value in the current function: computed here already, or a leaf (loaded or a
    // constant), or computed by an earlier section and read back from scratch.
    llvm::Value* value(llvm::IRBuilder<>& b, ExprId id) {
        if (llvm::Value* known = values_[id.index]) {
            return known;
        }
        llvm::Value* v = nullptr;
        switch (pool_.op(id)) {
        case Op::constant:
            v = constant(pool_.constant_value(id));
            break;
        case Op::variable:
            v = emit_variable(b, id);
            break;
        default:
            if (scratch_ == nullptr || id.index >= slot_.size() || slot_[id.index] < 0) {
                throw CodegenError("internal error: a kernel value is used before it is computed");
            }
            v = b.CreateAlignedLoad(double_, scratch_slot(b, slot_[id.index]), llvm::Align(8));
            break;
        }
        remember(id, v);
        return v;
    }

    // A field of *args, loaded once per function.
    llvm::Value* field(llvm::IRBuilder<>& b, unsigned k) {
        if (fields_[k] == nullptr) {
            static constexpr std::array<const char*, 6> names{"t",     "q.ptr",     "v.ptr",
                                                              "x.ptr", "theta.ptr", "p.ptr"};
            llvm::Value* address = b.CreateStructGEP(args_type_, args_, k);
            llvm::Type* type = k == field_t ? double_ : ptr_;
            fields_[k] = b.CreateAlignedLoad(type, address, llvm::Align(8), names[k]);
        }
        return fields_[k];
    }

    llvm::Value* emit_variable(llvm::IRBuilder<>& b, ExprId id) {
        const symbolic::Variable var = pool_.variable_of(id);
        const unsigned k = field_of(var.kind);
        if (k == field_t) {
            return field(b, k);
        }
        llvm::Value* element = b.CreateConstInBoundsGEP1_64(double_, field(b, k), var.index);
        const std::string name = options_.keep_ir ? system_.names.name(var) : std::string();
        return b.CreateAlignedLoad(double_, element, llvm::Align(8), name);
    }

    llvm::Value* constant(double v) const { return llvm::ConstantFP::get(double_, v); }

    // 1/b, computed once per function (numeric.hpp: denominators are powers of reciprocals).
    llvm::Value* reciprocal(llvm::IRBuilder<>& b, ExprId base) {
        auto [it, inserted] = reciprocals_.try_emplace(base.index, nullptr);
        if (inserted) {
            it->second = b.CreateFDiv(constant(1.0), value(b, base));
        }
        return it->second;
    }

    llvm::Value* integer_power(llvm::IRBuilder<>& b, llvm::Value* base, std::uint32_t n) {
        return symbolic::power_by_squaring(
            base, n, [&](llvm::Value* x, llvm::Value* y) { return b.CreateFMul(x, y); });
    }

    llvm::Value* call_libm(llvm::IRBuilder<>& b, const char* name,
                           std::initializer_list<llvm::Value*> args) {
        std::vector<llvm::Type*> params(args.size(), double_);
        llvm::FunctionCallee callee =
            module_.getOrInsertFunction(name, llvm::FunctionType::get(double_, params, false));
        if (auto* fn = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
            // Pure for our purposes: mdl never reads errno, so calls may be reused and moved.
            fn->setDoesNotAccessMemory();
            fn->setDoesNotThrow();
            fn->setWillReturn();
        }
        llvm::CallInst* call = b.CreateCall(callee, args);
        call->setDoesNotAccessMemory();
        call->setDoesNotThrow();
        return call;
    }

    // One non-leaf node, from its operands' values (numeric.hpp's operations and order).
    llvm::Value* emit_node(llvm::IRBuilder<>& b, ExprId id) {
        const Node& n = pool_.node(id);
        const auto kids = pool_.children(id);
        switch (n.op) {
        case Op::constant:
        case Op::variable:
            return value(b, id);
        case Op::add: {
            llvm::Value* sum = value(b, kids[0]);
            for (std::size_t i = 1; i < kids.size(); ++i) {
                sum = b.CreateFAdd(sum, value(b, kids[i]));
            }
            return sum;
        }
        case Op::mul: {
            // numeric.hpp: numerator left to right (with the shared reciprocals' powers in
            // their places), then one division by the denominator.
            llvm::Value* numerator = nullptr;
            llvm::Value* denominator = nullptr;
            for (ExprId k : kids) {
                if (symbolic::is_denominator_factor(pool_, k)) {
                    const ExprId base = pool_.children(k)[0];
                    const std::uint32_t n_unrolled =
                        *symbolic::unrolled_exponent(pool_.constant_value(pool_.children(k)[1]));
                    if (shared_[base.index] != 0) {
                        llvm::Value* power = integer_power(b, reciprocal(b, base), n_unrolled);
                        numerator = numerator ? b.CreateFMul(numerator, power) : power;
                        continue;
                    }
                    llvm::Value* power = integer_power(b, value(b, base), n_unrolled);
                    denominator = denominator ? b.CreateFMul(denominator, power) : power;
                } else {
                    numerator = numerator ? b.CreateFMul(numerator, value(b, k)) : value(b, k);
                }
            }
            if (denominator == nullptr) {
                return numerator;
            }
            return b.CreateFDiv(numerator ? numerator : constant(1.0), denominator);
        }
        case Op::pow: {
            const ExprId exponent = kids[1];
            if (pool_.is_constant(exponent)) {
                const double e = pool_.constant_value(exponent);
                if (const auto unrolled = symbolic::unrolled_exponent(e)) {
                    if (e < 0.0 && shared_[kids[0].index] != 0) {
                        return integer_power(b, reciprocal(b, kids[0]), *unrolled);
                    }
                    llvm::Value* power = integer_power(b, value(b, kids[0]), *unrolled);
                    return e < 0.0 ? b.CreateFDiv(constant(1.0), power) : power;
                }
            }
            return b.CreateBinaryIntrinsic(llvm::Intrinsic::pow, value(b, kids[0]),
                                           value(b, exponent));
        }
        case Op::call: {
            const auto f = static_cast<Func>(n.tag);
            llvm::Value* x = value(b, kids[0]);
            switch (f) {
            case Func::sin:
                return b.CreateUnaryIntrinsic(llvm::Intrinsic::sin, x);
            case Func::cos:
                return b.CreateUnaryIntrinsic(llvm::Intrinsic::cos, x);
            case Func::exp:
                return b.CreateUnaryIntrinsic(llvm::Intrinsic::exp, x);
            case Func::log:
                return b.CreateUnaryIntrinsic(llvm::Intrinsic::log, x);
            case Func::sqrt:
                return b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x);
            case Func::abs:
                return b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
            case Func::pow:
                return b.CreateBinaryIntrinsic(llvm::Intrinsic::pow, x, value(b, kids[1]));
            case Func::sign: {
                // numeric.hpp sign_of: x > 0 ? 1 : (x < 0 ? -1 : x)
                llvm::Value* zero = constant(0.0);
                llvm::Value* inner = b.CreateSelect(b.CreateFCmpOLT(x, zero), constant(-1.0), x);
                return b.CreateSelect(b.CreateFCmpOGT(x, zero), constant(1.0), inner);
            }
            case Func::atan2:
                return call_libm(b, "atan2", {x, value(b, kids[1])});
            default:
                return call_libm(b, libm_name(f), {x});
            }
        }
        case Op::compare: {
            // check::compare (check/comparison.hpp): ordered predicates are false for a NaN
            // operand, `une` (unordered or not equal) makes NaN <> x true, as C's != has it.
            llvm::Value* x = value(b, kids[0]);
            llvm::Value* y = value(b, kids[1]);
            llvm::Value* holds = nullptr;
            switch (pool_.comparison_of(id)) {
            case symbolic::Comparison::lt:
                holds = b.CreateFCmpOLT(x, y);
                break;
            case symbolic::Comparison::le:
                holds = b.CreateFCmpOLE(x, y);
                break;
            case symbolic::Comparison::gt:
                holds = b.CreateFCmpOGT(x, y);
                break;
            case symbolic::Comparison::ge:
                holds = b.CreateFCmpOGE(x, y);
                break;
            case symbolic::Comparison::eq:
                holds = b.CreateFCmpOEQ(x, y);
                break;
            case symbolic::Comparison::ne:
                holds = b.CreateFCmpUNE(x, y);
                break;
            }
            return b.CreateUIToFP(holds, double_);
        }
        case Op::select: {
            // Both branches are computed before the select picks one: kernels are pure, so
            // this is only a matter of cost, but an untaken branch may be undefined where it
            // is not taken (sqrt of a negative number, 1/0): its NaN or infinity is computed
            // and discarded, never raised or propagated. (A branch-free kernel also keeps
            // SLP vectorization and the sectioning above simple.) NaN as a condition counts
            // as != 0, like numeric.hpp select_value.
            llvm::Value* condition = b.CreateFCmpUNE(value(b, kids[0]), constant(0.0));
            return b.CreateSelect(condition, value(b, kids[1]), value(b, kids[2]));
        }
        }
        throw CodegenError("unknown expression node");
    }

    const symbolic::System& system_;
    const symbolic::ExprPool& pool_;
    llvm::Module& module_;
    llvm::LLVMContext& context_;
    const CodegenOptions& options_;
    llvm::Type* double_;
    llvm::PointerType* ptr_;
    llvm::StructType* args_type_ = nullptr;
    llvm::FunctionType* kernel_type_ = nullptr;
    llvm::FunctionType* section_type_ = nullptr;
    llvm::FastMathFlags fast_math_;

    // Per function being emitted:
    llvm::Value* args_ = nullptr;
    llvm::Value* out_ = nullptr;
    llvm::Value* scratch_ = nullptr;
    std::array<llvm::Value*, 6> fields_{};
    std::vector<llvm::Value*> values_; // by node id, for the current function
    std::unordered_map<std::uint32_t, llvm::Value*> reciprocals_; // 1/b by node id of b
    std::vector<std::uint8_t> shared_; // numeric.hpp's shared reciprocals of the current kernel
    std::vector<ExprId> touched_;      // the ids set in values_, to reset them cheaply
    // Per sectioned kernel: the scratch slot of each node read by a later section, or -1.
    std::vector<std::int32_t> slot_;
};

} // namespace

std::string kernel_symbol(Kernel k) {
    return "mdl_" + std::string(symbolic::kernel_name(k));
}

std::string values_symbol(Kernel k) {
    return kernel_symbol(k) + "_values";
}

std::unique_ptr<llvm::Module> emit_kernels(const symbolic::System& system,
                                           llvm::LLVMContext& context,
                                           const llvm::DataLayout& layout,
                                           const llvm::Triple& triple,
                                           const CodegenOptions& options) {
    auto module = std::make_unique<llvm::Module>("mdl_kernels", context);
    module->setDataLayout(layout);
    module->setTargetTriple(triple.str());
    KernelEmitter emitter(system, *module, layout, options);
    for (Kernel k : symbolic::all_kernels) {
        if (system.has_kernel(k)) {
            emitter.emit(k);
        }
    }
    std::string problems;
    llvm::raw_string_ostream stream(problems);
    if (llvm::verifyModule(*module, &stream)) {
        throw CodegenError("internal error: the generated LLVM IR is invalid: " + problems);
    }
    return module;
}

} // namespace mdl::codegen
