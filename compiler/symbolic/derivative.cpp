#include "symbolic/derivative.hpp"

#include <vector>

namespace mdl::symbolic {

namespace {

// f'(u) for a one-argument built-in, given the call node `self` = f(u).
ExprId outer_derivative(ExprPool& pool, Func f, ExprId self, ExprId u) {
    const ExprId two = pool.constant(2.0);
    // 1 - u^2 as (1 - u)(1 + u): near |u| = 1, where asin' and acos' are large, 1 - u is exact
    // (Sterbenz) while 1 - u^2 keeps only the absolute error of u^2, eps: at u = 1 - 1e-7 the
    // derivative lost 9 of its 16 digits (found by the random model test).
    const auto one_minus_u_squared = [&] {
        return pool.mul(pool.sub(pool.one(), u), pool.add(pool.one(), u));
    };
    switch (f) {
    case Func::sin:
        return pool.call(Func::cos, u);
    case Func::cos:
        return pool.neg(pool.call(Func::sin, u));
    case Func::tan:
        return pool.add(pool.one(), pool.pow(self, two));
    case Func::exp:
        return self;
    case Func::log:
        return pool.pow(u, pool.minus_one());
    case Func::sqrt:
        return pool.mul(pool.constant(0.5), pool.pow(self, pool.minus_one()));
    case Func::abs:
        return pool.call(Func::sign, u);
    case Func::sign:
        return pool.zero();
    case Func::sinh:
        return pool.call(Func::cosh, u);
    case Func::cosh:
        return pool.call(Func::sinh, u);
    case Func::tanh:
        // cosh(u)^-2, not 1 - tanh(u)^2: for |u| > 10 the latter cancels to a few correct
        // digits and then to 0 (tanh(u) rounds to 1), a force that vanishes too early.
        return pool.pow(pool.call(Func::cosh, u), pool.constant(-2.0));
    case Func::asin:
        return pool.pow(one_minus_u_squared(), pool.constant(-0.5));
    case Func::acos:
        return pool.neg(pool.pow(one_minus_u_squared(), pool.constant(-0.5)));
    case Func::atan:
        return pool.pow(pool.add(pool.one(), pool.pow(u, two)), pool.minus_one());
    case Func::atan2:
    case Func::pow:
        break;
    }
    return pool.zero(); // two-argument functions are handled by the caller
}

} // namespace

std::vector<ExprId> differentiate(ExprPool& pool, std::span<const ExprId> roots, Variable wrt) {
    const std::vector<ExprId> order = reachable_in_order(pool, roots);
    const ExprId zero = pool.zero();
    std::vector<ExprId> d(order.empty() ? 0 : order.back().index + 1, zero);
    // The nodes whose derivative is needed: not those reached only through conditions (the
    // operands of a comparison, a select's condition), whose derivatives would be built for
    // nothing. Parents before children: one descending sweep.
    std::vector<std::uint8_t> needed(d.size(), 0);
    for (ExprId r : roots) {
        needed[r.index] = 1;
    }
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const Op op = pool.op(*it);
        if (needed[it->index] == 0 || op == Op::compare) {
            continue;
        }
        const auto c = pool.children(*it);
        for (std::size_t i = op == Op::select ? 1 : 0; i < c.size(); ++i) {
            needed[c[i].index] = 1;
        }
    }
    std::vector<ExprId> kids;
    std::vector<ExprId> terms;
    std::vector<ExprId> factors;
    for (ExprId id : order) {
        const Node n = pool.node(id);
        if (n.op == Op::constant || needed[id.index] == 0) {
            continue;
        }
        if (n.op == Op::variable) {
            d[id.index] = pool.variable_of(id) == wrt ? pool.one() : zero;
            continue;
        }
        if (n.op == Op::compare) {
            continue; // piecewise constant: 0 (away from where it switches)
        }
        const auto c = pool.children(id);
        kids.assign(c.begin(), c.end());
        bool any = false;
        // A select's condition only picks a branch: the derivative is the picked branch's.
        for (std::size_t i = n.op == Op::select ? 1 : 0; i < kids.size(); ++i) {
            any = any || d[kids[i].index] != zero;
        }
        if (!any) {
            continue; // independent of wrt
        }
        switch (n.op) {
        case Op::add:
            terms.clear();
            for (ExprId k : kids) {
                terms.push_back(d[k.index]);
            }
            d[id.index] = pool.add(terms);
            break;
        case Op::mul:
            // Product rule: sum over factors i of (the other factors) * d factor_i.
            terms.clear();
            for (std::size_t i = 0; i < kids.size(); ++i) {
                if (d[kids[i].index] == zero) {
                    continue;
                }
                factors.clear();
                for (std::size_t j = 0; j < kids.size(); ++j) {
                    factors.push_back(j == i ? d[kids[i].index] : kids[j]);
                }
                terms.push_back(pool.mul(factors));
            }
            d[id.index] = pool.add(terms);
            break;
        case Op::pow: {
            const ExprId u = kids[0];
            const ExprId w = kids[1];
            const ExprId du = d[u.index];
            const ExprId dw = d[w.index];
            terms.clear();
            if (du != zero) {
                // w * u^(w-1) * u'
                const ExprId w_minus_1 = pool.sub(w, pool.one());
                const ExprId parts[] = {w, pool.pow(u, w_minus_1), du};
                terms.push_back(pool.mul(parts));
            }
            if (dw != zero) {
                // u^w * log(u) * w'
                const ExprId parts[] = {id, pool.call(Func::log, u), dw};
                terms.push_back(pool.mul(parts));
            }
            d[id.index] = pool.add(terms);
            break;
        }
        case Op::call: {
            const auto f = static_cast<Func>(n.tag);
            if (f == Func::atan2) {
                // d atan2(y, x) = (x dy - y dx) / (x^2 + y^2)
                const ExprId y = kids[0];
                const ExprId x = kids[1];
                const ExprId two = pool.constant(2.0);
                const ExprId numerator = pool.sub(pool.mul(x, d[y.index]), pool.mul(y, d[x.index]));
                const ExprId denominator = pool.add(pool.pow(x, two), pool.pow(y, two));
                d[id.index] = pool.div(numerator, denominator);
            } else {
                const ExprId u = kids[0];
                d[id.index] = pool.mul(outer_derivative(pool, f, id, u), d[u.index]);
            }
            break;
        }
        case Op::select:
            // d/dx (if c then a else b) = if c then da/dx else db/dx, on either side of the
            // switching surface (where the select itself jumps, it has no derivative).
            d[id.index] = pool.select(kids[0], d[kids[1].index], d[kids[2].index]);
            break;
        case Op::constant:
        case Op::variable:
        case Op::compare:
            break;
        }
    }
    std::vector<ExprId> result;
    result.reserve(roots.size());
    for (ExprId r : roots) {
        result.push_back(d[r.index]);
    }
    return result;
}

ExprId differentiate(ExprPool& pool, ExprId root, Variable wrt) {
    const ExprId roots[] = {root};
    return differentiate(pool, roots, wrt)[0];
}

std::vector<ExprId> jacobian(ExprPool& pool, std::span<const ExprId> roots, VarKind kind,
                             std::uint32_t count) {
    const std::vector<ExprId> kept(roots.begin(), roots.end()); // roots may live in the pool
    std::vector<ExprId> result(kept.size() * count, pool.zero());
    for (std::uint32_t j = 0; j < count; ++j) {
        const std::vector<ExprId> column = differentiate(pool, kept, Variable{kind, j});
        for (std::size_t i = 0; i < kept.size(); ++i) {
            result[i * count + j] = column[i];
        }
    }
    return result;
}

std::vector<ExprId> gradient(ExprPool& pool, ExprId e, VarKind kind, std::uint32_t count) {
    const ExprId roots[] = {e};
    return jacobian(pool, roots, kind, count);
}

} // namespace mdl::symbolic
