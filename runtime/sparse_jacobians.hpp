// The sparse structure of a model's Jacobians at run time (issue 19): the compiler exports
// each matrix kernel's structural nonzeros and a kernel writing only their values
// (kernel_abi.h, mdl_sparsity), and the implicit methods assemble their Newton matrices from
// them into a sparse matrix of fixed pattern, factorized by a sparse direct solver, instead
// of dense n x n matrices and a dense LU. Small models keep the dense path: below the size
// threshold a dense LU is faster than the sparse solver's bookkeeping.
#pragma once

#include "abi/kernel_abi.h"
#include "runtime/model.hpp"

#include <Eigen/SparseCore>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace mdl::runtime {

using SparseMatrix = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;

// Which linear algebra an implicit method uses for its Newton matrix.
enum class LinearAlgebra : std::uint8_t {
    automatic, // sparse from sparse_threshold positions on, when the model allows it
    dense,     // dense matrices and a dense LU, as for every model before issue 19
    sparse,    // sparse matrices and a sparse LU, when the model allows it (else dense)
};

// From this many positions on, `automatic` picks the sparse path. Measured with
// `mdl_bench --benchmark_filter='^implicit_step/'` on the chain of masses
// (docs/performance.md): with KLU a generalized-alpha step already costs 0.7x the dense one
// at 16 positions (the smallest chain measured) and 0.37x at 32; 24 leaves a margin for
// models whose Jacobians are denser than the chain's.
inline constexpr Eigen::Index sparse_threshold = 24;

// The model has the values kernels of df/dq and df/dv (every model compiled since issue 19
// with force Jacobians; a hand-built kernel table may lack them).
bool has_sparse_force_jacobians(const Model& model);

// Whether a method given `choice` uses the sparse path on `model`: it needs the values
// kernels, no constraints (the constraint projections are dense) and a constant diagonal
// mass matrix (M^-1 scales rows).
bool use_sparse_linear_algebra(const Model& model, LinearAlgebra choice);

// The pattern of a kernel as a list of (row, column) entries in the kernel's value order.
struct PatternEntries {
    std::vector<int> row;
    std::vector<int> column;
};
PatternEntries pattern_entries(const mdl_sparsity& pattern);

// A square sparse matrix whose pattern is the union of the patterns added to it, fixed once
// built: every source entry knows the place of its value in the matrix's value array, so
// refilling the matrix is a pass over the sources' values, and a sparse LU analyses the
// pattern once.
class FixedPatternMatrix {
public:
    FixedPatternMatrix() = default;
    // Starts a pattern of size x size.
    explicit FixedPatternMatrix(Eigen::Index size);
    // Adds entries (the pattern is built by build()); returns the source's index.
    std::size_t add_source(const PatternEntries& entries);
    // The diagonal as a source of its own.
    std::size_t add_diagonal(Eigen::Index count);
    void build();

    SparseMatrix& matrix() { return matrix_; }
    const SparseMatrix& matrix() const { return matrix_; }
    // Where source s's entry e lives in matrix().valuePtr().
    const std::vector<int>& slots(std::size_t source) const { return slots_[source]; }
    void set_zero();

private:
    Eigen::Index size_ = 0;
    std::vector<PatternEntries> sources_;
    std::vector<std::vector<int>> slots_;
    SparseMatrix matrix_;
};

// A sparse LU factorization of matrices of one pattern: SuiteSparse's KLU (Davis & Palamadai
// Natarajan, "Algorithm 907: KLU, a direct sparse solver for circuit simulation problems",
// ACM TOMS 37, 2010) where mdl is built with it (libsuitesparse-dev), else Eigen's SparseLU.
// KLU orders the matrix once (block triangular form, AMD) and factorizes each new set of
// values with partial pivoting; on the chain of masses it factorizes several times faster
// than SparseLU's supernodal code, whose overhead is made for denser factors.
class SparseLuSolver {
public:
    SparseLuSolver();
    SparseLuSolver(SparseLuSolver&&) noexcept;
    SparseLuSolver& operator=(SparseLuSolver&&) noexcept;
    ~SparseLuSolver();

    // The ordering for matrices of a's pattern (compressed).
    void analyze(const SparseMatrix& a);
    // The factors of a (analyze()'s pattern); false when a is singular.
    bool factorize(const SparseMatrix& a);
    // x = a^-1 b with the last factors; false when not finite.
    bool solve(const Vector& b, Vector& x);
    // "klu" or "eigen-sparselu"
    static const char* backend();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace mdl::runtime
