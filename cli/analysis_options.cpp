#include "analysis_options.hpp"

#include "exit_status.hpp"
#include "mdl/simulate.hpp"
#include "runtime/numerical_failure.hpp"

#include <fmt/format.h>
#include <iostream>
#include <stdexcept>

namespace mdl::cli {

CompiledModel compile_with_parameters(const std::string& file,
                                      const std::vector<std::pair<std::string, double>>& values,
                                      const std::vector<std::string>& texts,
                                      const std::vector<std::string>& library, bool no_cache) {
    CompileOptions options;
    options.structural_parameters = values;
    options.library_paths = library;
    options.disk_cache = !no_cache;
    CompiledModel compiled = compile_file(file, options);
    for (std::size_t i = 0; i < values.size(); ++i) {
        try {
            compiled.set_parameter(values[i].first, values[i].second);
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument(fmt::format("-p {}: {}", texts[i], e.what()));
        }
    }
    return compiled;
}

std::string format_complex(std::complex<double> mu) {
    if (mu.imag() == 0.0) {
        return fmt::format("{:.10g}", mu.real());
    }
    return fmt::format("{:.10g} {} {:.10g}i", mu.real(), mu.imag() < 0 ? '-' : '+',
                       std::abs(mu.imag()));
}

int run_reporting(const std::string& command, const std::function<int()>& body) {
    try {
        return body();
    } catch (const CompileError& e) {
        std::cerr << e.what();
        return exit_status::model_error;
    } catch (const NumericalFailure& e) {
        std::cerr << fmt::format("mdl: error: {}\n", e.what());
        return exit_status::numerical_failure;
    } catch (const WriteFailure& e) {
        std::cerr << fmt::format("mdl {}: error: {}\n", command, e.what());
        return exit_status::output_failed;
    } catch (const std::invalid_argument& e) {
        std::cerr << fmt::format("mdl {}: error: {}\n", command, e.what());
        return exit_status::bad_input;
    }
}

} // namespace mdl::cli
