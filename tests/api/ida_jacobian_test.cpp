// IDA's Newton matrix from the compiler's kernels (runtime/integrators/ida_residual.hpp,
// issue 19): it equals central differences of the residual at random states on shipped
// models with nonlinear constraints, springs, dampers and a wall; and IDA's trajectories with
// the kernels' matrix factorized dense or by KLU, and with IDA's own difference quotients,
// agree with an independent reference (DOPRI5 at rtol 1e-12 on the index-1 form) on a
// pendulum chain, and with each other.
#include "mdl/compiled_model.hpp"
#include "runtime/integrators/ida.hpp"
#include "runtime/integrators/ida_residual.hpp"
#include "runtime/run.hpp"
#include "shipped_model.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

using namespace mdl;

namespace {

test::ShippedModel shipped(const std::string& file, int links = 0) {
    CompileOptions options;
    if (links > 0) {
        options.structural_parameters = {{"n", links}};
    }
    return test::ShippedModel(file, options);
}

// max |J - J_dq| / max(1, max |J_dq|) with J_dq = dF/dy + cj dF/dy' by central differences
// of the residual, column by column, at y, y' around the model's start plus random offsets.
double newton_matrix_error(const runtime::Model& model, const runtime::State& start,
                           unsigned seed) {
    runtime::IdaResidual residual(model);
    const Eigen::Index N = residual.size(), n = model.positions(), m = model.constraints();
    std::mt19937 random(seed);
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    runtime::Vector y(N), yp(N);
    for (Eigen::Index i = 0; i < N; ++i) {
        y[i] = unit(random);
        yp[i] = unit(random);
    }
    y.head(n) = start.q + 0.05 * y.head(n);
    y.segment(2 * n, m) *= 5.0;      // lambda of the size of the rods' tensions
    y.segment(2 * n + m, m) *= 1e-3; // mu: small, as in IDA's Newton iterations
    const double t = 0.3, cj = 37.0;
    REQUIRE(residual.newton_matrix(t, y.data(), yp.data(), cj));
    const Eigen::MatrixXd J = residual.matrix();
    Eigen::MatrixXd dq(N, N);
    runtime::Vector plus(N), minus(N);
    for (Eigen::Index j = 0; j < N; ++j) {
        const double h = 1e-6 * std::max(1.0, std::abs(y[j]));
        runtime::Vector y1 = y, y2 = y;
        y1[j] += h;
        y2[j] -= h;
        residual.evaluate(t, y1.data(), yp.data(), plus.data());
        residual.evaluate(t, y2.data(), yp.data(), minus.data());
        dq.col(j) = (plus - minus) / (y1[j] - y2[j]);
        const double hp = 1e-6 * std::max(1.0, std::abs(yp[j]));
        y1 = yp;
        y2 = yp;
        y1[j] += hp;
        y2[j] -= hp;
        residual.evaluate(t, y.data(), y1.data(), plus.data());
        residual.evaluate(t, y.data(), y2.data(), minus.data());
        dq.col(j) += cj * (plus - minus) / (y1[j] - y2[j]);
    }
    return (J - dq).cwiseAbs().maxCoeff() / std::max(1.0, dq.cwiseAbs().maxCoeff());
}

runtime::State ida(const runtime::Model& model, runtime::State s, runtime::IdaOptions options,
                   double t_end) {
    runtime::integrate_ida(model, s, options, t_end, t_end - s.t, [](const runtime::State&) {});
    return s;
}

} // namespace

TEST_CASE("ida's Newton matrix from the kernels equals a difference quotient of its residual") {
    struct Case {
        std::string file;
        int links;
    };
    // nonlinear constraints of rigid bodies (four-bar), springs and rods (two pendulums),
    // a chain of distance constraints, springs with a one-sided wall (no constraints),
    // a damper (df/dv)
    for (const Case& c :
         {Case{"four_bar.mdl", 0}, Case{"two_pendulums.mdl", 0}, Case{"pendulum_chain.mdl", 6},
          Case{"hanging_chain.mdl", 5}, Case{"damped_oscillator.mdl", 0}}) {
        INFO(c.file);
        const test::ShippedModel m = shipped(c.file, c.links);
        REQUIRE(runtime::IdaResidual::has_newton_matrix(m.model));
        for (unsigned seed = 1; seed <= 3; ++seed) {
            CHECK(newton_matrix_error(m.model, m.start(), seed) < 1e-6);
        }
    }
}

TEST_CASE("the constraint second derivatives of a chain take a fixed number of colours") {
    // link i couples masses i-1 and i: a column conflicts with those of the masses two links
    // away at most, 5 masses of 2 coordinates
    for (const int links : {5, 40}) {
        const test::ShippedModel m = shipped("pendulum_chain.mdl", links);
        runtime::IdaResidual residual(m.model);
        CHECK(residual.colours() <= 10);
        CHECK(residual.matrix().nonZeros() < 40 * (2 * m.model.positions()));
    }
}

