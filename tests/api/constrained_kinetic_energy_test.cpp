// Constraints together with a configuration-dependent mass matrix M(q) in the first-order-form
// methods (runtime/integrators/constrained_acceleration.hpp): a double pendulum in joint
// angles whose second bob slides on the vertical line x = 0 (one constraint on the angles),
// against the same mechanism in Cartesian coordinates (two rods and the line as three
// constraints on point masses, constant diagonal M) integrated by RATTLE: two independent
// computations of the same motion, in different coordinates, with different methods.
#include "mdl.h"
#include "mdl/compiled_model.hpp"
#include "runtime/integrators/cvode.hpp"
#include "runtime/integrators/ida.hpp"
#include "runtime/methods.hpp"
#include "runtime/run.hpp"
#include "shipped_model.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

using namespace mdl;

namespace {

// l2 < l1: the line x2 = 0 is reached with |sin q2| = l1/l2 |sin q1| <= 1.
const char* angles_source = R"(model WallPendulumAngles
  parameter Real m1 = 0.01, m2 = 0.005, l1 = 0.2, l2 = 0.25, g = 9.8, q10 = 0.3;
  coordinate q1(start = q10) "rod 1 from the upward vertical";
  coordinate q2(start = -asin(l1/l2*sin(q10))) "rod 2 from the upward vertical";
  kinetic T = m1/2*l1^2*der(q1)^2
            + m2/2*(l1^2*der(q1)^2 + l2^2*der(q2)^2 + 2*l1*l2*cos(q1 - q2)*der(q1)*der(q2));
  potential U = (m1*l1*cos(q1) + m2*(l1*cos(q1) + l2*cos(q2)))*g;
  constraint wall: l1*sin(q1) + l2*sin(q2) = 0;
end WallPendulumAngles;
)";

const char* cartesian_source = R"(model WallPendulumCartesian
  parameter Real m1 = 0.01, m2 = 0.005, l1 = 0.2, l2 = 0.25, g = 9.8, q10 = 0.3;
  body b1(m = m1, x(start = l1*sin(q10)), y(start = l1*cos(q10)));
  body b2(m = m2, x(start = 0), y(start = l1*cos(q10) + l2*cos(asin(l1/l2*sin(q10)))));
  potential U = (m1*b1.y + m2*b2.y)*g;
  constraint rod1: b1.x^2 + b1.y^2 = l1^2;
  constraint rod2: (b2.x - b1.x)^2 + (b2.y - b1.y)^2 = l2^2;
  constraint wall: b2.x = 0;
end WallPendulumCartesian;
)";

constexpr double l1 = 0.2, l2 = 0.25;

runtime::State run_to(const runtime::Model& model, runtime::State state,
                      const runtime::RunSettings& settings) {
    runtime::run(model, state, settings, [](const runtime::State&) {});
    return state;
}

runtime::RunSettings settings_for(runtime::Method method, double stop, double step) {
    runtime::RunSettings s;
    s.method = method;
    s.stop_time = stop;
    s.step = step;
    s.adaptive.rtol = 1e-12;
    s.adaptive.atol = 1e-14;
    s.solver.constraint_tolerance = 1e-14;
    return s;
}

} // namespace

