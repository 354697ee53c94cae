// The termination argument of the simplification rules (simplify.cpp, "One measure"), checked:
// every call of a canonicalizing constructor that another constructor makes while it runs (a
// rule's recursive call) has a smaller measure (W, D, S) than the call that made it. The
// measure is the one written beside the rules, computed here from the nodes alone (not by
// the rules), on the constructor calls that the compiler makes for random well-formed models
// (support/random_model.hpp), watched through symbolic/rule_trace.hpp. MDL_RANDOM_MODELS=N
// checks N models instead of 150.
#include "check/front_end.hpp"
#include "random_model.hpp"
#include "symbolic/equations_of_motion.hpp"
#include "symbolic/print.hpp"
#include "symbolic/rule_trace.hpp"
#include "symbolic/simplify.hpp"

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstdlib>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

using namespace mdl::symbolic;

// The measure of a constructor call op(args): (weight, defects), ordered lexicographically
// (simplify.cpp, "Termination").
struct Measure {
    double weight = 0;
    int defects = 0;
    double size = 0;
    friend bool operator<(const Measure& a, const Measure& b) {
        if (a.weight != b.weight) {
            return a.weight < b.weight;
        }
        if (a.defects != b.defects) {
            return a.defects < b.defects;
        }
        return a.size < b.size;
    }
};

bool is_half_integer(double e) {
    return !is_integer(e) && is_integer(2.0 * e);
}

bool is_func(const ExprPool& pool, ExprId e, Func f) {
    return pool.op(e) == Op::call && static_cast<Func>(pool.node(e).tag) == f;
}

class MeasureCheck : public RuleTrace {
public:
    struct Violation {
        std::string caller, callee;
        Measure outer, inner;
    };

    void enter(const ExprPool& pool, Op op, std::uint8_t tag,
               std::span<const ExprId> args) override {
        if (&pool != pool_) {
            pool_ = &pool;
            weights_.clear();
            sizes_.clear();
        }
        Frame frame{measure(pool, op, tag, args), op, tag, {args.begin(), args.end()}};
        if (!stack_.empty()) {
            ++checked_;
            const Frame& outer = stack_.back();
            if (!(frame.measure < outer.measure)) {
                ++failures_;
                const std::string kind = kind_name(outer) + " -> " + kind_name(frame);
                if (kinds_[kind]++ == 0 && examples_.size() < 40) {
                    examples_.push_back({describe(pool, outer), describe(pool, frame),
                                         outer.measure, frame.measure});
                }
            }
        }
        stack_.push_back(std::move(frame));
    }
    void leave() override { stack_.pop_back(); }

    std::size_t checked() const { return checked_; }
    std::size_t failures() const { return failures_; }
    const std::vector<Violation>& examples() const { return examples_; }
    void forget_pool() {
        pool_ = nullptr;
        weights_.clear();
        sizes_.clear();
    }

private:
    struct Frame {
        Measure measure;
        Op op;
        std::uint8_t tag;
        std::vector<ExprId> args;
    };

    // W: the weight of an expression as a tree (simplify.cpp, "One measure").
    double weight(ExprId e) {
        if (auto at = weights_.find(e.index); at != weights_.end()) {
            return at->second;
        }
        const ExprPool& pool = *pool_;
        const auto kids = pool.children(e);
        const std::vector<ExprId> children(kids.begin(), kids.end());
        const double w = node_weight(pool, pool.op(e), pool.node(e).tag, children);
        weights_.emplace(e.index, w);
        return w;
    }

