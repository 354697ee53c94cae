// SUNDIALS CVODE as runtime methods (runtime/integrators/cvode.hpp): accuracy against analytic
// solutions at the requested tolerance, output times, force-evaluation counts, the model's
// Jacobian for BDF, failures as NumericalFailure and MethodNotApplicable. Without SUNDIALS
// every case says so and checks only that the methods are absent.
#include "runtime/integrators/cvode.hpp"
#include "runtime/methods.hpp"
#include "runtime/numerical_failure.hpp"
#include "runtime/run.hpp"
#include "test_models.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

using namespace mdl::runtime;
using namespace mdl::runtime::test;

namespace {

// True when this build has SUNDIALS; otherwise checks the methods are absent and says why the
// case is skipped.
bool have_cvode() {
    if (cvode_available()) {
        return true;
    }
    WARN("SUNDIALS (libsundials-dev) was not found at build time: cvode-adams and cvode-bdf are "
         "absent, their tests skipped");
    CHECK_FALSE(find_method("cvode-adams").has_value());
    CHECK_FALSE(find_method("cvode-bdf").has_value());
    return false;
}

State start_at(const Model& model, double q0, double v0 = 0.0) {
    State s = model.zero_state();
    s.q[0] = q0;
    s.v[0] = v0;
    return s;
}

// max(|q - cos t|, |v + sin t|) over the outputs of a run of the harmonic oscillator (omega = 1)
// from q = 1, v = 0 to t = T.
struct HarmonicRun {
    double error = 0.0;
    IntegrationStats stats;
};
HarmonicRun harmonic_run(CvodeMethod method, double tol, double T, double interval) {
    const Model model = harmonic_oscillator();
    State s = start_at(model, 1.0);
    CvodeOptions options;
    options.rtol = tol;
    options.atol = tol;
    HarmonicRun run;
    run.stats = integrate_cvode(model, s, method, options, T, interval, [&](const State& x) {
        double q = 0.0, v = 0.0;
        harmonic_solution(1.0, 1.0, 0.0, x.t, q, v);
        run.error = std::max({run.error, std::abs(x.q[0] - q), std::abs(x.v[0] - v)});
    });
    CHECK(s.t == T);
    return run;
}

} // namespace

TEST_CASE("cvode: the methods are registered by name when SUNDIALS is present") {
    if (!have_cvode()) {
        return;
    }
    REQUIRE(find_method("cvode-adams") == Method::cvode_adams);
    REQUIRE(find_method("cvode-bdf") == Method::cvode_bdf);
    CHECK(info(Method::cvode_adams).adaptive);
    CHECK(info(Method::cvode_bdf).first_order_states);
    CHECK(unknown_method_message("cvode-adam").find("did you mean 'cvode-adams'") !=
          std::string::npos);
}

TEST_CASE("cvode-adams: the harmonic oscillator to the requested tolerance") {
    if (!have_cvode()) {
        return;
    }
    // One period of q'' = -q. CVODE's tolerances bound the local error per step; the global
    // error accumulates over the steps and grows somewhat faster than the tolerance (measured:
    // 13 tol at 1e-6, 70 tol at 1e-8, 140 tol at 1e-10).
    double previous = 1.0;
    for (double tol : {1e-4, 1e-6, 1e-8, 1e-10}) {
        const HarmonicRun run = harmonic_run(CvodeMethod::adams, tol, 2.0 * M_PI, 0.1);
        INFO("tol " << tol << ": error " << run.error << ", " << run.stats.steps << " steps, "
                    << run.stats.force_evaluations << " force evaluations");
        CHECK(run.error < 300.0 * tol);
        CHECK(run.error < 0.1 * previous); // 100 times tighter, at least 10 times smaller
        CHECK(run.error > 0.1 * tol);      // the tolerance is not wildly overachieved either
        previous = run.error;
        // functional iteration: at least one force evaluation per step, and few more
        CHECK(run.stats.force_evaluations >= run.stats.steps);
        CHECK(run.stats.force_evaluations < 4 * (run.stats.steps + run.stats.rejected) + 20);
    }
}

TEST_CASE("cvode-bdf: the harmonic and damped oscillators to the requested tolerance") {
    if (!have_cvode()) {
        return;
    }
    for (double tol : {1e-5, 1e-7, 1e-9}) {
        const HarmonicRun run = harmonic_run(CvodeMethod::bdf, tol, 2.0 * M_PI, 0.1);
        INFO("tol " << tol << ": error " << run.error);
        CHECK(run.error < 300.0 * tol);
    }
    const Model damped = damped_oscillator(1.0, 0.2, 1.0);
    State s = start_at(damped, 1.0);
    CvodeOptions options;
    options.rtol = options.atol = 1e-9;
    double error = 0.0;
    integrate_cvode(damped, s, CvodeMethod::bdf, options, 10.0, 0.5, [&](const State& x) {
        double q = 0.0, v = 0.0;
        damped_solution(1.0, 0.2, 1.0, 1.0, 0.0, x.t, q, v);
        error = std::max({error, std::abs(x.q[0] - q), std::abs(x.v[0] - v)});
    });
    CHECK(error < 1e-7);
}

