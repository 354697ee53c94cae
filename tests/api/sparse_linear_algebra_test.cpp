// Sparse Jacobian kernels and the sparse Newton matrices of generalized-alpha and Newmark
// (runtime/sparse_jacobians.hpp, issue 19) on the hanging chain of 40 masses (80 positions,
// above the size from which the sparse path is chosen): the sparse and the dense path give
// the same trajectories to 1e-12 with either Newton iteration (modified or Newton's), the two
// iterations agree to their tolerance, the kernels' patterns are the chain's structure, and
// the sparse LU solves like a dense one.
#include "mdl/compiled_model.hpp"
#include "runtime/integrators/cvode.hpp"
#include "runtime/integrators/generalized_alpha.hpp"
#include "runtime/integrators/newmark.hpp"
#include "runtime/sparse_jacobians.hpp"
#include "shipped_model.hpp"

#include <Eigen/LU>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

using namespace mdl;

namespace {

test::ShippedModel chain(int masses) {
    CompileOptions options;
    options.structural_parameters = {{"n", masses}};
    return test::ShippedModel("hanging_chain.mdl", options);
}

// The start state, displaced so that the springs stretch unevenly and the wall at x = 5 is
// reached by the last masses (a one-sided, nonlinear force): Newton iterates.
runtime::State displaced_start(const test::LoadedModel& m) {
    runtime::State s = m.start();
    for (Eigen::Index i = 0; i < s.q.size(); ++i) {
        s.q[i] += 0.02 * std::sin(1.7 * static_cast<double>(i)) +
                  (i % 2 == 0 ? 0.06 * static_cast<double>(i) : 0.0);
        s.v[i] = 0.3 * std::cos(0.9 * static_cast<double>(i));
    }
    return s;
}

double max_difference(const runtime::Vector& a, const runtime::Vector& b) {
    return (a - b).cwiseAbs().maxCoeff();
}

template <class Stepper>
runtime::State integrate(Stepper& stepper, runtime::State s, int steps, double h) {
    for (int i = 0; i < steps; ++i) {
        stepper.step(s, h);
    }
    return s;
}

} // namespace

TEST_CASE("the chain's Jacobian kernels are sparse and agree with the dense ones") {
    const test::ShippedModel m = chain(40);
    const mdl_kernels& k = m.model.kernels();
    const unsigned n = k.n_positions;
    REQUIRE(n == 80);
    REQUIRE(k.force_dq_values != nullptr);
    REQUIRE(k.force_dv_values != nullptr);
    REQUIRE(k.mass_matrix_values != nullptr);
    // Mass i is pulled by the springs to masses i - 1 and i + 1 in x and y: df/dq has at most
    // 6 entries per row (the wall adds none: it acts on x_i alone); no dampers: df/dv none;
    // M = diag(m).
    CHECK(k.force_dq_pattern.rows == n);
    CHECK(k.force_dq_pattern.nonzeros <= 6 * n);
    CHECK(k.force_dq_pattern.nonzeros >= 4 * n);
    CHECK(k.force_dv_pattern.nonzeros == 0);
    CHECK(k.mass_matrix_pattern.nonzeros == n);
    for (unsigned i = 0; i < n; ++i) {
        for (unsigned e = k.force_dq_pattern.row_start[i]; e < k.force_dq_pattern.row_start[i + 1];
             ++e) {
            const unsigned j = k.force_dq_pattern.column[e];
            CHECK((j / 2 + 1 >= i / 2 && j / 2 <= i / 2 + 1)); // the same or a neighbour mass
        }
    }

    // The dense kernel is the values spread over the pattern, zeros elsewhere, bit for bit.
    const runtime::State s = displaced_start(m);
    const std::vector<double>& p = m.model.parameters();
    const mdl_kernel_args args{0.0, s.q.data(), s.v.data(), nullptr, nullptr, p.data()};
    std::vector<double> dense(static_cast<std::size_t>(n) * n, 1.0);
    std::vector<double> values(k.force_dq_pattern.nonzeros, 1.0);
    k.force_dq(&args, dense.data());
    k.force_dq_values(&args, values.data());
    std::vector<double> spread(dense.size(), 0.0);
    for (unsigned i = 0; i < n; ++i) {
        for (unsigned e = k.force_dq_pattern.row_start[i]; e < k.force_dq_pattern.row_start[i + 1];
             ++e) {
            spread[std::size_t{i} * n + k.force_dq_pattern.column[e]] = values[e];
        }
    }
    CHECK(dense == spread);
    // and the Jacobian is the force's: central differences of f along q_0 (a spring of
    // k = 1e4 over 0.1 m: entries of ~1e4 to 1e5)
    std::vector<double> f_plus(n), f_minus(n);
    runtime::Vector q = s.q;
    const double step = 1e-6;
    q[0] = s.q[0] + step;
    const mdl_kernel_args plus{0.0, q.data(), s.v.data(), nullptr, nullptr, p.data()};
    k.force(&plus, f_plus.data());
    runtime::Vector q_minus = s.q;
    q_minus[0] = s.q[0] - step;
    const mdl_kernel_args minus{0.0, q_minus.data(), s.v.data(), nullptr, nullptr, p.data()};
    k.force(&minus, f_minus.data());
    for (unsigned i = 0; i < n; ++i) {
        const double difference = (f_plus[i] - f_minus[i]) / (2 * step);
        CHECK(dense[std::size_t{i} * n] == Approx(difference).epsilon(1e-6).margin(1e-3));
    }
}

