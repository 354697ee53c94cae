// MuJoCo's time per step on the n-link pendulum (issue 19 item 5): the chain of
// models/n_link_pendulum.mdl and models/pendulum_chain.mdl (unit point masses on massless unit
// rods hung from a fixed pivot, gravity 9.81, no contact, no damping) as n bodies joined by
// hinge joints, each body's mass at the end of its link. Benchmark only: MuJoCo (Debian
// libmujoco-dev) is never a dependency of mdl; bench/CMakeLists.txt builds this program only
// where find_package(mujoco) succeeds, and bench/mechanics-report puts its figures beside
// mdl's (mechanics_bench.cpp) and sympy's.
//
//   mujoco/step/<integrator>/n:<n>   mj_step with option integrator = RK4 (the classical
//                                     4th-order Runge-Kutta method, as mdl's rk4) or Euler
//                                     (MuJoCo's default, semi-implicit Euler), timestep
//                                     1e-3, from the start state of the mdl models (links
//                                     horizontal, the last at 45 degrees) over 0.2 s per
//                                     iteration, as mechanics/step/rk4/n:<n>
//
// MuJoCo's joint angles are relative (the hinge between link k-1 and link k), mdl's absolute:
// the same mechanism in other coordinates. Before timing, the program checks that MuJoCo's
// joint accelerations at the start state are the closed form's of the point-mass chain (to
// 1e-6 relative, MuJoCo's bodies carry a tiny rotational inertia), so both sides simulate the
// same system.
#include <benchmark/benchmark.h>
#include <mujoco/mujoco.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <numbers>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

constexpr double timestep = 1e-3;
constexpr int steps_per_iteration = 200; // 0.2 s

// The start angles of models/n_link_pendulum.mdl, absolute, from the downward vertical.
std::vector<double> start_angles(int n) {
    std::vector<double> phi(static_cast<std::size_t>(n), std::numbers::pi / 2);
    phi.back() = std::numbers::pi / 4;
    return phi;
}

std::string chain_xml(int n, const char* integrator) {
    std::string xml = "<mujoco model=\"chain\">\n<compiler angle=\"radian\"/>\n"
                      "<option timestep=\"" +
                      std::to_string(timestep) + "\" integrator=\"" + integrator +
                      "\" gravity=\"0 0 -9.81\"><flag contact=\"disable\"/></option>\n"
                      "<worldbody>\n";
    for (int k = 0; k < n; ++k) {
        xml += std::string("<body name=\"link") + std::to_string(k + 1) + "\" pos=\"0 0 " +
               (k == 0 ? "0" : "-1") +
               "\"><joint type=\"hinge\" axis=\"0 -1 0\"/>"
               "<inertial pos=\"0 0 -1\" mass=\"1\" diaginertia=\"1e-9 1e-9 1e-9\"/>\n";
    }
    for (int k = 0; k < n; ++k) {
        xml += "</body>";
    }
    xml += "\n</worldbody>\n</mujoco>\n";
    return xml;
}

struct Chain {
    mjModel* model = nullptr;
    mjData* data = nullptr;
    Chain(int n, const char* integrator) {
        char path[] = "/tmp/mdl_mujoco_chain_XXXXXX.xml";
        const int fd = mkstemps(path, 4);
        if (fd < 0) {
            throw std::runtime_error("cannot create a temporary file");
        }
        close(fd);
        std::ofstream(path) << chain_xml(n, integrator);
        char error[1000] = "";
        model = mj_loadXML(path, nullptr, error, sizeof error);
        std::remove(path);
        if (model == nullptr) {
            throw std::runtime_error(std::string("MuJoCo: ") + error);
        }
        data = mj_makeData(model);
    }
    ~Chain() {
        mj_deleteData(data);
        mj_deleteModel(model);
    }
    Chain(const Chain&) = delete;
    Chain& operator=(const Chain&) = delete;

    // relative hinge angles of the absolute start angles, at rest
    void reset(int n) {
        mj_resetData(model, data);
        const std::vector<double> phi = start_angles(n);
        for (int k = 0; k < n; ++k) {
            data->qpos[k] = phi[static_cast<std::size_t>(k)] -
                            (k == 0 ? 0.0 : phi[static_cast<std::size_t>(k - 1)]);
        }
    }
};

// The closed form of the point-mass chain at rest (absolute angles): M a = -g mu_ii l sin(phi_i)
// with M_ij = mu_ij cos(phi_i - phi_j), mu_ij = n - max(i, j) (unit masses and lengths).
Eigen::VectorXd closed_form_at_rest(int n) {
    const std::vector<double> phi = start_angles(n);
    Eigen::MatrixXd M(n, n);
    Eigen::VectorXd f(n);
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            M(i, j) = (n - std::max(i, j)) *
                      std::cos(phi[static_cast<std::size_t>(i)] - phi[static_cast<std::size_t>(j)]);
        }
        f[i] = -9.81 * (n - i) * std::sin(phi[static_cast<std::size_t>(i)]);
    }
    return M.partialPivLu().solve(f);
}

void check_same_system(int n) {
    Chain chain(n, "RK4");
    chain.reset(n);
    mj_forward(chain.model, chain.data);
    const Eigen::VectorXd expected = closed_form_at_rest(n);
    // absolute angular accelerations are sums of the relative ones
    double absolute = 0.0, worst = 0.0;
    for (int k = 0; k < n; ++k) {
        absolute += chain.data->qacc[k];
        worst = std::max(worst, std::abs(absolute - expected[k]));
    }
    if (worst > 1e-6 * expected.cwiseAbs().maxCoeff()) {
        throw std::runtime_error("MuJoCo's chain of " + std::to_string(n) +
                                 " links does not have the accelerations of the point-mass "
                                 "chain (off by " +
                                 std::to_string(worst) + ")");
    }
}

void step_benchmark(benchmark::State& state, int n, const char* integrator) {
    Chain chain(n, integrator);
    std::size_t steps = 0;
    for (auto _ : state) {
        chain.reset(n);
        for (int i = 0; i < steps_per_iteration; ++i) {
            mj_step(chain.model, chain.data);
        }
        steps += steps_per_iteration;
        benchmark::DoNotOptimize(chain.data->qpos);
    }
    state.counters["time_per_step"] = benchmark::Counter(
        static_cast<double>(steps), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    state.counters["steps"] = benchmark::Counter(static_cast<double>(steps_per_iteration));
}

} // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
        return 1;
    }
    for (int n : {2, 4, 8, 12, 16, 20}) {
        try {
            check_same_system(n);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "mdl_mujoco_bench: %s\n", e.what());
            return 1;
        }
        for (const char* integrator : {"RK4", "Euler"}) {
            benchmark::RegisterBenchmark(
                ("mujoco/step/" + std::string(integrator) + "/n:" + std::to_string(n)).c_str(),
                [n, integrator](benchmark::State& s) { step_benchmark(s, n, integrator); })
                ->Unit(benchmark::kMillisecond);
        }
    }
    std::printf("MuJoCo %s\n", mj_versionString());
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
