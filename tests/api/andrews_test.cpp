// Andrews' squeezing mechanism (models/andrews.mdl) against the IVP Test Set (Mazzia &
// Magherini, problem "andrews"; Hairer & Wanner, Solving ODEs II, sect. VII.7): the
// consistent accelerations and multipliers at t = 0 that the Test Set publishes with its
// initial values (they test M(q0), the forces and G(q0) of the model together), and the seven
// angles at t = 0.03 to 1e-6 relative with the constraints held to 1e-8, by IDA (index-2 DAE)
// and by DOPRI5 (index-1 form with projection).
#include "mdl.h"
#include "mdl/compiled_model.hpp"
#include "runtime/integrators/constrained_acceleration.hpp"
#include "runtime/integrators/ida.hpp"
#include "reproduce/reproduce_andrews.hpp"
#include "shipped_model.hpp"

#include <catch2/catch.hpp>
#include <cmath>

using namespace mdl;
namespace mech = runtime::mechanics;

TEST_CASE("Andrews: the consistent start accelerations and multipliers are the Test Set's") {
    test::ShippedModel andrews("andrews.mdl");
    REQUIRE(andrews.model.positions() == 7);
    REQUIRE(andrews.model.constraints() == 6);
    const runtime::State s = andrews.start();
    runtime::Vector g(6);
    andrews.model.constraint(s.q, g);
    CHECK(g.cwiseAbs().maxCoeff() < 1e-15); // the published start is consistent
    runtime::ConstrainedModelForce force(andrews.model, {}, "test");
    runtime::Vector a(7);
    force.acceleration(0.0, s.q, s.v, s.x, a);
    // Test Set (andrews.f, init): w = q'' and its lambda with M w = f - G^T lambda; here
    // M a = f + G^T lambda, so lambda has the opposite sign.
    const double w[7] = {
        14222.4439199541138705911625887, -10666.8329399655854029433719415, 0, 0, 0, 0, 0};
    const double lambda[6] = {
        -98.5668703962410896057654982170, 6.12268834425566265503114393122, 0, 0, 0, 0};
    for (int i = 0; i < 7; ++i) {
        INFO("acceleration " << i << ": " << a[i]);
        CHECK(std::abs(a[i] - w[i]) < 1e-9 * 14222.4439199541);
    }
    for (int i = 0; i < 6; ++i) {
        INFO("multiplier " << i << ": " << force.multipliers()[i]);
        CHECK(std::abs(force.multipliers()[i] - lambda[i]) < 1e-9 * 98.566870396241);
    }
}

TEST_CASE("Andrews: the angles at t = 0.03 agree with the Test Set to 1e-6 (ida, dopri5)") {
    test::ShippedModel andrews("andrews.mdl");
    std::vector<runtime::Method> methods{runtime::Method::dopri5};
    if (runtime::ida_available()) {
        methods.push_back(runtime::Method::ida);
    } else {
        WARN("SUNDIALS was not found at build time: ida is absent, only dopri5 runs");
    }
    for (runtime::Method method : methods) {
        const mech::AndrewsRun run =
            mech::run_andrews(andrews.model, andrews.start(), method, 1e-10);
        INFO(run.method);
        for (std::size_t i = 0; i < 7; ++i) {
            INFO(mech::andrews_reference[i].name << " = " << run.angles[i] << ", relative error "
                                                 << run.relative_errors[i]);
            CHECK(run.relative_errors[i] < 1e-6);
        }
        CHECK(run.constraint_residual < 1e-8);
        CHECK(run.passes());
    }
}
