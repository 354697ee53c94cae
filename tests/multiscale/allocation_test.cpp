// The multiscale methods' macro steps allocate nothing once running (issue 9): every force
// estimate, micro-integration, projection and macro step reuses the work vectors its
// integrator sized at construction. Allocations are counted by allocation_counter.cpp (malloc
// wrapped at link time, operator new replaced) over several macro steps after two warm-up steps.
#include "allocation_counter.hpp"
#include "shipped_model.hpp"

#include "runtime/multiscale/hmm.hpp"
#include "runtime/multiscale/stiff_hmm.hpp"
#include "runtime/multiscale/stroboscopic.hpp"

#include <catch2/catch.hpp>

#include <numbers>

using namespace mdl;
using namespace mdl::runtime;
using namespace mdl::runtime::multiscale;
using mdl::test::allocations_in;
using mdl::test::ShippedModel;

namespace {

// Allocations during `steps` macro steps after two warm-up steps; also checks that the steps
// were taken (the integration is not over before the counted steps).
template <class Integrator>
std::size_t allocations_while_advancing(Integrator& integrator, State& s, int steps = 8) {
    integrator.start(s);
    integrator.advance(s);
    integrator.advance(s);
    const double before = s.t;
    const std::size_t count = allocations_in([&] {
        for (int k = 0; k < steps && !integrator.done(); ++k) {
            integrator.advance(s);
        }
    });
    REQUIRE(s.t > before);
    REQUIRE_FALSE(integrator.done());
    return count;
}

} // namespace

TEST_CASE("HMM macro steps allocate nothing", "[hmm][allocation]") {
    ShippedModel k("kapitza.mdl");
    k.model.set_parameter("omega", 1e5);
    struct Variant {
        const char* name;
        HmmAlgorithm algorithm;
        FilterKind filter;
        bool even; // half window (fused single trajectory) or full window (both directions)
    };
    for (const Variant& v : {Variant{"async, simple filter, half window",
                                     HmmAlgorithm::asynchronous, FilterKind::simple, true},
                             Variant{"async, exponential filter, full window",
                                     HmmAlgorithm::asynchronous, FilterKind::exponential, false},
                             Variant{"sync (enslaved velocity), exponential filter",
                                     HmmAlgorithm::synchronous, FilterKind::exponential, false}}) {
        INFO(v.name);
        HmmOptions o;
        o.algorithm = v.algorithm;
        o.filter = v.filter;
        o.macro_step = 1.0 / 80.0;
        o.force_even_in_phase = v.even && k.compiled.force_even_in_phase(0);
        HmmIntegrator hmm(k.model, o);
        State s = k.start();
        CHECK(allocations_while_advancing(hmm, s) == 0);
    }

    ShippedModel pendulum("double_pendulum.mdl");
    for (const HmmMacro macro : {HmmMacro::shake, HmmMacro::rattle}) {
        INFO(to_string(macro));
        HmmOptions o;
        o.macro = macro;
        o.macro_step = 1.0 / 40.0;
        o.force_even_in_phase = pendulum.compiled.force_even_in_phase(0);
        HmmIntegrator hmm(pendulum.model, o);
        State s = pendulum.start();
        CHECK(allocations_while_advancing(hmm, s) == 0);
    }
}

TEST_CASE("stiff-spring HMM macro steps allocate nothing", "[hmm-stiff][allocation]") {
    ShippedModel springs("stiff_springs.mdl");
    for (const StiffMacro macro : {StiffMacro::rk4, StiffMacro::dopri5}) {
        INFO(to_string(macro));
        StiffHmmOptions o;
        o.macro = macro;
        o.omega = 1000.0;
        o.t_end = 2.0;
        o.reproject_every = 0.5; // projections in the counted steps too
        StiffHmmIntegrator hmm(springs.model, o);
        State s = springs.start();
        CHECK(allocations_while_advancing(hmm, s, 12) == 0);
    }
}

TEST_CASE("stroboscopic averaging macro steps allocate nothing", "[strobo][allocation]") {
    ShippedModel kapitza("kapitza_eps.mdl");
    for (const StroboscopicMicro micro : {StroboscopicMicro::rk4, StroboscopicMicro::verlet}) {
        for (const StroboscopicMacro macro : {StroboscopicMacro::rk4, StroboscopicMacro::dopri5}) {
            INFO("micro " << static_cast<int>(micro) << ", macro " << static_cast<int>(macro));
            StroboscopicOptions o;
            o.micro = micro;
            o.macro = macro;
            o.t_end = 2.0;
            o.macro_step = macro == StroboscopicMacro::rk4 ? std::numbers::pi / 50.0 : 0.0;
            StroboscopicIntegrator strobo(kapitza.model, o);
            State s = kapitza.start();
            CHECK(allocations_while_advancing(strobo, s) == 0);
        }
    }
    ShippedModel pendulum("double_pendulum.mdl"); // constrained: herk3 micro, projection
    pendulum.model.set_parameter("omega", 1e4);
    StroboscopicOptions o;
    o.t_end = 0.2;
    o.macro_step = 0.01;
    StroboscopicIntegrator strobo(pendulum.model, o);
    State s = pendulum.start();
    CHECK(allocations_while_advancing(strobo, s) == 0);
}
