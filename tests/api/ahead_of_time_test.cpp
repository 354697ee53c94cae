// Ahead-of-time compilation (CompiledModel::object_code and c_header, mdl compile
// --emit-object/--emit-header): the object and its header, compiled into a C program by the
// system's C compiler with no mdl and no LLVM, give every kernel's outputs bit for bit as the
// JIT-compiled kernels of the same model, through the table P_kernels and through the named
// functions. Models cover vibrations, constraints, first-order states, M(q) from a kinetic
// energy, and kernels large enough to be split into sections.
#include "mdl/compiled_model.hpp"

#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace mdl;
namespace fs = std::filesystem;

namespace {

struct KernelSlot {
    const char* name;
    mdl_kernel mdl_kernels::*slot;
};

// The matrix kernels with a values kernel and a pattern (kernel_abi.h), in table order.
constexpr const char* sparse_matrices[] = {"constraint_jacobian", "force_dq", "force_dv",
                                           "mass_matrix"};

// The kernels of kernel_abi.h in table order.
const std::array<KernelSlot, 14> kernel_slots{{
    {"mass", &mdl_kernels::mass},
    {"force", &mdl_kernels::force},
    {"rates", &mdl_kernels::rates},
    {"potential", &mdl_kernels::potential},
    {"constraint", &mdl_kernels::constraint},
    {"constraint_jacobian", &mdl_kernels::constraint_jacobian},
    {"curvature", &mdl_kernels::curvature},
    {"force_dq", &mdl_kernels::force_dq},
    {"force_dv", &mdl_kernels::force_dv},
    {"phase", &mdl_kernels::phase},
    {"phase_rate", &mdl_kernels::phase_rate},
    {"mass_matrix", &mdl_kernels::mass_matrix},
    {"event_indicator", &mdl_kernels::event_indicator},
    {"event_reinit", &mdl_kernels::event_reinit},
}};

std::size_t events = 0, reinits = 0; // of the model under test (from its kernel table)

std::size_t outputs(const char* kernel, const Sizes& s) {
    const std::string k = kernel;
    const std::size_t n = s.positions, m = s.constraints;
    if (k == "mass" || k == "force") {
        return n;
    }
    if (k == "rates") {
        return s.states;
    }
    if (k == "potential") {
        return 1;
    }
    if (k == "constraint" || k == "curvature") {
        return m;
    }
    if (k == "constraint_jacobian") {
        return m * n;
    }
    if (k == "phase" || k == "phase_rate") {
        return s.vibrations;
    }
    if (k == "event_indicator") {
        return events;
    }
    if (k == "event_reinit") {
        return reinits;
    }
    return n * n; // force_dq, force_dv, mass_matrix
}

std::string array(const char* name, const std::vector<double>& values) {
    std::string out = fmt::format("static const double {}[] = {{", name);
    for (double v : values) {
        out += fmt::format("{:a}, ", v);
    }
    return out + "0.0};\n";
}

std::string shell_quote(const std::string& text) {
    return "'" + text + "'";
}

std::string read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// Compiles `model` ahead of time, builds a C program from the object and header that prints
// every kernel's outputs at one random point (through the table, then force by name), and
// checks them against the JIT's kernels at the same point.
void check_against_jit(const CompiledModel& model, const std::string& prefix,
                       const std::string& cpu) {
    const fs::path dir = fs::path(MDL_BINARY_DIR) / "tests" / "api" / "ahead_of_time" / prefix;
    fs::remove_all(dir);
    fs::create_directories(dir);
    ObjectOptions options;
    options.prefix = prefix;
    options.cpu = cpu;
    {
        std::ofstream(dir / "kernels.o", std::ios::binary) << model.object_code(options);
        std::ofstream(dir / "kernels.h") << model.c_header(options);
    }
    const Sizes s = model.sizes();
    events = model.kernels().n_events;
    reinits = model.kernels().n_reinits;
    std::mt19937_64 random(42);
    std::uniform_real_distribution<double> uniform(-1.5, 1.5);
    auto draw = [&](std::size_t count) {
        std::vector<double> v(count);
        for (double& x : v) {
            x = uniform(random);
        }
        return v;
    };
    const double t = 0.375;
    const std::vector<double> q = draw(s.positions), v = draw(s.positions), x = draw(s.states),
                              theta = draw(s.vibrations);
    const std::vector<double> p(model.parameters().begin(), model.parameters().end());

    std::string program = "#include \"kernels.h\"\n#include <stdio.h>\n";
    program += array("q", q) + array("v", v) + array("x", x) + array("theta", theta);
    program += "static double out[" +
               std::to_string(std::max<std::size_t>(1, s.positions) *
                                  std::max<std::size_t>(1, s.positions) +
                              s.constraints * s.positions + 16) +
               "];\n";
    program += "int main(void) {\n";
    program += fmt::format(
        "    mdl_kernel_args a = {{{:a}, q, v, x, theta, {}_parameter_values}};\n", t, prefix);
    program += fmt::format("    const mdl_kernels* k = &{}_kernels;\n", prefix);
    program += fmt::format("    if (k->n_positions != {} || k->n_parameters != {}) return 2;\n",
                           s.positions, s.parameters);
    for (const KernelSlot& kernel : kernel_slots) {
        const std::size_t count = outputs(kernel.name, s);
        program += fmt::format("    if (k->{0}) {{ k->{0}(&a, out); for (int i = 0; i < {1}; "
                               "++i) printf(\"{0} %a\\n\", out[i]); }}\n",
                               kernel.name, count);
    }
    // the sparse matrix kernels: the pattern the object carries and the values kernel
    for (const char* matrix : sparse_matrices) {
        program +=
            fmt::format("    if (k->{0}_values) {{ const mdl_sparsity* s = &k->{0}_pattern; "
                        "printf(\"{0}_shape %a\\n\", (double)(s->rows * 65536u + s->columns)); "
                        "for (unsigned i = 0; i <= s->rows; ++i) printf(\"{0}_row %a\\n\", "
                        "(double)s->row_start[i]); "
                        "for (unsigned i = 0; i < s->nonzeros; ++i) printf(\"{0}_column %a\\n\", "
                        "(double)s->column[i]); "
                        "k->{0}_values(&a, out); for (unsigned i = 0; i < s->nonzeros; ++i) "
                        "printf(\"{0}_values %a\\n\", out[i]); }}\n",
                        matrix);
    }
    program += fmt::format("    {}_force(&a, out); for (int i = 0; i < {}; ++i) printf(\"named "
                           "%a\\n\", out[i]);\n",
                           prefix, s.positions);
    program += "    return 0;\n}\n";
    std::ofstream(dir / "host.c") << program;

    const std::string build = fmt::format(
        "{} -std=c99 -Wall -Wextra -Werror -o {} {} {} -lm 2> {}", MDL_C_COMPILER,
        shell_quote((dir / "host").string()), shell_quote((dir / "host.c").string()),
        shell_quote((dir / "kernels.o").string()), shell_quote((dir / "build.log").string()));
    INFO(build << "\n" << read(dir / "build.log"));
    REQUIRE(std::system(build.c_str()) == 0);
    const std::string run =
        shell_quote((dir / "host").string()) + " > " + shell_quote((dir / "out.txt").string());
    REQUIRE(std::system(run.c_str()) == 0);

    // The same through the JIT, in the same order.
    std::vector<std::pair<std::string, double>> expected;
    const mdl_kernel_args args = model.args(t, q.data(), v.data(), x.data(), theta.data());
    std::vector<double> out(std::max<std::size_t>(1, s.positions) *
                                std::max<std::size_t>(1, s.positions) +
                            s.constraints * s.positions + 16);
    const mdl_kernels& jit = model.kernels();
    for (const KernelSlot& kernel : kernel_slots) {
        if (mdl_kernel f = jit.*kernel.slot) {
            f(&args, out.data());
            for (std::size_t i = 0; i < outputs(kernel.name, s); ++i) {
                expected.emplace_back(kernel.name, out[i]);
            }
        }
    }
    const struct {
        const char* name;
        mdl_kernel values;
        const mdl_sparsity& pattern;
    } sparse[] = {
        {"constraint_jacobian", jit.constraint_jacobian_values, jit.constraint_jacobian_pattern},
        {"force_dq", jit.force_dq_values, jit.force_dq_pattern},
        {"force_dv", jit.force_dv_values, jit.force_dv_pattern},
        {"mass_matrix", jit.mass_matrix_values, jit.mass_matrix_pattern},
    };
    for (const auto& matrix : sparse) {
        if (matrix.values == nullptr) {
            continue;
        }
        const std::string name = matrix.name;
        const mdl_sparsity& sp = matrix.pattern;
        expected.emplace_back(name + "_shape", static_cast<double>(sp.rows * 65536u + sp.columns));
        for (unsigned i = 0; i <= sp.rows; ++i) {
            expected.emplace_back(name + "_row", static_cast<double>(sp.row_start[i]));
        }
        for (unsigned i = 0; i < sp.nonzeros; ++i) {
            expected.emplace_back(name + "_column", static_cast<double>(sp.column[i]));
        }
        matrix.values(&args, out.data());
        for (unsigned i = 0; i < sp.nonzeros; ++i) {
            expected.emplace_back(name + "_values", out[i]);
        }
    }
    jit.force(&args, out.data());
    for (std::size_t i = 0; i < s.positions; ++i) {
        expected.emplace_back("named", out[i]);
    }

    std::ifstream printed(dir / "out.txt");
    std::string name, value;
    std::size_t i = 0;
    while (printed >> name >> value) {
        REQUIRE(i < expected.size());
        INFO(prefix << " line " << i << ": " << name << " " << value);
        CHECK(name == expected[i].first);
        const double got = std::strtod(value.c_str(), nullptr);
        const double want = expected[i].second;
        CHECK(((std::isnan(got) && std::isnan(want)) || got == want));
        ++i;
    }
    CHECK(i == expected.size());
}

std::string model_path(const char* file) {
    return std::string(MDL_SOURCE_DIR) + "/models/" + file;
}

} // namespace

