// The C API's modes (mdl.h, mdl_modes): a pendulum on a rod constraint against sqrt(g/l), a
// start given by name, and a model without an equilibrium as MDL_NUMERICAL_FAILURE.
#include "mdl.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <string>

using Catch::Detail::Approx;

TEST_CASE("C API: mdl_modes of a pendulum on a rod gives sqrt(g/l)", "[modes]") {
    const char* source = R"(model RodPendulum
  parameter Real m = 2, l = 0.8, g = 9.81;
  body b(m = m, x(start = 0.1), y(start = 0.7));
  constraint rod: b.x^2 + b.y^2 = l^2;
  gravity G(y = -g);
end RodPendulum;
)";
    char* error = nullptr;
    mdl_model* model = mdl_compile_string(source, "rod.mdl", &error);
    REQUIRE(model != nullptr);
    // started near the top: Newton from a point given by name finds the inverted position,
    // unstable with the same |omega|
    const char* x_name[] = {"b.x"};
    const double x_value[] = {0.05};
    mdl_modes_result* r = nullptr;
    REQUIRE(mdl_modes(model, x_name, x_value, 1, &r, &error) == MDL_OK);
    REQUIRE(mdl_modes_count(r) == 1);
    CHECK(mdl_modes_omega(r)[0] == Approx(std::sqrt(9.81 / 0.8)).epsilon(1e-10));
    CHECK(std::string(mdl_modes_kind(r, 0)) == "unstable");
    CHECK(mdl_modes_equilibrium(r)[1] == Approx(0.8).epsilon(1e-12));
    CHECK(mdl_modes_kind(r, 1) == nullptr);
    mdl_modes_free(r);
    // without a point: downhill from the start to the hanging pendulum, sideways shape
    // 1/sqrt(m)
    REQUIRE(mdl_modes(model, nullptr, nullptr, 0, &r, &error) == MDL_OK);
    CHECK(mdl_modes_equilibrium(r)[1] == Approx(-0.8).epsilon(1e-12));
    CHECK(std::string(mdl_modes_kind(r, 0)) == "oscillatory");
    CHECK(mdl_modes_omega(r)[0] == Approx(std::sqrt(9.81 / 0.8)).epsilon(1e-10));
    CHECK(mdl_modes_damping_ratio(r)[0] == 0);
    CHECK(std::abs(mdl_modes_shapes(r)[0]) == Approx(1 / std::sqrt(2.0)).epsilon(1e-10));
    mdl_modes_free(r);
    const char* unknown[] = {"b.z"};
    CHECK(mdl_modes(model, unknown, x_value, 1, &r, &error) == MDL_BAD_SETTINGS);
    REQUIRE(error != nullptr);
    CHECK(std::string(error).find("no position 'b.z'") != std::string::npos);
    mdl_free_string(error);
    mdl_free(model);
}

TEST_CASE("C API: mdl_modes without an equilibrium is a numerical failure", "[modes]") {
    char* error = nullptr;
    mdl_model* model = mdl_compile_string(
        "model F\n  body b(m = 1, x(start = 0), y(start = 0));\n  gravity G(y = -9.81);\nend F;\n",
        "falling.mdl", &error);
    REQUIRE(model != nullptr);
    mdl_modes_result* r = nullptr;
    CHECK(mdl_modes(model, nullptr, nullptr, 0, &r, &error) == MDL_NUMERICAL_FAILURE);
    CHECK(r == nullptr);
    REQUIRE(error != nullptr);
    CHECK(std::string(error).find("force balance of 'b.y'") != std::string::npos);
    mdl_free_string(error);
    mdl_free(model);
}