TEST_CASE("ida with the kernels' Newton matrix, dense or KLU, follows DOPRI5 on a chain") {
    if (!runtime::ida_available()) {
        WARN("SUNDIALS was not found at build time: ida is absent");
        return;
    }
    const test::ShippedModel m = shipped("pendulum_chain.mdl", 20);
    const runtime::State start = m.start();
    const double t_end = 1.0;
    // the reference: DOPRI5 at rtol 1e-12 on the index-1 form (ConstrainedModelForce)
    runtime::State reference = start;
    runtime::RunSettings settings;
    settings.method = runtime::Method::dopri5;
    settings.stop_time = t_end;
    settings.step = 0.0;
    settings.adaptive.rtol = 1e-12;
    settings.adaptive.atol = 1e-14;
    runtime::run(m.model, reference, settings, [](const runtime::State&) {});

    runtime::IdaOptions options;
    options.rtol = 1e-8;
    options.atol = 1e-10;
    options.linear_algebra = runtime::LinearAlgebra::dense;
    CHECK(runtime::ida_linear_algebra(m.model, options) == runtime::IdaLinearAlgebra::dense);
    const runtime::State dense = ida(m.model, start, options, t_end);
    options.linear_algebra = runtime::LinearAlgebra::sparse;
    const runtime::IdaLinearAlgebra sparse_kind = runtime::ida_linear_algebra(m.model, options);
    const runtime::State sparse = ida(m.model, start, options, t_end);
    options.model_jacobian = false;
    CHECK(runtime::ida_linear_algebra(m.model, options) ==
          runtime::IdaLinearAlgebra::dense_difference_quotients);
    const runtime::State quotients = ida(m.model, start, options, t_end);

    for (const runtime::State* s : {&dense, &sparse, &quotients}) {
        CHECK(s->t == t_end);
        CHECK((s->q - reference.q).cwiseAbs().maxCoeff() < 1e-5);
        CHECK((s->v - reference.v).cwiseAbs().maxCoeff() < 1e-4);
    }
    if (sparse_kind != runtime::IdaLinearAlgebra::sparse) {
        WARN("SUNDIALS' KLU solver was not found at build time: ida's sparse path is absent");
        return;
    }
    // The same Newton systems factorized by KLU instead of a dense LU: IDA's iterates differ
    // by round-off, which its Newton and error tests (WRMS norms against rtol) pass on, so
    // the trajectories agree to about 100 rtol: at rtol 1e-12, q to 1e-10 and v to 1e-10
    // relative (measured 1.2e-11 and 1.6e-10 of |v| <= 5.4).
    options.model_jacobian = true;
    options.rtol = 1e-12;
    options.atol = 1e-14;
    options.linear_algebra = runtime::LinearAlgebra::dense;
    const runtime::State dense_tight = ida(m.model, start, options, 0.5);
    options.linear_algebra = runtime::LinearAlgebra::sparse;
    const runtime::State sparse_tight = ida(m.model, start, options, 0.5);
    CHECK((sparse_tight.q - dense_tight.q).cwiseAbs().maxCoeff() < 1e-10);
    CHECK((sparse_tight.v - dense_tight.v).cwiseAbs().maxCoeff() <
          1e-10 * dense_tight.v.cwiseAbs().maxCoeff());
}

TEST_CASE("ida on an unconstrained chain with a wall: kernels' matrix dense, KLU and quotients "
          "agree with DOPRI5") {
    if (!runtime::ida_available()) {
        WARN("SUNDIALS was not found at build time: ida is absent");
        return;
    }
    // 12 masses on springs (24 positions, above ida_sparse_threshold), displaced so that the
    // springs stretch unevenly and the last masses reach the one-sided wall
    const test::ShippedModel m = shipped("hanging_chain.mdl", 12);
    runtime::State start = m.start();
    for (Eigen::Index i = 0; i < start.q.size(); ++i) {
        start.q[i] += 0.02 * std::sin(1.7 * static_cast<double>(i));
        start.v[i] = 0.3 * std::cos(0.9 * static_cast<double>(i));
    }
    const double t_end = 0.5;
    runtime::State reference = start;
    runtime::RunSettings settings;
    settings.method = runtime::Method::dopri5;
    settings.stop_time = t_end;
    settings.step = 0.0;
    settings.adaptive.rtol = 1e-12;
    settings.adaptive.atol = 1e-14;
    runtime::run(m.model, reference, settings, [](const runtime::State&) {});

    runtime::IdaOptions options;
    options.rtol = 1e-9;
    options.atol = 1e-11;
    CHECK(runtime::ida_linear_algebra(m.model, options) !=
          runtime::IdaLinearAlgebra::dense_difference_quotients);
    const runtime::State automatic = ida(m.model, start, options, t_end);
    options.linear_algebra = runtime::LinearAlgebra::dense;
    const runtime::State dense = ida(m.model, start, options, t_end);
    options.model_jacobian = false;
    const runtime::State quotients = ida(m.model, start, options, t_end);
    // the wall's force has a kink that IDA steps across without locating it: its velocities
    // are 1.1e-5 from the reference (all three variants alike), the positions 1.6e-7
    for (const runtime::State* s : {&automatic, &dense, &quotients}) {
        CHECK((s->q - reference.q).cwiseAbs().maxCoeff() < 1e-6);
        CHECK((s->v - reference.v).cwiseAbs().maxCoeff() < 5e-5);
    }
    // KLU against the dense LU on the same matrices, at rtol 1e-9 (measured 3e-9 and 2e-7)
    CHECK((automatic.q - dense.q).cwiseAbs().maxCoeff() < 1e-7);
    CHECK((automatic.v - dense.v).cwiseAbs().maxCoeff() < 2e-6);
}