TEST_CASE("an object compiled ahead of time gives the JIT's kernels bit for bit, from C") {
    SECTION("vibration (Kapitza pendulum), generic x86-64") {
        check_against_jit(compile_file(model_path("kapitza.mdl")), "kapitza", "x86-64");
    }
    SECTION("constraints (double pendulum)") {
        check_against_jit(compile_file(model_path("double_pendulum.mdl")), "pendulum2",
                          "x86-64-v2");
    }
    SECTION("M(q) from a kinetic energy") {
        check_against_jit(compile_file(model_path("double_pendulum_angles.mdl")), "angles",
                          "x86-64");
    }
    SECTION("events (bouncing ball): indicator and reinit kernels") {
        check_against_jit(compile_file(model_path("bouncing_ball.mdl")), "ball", "x86-64");
    }
    SECTION("kernels split into sections (a chain of 40 masses), this machine's CPU") {
        CompileOptions options;
        options.structural_parameters = {{"n", 40}};
        check_against_jit(compile_file(model_path("spring_chain.mdl"), options), "chain", "native");
    }
}

TEST_CASE("ahead-of-time errors name the CPU, the target or the prefix") {
    const CompiledModel model = compile_file(model_path("kapitza.mdl"));
    ObjectOptions cpu;
    cpu.cpu = "pentium-9000";
    CHECK_THROWS_WITH(model.object_code(cpu), Catch::Contains("unknown CPU 'pentium-9000'"));
    ObjectOptions triple;
    triple.triple = "riscv64-unknown-linux-gnu";
    CHECK_THROWS_WITH(model.object_code(triple),
                      Catch::Contains("target 'riscv64-unknown-linux-gnu'"));
    ObjectOptions prefix;
    prefix.prefix = "9lives";
    CHECK_THROWS_WITH(model.object_code(prefix),
                      Catch::Contains("'9lives' cannot prefix C symbols"));
    CHECK_THROWS_WITH(model.c_header(prefix), Catch::Contains("'9lives' cannot prefix C symbols"));
}