TEST_CASE("generalized-alpha and Newmark: sparse and dense Newton matrices, same trajectory") {
    const test::ShippedModel m = chain(40);
    REQUIRE(m.model.positions() >= runtime::sparse_threshold);
    REQUIRE(runtime::has_sparse_force_jacobians(m.model));
    const runtime::State start = displaced_start(m);
    runtime::ImplicitOptions dense_options;
    dense_options.linear_algebra = runtime::LinearAlgebra::dense;
    runtime::ImplicitOptions sparse_options;
    sparse_options.linear_algebra = runtime::LinearAlgebra::sparse;
    const int steps = 200;
    const double h = 2e-4;

    // Both Newton policies: modified Newton (the default: the matrix held over iterations
    // and steps, refreshed when convergence slows) and Newton's method (a new matrix at every
    // iterate); each takes the same decisions on both paths.
    const bool reuse = GENERATE(true, false);
    dense_options.jacobian_reuse = reuse;
    sparse_options.jacobian_reuse = reuse;
    INFO("jacobian_reuse " << reuse);
    SECTION("generalized-alpha, rho_inf = 0.7") {
        runtime::GeneralizedAlpha<> dense(m.model, 0.7, dense_options);
        runtime::GeneralizedAlpha<> sparse(m.model, 0.7, sparse_options);
        runtime::GeneralizedAlpha<> automatic(m.model, 0.7);
        CHECK_FALSE(dense.sparse());
        CHECK(sparse.sparse());
        CHECK(automatic.sparse()); // 80 positions: above the threshold
        const runtime::State a = integrate(dense, start, steps, h);
        const runtime::State b = integrate(sparse, start, steps, h);
        CHECK(sparse.newton_iterations() > 0);
        CHECK(dense.jacobian_evaluations() == sparse.jacobian_evaluations());
        if (reuse) { // held over steps: fewer matrices than steps
            CHECK(sparse.jacobian_evaluations() < static_cast<std::size_t>(steps));
        }
        CHECK(a.t == b.t);
        INFO("q: " << max_difference(a.q, b.q) << ", v: " << max_difference(a.v, b.v));
        // moved: the trajectory is not the start state
        CHECK(max_difference(a.q, start.q) > 1e-3);
        CHECK(max_difference(a.q, b.q) <= 1e-12 * a.q.cwiseAbs().maxCoeff());
        CHECK(max_difference(a.v, b.v) <= 1e-12 * a.v.cwiseAbs().maxCoeff());
    }
    SECTION("Newmark (average acceleration)") {
        runtime::Newmark<> dense(m.model, dense_options);
        runtime::Newmark<> sparse(m.model, sparse_options);
        const runtime::State a = integrate(dense, start, steps, h);
        const runtime::State b = integrate(sparse, start, steps, h);
        INFO("q: " << max_difference(a.q, b.q) << ", v: " << max_difference(a.v, b.v));
        CHECK(max_difference(a.q, start.q) > 1e-3);
        CHECK(max_difference(a.q, b.q) <= 1e-12 * a.q.cwiseAbs().maxCoeff());
        CHECK(max_difference(a.v, b.v) <= 1e-12 * a.v.cwiseAbs().maxCoeff());
    }
}

TEST_CASE("generalized-alpha on the chain: modified Newton converges to Newton's trajectory") {
    // Both iterations stop at the same residual tolerance (1e-10 relative to the
    // accelerations), so the trajectories differ by about that much, not by the 1e-3 a
    // matrix of the wrong state would leave in an unconverged solve.
    const test::ShippedModel m = chain(40);
    const runtime::State start = displaced_start(m);
    runtime::ImplicitOptions newton;
    newton.jacobian_reuse = false;
    runtime::GeneralizedAlpha<> full(m.model, 0.7, newton);
    runtime::GeneralizedAlpha<> modified(m.model, 0.7);
    CHECK(modified.jacobian_reuse());
    const runtime::State a = integrate(full, start, 200, 2e-4);
    const runtime::State b = integrate(modified, start, 200, 2e-4);
    INFO("q: " << max_difference(a.q, b.q) << ", v: " << max_difference(a.v, b.v) << "; "
               << full.jacobian_evaluations() << " and " << modified.jacobian_evaluations()
               << " matrices");
    CHECK(max_difference(a.q, start.q) > 1e-3);
    CHECK(max_difference(a.q, b.q) <= 1e-9 * a.q.cwiseAbs().maxCoeff());
    CHECK(max_difference(a.v, b.v) <= 1e-9 * a.v.cwiseAbs().maxCoeff());
    CHECK(modified.jacobian_evaluations() * 4 < full.jacobian_evaluations());
}