TEST_CASE("cvode-bdf: the model's Jacobian on a stiff chain; Adams needs far more steps") {
    if (!have_cvode()) {
        return;
    }
    // k2 = 1e6: a stiff mode of frequency ~1.4e3 next to a slow one of frequency ~0.7. The
    // start is on the slow manifold (x2 - x1 = k1 x1 / (2 k2), where the stiff spring balances
    // k1), so the stiff mode stays unexcited; BDF follows the slow motion with large steps,
    // Adams' functional iteration needs h < ~1/1414 to converge.
    const Model chain = two_frequency_chain(1.0, 1.0, 1.0, 1e6);
    const auto run_chain = [&](CvodeMethod method, bool model_jacobian, State& s) {
        s = chain.zero_state();
        s.q << 1.0, 1.0 + 0.5e-6;
        CvodeOptions options;
        options.rtol = 1e-6;
        options.atol = 1e-8;
        options.model_jacobian = model_jacobian;
        return integrate_cvode(chain, s, method, options, 10.0, 0.0, [](const State&) {});
    };
    State bdf, bdf_dq, adams;
    const IntegrationStats with_kernels = run_chain(CvodeMethod::bdf, true, bdf);
    const IntegrationStats with_quotients = run_chain(CvodeMethod::bdf, false, bdf_dq);
    const IntegrationStats explicit_like = run_chain(CvodeMethod::adams, false, adams);
    INFO("bdf " << with_kernels.steps << " steps / " << with_kernels.force_evaluations
                << " evaluations; bdf with difference quotients " << with_quotients.steps << " / "
                << with_quotients.force_evaluations << "; adams " << explicit_like.steps);
    // the same slow motion (the stiff mode stays ~1e-6 small)
    CHECK(std::abs(bdf.q[0] - bdf_dq.q[0]) < 1e-4);
    CHECK(std::abs(bdf.q[0] - adams.q[0]) < 1e-4);
    // the two masses move together: x1 ~ x2 ~ cos(t / sqrt(2)) (k1 = 1 on m1 + m2 = 2)
    CHECK(std::abs(bdf.q[0] - std::cos(10.0 / std::sqrt(2.0))) < 1e-3);
    CHECK(10 * with_kernels.steps < explicit_like.steps);
    // difference quotients cost 2n = 4 extra force evaluations per Jacobian; kernels none
    CHECK(with_kernels.force_evaluations < with_quotients.force_evaluations);
}

TEST_CASE("cvode: first-order states, with both methods") {
    if (!have_cvode()) {
        return;
    }
    const double a = 2.0;
    const Model model = oscillator_with_filter(a);
    for (CvodeMethod method : {CvodeMethod::adams, CvodeMethod::bdf}) {
        State s = start_at(model, 1.0);
        s.x[0] = 0.3;
        CvodeOptions options;
        options.rtol = options.atol = 1e-10;
        double error = 0.0;
        integrate_cvode(model, s, method, options, 5.0, 0.25, [&](const State& x) {
            error = std::max({error, std::abs(x.q[0] - std::cos(x.t)),
                              std::abs(x.x[0] - filter_solution(a, 0.3, x.t))});
        });
        INFO(to_string(method));
        CHECK(error < 1e-7);
    }
}

TEST_CASE("cvode: outputs at the interval and at every step, forwards and backwards") {
    if (!have_cvode()) {
        return;
    }
    const Model model = harmonic_oscillator();
    CvodeOptions options;
    std::vector<double> times;
    State s = start_at(model, 1.0);
    auto stats = integrate_cvode(model, s, CvodeMethod::adams, options, 1.05, 0.1,
                                 [&](const State& x) { times.push_back(x.t); });
    REQUIRE(times.size() == 12); // 0, 0.1, ..., 1.0, 1.05
    CHECK(stats.outputs == 12);
    CHECK(times[3] == 0.1 * 3);
    CHECK(times.back() == 1.05);

    times.clear();
    s = start_at(model, 1.0);
    stats = integrate_cvode(model, s, CvodeMethod::adams, options, 2.0, 0.0,
                            [&](const State& x) { times.push_back(x.t); });
    CHECK(times.size() == stats.steps + 1); // the start and every internal step
    CHECK(times.back() == 2.0);
    for (std::size_t i = 1; i < times.size(); ++i) {
        CHECK(times[i] > times[i - 1]);
    }

    // backwards from t = 2 to 0 returns to q = 1
    options.rtol = options.atol = 1e-10;
    s = start_at(model, std::cos(2.0), -std::sin(2.0));
    s.t = 2.0;
    integrate_cvode(model, s, CvodeMethod::bdf, options, 0.0, 0.5, [](const State&) {});
    CHECK(s.t == 0.0);
    CHECK(std::abs(s.q[0] - 1.0) < 1e-8);
}

