// A C++ host: compiles a model at run time, evaluates its force, and steps it with velocity
// Verlet on the JIT-compiled kernels. Run with models/harmonic_oscillator.mdl, it checks the
// result against the exact solution q0 cos(w t), w = sqrt(k/m), and fails if it is off.
#include "mdl/compiled_model.hpp"

#include <cmath>
#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: cpp_host MODEL.mdl\n");
        return 2;
    }
    try {
        mdl::CompiledModel model = mdl::compile_file(argv[1]);
        model.set_parameter("k", 8.0); // a host may change parameters: no recompilation
        const std::size_t n = model.sizes().positions;
        std::vector<double> q = model.start_positions(), v = model.start_velocities();
        std::vector<double> mass(n), f(n);
        auto at = [&](double t) {
            return model.args(t, q.data(), v.data());
        };
        model.mass()(at(0), mass.data());
        model.force()(at(0), f.data());
        std::printf("%s: %zu position(s), force at start %g\n", model.name().c_str(), n, f[0]);

        const double h = 1e-3, t_end = 1.0;
        double t = 0;
        for (int step = 0; step < 1000; ++step) { // velocity Verlet
            for (std::size_t i = 0; i < n; ++i) {
                v[i] += 0.5 * h * f[i] / mass[i];
                q[i] += h * v[i];
            }
            t += h;
            model.force()(at(t), f.data());
            for (std::size_t i = 0; i < n; ++i) {
                v[i] += 0.5 * h * f[i] / mass[i];
            }
        }
        double w = std::sqrt(model.parameter("k") / model.parameter("m"));
        double exact = model.parameter("q0") * std::cos(w * t_end);
        double error = std::fabs(q[0] - exact);
        std::printf("q(%g) = %.9f, exact %.9f, error %.2e\n", t_end, q[0], exact, error);
        // Verlet's global error for this problem: about (w h)^2 w t / 24 * q0 < 1e-6.
        return error < 1e-6 ? 0 : 1;
    } catch (const mdl::CompileError& e) {
        std::fputs(e.what(), stderr);
        return 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "cpp_host: %s\n", e.what());
        return 1;
    }
}
