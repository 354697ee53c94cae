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

// An event's name unique among `events`: a clause in a loop or a component instantiated twice
// has the same text, numbered "#2", "#3", ...
std::string unique_name(const std::vector<Event>& events, std::string name) {
    const auto same = std::count_if(events.begin(), events.end(), [&](const Event& e) {
        return e.name == name || e.name.rfind(name + " #", 0) == 0;
    });
    if (same > 0) {
        name += fmt::format(" #{}", same + 1);
    }
    return name;
}

ExprPtr call(Function f, std::vector<ExprPtr> args, Range range) {
    auto e = std::make_shared<Expr>();
    e->kind = Expr::Kind::call;
    e->function = f;
    e->args = std::move(args);
    e->range = range;
    return e;
}

bool is_zero(const ExprPtr& e) {
    return e->kind == Expr::Kind::number && e->value == 0.0;
}

} // namespace

ExprPtr Checker::time_derivative(const ExprPtr& e) {
    using K = Expr::Kind;
    const Range r = e->range;
    const auto d = [&](std::size_t i) {
        return time_derivative(e->args[i]);
    };
    const auto mul = [&](ExprPtr a, ExprPtr b) {
        if (is_zero(a) || is_zero(b)) {
            return number(0.0, r);
        }
        return binary(K::mul, std::move(a), std::move(b), r);
    };
    switch (e->kind) {
    case K::number:
    case K::parameter:
    case K::compare: // piecewise constant
        return number(0.0, r);
    case K::time:
        return number(1.0, r);
    case K::negate: {
        auto a = d(0);
        if (!a) {
            return nullptr;
        }
        auto out = std::make_shared<Expr>();
        out->kind = K::negate;
        out->args = {a};
        out->range = r;
        return out;
    }
    case K::add:
    case K::sub: {
        auto a = d(0), b = d(1);
        return a && b ? binary(e->kind, a, b, r) : nullptr;
    }
    case K::mul: { // (u v)' = u' v + u v'
        auto a = d(0), b = d(1);
        return a && b ? binary(K::add, mul(a, e->args[1]), mul(e->args[0], b), r) : nullptr;
    }
    case K::div: { // (u/v)' = u'/v - u v'/v^2
        auto a = d(0), b = d(1);
        if (!a || !b) {
            return nullptr;
        }
        auto first = binary(K::div, a, e->args[1], r);
        auto second =
            binary(K::div, mul(e->args[0], b), binary(K::mul, e->args[1], e->args[1], r), r);
        return binary(K::sub, first, second, r);
    }
    case K::pow: { // u^c: c u^(c - 1) u', for an exponent constant in time
        auto a = d(0), b = d(1);
        if (!a || !b) {
            return nullptr;
        }
        if (!is_zero(b)) {
            d_.error(e->args[1]->range, "the exponent of a power in an impact's surface may not "
                                        "depend on time; write a when-clause with its reinit");
            return nullptr;
        }
        auto reduced = binary(K::sub, e->args[1], number(1.0, r), r);
        return mul(binary(K::mul, e->args[1], binary(K::pow, e->args[0], reduced, r), r), a);
    }
    case K::select: { // piecewise: the derivative of the branch taken
        auto a = d(1), b = d(2);
        if (!a || !b) {
            return nullptr;
        }
        auto out = std::make_shared<Expr>(*e);
        out->args = {e->args[0], a, b};
        return out;
    }
    case K::call: {
        if (e->args.size() != 1) {
            break;
        }
        auto a = d(0);
        if (!a) {
            return nullptr;
        }
        const ExprPtr& u = e->args[0];
        switch (e->function) {
        case Function::sin:
            return mul(call(Function::cos, {u}, r), a);
        case Function::cos: {
            auto minus = std::make_shared<Expr>();
            minus->kind = K::negate;
            minus->args = {call(Function::sin, {u}, r)};
            minus->range = r;
            return mul(minus, a);
        }
        case Function::exp:
            return mul(e, a);
        case Function::sqrt:
            return mul(binary(K::div, number(0.5, r), e, r), a);
        case Function::sinh:
            return mul(call(Function::cosh, {u}, r), a);
        case Function::cosh:
            return mul(call(Function::sinh, {u}, r), a);
        case Function::log:
            return mul(binary(K::div, number(1.0, r), u, r), a);
        default:
            break;
        }
        if (is_zero(a)) {
            return a;
        }
        break;
    }
    default:
        break;
    }
    d_.error(r, "an impact's surface may use numbers, parameters, time, + - * / ^ and sin, cos, "
                "exp, log, sqrt, sinh, cosh of time; this part has no time derivative here; "
                "write a when-clause with its reinit");
    return nullptr;
}

