// mdl periodic and mdl continue as a user runs them: output, files, exit statuses and the
// one-line errors naming the flag or the reason.
#include "cli_test_support.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

using cli_test::mdl;
using cli_test::model;

namespace {

std::filesystem::path scratch(const std::string& name) {
    const auto folder = std::filesystem::path(MDL_BINARY_DIR) / "tests" / "analysis" / "scratch";
    std::filesystem::create_directories(folder);
    return folder / name;
}

} // namespace

TEST_CASE("mdl periodic prints the multipliers and writes the orbit", "[analysis][cli]") {
    const auto csv = scratch("orbit.csv");
    const auto r = mdl("periodic " + model("duffing_response.mdl") + " -p Omega=0.8 --csv " +
                       csv.string() + " --samples 50");
    INFO(r.output);
    REQUIRE(r.status == 0);
    CHECK(r.output.find("period 7.853981633974483") != std::string::npos);
    CHECK(r.output.find("mu2") != std::string::npos);
    CHECK(r.output.find("stable (max |mu|") != std::string::npos);
    const std::string text = cli_test::read_file(csv);
    CHECK(text.rfind("time,x,der(x)\n", 0) == 0);
    CHECK(std::count(text.begin(), text.end(), '\n') == 52); // header + 51 rows
}

TEST_CASE("mdl continue writes the branch, its labels and the plot", "[analysis][cli]") {
    const auto csv = scratch("branch.csv"), svg = scratch("branch.svg");
    const auto r = mdl("continue " + model("duffing_response.mdl") + " -p Omega=0.5:2 --csv " +
                       csv.string() + " --plot " + svg.string());
    INFO(r.output);
    REQUIRE(r.status == 0);
    CHECK(r.output.find("reached Omega = 2") != std::string::npos);
    const std::string text = cli_test::read_file(csv);
    CHECK(text.rfind("Omega,period,amplitude(x),x,der(x),mu1_re,mu1_im,mu2_re,mu2_im,max_abs_mu,"
                     "stable,bifurcation\n",
                     0) == 0);
    CHECK(text.find(",fold\n") != std::string::npos);
    CHECK(text.find(",peak\n") != std::string::npos);
    const std::string plot = cli_test::read_file(svg);
    CHECK(plot.find("<svg") != std::string::npos);
    CHECK(plot.find("stroke-dasharray") != std::string::npos); // the unstable branch
}

TEST_CASE("mdl periodic and mdl continue report bad input in one line", "[analysis][cli]") {
    auto r = mdl("continue " + model("duffing_response.mdl") + " -p Omega=1");
    CHECK(r.status == 2);
    CHECK(r.output.find("-p Omega=0.5:2") != std::string::npos);
    r = mdl("continue " + model("duffing_response.mdl") + " -p Omga=0.5:2");
    CHECK(r.status == 2);
    CHECK(r.output.find("Omega") != std::string::npos); // the suggestion
    r = mdl("continue " + model("duffing_response.mdl") + " -p Omega=0.5:x");
    CHECK(r.status == 2);
    CHECK(r.output.find("not a finite number") != std::string::npos);
    r = mdl("periodic " + model("pendulum_chain.mdl"));
    CHECK(r.status == 2);
    CHECK(r.output.find("constraints") != std::string::npos);
    r = mdl("periodic " + model("seated_human.mdl"));
    CHECK(r.status == 2);
    CHECK(r.output.find("--period") != std::string::npos);
    r = mdl("periodic " + model("duffing_response.mdl") +
            " --max-iterations 1 --tolerance 1e-30 -p Omega=1.2");
    CHECK(r.status == 3);
    CHECK(r.output.find("Newton did not converge in 1 iterations") != std::string::npos);
    CHECK(r.output.find("Omega = 1.2") != std::string::npos);
}