    double node_weight(const ExprPool& pool, Op op, std::uint8_t tag,
                       std::span<const ExprId> children) {
        switch (op) {
        case Op::constant:
            return 0.0;
        case Op::variable:
            return 1.0;
        case Op::mul: {
            double w = 0.0;
            int variable_factors = 0;
            for (ExprId c : children) {
                w += weight(c);
                variable_factors += pool.is_constant(c) ? 0 : 1;
            }
            return w + (variable_factors >= 2 ? 1.0 : 0.0);
        }
        case Op::pow: {
            const bool fractional =
                pool.is_constant(children[1]) && !is_integer(pool.constant_value(children[1]));
            double factors = 0.0; // of a product raised to a power
            if (pool.op(children[0]) == Op::mul) {
                for (ExprId f : pool.children(children[0])) {
                    factors += pool.is_constant(f) ? 0.0 : 1.0;
                }
            }
            return 1.0 + weight(children[0]) + weight(children[1]) + (fractional ? 1.0 : 0.0) +
                   factors;
        }
        case Op::call:
            if (static_cast<Func>(tag) == Func::pow) { // a call of pow: one more than the power
                return 1.0 + node_weight(pool, Op::pow, 0, children);
            }
            if (static_cast<Func>(tag) == Func::sqrt || static_cast<Func>(tag) == Func::abs) {
                // as a power (b^0.5, |b|^2 = b^2), counting the factors of a product b
                return node_weight(pool, Op::pow, 0, std::array{children[0], pool.one()});
            }
            [[fallthrough]];
        default: {
            double w = 1.0;
            for (ExprId c : children) {
                w += weight(c);
            }
            return w;
        }
        }
    }

    // The defects of op(args): forms at its root that a rule rewrites without lowering the
    // weight (the arguments themselves are canonical), each with its weight.
    static int defects(const ExprPool& pool, Op op, std::uint8_t tag,
                       std::span<const ExprId> args) {
        int d = 0;
        const auto negative_sum = [&](ExprId e) {
            return pool.op(e) == Op::add && is_negative_form(pool, e);
        };
        switch (op) {
        case Op::add: {
            // a sum that is a factor of two or more terms (grouped)
            std::map<std::uint32_t, int> sums;
            for (ExprId t : args) {
                if (pool.op(t) == Op::mul) {
                    for (ExprId f : pool.children(t)) {
                        if (pool.op(f) == Op::add && ++sums[f.index] == 2) {
                            ++d;
                        }
                    }
                }
            }
            break;
        }
        case Op::mul: {
            int variable = 0;
            bool coefficient = false, sum = false;
            for (ExprId f : args) {
                coefficient = coefficient || pool.is_constant(f);
                variable += pool.is_constant(f) ? 0 : 1;
                sum = sum || pool.op(f) == Op::add;
                // a sum in negative form (sign-normalized), also raised to an integer power
                const ExprId base =
                    pool.op(f) == Op::pow && integer_exponent(pool, f) ? pool.children(f)[0] : f;
                d += negative_sum(base) ? 1 : 0;
            }
            d += coefficient && variable == 1 && sum ? 1 : 0; // c*(a + b): distributed
            break;
        }
        case Op::pow: {
            const ExprId base = args[0], exponent = args[1];
            if (!pool.is_constant(exponent)) {
                d += pool.op(base) == Op::pow || is_func(pool, base, Func::exp) ? 1 : 0;
                break;
            }
            const double e = pool.constant_value(exponent);
            const bool even = is_integer(e) && std::fmod(e, 2.0) == 0.0;
            d += is_half_integer(e) ? 1 : 0;
            if (pool.op(base) == Op::pow) { // (x^a)^e -> x^(a e), (x^2k)^e -> |x|^(2k e)
                const ExprId a = pool.children(base)[1];
                const bool whole = pool.is_constant(a) && is_integer(pool.constant_value(a));
                const bool even_a = whole && std::fmod(pool.constant_value(a), 2.0) == 0.0;
                d += (whole && is_integer(e)) || even_a ||
                             is_known_positive(pool, pool.children(base)[0])
                         ? 1
                         : 0;
            }
            d += pool.op(base) == Op::mul ? 2 : 0;
            d += is_integer(e) && negative_sum(base) ? 1 : 0;
            d += is_func(pool, base, Func::exp) ? 1 : 0;
            // |x|^2k -> x^2k; sqrt(u)^2k -> u^k where u >= 0 is known
            d += even && is_func(pool, base, Func::abs) ? 1 : 0;
            d += even && is_func(pool, base, Func::sqrt) &&
                         is_known_nonnegative(pool, pool.children(base)[0])
                     ? 1
                     : 0;
            break;
        }
        case Op::call: {
            const Func f = static_cast<Func>(tag);
            d += f == Func::pow ? 1 : 0;
            if (args.size() == 1) {
                const ExprId a = args[0];
                d += is_negative_form(pool, a) ? 1 : 0;
                // sqrt(x^2k) -> |x|^k, |x^(2k+1)| -> |x|^(2k+1), |c*x| -> |c|*|x|
                if ((f == Func::sqrt || f == Func::abs) &&
                    (pool.op(a) == Op::pow || pool.op(a) == Op::mul)) {
                    d += 2;
                }
            }
            break;
        }
        default:
            break;
        }
        return d;
    }