TEST_CASE("small models keep the dense path unless asked") {
    const test::ShippedModel m = chain(4); // 8 positions
    runtime::GeneralizedAlpha<> automatic(m.model, 0.7);
    CHECK_FALSE(automatic.sparse());
    runtime::ImplicitOptions options;
    options.linear_algebra = runtime::LinearAlgebra::sparse;
    runtime::GeneralizedAlpha<> forced(m.model, 0.7, options);
    CHECK(forced.sparse());
}

TEST_CASE("cvode-bdf: the sparse Jacobian with KLU and the dense one give the same trajectory") {
    if (!runtime::cvode_available()) {
        WARN("built without SUNDIALS: no cvode-bdf");
        return;
    }
    const test::ShippedModel m = chain(40);
    // gently displaced: an adaptive method's step sequence must not hinge on round-off
    runtime::State start = m.start();
    for (Eigen::Index i = 0; i < start.q.size(); ++i) {
        start.q[i] += 0.01 * std::sin(1.7 * static_cast<double>(i));
    }
    runtime::CvodeOptions options;
    options.rtol = 1e-8;
    options.atol = 1e-10;
    const auto run = [&](runtime::LinearAlgebra algebra) {
        runtime::CvodeOptions o = options;
        o.linear_algebra = algebra;
        runtime::State s = start;
        const runtime::IntegrationStats stats = runtime::integrate_cvode(
            m.model, s, runtime::CvodeMethod::bdf, o, 0.005, 0.0, [](const runtime::State&) {});
        return std::pair{s, stats};
    };
    const auto [dense, dense_stats] = run(runtime::LinearAlgebra::dense);
    const auto [sparse, sparse_stats] = run(runtime::LinearAlgebra::sparse);
    INFO("q: " << max_difference(dense.q, sparse.q) << ", v: " << max_difference(dense.v, sparse.v)
               << "; |q| " << dense.q.cwiseAbs().maxCoeff() << ", |v| "
               << dense.v.cwiseAbs().maxCoeff() << "; steps " << dense_stats.steps << " and "
               << sparse_stats.steps);
    CHECK(dense.t == sparse.t);
    CHECK(max_difference(dense.q, start.q) > 1e-4);
    CHECK(dense_stats.steps == sparse_stats.steps);
    CHECK(max_difference(dense.q, sparse.q) <= 1e-12 * dense.q.cwiseAbs().maxCoeff());
    CHECK(max_difference(dense.v, sparse.v) <= 1e-12 * dense.v.cwiseAbs().maxCoeff());
}

TEST_CASE("the sparse LU solves like a dense LU, block triangular and badly scaled matrices too") {
    // Three diagonal blocks of 10 coupled one way (a reducible matrix: KLU's block triangular
    // form splits it), rows scaled over 6 decades (KLU's row scaling), rows and columns
    // shuffled; twice with new values on the same pattern (the refactorization path).
    const int n = 30;
    std::vector<Eigen::Triplet<double, int>> entries;
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            const bool diagonal_block = i / 10 == j / 10;
            const bool coupling = i / 10 < j / 10 && (i * 7 + j * 3) % 5 == 0;
            const bool inside = diagonal_block && (i == j || (i * 11 + j * 5) % 4 == 0);
            if (inside || coupling) {
                entries.emplace_back((i * 17) % n, (j * 7) % n, 0.0); // shuffled
            }
        }
    }
    runtime::SparseMatrix a(n, n);
    a.setFromTriplets(entries.begin(), entries.end());
    a.makeCompressed();
    runtime::SparseLuSolver lu;
    lu.analyze(a);
    for (int round = 0; round < 3; ++round) {
        for (int column = 0; column < n; ++column) {
            for (runtime::SparseMatrix::InnerIterator it(a, column); it; ++it) {
                it.valueRef() = std::sin(1.3 * static_cast<double>(it.row()) + 0.7 * column + round);
            }
        }
        // a strong diagonal in the shuffled places, and rows scaled by 10^(i mod 7)
        for (int k = 0; k < n; ++k) {
            a.coeffRef((k * 17) % n, (k * 7) % n) += 4.0 + round;
        }
        for (int column = 0; column < n; ++column) {
            for (runtime::SparseMatrix::InnerIterator it(a, column); it; ++it) {
                it.valueRef() *= std::pow(10.0, static_cast<double>(it.row() % 7));
            }
        }
        REQUIRE(lu.factorize(a));
        runtime::Vector b(n);
        for (int i = 0; i < n; ++i) {
            b[i] = std::cos(0.9 * i + round) * std::pow(10.0, i % 7);
        }
        runtime::Vector x;
        REQUIRE(lu.solve(b, x));
        const Eigen::MatrixXd dense = Eigen::MatrixXd(a);
        const runtime::Vector expected = dense.fullPivLu().solve(b);
        INFO("round " << round << ": " << max_difference(x, expected));
        CHECK(max_difference(x, expected) <= 1e-12 * expected.cwiseAbs().maxCoeff());
        CHECK((dense * x - b).cwiseAbs().maxCoeff() <= 1e-9 * b.cwiseAbs().maxCoeff());
    }
}
