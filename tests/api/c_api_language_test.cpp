// The C API reaches Language II: Integer parameters given when compiling, component libraries.
#include "mdl.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <string>

namespace {
const char* chain = R"(
model Cell
  parameter Real k = 1;
  body b(m = 1, x(start = 0));
end Cell;
model Row
  parameter Integer n = 2;
  Cell c[n](k = {i for i in 1:n});
end Row;
)";
} // namespace

TEST_CASE("C API: an Integer parameter set when compiling sizes the arrays") {
    const char* names[] = {"n"};
    const double values[] = {5};
    mdl_compile_options options{names, values, 1, nullptr, 0};
    char* error = nullptr;
    mdl_model* m = mdl_compile_string_with(chain, "row.mdl", &options, &error);
    REQUIRE(m != nullptr);
    CHECK(mdl_n_positions(m) == 5);
    CHECK(std::string(mdl_position_name(m, 4)) == "c[5].b.x");
    double k = 0;
    CHECK(mdl_get_parameter(m, "c[4].k", &k) == 0);
    CHECK(k == 4);
    // a new structural value needs a new compilation
    CHECK(mdl_set_parameter(m, "n", 3, &error) != 0);
    REQUIRE(error != nullptr);
    CHECK(std::strstr(error, "Integer parameter") != nullptr);
    mdl_free_string(error);
    mdl_free(m);

    m = mdl_compile_string_with(chain, "row.mdl", nullptr, &error); // defaults
    REQUIRE(m != nullptr);
    CHECK(mdl_n_positions(m) == 2);
    mdl_free(m);
}

TEST_CASE("C API: component models from a library folder") {
    const char* text = "model M\n  Pendulum p(l = 2);\nend M;\n";
    char* error = nullptr;
    CHECK(mdl_compile_string_with(text, "/nonexistent/m.mdl", nullptr, &error) == nullptr);
    REQUIRE(error != nullptr);
    CHECK(std::strstr(error, "unknown model 'Pendulum'") != nullptr);
    mdl_free_string(error);
    error = nullptr;
    const std::string lib = std::string(MDL_SOURCE_DIR) + "/models/lib";
    const char* libs[] = {lib.c_str()};
    mdl_compile_options options{nullptr, nullptr, 0, libs, 1};
    mdl_model* m = mdl_compile_string_with(text, "/nonexistent/m.mdl", &options, &error);
    REQUIRE(m != nullptr);
    CHECK(mdl_n_constraints(m) == 1);
    CHECK(std::string(mdl_constraint_name(m, 0)) == "p.rod");
    mdl_free(m);
}