TEST_CASE("cvode: run() by name, the observer's finish, force evaluations in the stats") {
    if (!have_cvode()) {
        return;
    }
    struct Counting {
        std::size_t rows = 0, finished = 0;
        void operator()(const State&) { ++rows; }
        void finish(const State&) { ++finished; }
    };
    const Model model = angle_pendulum();
    for (const char* name : {"cvode-adams", "cvode-bdf"}) {
        RunSettings settings;
        settings.method = *find_method(name);
        settings.stop_time = 3.0;
        settings.step = 0.01;
        settings.adaptive.rtol = settings.adaptive.atol = 1e-10;
        State s = start_at(model, 0.1);
        Counting out;
        const IntegrationStats stats = run(model, s, settings, out);
        // reference: DOPRI5 at the same tolerance
        RunSettings reference = settings;
        reference.method = Method::dopri5;
        State r = start_at(model, 0.1);
        run(model, r, reference, [](const State&) {});
        INFO(name);
        CHECK(std::abs(s.q[0] - r.q[0]) < 1e-8);
        CHECK(out.rows == 301);
        CHECK(out.finished == 1);
        CHECK(stats.outputs == 301);
        CHECK(stats.force_evaluations >= stats.steps);
        CHECK(stats.steps > 0);
    }
}

TEST_CASE("cvode-bdf integrates constraints in the index-1 form; cvode-adams refuses them") {
    if (!have_cvode()) {
        return;
    }
    // The Cartesian pendulum (m = l = g = 1) released horizontally against the same pendulum
    // in its angle, q'' = -sin q from q = pi/2 (an ODE without constraints, DOPRI5 at 1e-13).
    const Model pendulum = cartesian_pendulum(1.0, 1.0, 1.0);
    CHECK_THROWS_AS(require_applicable(Method::cvode_adams, pendulum), MethodNotApplicable);
    CHECK_NOTHROW(require_applicable(Method::cvode_bdf, pendulum));
    State s = pendulum.zero_state();
    s.q << 1.0, 0.0;
    CvodeOptions options;
    options.rtol = 1e-10;
    options.atol = 1e-12;
    integrate_cvode(pendulum, s, CvodeMethod::bdf, options, 1.0, 0.0, [](const State&) {});
    const Model angle = angle_pendulum(1.0, 1.0, 1.0);
    State r = angle.zero_state();
    r.q << std::acos(-1.0) / 2;
    RunSettings settings;
    settings.method = Method::dopri5;
    settings.stop_time = 1.0;
    settings.step = 0.0;
    settings.adaptive.rtol = 1e-13;
    settings.adaptive.atol = 1e-15;
    run(angle, r, settings, [](const State&) {});
    CHECK(std::abs(s.q[0] - std::sin(r.q[0])) < 1e-7);
    CHECK(std::abs(s.q[1] + std::cos(r.q[0])) < 1e-7);
    // no projection: the drift of the index-1 form, of the order of the tolerance
    CHECK(std::abs(s.q.squaredNorm() - 1.0) < 1e-8);
    CHECK(std::abs(s.q.dot(s.v)) < 1e-8);
    // the rod force 2 lambda q balances gravity and the centripetal force:
    // lambda = -(q'^2 + cos q)/2 for m = l = g = 1
    REQUIRE(s.lambda.size() == 1);
    CHECK(std::abs(s.lambda[0] + (r.v[0] * r.v[0] + std::cos(r.q[0])) / 2) < 1e-6);
}

TEST_CASE("cvode: failures are NumericalFailure naming the time, variable and method") {
    if (!have_cvode()) {
        return;
    }
    // q'' = 2 q^3 from q = v = 1: q = 1/(1 - t) blows up at t = 1
    {
        const Model model = blow_up();
        State s = start_at(model, 1.0, 1.0);
        try {
            integrate_cvode(model, s, CvodeMethod::adams, {}, 2.0, 0.0, [](const State&) {});
            FAIL("no exception");
        } catch (const NumericalFailure& e) {
            INFO(e.what());
            CHECK(e.method() == "cvode-adams");
            CHECK(e.time() > 0.9);
            CHECK(e.time() < 1.0 + 1e-6);
            CHECK(std::string(e.what()).find("CVODE") != std::string::npos);
        }
    }
    // q2'' = sqrt(q1) is NaN once q1 = cos t < 0
    {
        const Model model = square_root_of_cosine();
        State s = model.zero_state();
        s.q[0] = 1.0;
        try {
            integrate_cvode(model, s, CvodeMethod::bdf, {}, 3.0, 0.1, [](const State&) {});
            FAIL("no exception");
        } catch (const NumericalFailure& e) {
            INFO(e.what());
            CHECK(e.method() == "cvode-bdf");
            CHECK(e.kind() == FailureKind::non_finite);
            CHECK(e.time() > 1.5);
            CHECK(e.time() < 1.7);
        }
    }
    // the step budget
    {
        const Model model = harmonic_oscillator();
        State s = start_at(model, 1.0);
        CvodeOptions options;
        options.max_steps = 50;
        try {
            integrate_cvode(model, s, CvodeMethod::adams, options, 100.0, 1.0, [](const State&) {});
            FAIL("no exception");
        } catch (const NumericalFailure& e) {
            INFO(e.what());
            CHECK(e.kind() == FailureKind::too_many_steps);
            CHECK(e.time() > 0.0);
            CHECK(e.time() < 100.0);
        }
    }
}
