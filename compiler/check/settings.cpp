#include "check/checker_impl.hpp"

namespace mdl::check::detail {

void Checker::check_annotation(const ast::Annotation& a) {
    for (const auto& m : a.modifiers) {
        if (m.name.text != "experiment" || !m.nested) {
            d_.warning(m.name.range, fmt::format("ignoring annotation '{}'; mdl reads "
                                                 "'experiment(...)'",
                                                 m.name.text));
            continue;
        }
        for (const auto& s : m.children) {
            check_setting(s);
        }
    }
}

void Checker::check_setting(const ast::Modifier& s) {
    const std::string& key = s.name.text;
    bool numeric =
        std::find(numeric_settings.begin(), numeric_settings.end(), key) != numeric_settings.end();
    bool text = std::find(text_settings.begin(), text_settings.end(), key) != text_settings.end();
    if (!numeric && !text) {
        std::vector<std::string> all = numeric_settings;
        all.insert(all.end(), text_settings.begin(), text_settings.end());
        d_.warning(s.name.range, fmt::format("ignoring unknown experiment setting '{}'{}", key,
                                             did_you_mean(key, all)));
        return;
    }
    if (s.nested || (text && !s.text) || (numeric && !s.value)) {
        d_.error(s.range, fmt::format("experiment setting '{}' takes {}", key,
                                      text ? "a string, e.g. \"hmm\"" : "a number"));
        return;
    }
    if (out_.experiment.count(key)) {
        d_.error(s.name.range, fmt::format("experiment setting '{}' given twice", key));
        return;
    }
    ExperimentSetting setting;
    setting.range = s.range;
    if (text) {
        setting.is_text = true;
        setting.text = *s.text;
    } else {
        setting.value = resolve(*s.value, parameter_context("an experiment setting"));
        if (!setting.value) {
            return;
        }
    }
    out_.experiment.emplace(key, std::move(setting));
}

void Checker::collect_fast_scales() {
    out_.fast_scales = fast_scales(out_, out_.default_parameters());
}

} // namespace mdl::check::detail
