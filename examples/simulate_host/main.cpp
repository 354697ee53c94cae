// A C++ host that simulates a model through the library (mdl/simulate.hpp) and writes the
// trajectory as `mdl run` does: the same header, the same rows, each number the shortest text
// that reads back to the same double. The install test compares its output with the installed
// `mdl run`'s, byte for byte, for HMM on the Kapitza pendulum.
//
//     simulate_host MODEL.mdl [OPTION VALUE]...     options as mdl run's flags: stop 1 step 0.0125
#include "mdl/compiled_model.hpp"
#include "mdl/simulate.hpp"

#include <charconv>
#include <cstdio>
#include <exception>
#include <string>

int main(int argc, char** argv) {
    if (argc < 2 || argc % 2 != 0) {
        std::fprintf(stderr, "usage: simulate_host MODEL.mdl [OPTION VALUE]...\n");
        return 2;
    }
    try {
        const mdl::CompiledModel model = mdl::compile_file(argv[1]);
        mdl::SimulationSettings settings;
        for (int i = 2; i + 1 < argc; i += 2) {
            mdl::set_setting(settings, argv[i], argv[i + 1]);
        }
        const std::vector<std::string>& columns = mdl::output_layout(model).columns;
        std::string line;
        for (const std::string& column : columns) {
            line += (line.empty() ? "" : ",") + column;
        }
        std::printf("%s\n", line.c_str());
        const mdl::SimulationStatistics stats =
            mdl::simulate(model, settings, [&line](const mdl::OutputRow& row) {
                line.clear();
                for (double value : row.values) {
                    char text[32];
                    const auto end = std::to_chars(text, text + sizeof text, value).ptr;
                    line += line.empty() ? "" : ",";
                    line.append(text, end);
                }
                std::printf("%s\n", line.c_str());
                return true;
            });
        std::fprintf(stderr, "simulate_host: %s\n", stats.summary.c_str());
        return 0;
    } catch (const mdl::CompileError& e) {
        std::fprintf(stderr, "%s", e.what());
        return 1;
    } catch (const mdl::NumericalFailure& e) {
        std::fprintf(stderr, "simulate_host: numerical failure of %s at t = %g in %s: %s\n",
                     e.method().c_str(), e.time(), e.where().c_str(), e.what());
        return 3;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "simulate_host: error: %s\n", e.what());
        return 2;
    }
}
