// The fused micro-integration loop of the multiscale force estimators (micro_verlet.hpp) is
// velocity Verlet: every grid point it hands to the filter equals, bit for bit, the state and
// acceleration of runtime::VelocityVerlet<ModelForce> stepping the same model from the same
// start with the same phases (an independent implementation: Eigen vectors, ModelForce,
// Model::acceleration).
#include "shipped_model.hpp"

#include "runtime/integrators/verlet.hpp"
#include "runtime/model.hpp"
#include "runtime/model_force.hpp"
#include "runtime/multiscale/micro_verlet.hpp"

#include <catch2/catch.hpp>

#include <cstddef>
#include <string>
#include <vector>

using namespace mdl;
using namespace mdl::runtime;
using namespace mdl::runtime::multiscale;
using mdl::test::LoadedModel;
using mdl::test::ShippedModel;

namespace {

// A forced pair of oscillators: a vibration and an explicit time dependence, unequal masses.
const char* const forced_source = R"(
model Forced
  parameter Real omega = 50;
  vibration a(theta = omega*time + 0.3) = cos(theta);
  body b1(m = 2, x(start = 0.3), vx(start = 0.1));
  body b2(m = 0.5, x(start = -0.2), vx(start = 0.4));
  force f1(b1) = {-4*b1.x + a*b2.x + time};
  force f2(b2) = {-9*sin(b2.x) + a*b1.x};
end Forced;
)";

struct Point {
    std::vector<double> q, v, a;
};

// The reference: VelocityVerlet<ModelForce> from (t0, q, v), `steps` steps of h.
std::vector<Point> reference(const Model& model, bool phase_origin, double t0, const Vector& q,
                             const Vector& v, double h, std::size_t steps) {
    VelocityVerlet<ModelForce> verlet(model);
    if (phase_origin) {
        verlet.force().set_phase_origin(t0, Vector::Zero(model.vibrations()));
    }
    State s = model.zero_state(t0);
    s.q = q;
    s.v = v;
    std::vector<Point> points;
    for (std::size_t k = 0; k < steps; ++k) {
        verlet.step(s, h);
        const Vector& a = verlet.acceleration();
        points.push_back(
            {{s.q.begin(), s.q.end()}, {s.v.begin(), s.v.end()}, {a.begin(), a.end()}});
    }
    return points;
}

void check_equal(const Model& model, bool phase_origin, double t0, const Vector& q, const Vector& v,
                 double h, std::size_t steps) {
    MicroVerlet micro(model);
    if (phase_origin) {
        micro.set_phase_origin(t0, Vector::Zero(model.vibrations()));
    } else {
        micro.use_model_phases();
    }
    const auto n = static_cast<std::size_t>(model.positions());
    for (const double direction : {1.0, -1.0}) {
        const std::vector<Point> expected =
            reference(model, phase_origin, t0, q, v, direction * h, steps);
        const std::size_t before = micro.evaluations();
        micro.start(t0, q, v);
        for (std::size_t i = 0; i < n; ++i) {
            CHECK(micro.start_q()[i] == q[static_cast<Eigen::Index>(i)]);
        }
        std::size_t seen = 0;
        micro.sweep(direction * h, steps,
                    [&](std::size_t k, const double* qk, const double* vk, const double* ak) {
                        REQUIRE(k == seen + 1);
                        const Point& e = expected[k - 1];
                        for (std::size_t i = 0; i < n; ++i) {
                            INFO("step " << k << ", position " << i << ", h = " << direction * h);
                            CHECK(qk[i] == e.q[i]);
                            CHECK(vk[i] == e.v[i]);
                            CHECK(ak[i] == e.a[i]);
                        }
                        ++seen;
                    });
        CHECK(seen == steps);
        CHECK(micro.evaluations() - before == steps + 1); // the start and one per step
    }
    // both directions interleaved: each trajectory as above
    const std::vector<Point> forward = reference(model, phase_origin, t0, q, v, h, steps);
    const std::vector<Point> backward = reference(model, phase_origin, t0, q, v, -h, steps);
    const std::size_t before = micro.evaluations();
    micro.start(t0, q, v);
    std::size_t seen_forward = 0, seen_backward = 0;
    micro.sweep_both(
        h, steps,
        [&](std::size_t k, double direction, const double* qk, const double* vk, const double* ak) {
            std::size_t& seen = direction > 0.0 ? seen_forward : seen_backward;
            REQUIRE(k == seen + 1);
            const Point& e = (direction > 0.0 ? forward : backward)[k - 1];
            for (std::size_t i = 0; i < n; ++i) {
                INFO("both directions: step " << k << " of direction " << direction << ", position "
                                              << i);
                CHECK(qk[i] == e.q[i]);
                CHECK(vk[i] == e.v[i]);
                CHECK(ak[i] == e.a[i]);
            }
            ++seen;
        });
    CHECK(seen_forward == steps);
    CHECK(seen_backward == steps);
    CHECK(micro.evaluations() - before == 2 * steps + 1);
}

} // namespace

TEST_CASE("MicroVerlet equals VelocityVerlet step by step", "[micro_verlet]") {
    SECTION("Kapitza pendulum, phases from an origin (asynchronous HMM)") {
        ShippedModel kapitza("kapitza.mdl");
        Model& model = kapitza.model;
        model.set_parameter("omega", 1e6);
        REQUIRE(MicroVerlet::supported(model));
        Vector q(1), v(1);
        q << 0.5;
        v << 0.0;
        check_equal(model, true, 0.0, q, v, 2.0 * 3.141592653589793 / 1e6 / 80.0, 40);
        check_equal(model, true, 0.37, q, v, 1e-7, 25); // an origin away from t = 0
    }
    SECTION("stiff springs: several positions, no vibration") {
        ShippedModel springs("stiff_springs.mdl");
        const Model& model = springs.model;
        REQUIRE(MicroVerlet::supported(model));
        REQUIRE(model.positions() > 1);
        Vector q(model.positions()), v(model.positions());
        for (Eigen::Index i = 0; i < q.size(); ++i) {
            q[i] = springs.compiled.start_positions()[static_cast<std::size_t>(i)] +
                   0.01 * static_cast<double>(i);
            v[i] = 0.1 * static_cast<double>(i + 1);
        }
        check_equal(model, false, 0.25, q, v, 1e-3, 60);
    }
    SECTION("time-dependent force, the model's own phases, unequal masses") {
        LoadedModel forced(compile(forced_source, "forced.mdl"));
        const Model& model = forced.model;
        REQUIRE(model.time_dependent());
        REQUIRE(model.vibrations() == 1);
        REQUIRE(MicroVerlet::supported(model));
        Vector q(2), v(2);
        q << 0.3, -0.2;
        v << 0.1, 0.4;
        check_equal(model, false, 1.5, q, v, 0.01, 50);
        check_equal(model, true, 1.5, q, v, 0.01, 50);
    }
}

TEST_CASE("MicroVerlet refuses what it does not integrate", "[micro_verlet]") {
    ShippedModel damped("damped_oscillator.mdl");
    const Model& model = damped.model;
    CHECK_FALSE(MicroVerlet::supported(model)); // the damper: Verlet's implicit kick
    CHECK_THROWS_AS(MicroVerlet(model), std::logic_error);
    ShippedModel pendulum("double_pendulum.mdl");
    CHECK_FALSE(MicroVerlet::supported(pendulum.model)); // constraints
}