void Checker::check_impact(const ast::WhenBranch& b, std::uint32_t clause) {
    Event event;
    event.clause = clause;
    event.range = b.condition->range;
    event.name = unique_name(out_.events, b.impact->name.text);
    const auto* relation = b.condition->as<ast::Binary>();
    using Op = ast::BinaryOp;
    if (!relation || !(relation->op == Op::lt || relation->op == Op::le || relation->op == Op::gt ||
                       relation->op == Op::ge)) {
        d_.error(b.condition->range,
                 "an impact needs one relation between a position and a surface, the side the "
                 "position keeps (such as 'b.y >= s')");
        return;
    }
    // the position: the side that resolves to a position
    Context side_ctx = event_context("an impact");
    auto lhs = resolve(*relation->lhs, side_ctx);
    if (!lhs) {
        return;
    }
    const bool position_left = lhs->kind == Expr::Kind::position;
    const ast::Expr& surface_ast = position_left ? *relation->rhs : *relation->lhs;
    ExprPtr position = lhs;
    if (!position_left) {
        position = resolve(*relation->rhs, side_ctx);
        if (!position) {
            return;
        }
        if (position->kind != Expr::Kind::position) {
            d_.error(b.condition->range,
                     "an impact needs a position (b.y, q) alone on one side of its relation");
            return;
        }
    }
    Context surface_ctx("the surface of an impact");
    surface_ctx.time = true;
    auto surface = resolve(surface_ast, surface_ctx);
    if (!surface) {
        return;
    }
    // `q >= s` (or `s <= q`): q stays above s, the impact fires when q <= s
    const bool keeps_above = position_left == (relation->op == Op::gt || relation->op == Op::ge);
    event.indicator = keeps_above ? binary(Expr::Kind::sub, surface, position, b.condition->range)
                                  : binary(Expr::Kind::sub, position, surface, b.condition->range);
    Context value_ctx = event_context("the restitution of an impact");
    auto restitution = resolve(*b.impact->restitution, value_ctx);
    auto rate = time_derivative(surface);
    if (!restitution || !rate) {
        return;
    }
    // v+ = s' - e (v- - s'): the velocity relative to the surface reversed and scaled by e
    const Range r = b.condition->range;
    auto velocity = make(Expr::Kind::velocity, r, position->index);
    Reinit reinit;
    reinit.range = r;
    reinit.target = Expr::Kind::velocity;
    reinit.index = position->index;
    reinit.target_name = out_.positions[position->index].velocity_name;
    reinit.value = binary(
        Expr::Kind::sub, rate,
        binary(Expr::Kind::mul, restitution, binary(Expr::Kind::sub, velocity, rate, r), r), r);
    event.reinits.push_back(std::move(reinit));
    out_.events.push_back(std::move(event));
}

void Checker::check_when(const ast::When& w, std::uint32_t clause) {
    for (const ast::WhenBranch& b : w.branches) {
        if (b.impact) {
            check_impact(b, clause);
            continue;
        }
        Event event;
        event.clause = clause;
        event.range = b.condition->range;
        event.name = unique_name(
            out_.events, collapsed(d_.file(b.condition->range.file).slice(b.condition->range)));
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
