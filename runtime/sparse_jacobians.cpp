#include "runtime/sparse_jacobians.hpp"

#include <algorithm>
#include <stdexcept>

#if MDL_HAVE_KLU
#include <klu.h>
#else
#include <Eigen/SparseLU>
#endif

namespace mdl::runtime {

bool has_sparse_force_jacobians(const Model& model) {
    const mdl_kernels& k = model.kernels();
    return model.has_force_jacobians() && k.force_dq_values != nullptr &&
           k.force_dv_values != nullptr &&
           k.force_dq_pattern.rows == static_cast<unsigned>(model.positions()) &&
           k.force_dv_pattern.rows == static_cast<unsigned>(model.positions());
}

bool use_sparse_linear_algebra(const Model& model, LinearAlgebra choice) {
    if (choice == LinearAlgebra::dense || !has_sparse_force_jacobians(model) ||
        model.constrained() || !model.mass_constant_diagonal()) {
        return false;
    }
    return choice == LinearAlgebra::sparse || model.positions() >= sparse_threshold;
}

PatternEntries pattern_entries(const mdl_sparsity& pattern) {
    PatternEntries entries;
    entries.row.reserve(pattern.nonzeros);
    entries.column.reserve(pattern.nonzeros);
    for (unsigned i = 0; i < pattern.rows; ++i) {
        for (unsigned e = pattern.row_start[i]; e < pattern.row_start[i + 1]; ++e) {
            entries.row.push_back(static_cast<int>(i));
            entries.column.push_back(static_cast<int>(pattern.column[e]));
        }
    }
    return entries;
}

FixedPatternMatrix::FixedPatternMatrix(Eigen::Index size) : size_(size), matrix_(size, size) {}

std::size_t FixedPatternMatrix::add_source(const PatternEntries& entries) {
    sources_.push_back(entries);
    return sources_.size() - 1;
}

std::size_t FixedPatternMatrix::add_diagonal(Eigen::Index count) {
    PatternEntries diagonal;
    for (Eigen::Index i = 0; i < count; ++i) {
        diagonal.row.push_back(static_cast<int>(i));
        diagonal.column.push_back(static_cast<int>(i));
    }
    return add_source(diagonal);
}

void FixedPatternMatrix::build() {
    std::vector<Eigen::Triplet<double, int>> triplets;
    for (const PatternEntries& s : sources_) {
        for (std::size_t e = 0; e < s.row.size(); ++e) {
            triplets.emplace_back(s.row[e], s.column[e], 0.0);
        }
    }
    matrix_.resize(size_, size_);
    matrix_.setFromTriplets(triplets.begin(), triplets.end()); // duplicates merge
    matrix_.makeCompressed();
    const int* outer = matrix_.outerIndexPtr();
    const int* inner = matrix_.innerIndexPtr();
    slots_.assign(sources_.size(), {});
    for (std::size_t s = 0; s < sources_.size(); ++s) {
        const PatternEntries& source = sources_[s];
        std::vector<int>& slots = slots_[s];
        slots.resize(source.row.size());
        for (std::size_t e = 0; e < source.row.size(); ++e) {
            const int column = source.column[e];
            const int* begin = inner + outer[column];
            const int* end = inner + outer[column + 1];
            const int* at = std::lower_bound(begin, end, source.row[e]);
            if (at == end || *at != source.row[e]) {
                throw std::logic_error("FixedPatternMatrix: an entry is missing from the pattern");
            }
            slots[e] = static_cast<int>(at - inner);
        }
    }
    sources_.clear();
    sources_.shrink_to_fit();
}

void FixedPatternMatrix::set_zero() {
    std::fill(matrix_.valuePtr(), matrix_.valuePtr() + matrix_.nonZeros(), 0.0);
}

#if MDL_HAVE_KLU

struct SparseLuSolver::Impl {
    klu_common common{};
    klu_symbolic* symbolic = nullptr;
    klu_numeric* numeric = nullptr;
    double pivoted_rcond = 0.0; // klu_rcond of the last factorization that chose its pivots
    Impl() { klu_defaults(&common); }
    Impl(const Impl&) = delete;
    Impl& operator=(const Impl&) = delete;
    ~Impl() { release(); }
    void release() {
        if (numeric != nullptr) {
            klu_free_numeric(&numeric, &common);
        }
        if (symbolic != nullptr) {
            klu_free_symbolic(&symbolic, &common);
        }
    }
};

const char* SparseLuSolver::backend() {
    return "klu";
}

void SparseLuSolver::analyze(const SparseMatrix& a) {
    impl_->release();
    // KLU reads the columns of a compressed column matrix: Eigen's column-major storage
    auto& m = const_cast<SparseMatrix&>(a);
    impl_->symbolic = klu_analyze(static_cast<int>(a.rows()), m.outerIndexPtr(), m.innerIndexPtr(),
                                  &impl_->common);
    if (impl_->symbolic == nullptr) {
        throw std::bad_alloc();
    }
}

// The pivots of the last pivoting factorization are reused (klu_refactor: no pivot search,
// the kernel's largest cost) while they stay good: when the refactored matrix's reciprocal
// condition estimate falls below 1e-3 times the pivoting factorization's, or the refactor
// fails, the matrix is factorized again with partial pivoting.
bool SparseLuSolver::factorize(const SparseMatrix& a) {
    auto& m = const_cast<SparseMatrix&>(a);
    Impl& k = *impl_;
    if (k.numeric != nullptr) {
        if (klu_refactor(m.outerIndexPtr(), m.innerIndexPtr(), m.valuePtr(), k.symbolic, k.numeric,
                         &k.common) != 0 &&
            k.common.status == KLU_OK && klu_rcond(k.symbolic, k.numeric, &k.common) != 0 &&
            k.common.rcond >= 1e-3 * k.pivoted_rcond) {
            return true;
        }
        klu_free_numeric(&k.numeric, &k.common);
    }
    k.numeric =
        klu_factor(m.outerIndexPtr(), m.innerIndexPtr(), m.valuePtr(), k.symbolic, &k.common);
    if (k.numeric == nullptr || k.common.status != KLU_OK) {
        return false;
    }
    k.pivoted_rcond = klu_rcond(k.symbolic, k.numeric, &k.common) != 0 ? k.common.rcond : 0.0;
    return true;
}

bool SparseLuSolver::solve(const Vector& b, Vector& x) {
    x = b;
    const int ok = klu_solve(impl_->symbolic, impl_->numeric, static_cast<int>(x.size()), 1,
                             x.data(), &impl_->common);
    return ok != 0 && x.allFinite();
}

#else

struct SparseLuSolver::Impl {
    Eigen::SparseLU<SparseMatrix, Eigen::COLAMDOrdering<int>> lu;
};

const char* SparseLuSolver::backend() {
    return "eigen-sparselu";
}

void SparseLuSolver::analyze(const SparseMatrix& a) {
    impl_->lu.analyzePattern(a);
}

bool SparseLuSolver::factorize(const SparseMatrix& a) {
    impl_->lu.factorize(a);
    return impl_->lu.info() == Eigen::Success;
}

bool SparseLuSolver::solve(const Vector& b, Vector& x) {
    x = impl_->lu.solve(b);
    return x.allFinite();
}

#endif

SparseLuSolver::SparseLuSolver() : impl_(std::make_unique<Impl>()) {}
SparseLuSolver::SparseLuSolver(SparseLuSolver&&) noexcept = default;
SparseLuSolver& SparseLuSolver::operator=(SparseLuSolver&&) noexcept = default;
SparseLuSolver::~SparseLuSolver() = default;

} // namespace mdl::runtime
