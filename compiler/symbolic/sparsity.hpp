// The structural nonzeros of a sparse matrix (a Jacobian, a mass matrix), known at compile
// time: the kernels compute only their values (kernel_abi.h, mdl_sparsity).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mdl::symbolic {

// The structural nonzeros of a matrix in compressed sparse rows: the entries of row i
// are row_start[i] .. row_start[i+1]-1, with their columns ascending in `column`. A
// matrix kernel's outputs are the values of these entries in the same order; every other
// entry is +0.0.
struct Sparsity {
    std::uint32_t rows = 0;
    std::uint32_t columns = 0;
    std::vector<std::uint32_t> row_start{0}; // rows + 1
    std::vector<std::uint32_t> column;       // one per entry

    std::size_t nonzeros() const { return column.size(); }
    // Every entry, row by row.
    static Sparsity dense(std::uint32_t rows, std::uint32_t columns) {
        Sparsity s;
        s.rows = rows;
        s.columns = columns;
        s.row_start.resize(static_cast<std::size_t>(rows) + 1);
        s.column.reserve(static_cast<std::size_t>(rows) * columns);
        for (std::uint32_t i = 0; i <= rows; ++i) {
            s.row_start[i] = i * columns;
        }
        for (std::uint32_t i = 0; i < rows; ++i) {
            for (std::uint32_t j = 0; j < columns; ++j) {
                s.column.push_back(j);
            }
        }
        return s;
    }
    bool operator==(const Sparsity&) const = default;
};

} // namespace mdl::symbolic
