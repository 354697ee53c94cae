#include "check/checker_impl.hpp"

namespace mdl::check::detail {

void Checker::check_parameters() {
    const std::size_t n = m_.parameters.size();
    std::vector<std::vector<std::uint32_t>> deps(n);
    for (std::size_t i = 0; i < n; ++i) {
        const ast::Parameter& p = m_.parameters[i];
        if (p.type.text != "Real") {
            d_.error(p.type.range, fmt::format("unknown type '{}'; parameters are 'Real' or "
                                               "'Integer'",
                                               p.type.text));
        }
        if (!p.value) {
            d_.error(p.name.range, fmt::format("parameter '{}' has no value; write '{} = "
                                               "...'",
                                               p.name.text, p.name.text));
            continue;
        }
        Context ctx("a parameter's value");
        ctx.body_masses = false; // masses are defined by parameters, not the other way
        auto value = resolve(*p.value, ctx);
        if (!value) {
            continue;
        }
        walk(*value, [&](const Expr& x) {
            if (x.kind == Expr::Kind::parameter) {
                deps[i].push_back(x.index);
            }
        });
        out_.parameters[i].value = value;
    }
    // Dependency order by depth-first search; a back edge is a cycle.
    std::vector<int> state(n, 0); // 0 new, 1 on the stack, 2 done
    std::vector<std::uint32_t> stack;
    std::function<bool(std::uint32_t)> visit = [&](std::uint32_t i) {
        if (state[i] == 2) {
            return true;
        }
        if (state[i] == 1) {
            auto from = std::find(stack.begin(), stack.end(), i);
            std::string path;
            for (auto it = from; it != stack.end(); ++it) {
                path += m_.parameters[*it].name.text + " -> ";
            }
            path += m_.parameters[i].name.text;
            d_.error(m_.parameters[i].name.range,
                     fmt::format("parameter '{}' depends on itself: {}", m_.parameters[i].name.text,
                                 path));
            return false;
        }
        state[i] = 1;
        stack.push_back(i);
        bool ok = true;
        for (std::uint32_t d : deps[i]) {
            ok = visit(d) && ok;
            if (!ok) {
                break;
            }
        }
        stack.pop_back();
        state[i] = 2;
        if (ok) {
            out_.parameter_order.push_back(i);
        }
        return ok;
    };
    bool acyclic = true;
    for (std::uint32_t i = 0; i < n; ++i) {
        if (state[i] == 0) {
            acyclic = visit(i) && acyclic;
        }
    }
    if (!acyclic) {
        return;
    }
    std::vector<double> values(n, 0.0);
    for (std::uint32_t i : out_.parameter_order) {
        Parameter& p = out_.parameters[i];
        if (!p.value) {
            continue;
        }
        values[i] = evaluate(*p.value, Values(values));
        p.default_value = values[i];
        if (!std::isfinite(values[i])) {
            d_.error(m_.parameters[i].value->range,
                     fmt::format("parameter '{}' evaluates to {}", p.name,
                                 std::isnan(values[i]) ? "NaN (not a number)" : "infinity"));
        }
    }
}

} // namespace mdl::check::detail
