// mdl reproduce [all|hmm|stiff|strobo|andrews|caraxis]: reruns the published tables of the papers
// with their settings and prints ours beside the paper's. It counts apart what it compares:
// published numbers (errors the papers print), each within 5%; and checks with their own criterion
// (microstep counts that follow from the settings, the eps = 1e-9 run against the paper's
// eps = 1/3200 column, Table 2's claim of the stiff-springs paper). Exits 1 when either fails.
#include "commands.hpp"
#include "compiler/api/runtime_view.hpp"
#include "reproduce/reproduce_hmm.hpp"
#include "reproduce/reproduce_stiff.hpp"
#include "reproduce/reproduce_strobo.hpp"
#include "reproduce_andrews.hpp"
#include "reproduce_car_axis.hpp"
#include "reproduce_reports.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <iostream>
#include <numbers>

namespace mdl::cli {

namespace {

// What a reproduction compared: published numbers within 5%, and checks.
struct Tally {
    std::size_t published = 0, published_off = 0;
    std::size_t checks = 0, checks_failed = 0;
    void number(bool within) {
        ++published;
        published_off += within ? 0 : 1;
    }
    void check(bool passed) {
        ++checks;
        checks_failed += passed ? 0 : 1;
    }
    // "mdl reproduce hmm: 40 of 40 published errors within 5% of the paper; 46 of 46 checks
    // pass (...)"; the exit status
    int report(const char* what, const char* checks_are) const {
        std::cerr << fmt::format("mdl reproduce {}: {} of {} published errors within 5% of the "
                                 "paper; {} of {} checks pass ({})\n",
                                 what, published - published_off, published, checks - checks_failed,
                                 checks, checks_are);
        return published_off == 0 && checks_failed == 0 ? 0 : 1;
    }
};

bool within_5_percent(double ours, double paper) {
    return std::fabs(ours / paper - 1) <= 0.05;
}

struct ReproduceOptions {
    std::string what = "all";
    std::string models = MDL_MODELS_DIR;
};

// Tables 2.1-2.3 of the HMM paper (Kapitza pendulum) and Figure 4.1 (double pendulum).
int reproduce_hmm(const ReproduceOptions& o) {
    namespace ms = runtime::multiscale;
    CompiledModel kapitza = compile_file(o.models + "/kapitza.mdl");
    runtime::Model model = runtime_model(kapitza);
    runtime::State start = reported_start(kapitza, model, 0.0);
    bool even = kapitza.force_even_in_phase(0);
    std::vector<ms::TableRow> rows;
    for (auto* table :
         {&ms::reproduce_table_2_1, &ms::reproduce_table_2_2, &ms::reproduce_table_2_3}) {
        auto part = (*table)(model, start, even, {});
        rows.insert(rows.end(), part.begin(), part.end());
    }
    std::cout << "# HMM for vibrated systems (Calvo & Sanz-Serna, SIAM J. Sci. Comput. 2010)\n"
              << ms::table_markdown(rows);

    CompiledModel pendulum = compile_file(o.models + "/double_pendulum.mdl");
    runtime::Model pendulum_model = runtime_model(pendulum);
    runtime::State pendulum_start = reported_start(pendulum, pendulum_model, 0.0);
    std::vector<ms::PendulumRun> runs;
    for (double H : {1.0 / 80, 1.0 / 160}) {
        for (double omega : {1e4, 1e6, 1e8}) {
            runs.push_back(ms::run_double_pendulum(pendulum_model, pendulum_start,
                                                   ms::HmmMacro::shake, H, omega,
                                                   pendulum.force_even_in_phase(0)));
        }
    }
    std::cout << "\nFigure 4.1, SHAKE-SHAKE (microsteps: paper 1,280 at H = 1/80, 5,120 at "
                 "1/160)\n"
              << ms::pendulum_markdown(runs);

    Tally tally;
    for (const auto& r : rows) {
        const bool within = within_5_percent(r.ours, r.paper);
        const bool count = r.microsteps == r.paper_microsteps;
        tally.number(within);
        tally.check(count);
        if (!within || !count) {
            std::cerr << fmt::format("mdl reproduce: Table {} H = {} omega = {:g}: ours {:.3g} "
                                     "({} microsteps), paper {:.3g} ({})\n",
                                     r.table, r.H, r.omega, r.ours, r.microsteps, r.paper,
                                     r.paper_microsteps);
        }
    }
    for (const auto& r : runs) {
        std::size_t paper = r.H > 1.0 / 100 ? 1280 : 5120;
        tally.check(r.stats.micro_steps == paper);
        if (r.stats.micro_steps != paper) {
            std::cerr << fmt::format("mdl reproduce: Figure 4.1 H = {} omega = {:g}: {} "
                                     "microsteps, paper {}\n",
                                     r.H, r.omega, r.stats.micro_steps, paper);
        }
    }
    return tally.report("hmm", "microstep counts of Tables 2.1-2.3 and Figure 4.1, which follow "
                               "from the settings");
}

// The inverted-pendulum tables of the stroboscopic-averaging paper (models/kapitza_eps.mdl):
// fourth-order q and p tables, the second-order table, and the eps = 1e-9 remark.
int reproduce_strobo(const ReproduceOptions& o) {
    namespace ms = runtime::multiscale;
    CompiledModel kapitza = compile_file(o.models + "/kapitza_eps.mdl");
    runtime::Model model = runtime_model(kapitza);
    runtime::State start = reported_start(kapitza, model, 0.0);
    std::vector<ms::StroboRow> rows =
        ms::reproduce_stroboscopic_tables(model, start, {"q4", "p4", "q2"});
    std::cout
        << "\n# Stroboscopic averaging (Calvo, Chartier, Murua & Sanz-Serna, LNCSE 82, 2012)\n"
        << ms::stroboscopic_markdown(rows);
    std::vector<ms::StroboRow> tiny;
    for (double H : {std::numbers::pi / 25, std::numbers::pi / 50, std::numbers::pi / 100,
                     std::numbers::pi / 200}) {
        tiny.push_back(ms::tiny_eps_row(model, start, H, 1e-9));
    }
    std::cout << "\neps = 1e-9 at the cost of any other eps (error against the eps -> 0 limit; "
                 "paper: its eps = 1/3200 column)\n"
              << ms::stroboscopic_markdown(tiny);
    rows.insert(rows.end(), tiny.begin(), tiny.end());
    // H = pi/1600 is printed but not asserted: errors of 6e-8 are below what the paper's
    // reference (accuracy not stated) resolves; ours is converged to 5e-9 (docs/stroboscopic.md)
    const auto asserted = [](const ms::StroboRow& r) {
        return r.H > std::numbers::pi / 1000;
    };
    Tally tally;
    for (const auto& r : rows) {
        if (!asserted(r)) {
            std::cerr << fmt::format(
                "mdl reproduce: strobo {} H = pi/1600 eps = {:g}: ours "
                "{:.3g}, paper {:.3g} (not asserted: the paper does not state its reference's "
                "accuracy; ours is converged, docs/stroboscopic.md)\n",
                r.table, r.eps, r.ours, r.paper);
            continue;
        }
        const bool within = within_5_percent(r.ours, r.paper);
        const bool count = r.microsteps == r.paper_microsteps;
        // the eps = 1e-9 rows compare with the paper's eps = 1/3200 column: a check
        if (r.eps < 1e-6) {
            tally.check(within);
        } else {
            tally.number(within);
        }
        tally.check(count);
        if (!within || !count) {
            std::cerr << fmt::format("mdl reproduce: strobo {} H = {:.6g} eps = {:g}: ours "
                                     "{:.3g} ({} microsteps), paper {:.3g} ({})\n",
                                     r.table, r.H, r.eps, r.ours, r.microsteps, r.paper,
                                     r.paper_microsteps);
        }
    }
    return tally.report("strobo", "microstep counts, which follow from the settings, and eps = "
                                  "1e-9 within 5% of the paper's eps = 1/3200 column");
}

// Section 4 of the stiff-springs HMM paper: Table 1 (RK4 column asserted, the ode45 column
// printed), Table 2 (macro steps flat in w2, direct steps growing with it), cases (ii), (iii).
int reproduce_stiff(const ReproduceOptions& o) {
    namespace ms = runtime::multiscale;
    struct Springs {
        CompiledModel compiled;
        runtime::Model model;
        explicit Springs(const std::string& path)
            : compiled(compile_file(path)), model(runtime_model(compiled)) {}
        runtime::State start() const { return reported_start(compiled, model, 0.0); }
        ms::StiffStart start_for() {
            return [this](double w1, double w2) {
                compiled.set_parameter("w1", w1);
                compiled.set_parameter("w2", w2);
                return start();
            };
        }
    };
    Springs i(o.models + "/stiff_springs.mdl");
    std::vector<ms::StiffTableRow> rows = ms::reproduce_stiff_table_1(i.model, i.start_for());
    Springs ii(o.models + "/stiff_springs_ii.mdl");
    rows.push_back(ms::reproduce_stiff_case_ii(ii.model, ii.start()));
    Springs iii(o.models + "/stiff_springs_iii.mdl");
    rows.push_back(ms::reproduce_stiff_case_iii(iii.model, iii.start(), true));
    const ms::StiffTableRow drift = ms::reproduce_stiff_case_iii(iii.model, iii.start(), false);
    std::cout << "\n# HMM for stiff springs (Sanz-Serna, Ariel & Tsai, Multiscale methods for "
                 "stiff and constrained mechanical systems, 2009)\n"
              << ms::stiff_table_markdown(rows) << "\n"
              << ms::stiff_table_markdown({drift});
    Springs costs(o.models + "/stiff_springs.mdl");
    const std::vector<ms::StiffCostRow> cost =
        ms::reproduce_stiff_table_2(costs.model, costs.start_for());
    std::cout << "\nTable 2: accepted (rejected) DOPRI5 steps at rtol 1e-3, atol 1e-6\n"
              << ms::stiff_cost_markdown(cost);

    Tally tally;
    for (const auto& r : rows) {
        if (!r.asserted) {
            continue;
        }
        const bool within = within_5_percent(r.ours, r.paper);
        tally.number(within);
        if (!within) {
            std::cerr << fmt::format("mdl reproduce: stiff {} {} w2 = {:g}: ours {:.3g}, paper "
                                     "{:.3g}\n",
                                     r.experiment, r.macro, r.w2, r.ours, r.paper);
        }
    }
    // Table 2's claim: HMM macro steps flat in w2, direct steps in proportion to w2
    std::size_t low = SIZE_MAX, high = 0;
    for (const auto& c : cost) {
        low = std::min(low, c.hmm.macro_steps);
        high = std::max(high, c.hmm.macro_steps);
    }
    const double growth = static_cast<double>(cost.back().direct.steps) /
                          static_cast<double>(cost.front().direct.steps);
    const double w2_ratio = cost.back().w2 / cost.front().w2;
    const bool claim = high - low <= 2 && growth >= 0.5 * w2_ratio;
    tally.check(claim);
    if (!claim) {
        std::cerr << fmt::format("mdl reproduce: stiff Table 2: HMM macro steps {}..{} (flat "
                                 "expected), direct steps grow {:.3g}x for {:g}x w2\n",
                                 low, high, growth, w2_ratio);
    }
    return tally.report("stiff", "Table 2's claim: HMM macro steps flat in w2 (within 2), direct "
                                 "steps growing at least half as fast as w2");
}

} // namespace

std::function<int()> add_reproduce_command(CLI::App& app) {
    auto o = std::make_shared<ReproduceOptions>();
    CLI::App* cmd = app.add_subcommand(
        "reproduce", "Rerun the papers' published tables and print ours beside theirs; exit 1 "
                     "if an entry is off by more than 5%");
    cmd->add_option("what", o->what, "Which: all, hmm, stiff, strobo, andrews or caraxis")
        ->check(CLI::IsMember({"all", "hmm", "stiff", "strobo", "andrews", "caraxis"}));
    cmd->add_option("--models", o->models, "Folder of the shipped models")->capture_default_str();
    return [o]() {
        try {
            int status = 0;
            if (o->what == "all" || o->what == "hmm") {
                status = std::max(status, reproduce_hmm(*o));
            }
            if (o->what == "all" || o->what == "stiff") {
                status = std::max(status, reproduce_stiff(*o));
            }
            if (o->what == "all" || o->what == "strobo") {
                status = std::max(status, reproduce_strobo(*o));
            }
            if (o->what == "all" || o->what == "andrews") {
                status = std::max(status, reproduce_andrews(o->models));
            }
            if (o->what == "all" || o->what == "caraxis") {
                status = std::max(status, reproduce_car_axis(o->models));
            }
            return status;
        } catch (const CompileError& e) {
            std::cerr << e.what();
            return 1;
        } catch (const std::exception& e) {
            std::cerr << fmt::format("mdl reproduce: error: {}\n", e.what());
            return 1;
        }
    };
}

} // namespace mdl::cli
