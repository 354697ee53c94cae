#include "compiler/api/method_applicability.hpp"

#include "compiler/api/runtime_view.hpp"
#include "runtime/multiscale/applicability.hpp"

#include <fmt/format.h>

#include <string>

namespace mdl {

namespace ms = runtime::multiscale;

namespace {

MethodVerdict hmm_verdict(const CompiledModel& compiled, const runtime::Model& model,
                          ms::HmmMacro macro) {
    ms::HmmOptions o;
    o.macro = macro;
    o.algorithm = ms::parse_hmm_algorithm(compiled.text_setting("algorithm", "async"));
    o.filter = ms::parse_filter_kind(compiled.text_setting("filter", "simple"));
    o.period = compiled.number_setting("period", 0.0);
    o.force_even_in_phase = compiled.force_even_in_all_phases();
    const std::string method(ms::to_string(macro));
    const std::string settings =
        fmt::format("{}, {} filter", ms::to_string(o.algorithm), ms::to_string(o.filter));
    const ms::Applicability verdict = ms::hmm_applicability(model, o);
    if (verdict.applies) {
        if (o.filter == ms::FilterKind::simple && !model.constrained() &&
            model.velocity_dependent()) {
            // runtime/multiscale/hmm.hpp, HmmOptions::offset_correction
            return {method, true,
                    settings + "; the force depends on the velocity (" +
                        (model.mass_constant_diagonal() ? std::string("der() in a force")
                                                        : std::string("M(q)")) +
                        "): the simple filter leaves an O(1/omega) error that a sensitive slow "
                        "motion amplifies, --filter spline reduces it to O(1/omega^2)"};
        }
        return {method, true, settings};
    }
    if (o.filter == ms::FilterKind::simple) {
        // the exponential kernel may still apply: say so
        ms::HmmOptions exp = o;
        exp.filter = ms::FilterKind::exponential;
        if (ms::hmm_applicability(model, exp).applies) {
            return {method, true,
                    fmt::format("with --filter exp only ({} with the simple filter: {})", settings,
                                verdict.reason)};
        }
    }
    return {method, false, verdict.reason};
}

} // namespace

std::vector<MethodVerdict> multiscale_verdicts(const CompiledModel& compiled) {
    const runtime::Model model = runtime_model(compiled);
    std::vector<MethodVerdict> out;
    if (model.constrained()) {
        out.push_back(hmm_verdict(compiled, model, ms::HmmMacro::shake));
        out.push_back(hmm_verdict(compiled, model, ms::HmmMacro::rattle));
    } else {
        out.push_back(hmm_verdict(compiled, model, ms::HmmMacro::verlet));
    }
    ms::StroboscopicOptions strobo;
    strobo.period = compiled.number_setting("period", 0.0);
    const ms::Applicability s = ms::strobo_applicability(model, strobo);
    out.push_back({"strobo", s.applies, s.applies ? "period map of the whole model" : s.reason});
    ms::Applicability stiff = ms::stiff_hmm_applicability(model);
    bool fast_spring = false;
    for (const FastScale& scale : compiled.fast_scales()) {
        fast_spring = fast_spring || scale.source.rfind("spring", 0) == 0;
    }
    if (stiff.applies && !fast_spring) {
        stiff = {false, "no spring is marked `fast` (give the fast frequency with --omega, or "
                        "relax constraints with --relax-constraints OMEGA)"};
    }
    out.push_back(
        {"hmm-stiff", stiff.applies, stiff.applies ? "stiff springs marked `fast`" : stiff.reason});
    return out;
}

} // namespace mdl
