// mdl_periodic_orbit (mdl.h): the linear forced oscillator's closed-form response through the
// C API, and its errors as status codes.
#include "mdl.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <string>

TEST_CASE("C API: mdl_periodic_orbit finds the closed-form steady response", "[analysis][c-api]") {
    const char* source = R"(
model Forced
  parameter Real k = 4; parameter Real c = 0.3; parameter Real F = 0.7;
  parameter Real Omega = 1.7;
  vibration drive(theta = Omega*time) = cos(theta);
  coordinate x(start = 0, m = 1);
  potential U = k/2*x^2;
  force f(x) = -c*der(x) + F*drive;
end Forced;
)";
    char* error = nullptr;
    mdl_model* model = mdl_compile_string(source, "<test>", &error);
    REQUIRE(model != nullptr);
    double q = 0, v = 0, period = 0, re[2], im[2];
    int stable = 0;
    REQUIRE(mdl_periodic_orbit(model, &q, &v, &period, re, im, &stable, &error) == MDL_OK);
    const double k = 4, c = 0.3, F = 0.7, W = 1.7;
    const double X = F / std::hypot(k - W * W, c * W), phi = std::atan2(c * W, k - W * W);
    CHECK(period == Approx(2 * 3.14159265358979323846 / W).epsilon(1e-14));
    CHECK(std::abs(q - X * std::cos(phi)) < 1e-11);
    CHECK(std::abs(v - X * W * std::sin(phi)) < 1e-11);
    CHECK(std::abs(std::hypot(re[0], im[0]) - std::exp(-c * period / 2)) < 1e-11);
    CHECK(stable == 1);
    // explicit time without a period: a bad setting with the reason
    mdl_model* timed = mdl_compile_string(R"(
model Timed
  coordinate x(start = 0, m = 1);
  potential U = x^2/2;
  force f(x) = cos(2*time);
end Timed;
)",
                                          "<test>", &error);
    REQUIRE(timed != nullptr);
    period = 0;
    CHECK(mdl_periodic_orbit(timed, nullptr, nullptr, &period, nullptr, nullptr, nullptr, &error) ==
          MDL_BAD_SETTINGS);
    REQUIRE(error != nullptr);
    CHECK(std::string(error).find("--period") != std::string::npos);
    mdl_free_string(error);
    error = nullptr;
    period = 3.14159265358979323846; // x = -cos(2t)/3
    double x0 = 0;
    CHECK(mdl_periodic_orbit(timed, &x0, nullptr, &period, nullptr, nullptr, nullptr, &error) ==
          MDL_OK);
    CHECK(std::abs(x0 + 1.0 / 3.0) < 1e-11);
    mdl_free(timed);
    mdl_free(model);
}