    // The size of an expression as a tree, every node counted.
    double size(ExprId e) {
        if (auto at = sizes_.find(e.index); at != sizes_.end()) {
            return at->second;
        }
        double n = 1.0;
        for (ExprId c : pool_->children(e)) {
            n += size(c);
        }
        sizes_.emplace(e.index, n);
        return n;
    }

    Measure measure(const ExprPool& pool, Op op, std::uint8_t tag, std::span<const ExprId> args) {
        double n = 1.0;
        for (ExprId a : args) {
            n += size(a);
        }
        return {node_weight(pool, op, tag, args), defects(pool, op, tag, args), n};
    }

    static std::string describe(const ExprPool& pool, const Frame& f) {
        std::string text = std::string(op_name(f.op)) + "(";
        if (f.op == Op::call) {
            text = std::string(function_name(static_cast<Func>(f.tag))) + "(";
        }
        for (std::size_t i = 0; i < f.args.size(); ++i) {
            text += (i ? ", " : "") + to_string(pool, f.args[i]);
        }
        return text + ")";
    }
    static std::string kind_name(const Frame& f) {
        return f.op == Op::call ? std::string(function_name(static_cast<Func>(f.tag)))
                                : std::string(op_name(f.op));
    }
    static const char* op_name(Op op) {
        switch (op) {
        case Op::add:
            return "add";
        case Op::mul:
            return "mul";
        case Op::pow:
            return "pow";
        case Op::compare:
            return "compare";
        case Op::select:
            return "select";
        default:
            return "?";
        }
    }

    const ExprPool* pool_ = nullptr;
    std::unordered_map<std::uint32_t, double> weights_, sizes_;
    std::vector<Frame> stack_;
    std::size_t checked_ = 0, failures_ = 0;
    std::vector<Violation> examples_;
    std::map<std::string, std::size_t> kinds_;

public:
    const std::map<std::string, std::size_t>& kinds() const { return kinds_; }
};

std::size_t model_count() {
    if (const char* n = std::getenv("MDL_RANDOM_MODELS")) {
        return static_cast<std::size_t>(std::strtoul(n, nullptr, 10));
    }
    return 150;
}

} // namespace

TEST_CASE("every recursive call of the simplification rules lowers the termination measure") {
    MeasureCheck check;
    rule_trace() = &check;
    std::size_t systems = 0;
    for (std::uint64_t seed = 1; seed <= model_count(); ++seed) {
        const auto generated = mdl::test::random_model(seed);
        const std::string name = "random" + std::to_string(seed) + ".mdl";
        mdl::source::SourceFile file(name, generated.text);
        mdl::source::Diagnostics diagnostics(file);
        check.forget_pool();
        try {
            auto checked = mdl::check::check_file(file, diagnostics);
            if (checked) {
                (void)equations_of_motion(*checked);
                ++systems;
            }
        } catch (const std::exception&) {
            // a refused model (random_model_test checks how); its calls so far were checked
        }
    }
    rule_trace() = nullptr;
    WARN(systems << " systems, " << check.checked() << " recursive constructor calls checked, "
                 << check.failures() << " without a smaller measure");
    CHECK(systems > model_count() / 2);
    CHECK(check.checked() > 10000); // the rules did run
    for (const auto& [kind, count] : check.kinds()) {
        UNSCOPED_INFO(kind << ": " << count);
    }
    for (const auto& v : check.examples()) {
        UNSCOPED_INFO(v.caller << " [" << v.outer.weight << ", " << v.outer.defects << ", "
                               << v.outer.size << "] calls " << v.callee << " [" << v.inner.weight
                               << ", " << v.inner.defects << ", " << v.inner.size << "]");
    }
    CHECK(check.failures() == 0);
}
