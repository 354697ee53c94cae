#include "symbolic/system.hpp"

#include "seed_systems.hpp"

#include <catch2/catch.hpp>

#include <limits>
#include <string>

using namespace mdl;
using namespace mdl::symbolic;

TEST_CASE("validate rejects systems that break the calling convention", "[system]") {
    SECTION("output counts") {
        System s({2, 0, 0, 0, 1});
        s.outputs(Kernel::mass) = {s.parameter(0), s.parameter(0)};
        s.outputs(Kernel::force) = {s.position(0)}; // 1 of 2
        CHECK_THROWS_WITH(s.validate(), Catch::Contains("force has 1 outputs, expected 2"));
    }
    SECTION("mass depending on a position") {
        System s({1, 0, 0, 0, 1});
        s.outputs(Kernel::mass) = {s.parameter(0) * s.position(0)};
        s.outputs(Kernel::force) = {s.constant(0)};
        s.outputs(Kernel::force_dq) = {s.constant(0)};
        s.outputs(Kernel::force_dv) = {s.constant(0)};
        s.outputs(Kernel::mass_matrix) = {s.parameter(0)};
        CHECK_THROWS_WITH(s.validate(), Catch::Contains("mass[0] uses q[0]"));
    }
    SECTION("a mass matrix depending on a velocity") {
        System s({1, 0, 0, 0, 1});
        s.outputs(Kernel::mass) = {s.parameter(0)};
        s.outputs(Kernel::force) = {s.constant(0)};
        s.outputs(Kernel::force_dq) = {s.constant(0)};
        s.outputs(Kernel::force_dv) = {s.constant(0)};
        s.outputs(Kernel::mass_matrix) = {s.parameter(0) * s.velocity(0)};
        CHECK_THROWS_WITH(s.validate(), Catch::Contains("mass_matrix[0] uses der(q[0])") ||
                                            Catch::Contains("mass_matrix[0] uses v[0]"));
    }
    SECTION("a mass matrix depending on a position is valid (kinetic energy)") {
        System s({1, 0, 0, 0, 1});
        s.outputs(Kernel::mass) = {s.constant(std::numeric_limits<double>::quiet_NaN())};
        s.outputs(Kernel::force) = {s.constant(0)};
        s.outputs(Kernel::mass_matrix) = {s.parameter(0) * (2.0 + cos(s.position(0)))};
        derive_kernels(s);
        CHECK_NOTHROW(s.validate());
        CHECK(s.mass_depends_on_positions);
        CHECK_FALSE(s.mass_coupled);
        CHECK_FALSE(s.mass_constant_diagonal());
    }
    SECTION("variable index beyond the sizes") {
        System s({1, 0, 0, 0, 0});
        s.outputs(Kernel::mass) = {s.constant(1)};
        s.outputs(Kernel::force) = {Expr(s.pool(), s.pool().variable({VarKind::parameter, 3}))};
        s.outputs(Kernel::force_dq) = {s.constant(0)};
        s.outputs(Kernel::force_dv) = {s.constant(0)};
        CHECK_THROWS_AS(s.validate(), InvalidSystem);
    }
    SECTION("a phase that is not linear in time") {
        System s({0, 0, 0, 1, 1});
        s.outputs(Kernel::phase) = {s.parameter(0) * pow(s.time(), 2.0)};
        derive_kernels(s);
        CHECK_THROWS_WITH(s.validate(), Catch::Contains("linear in time"));
    }
    SECTION("a velocity-dependent constraint") {
        System s({1, 0, 1, 0, 0});
        s.outputs(Kernel::mass) = {s.constant(1)};
        s.outputs(Kernel::force) = {s.constant(0)};
        s.outputs(Kernel::constraint) = {s.position(0) - s.velocity(0)};
        derive_kernels(s);
        CHECK_THROWS_WITH(s.validate(), Catch::Contains("holonomic"));
    }
    SECTION("leaves out of range") {
        System s({1, 0, 0, 0, 0});
        CHECK_THROWS_AS(s.position(1), std::out_of_range);
        CHECK_THROWS_AS(s.parameter(0), std::out_of_range);
    }
}

