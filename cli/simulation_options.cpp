#include "simulation_options.hpp"

#include "runtime/methods.hpp"

#include <fmt/format.h>

namespace mdl::cli {

void add_simulation_options(CLI::App* cmd, SimulationSettings& o) {
    std::string method_help = "Integration method:";
    for (const auto& m : runtime::methods()) {
        method_help += fmt::format("\n  {:<10} {}", m.name, m.summary);
    }
    method_help += "\n  hmm        HMM for vibrated systems, Verlet macro and micro steps"
                   "\n  hmm-shake  HMM, SHAKE macro and micro steps (constrained models)"
                   "\n  hmm-rattle HMM, RATTLE macro, SHAKE micro steps (constrained models)"
                   "\n  hmm-stiff  HMM for stiff springs: kernel-averaged forces, RK4 or DOPRI5 "
                   "macro steps"
                   "\n  strobo     stroboscopic averaging: the averaged field from differences "
                   "of the period map";
    cmd->add_option("-m,--method", o.method, method_help);
    cmd->add_option("--library", o.library_paths,
                    "A folder of component models (Pendulum -> DIR/Pendulum.mdl), searched after "
                    "the model's own folder and before MDL_PATH; repeatable")
        ->allow_extra_args(false);
    cmd->add_flag("--no-cache", o.no_cache,
                  "Neither read nor write the code cache on disk (see mdl cache)");
    cmd->add_option("--start", o.start, "Start time (default: the model's StartTime, or 0)");
    cmd->add_option("--stop", o.stop, "Stop time (default: the model's StopTime, or 1)");
    cmd->add_option("--step", o.step,
                    "Step size; for dopri5 the output interval, for HMM and strobo the macro "
                    "step H (default: the model's step)");
    cmd->add_option(
        "--rtol", o.rtol,
        "Relative tolerance of adaptive methods and of strobo's dopri5 macro "
        "(default 1e-6); of the multiscale methods' error estimate, atol + rtol "
        "max|q| (default 1e-3): settings left to their defaults are refined to meet it");
    cmd->add_option("--atol", o.atol,
                    "Absolute tolerance of adaptive methods (default 1e-9); of the multiscale "
                    "methods' error estimate (default 1e-6)");
    cmd->add_option("--rho-inf", o.rho_inf,
                    "Spectral radius at infinity of generalized-alpha, in [0, 1] (default 0.9)");
    cmd->add_option("--constraint-tol", o.constraint_tol,
                    "Largest |g(q)| accepted by SHAKE/RATTLE and the constrained implicit "
                    "methods, in the constraint's units (default 1e-12)");
    cmd->add_option("--every", o.every,
                    "Write every N-th step (and the last); default: the model's `every`, else "
                    "its Interval in steps (adaptive methods: Interval is the output interval)");
    const char* hmm = "HMM options (--method hmm, hmm-shake, hmm-rattle, hmm-stiff)";
    cmd->add_option("--algorithm", o.algorithm,
                    "async (Algorithm 2: micro-runs from rest at phase 0) or sync (Algorithm 1: "
                    "from the enslaved velocity at the macro time); default async")
        ->group(hmm);
    cmd->add_option("--filter", o.filter,
                    "simple (one period, K = 1/2), spline (quadratic B-spline over 3 periods: "
                    "O(1/omega^2), for M(q) and velocity-dependent forces) or exp (exponential "
                    "kernel); default simple")
        ->group(hmm);
    cmd->add_option("--window", o.window,
                    "Filter window in fast periods (default: 1 simple, 3 spline, 40 exp; hmm-stiff "
                    "20)")
        ->group(hmm);
    cmd->add_option("--micro-steps-per-period", o.micro_steps_per_period,
                    "Micro steps per fast period (HMM default: T_macro/H, as the paper; "
                    "hmm-stiff 6; strobo 10)")
        ->group(hmm);
    cmd->add_option("--macro-time", o.macro_time,
                    "T_macro of the micro step h = (2 pi/omega) H/T_macro (default 1)")
        ->group(hmm);
    cmd->add_option("--period", o.period,
                    "The vibrations' common fast period (default: found from their rates when "
                    "they are commensurate; hmm and strobo refuse incommensurate rates)")
        ->group(hmm);
    const char* stiff = "Stiff HMM options (--method hmm-stiff)";
    cmd->add_option("--omega", o.omega,
                    "The fast frequency [rad/time] (default: the fastest spring marked `fast`, or "
                    "the --relax-constraints frequency)")
        ->group(stiff);
    cmd->add_option("--reproject-every", o.reproject_every,
                    "Re-project the macro state onto the slow manifold every T time units; 0: "
                    "never, the paper's method (default: a drift check every 4 macro steps "
                    "re-projects it when it drifted off by more than a tenth of the tolerance)")
        ->group(stiff);
    cmd->add_option("--relax-constraints", o.relax_constraints,
                    "Compile each constraint g(q) = 0 as a stiff spring of frequency OMEGA, so a "
                    "constrained model runs with hmm-stiff or any ODE method")
        ->group(stiff);
    const char* strobo = "Stroboscopic averaging options (--method strobo, --macro also hmm-stiff)";
    cmd->add_option("--order", o.order,
                    "Central differences of the period map of order 2 or 4 (default 4)")
        ->group(strobo);
    cmd->add_option("--macro", o.macro,
                    "Macro-integrator of strobo and hmm-stiff: rk4 (fixed step --step) or dopri5 "
                    "(adaptive, --rtol/--atol, hmm-stiff default 1e-3/1e-6; --step is then the "
                    "output interval); default rk4")
        ->group(strobo);
    cmd->add_option("--micro", o.micro,
                    "Micro-integrator of the period map: rk4, verlet, or herk3 (half-explicit "
                    "Runge-Kutta of order 3 for constrained models); default auto: herk3 with "
                    "constraints, else rk4")
        ->group(strobo);
}

std::string describe_large_output(const OutputForecast& f, const std::string& output) {
    const std::string size =
        fmt::format("{:.0f} rows of {} values to {}: up to {:.3g} GB at {} bytes a value", f.rows,
                    f.columns, output, f.max_csv_bytes() / 1e9, f.max_csv_value_bytes);
    if (f.projected) {
        return fmt::format("at the mean spacing of its first {} states, this adaptive run will "
                           "write about {}; --step T writes a row every T time units, --every N "
                           "every N-th state",
                           f.states, size);
    }
    return fmt::format("this run will write {}; --every N writes every N-th state, --stop an "
                       "earlier end",
                       size);
}

} // namespace mdl::cli
