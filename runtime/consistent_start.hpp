// Consistent initialization of a constrained model: the start positions projected onto
// g(t0, q) = 0 and the start velocities onto G(q) v + g_t = 0 (g_t = 0 unless the constraints
// depend on time), each with the smallest change in the
// mass-weighted norm |dq|_M, keeping the start values marked `fixed = true`.
//
// Positions: minimize 1/2 (q - q0)^T W (q - q0) subject to g(q) = 0 over the free positions
// (W the diagonal of M at the start), by Newton's method on the optimality conditions with
// the constraints linearized at each iterate (the Gauss-Newton form of SQP):
//     q+ = q0 + W^-1 G^T y,   (G W^-1 G^T) y = G (q - q0) - g(q)
// whose fixed point satisfies W (q - q0) = G^T y and g(q) = 0, the conditions of the minimum.
// Velocities: v+ = v - W^-1 G^T (G W^-1 G^T)^-1 G v, the M-orthogonal projection.
// Both need G restricted to the free positions to have full row rank; when it does not, the
// constraints that depend on the others (structurally redundant at the start) are named.
#pragma once

#include "runtime/model.hpp"
#include "runtime/state.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace mdl::runtime {

// One start value that initialization changed.
struct StartChange {
    std::string name; // position or velocity name ("b.y", "der(q)", "r.vphi")
    double from = 0;
    double to = 0;
};

struct ConsistentStart {
    std::vector<StartChange> changes; // in the order of the positions, then the velocities
    int newton_iterations = 0;        // 0: the positions already satisfied g(q) = 0
    double residual = 0;              // max |g(q)| after projection
    // "consistent start: changed 'b.y' from 0.5 to 0.4987 (by -0.0013)", one line per change
    std::vector<std::string> lines() const;
};

// The start values cannot be made consistent: the constraints that cannot be met with the
// fixed values kept (with their residuals), or the ones that are redundant at the start
// (G of the free positions rank deficient). Indices are into the model's constraints.
class InconsistentStart : public std::runtime_error {
public:
    InconsistentStart(std::string message, std::vector<int> unmet, std::vector<int> redundant);
    const std::vector<int>& unmet() const { return unmet_; }
    const std::vector<int>& redundant() const { return redundant_; }

private:
    std::vector<int> unmet_;
    std::vector<int> redundant_;
};

struct ConsistentStartOptions {
    // g is met when max |g_i| <= tolerance * (1 + max |q_i|), likewise G v with |v|.
    double tolerance = 1e-10;
    int max_iterations = 50;
};

// Projects state.q and state.v (at state.t) in place; `fixed` has one flag per position (or is
// empty: nothing fixed). A model without constraints is left alone. Throws InconsistentStart.
ConsistentStart make_start_consistent(const Model& model, State& state,
                                      const std::vector<bool>& fixed,
                                      const ConsistentStartOptions& options = {});

} // namespace mdl::runtime