TEST_CASE("print_system lists the derived equations by name", "[system][print]") {
    auto s = test::kapitza();
    const std::string text = print_system(*s);
    INFO(text);
    CHECK(text.find("// 1 position (phi), 0 states, 0 constraints, 1 vibration (theta), "
                    "5 parameters (l, g, vmax, omega, theta0)") == 0);
    CHECK(text.find("force depends on velocity: no; on time other than through phases: no") !=
          std::string::npos);
    CHECK(text.find("mass[phi] = 1\n") != std::string::npos);
    CHECK(text.find("force[phi] = sin(phi)*(g + vmax*omega*cos(theta))/l\n") != std::string::npos);
    CHECK(text.find("force_dq[phi, phi] = cos(phi)*(g + vmax*omega*cos(theta))/l\n") !=
          std::string::npos);
    CHECK(text.find("phase[theta] = theta0 + omega*t\n") != std::string::npos);
    CHECK(text.find("phase_rate[theta] = omega\n") != std::string::npos);
    CHECK(text.find("zero entries not shown: force_dv (all)") != std::string::npos);
}

TEST_CASE("matrix kernels: sparse patterns, dense views and their validation", "[system]") {
    System s({3, 0, 1, 0, 1});
    s.outputs(Kernel::mass) = {s.parameter(0), s.parameter(0), s.parameter(0)};
    s.outputs(Kernel::force) = {-s.position(0) * s.position(1), s.constant(0), s.velocity(2)};
    s.outputs(Kernel::constraint) = {s.position(2) * s.position(2) - s.parameter(0)};
    derive_kernels(s);
    CHECK_NOTHROW(s.validate());
    // df/dq = [-q1, -q0, 0; 0 0 0; 0 0 0], df/dv = e_3 e_3^T, G = [0, 0, 2 q2], M = p0 I
    const Sparsity dq = s.sparsity(Kernel::force_dq);
    CHECK(dq.row_start == std::vector<std::uint32_t>{0, 2, 2, 2});
    CHECK(dq.column == std::vector<std::uint32_t>{0, 1});
    CHECK(s.outputs(Kernel::force_dq).size() == 2);
    CHECK(s.sparsity(Kernel::force_dv).column == std::vector<std::uint32_t>{2});
    CHECK(s.sparsity(Kernel::constraint_jacobian).row_start == std::vector<std::uint32_t>{0, 1});
    CHECK(s.sparsity(Kernel::mass_matrix).column == std::vector<std::uint32_t>{0, 1, 2});
    CHECK(s.has_kernel(Kernel::force_dv));
    const std::vector<ExprId> dense = s.dense_outputs(Kernel::force_dq);
    REQUIRE(dense.size() == 9);
    CHECK(dense[0] == (-s.position(1)).id());
    CHECK(dense[1] == (-s.position(0)).id());
    for (std::size_t i = 2; i < 9; ++i) {
        CHECK(dense[i] == s.pool().zero());
    }
    SECTION("a pattern that does not fit its matrix is rejected") {
        Sparsity bad = s.sparsity(Kernel::force_dq);
        bad.column = {1, 0}; // not ascending
        s.set_sparse(Kernel::force_dq, bad, s.outputs(Kernel::force_dq));
        CHECK_THROWS_WITH(s.validate(), Catch::Contains("force_dq has a malformed sparsity"));
    }
    SECTION("values and pattern must have the same length") {
        CHECK_THROWS_AS(s.set_sparse(Kernel::force_dq, dq, {}), InvalidSystem);
    }
    SECTION("a kernel without nonzeros still exists when its matrix has entries") {
        System t({2, 0, 0, 0, 1});
        t.outputs(Kernel::mass) = {t.parameter(0), t.parameter(0)};
        t.outputs(Kernel::force) = {-t.position(0), -t.position(1)};
        derive_kernels(t);
        CHECK(t.outputs(Kernel::force_dv).empty());
        CHECK(t.has_kernel(Kernel::force_dv));
        CHECK_FALSE(t.has_kernel(Kernel::constraint_jacobian));
    }
}