TEST_CASE("joint angles with M(q) and a constraint follow the Cartesian mechanism") {
    test::LoadedModel angles(compile(angles_source, "wall_pendulum_angles.mdl"));
    test::LoadedModel cartesian(compile(cartesian_source, "wall_pendulum_cartesian.mdl"));
    REQUIRE_FALSE(angles.model.mass_constant_diagonal());
    REQUIRE(angles.model.constraints() == 1);
    const double stop = 0.3;

    // RATTLE, order 2 and symmetric: Richardson extrapolation of h and 2h is O(h^4).
    const runtime::State fine = run_to(cartesian.model, cartesian.start(),
                                       settings_for(runtime::Method::rattle, stop, 5e-7));
    const runtime::State coarse = run_to(cartesian.model, cartesian.start(),
                                         settings_for(runtime::Method::rattle, stop, 1e-6));
    const double rattle_error = (fine.q - coarse.q).cwiseAbs().maxCoeff() / 3.0;
    INFO("RATTLE error estimate " << rattle_error);
    REQUIRE(rattle_error < 1e-8);
    const runtime::Vector x_ref = (4.0 * fine.q - coarse.q) / 3.0; // x1, y1, x2, y2
    const runtime::Vector v_ref = (4.0 * fine.v - coarse.v) / 3.0;
    // the mechanism really moved: rod 1 turned by more than 0.3 rad from 0.3
    REQUIRE(std::abs(std::atan2(x_ref[0], x_ref[1]) - 0.3) > 0.3);

    // The constraint wall is the same function of the configuration in both models (x2), so
    // its multiplier, the horizontal force of the line on bob 2, is the same number.
    const runtime::State cartesian_dopri5 =
        run_to(cartesian.model, cartesian.start(), settings_for(runtime::Method::dopri5, stop, 0));
    CHECK((cartesian_dopri5.q - x_ref).cwiseAbs().maxCoeff() < 1e-9);
    const double wall_force = cartesian_dopri5.lambda[2];
    CHECK(std::abs(wall_force) > 1e-3);

    std::vector<runtime::Method> methods{runtime::Method::dopri5, runtime::Method::rk4};
    if (runtime::cvode_available()) {
        methods.push_back(runtime::Method::cvode_bdf);
        methods.push_back(runtime::Method::ida);
    }
    for (runtime::Method method : methods) {
        INFO(runtime::info(method).name);
        const runtime::State s =
            run_to(angles.model, angles.start(), settings_for(method, stop, 1e-5));
        const double x1 = l1 * std::sin(s.q[0]), y1 = l1 * std::cos(s.q[0]);
        const double x2 = x1 + l2 * std::sin(s.q[1]), y2 = y1 + l2 * std::cos(s.q[1]);
        const double vx1 = l1 * std::cos(s.q[0]) * s.v[0], vy1 = -l1 * std::sin(s.q[0]) * s.v[0];
        const double vy2 = vy1 - l2 * std::sin(s.q[1]) * s.v[1];
        const double position_error = std::max({std::abs(x1 - x_ref[0]), std::abs(y1 - x_ref[1]),
                                                std::abs(x2 - x_ref[2]), std::abs(y2 - x_ref[3])});
        const double velocity_error = std::max(
            {std::abs(vx1 - v_ref[0]), std::abs(vy1 - v_ref[1]), std::abs(vy2 - v_ref[3])});
        INFO("position difference " << position_error << " m, velocity " << velocity_error
                                    << " m/s");
        CHECK(position_error < 1e-9);
        CHECK(velocity_error < 1e-7);
        // dopri5, rk4: projected after every step; ida: g = 0 and G v = 0 are equations of
        // its DAE; cvode-bdf: the index-1 form drifts with the integration error
        const double drift = method == runtime::Method::cvode_bdf ? 1e-9 : 1e-13;
        CHECK(std::abs(x2) < drift);
        const double gv = l1 * std::cos(s.q[0]) * s.v[0] + l2 * std::cos(s.q[1]) * s.v[1];
        CHECK(std::abs(gv) < 10 * drift);
        REQUIRE(s.lambda.size() == 1);
        CHECK(std::abs(s.lambda[0] - wall_force) < 1e-6 * std::abs(wall_force));
    }
}

TEST_CASE("newmark and galpha with M(q), with and without constraints: order 2 to dopri5") {
    // Each implicit method at h and h/2 against dopri5 at rtol 1e-12: the error is below
    // 1e-6 (rad for the angles) and falls by about 4 (second order), on the unconstrained
    // joint-angle double pendulum (without vibration: falling from rods up) and on the wall
    // pendulum (measured at h = 1e-5, newmark and galpha: 1.4e-9 and 3.4e-10 rad on the
    // double pendulum, 5e-11 and 3e-10 rad on the wall pendulum; every ratio 4.0).
    test::LoadedModel pendulum(compile_file(test::shipped_model_path("double_pendulum_angles.mdl"))
                                   .with_parameters(std::vector<ParameterValue>{{"vmax", 0.0}}));
    test::LoadedModel wall(compile(angles_source, "wall_pendulum_angles.mdl"));
    for (const test::LoadedModel* model : {&pendulum, &wall}) {
        const double stop = 0.2;
        const runtime::State reference =
            run_to(model->model, model->start(), settings_for(runtime::Method::dopri5, stop, 0));
        for (runtime::Method method : {runtime::Method::newmark, runtime::Method::galpha}) {
            INFO(model->model.name() << " " << runtime::info(method).name);
            double errors[2];
            for (int k = 0; k < 2; ++k) {
                const runtime::State s = run_to(model->model, model->start(),
                                                settings_for(method, stop, k == 0 ? 2e-5 : 1e-5));
                errors[k] = (s.q - reference.q).cwiseAbs().maxCoeff();
                if (model == &wall) {
                    runtime::Vector g(1);
                    model->model.constraint(s.q, g);
                    CHECK(std::abs(g[0]) < 1e-13);
                }
            }
            INFO("errors " << errors[0] << " at h = 2e-5, " << errors[1] << " at 1e-5");
            CHECK(errors[1] < 1e-6);
            CHECK(errors[0] / errors[1] > 3.5);
            CHECK(errors[0] / errors[1] < 4.5);
        }
    }
}

TEST_CASE("constraints with M(q): first-order-form methods apply, the others refuse") {
    test::LoadedModel angles(compile(angles_source, "wall_pendulum_angles.mdl"));
    for (const runtime::MethodInfo& m : runtime::methods()) {
        INFO(m.name);
        const bool solves_saddle_point =
            m.method == runtime::Method::rk4 || m.method == runtime::Method::dopri5 ||
            m.method == runtime::Method::cvode_bdf || m.method == runtime::Method::ida ||
            m.method == runtime::Method::newmark || m.method == runtime::Method::galpha;
        if (solves_saddle_point) {
            CHECK_NOTHROW(runtime::require_applicable(m.method, angles.model));
        } else {
            CHECK_THROWS_AS(runtime::require_applicable(m.method, angles.model),
                            runtime::MethodNotApplicable);
        }
    }
    CHECK_THROWS_WITH(runtime::require_applicable(runtime::Method::rattle, angles.model),
                      Catch::Contains("use rk4, dopri5"));
}
