#include "check/checker_impl.hpp"

#include <cctype>

namespace mdl::check::detail {

namespace {

// What a when-condition and a reinit's value may refer to: everything that changes in time.
Context event_context(const char* place) {
    Context ctx(place);
    ctx.positions = true;
    ctx.velocities = true;
    ctx.states = true;
    ctx.time = true;
    ctx.vibrations = true;
    return ctx;
}

// The source text with every run of blanks made one space: the event's name in the CSV and
// the run summary.
std::string collapsed(std::string_view text) {
    std::string out;
    bool blank = false;
    for (char c : text) {
        if (std::isspace(static_cast<unsigned char>(c))) {
            blank = !out.empty();
            continue;
        }
        if (blank) {
            out += ' ';
            blank = false;
        }
        out += c;
    }
    return out;
}

bool changes_in_time(const Expr& e) {
    bool found = false;
    walk(e, [&](const Expr& x) {
        found = found || x.kind == Expr::Kind::position || x.kind == Expr::Kind::velocity ||
                x.kind == Expr::Kind::state || x.kind == Expr::Kind::time ||
                x.kind == Expr::Kind::vibration;
    });
    return found;
}

} // namespace

void Checker::check_when(const ast::When& w, std::uint32_t clause) {
    for (const ast::WhenBranch& b : w.branches) {
        Event event;
        event.clause = clause;
        event.range = b.condition->range;
        event.name = collapsed(d_.file(b.condition->range.file).slice(b.condition->range));
        // a clause in a loop or a component instantiated twice: the same text, numbered
        const auto same =
            std::count_if(out_.events.begin(), out_.events.end(), [&](const Event& e) {
                return e.name == event.name || e.name.rfind(event.name + " #", 0) == 0;
            });
        if (same > 0) {
            event.name += fmt::format(" #{}", same + 1);
        }
        const auto* relation = b.condition->as<ast::Binary>();
        using Op = ast::BinaryOp;
        if (!relation || !(relation->op == Op::lt || relation->op == Op::le ||
                           relation->op == Op::gt || relation->op == Op::ge)) {
            d_.error(b.condition->range,
                     "a when-condition must be one relation '<', '<=', '>' or '>=' (such as "
                     "'b.y <= 0'); write one when-clause per condition");
            continue;
        }
        const Context ctx = event_context("a when-condition");
        auto lhs = resolve(*relation->lhs, ctx);
        auto rhs = resolve(*relation->rhs, ctx);
        if (!lhs || !rhs) {
            continue;
        }
        // The condition becomes true where the indicator crosses zero from below.
        const bool below = relation->op == Op::lt || relation->op == Op::le;
        event.indicator = below ? binary(Expr::Kind::sub, rhs, lhs, b.condition->range)
                                : binary(Expr::Kind::sub, lhs, rhs, b.condition->range);
        if (!changes_in_time(*event.indicator)) {
            d_.error(b.condition->range,
                     fmt::format("when-condition '{}' depends on nothing that changes (only on "
                                 "parameters and numbers), so it never becomes true during a "
                                 "run; use a position, a velocity, a state, a vibration or "
                                 "'time'",
                                 event.name));
            continue;
        }
        Context value_ctx = event_context("the value of a reinit");
        value_ctx.pre = true;
        for (const ast::Reinit& r : b.reinits) {
            Context target_ctx = event_context("reinit");
            auto target = resolve(*r.target, target_ctx);
            if (!target) {
                continue;
            }
            Reinit out;
            out.range = r.target->range;
            out.target = target->kind;
            out.index = target->index;
            if (target->kind == Expr::Kind::velocity) {
                out.target_name = out_.positions[target->index].velocity_name;
            } else if (target->kind == Expr::Kind::state) {
                out.target_name = out_.states[target->index].name;
            } else if (target->kind == Expr::Kind::position) {
                out.target_name = out_.positions[target->index].name;
                if (!m_.constraints.empty()) {
                    d_.error(r.target->range,
                             fmt::format("reinit of the position '{}' in a model with "
                                         "constraints: a jump in position would leave the "
                                         "constraints; reinit a velocity instead",
                                         out.target_name));
                    continue;
                }
            } else {
                d_.error(r.target->range,
                         "reinit takes a velocity (der(q), b.vx), a position or a first-order "
                         "state, not an expression");
                continue;
            }
            for (const Reinit& earlier : event.reinits) {
                if (earlier.target == out.target && earlier.index == out.index) {
                    d_.error(r.target->range, fmt::format("a second reinit of '{}' in the same "
                                                          "branch",
                                                          out.target_name));
                    d_.note(earlier.range, "the first one is here");
                }
            }
            out.value = resolve(*r.value, value_ctx);
            if (out.value) {
                event.reinits.push_back(std::move(out));
            }
        }
        event.terminate = b.terminate;
        if (b.reinits.empty() && !b.terminate) {
            d_.warning(b.range, fmt::format("when '{}' does nothing: add 'reinit(v, e);' or "
                                            "'terminate(\"...\");'",
                                            event.name));
        }
        out_.events.push_back(std::move(event));
    }
}

ExprPtr Checker::resolve_pre(const ast::Call& c, Range range, const Context& ctx) {
    if (!ctx.pre) {
        d_.error(c.callee.range, "pre(x) may appear only in the value of a reinit, inside a "
                                 "when-clause");
        return nullptr;
    }
    if (c.args.size() != 1) {
        d_.error(c.callee.range, fmt::format("'pre' takes 1 argument, got {}", c.args.size()));
        return nullptr;
    }
    auto arg = resolve(*c.args[0], ctx);
    if (!arg) {
        return nullptr;
    }
    if (arg->kind != Expr::Kind::position && arg->kind != Expr::Kind::velocity &&
        arg->kind != Expr::Kind::state) {
        d_.error(c.args[0]->range, "pre() takes a position, a velocity or a first-order state");
        return nullptr;
    }
    (void)range;
    return arg; // at the event the value before it: reinit values see the state before any jump
}

} // namespace mdl::check::detail
