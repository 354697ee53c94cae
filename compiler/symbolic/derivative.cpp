#include "symbolic/derivative.hpp"

#include <algorithm>
#include <utility>
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

namespace {

// Flags, by node index, of the nodes of `order` (the nodes reachable from `roots`, children
// before parents) whose derivative is needed: not those reached only through conditions (the
// operands of a comparison, a select's condition), whose derivatives would be built for
// nothing. Parents before children: one descending sweep.
std::vector<std::uint8_t> nodes_needing_derivatives(const ExprPool& pool,
                                                    std::span<const ExprId> roots,
                                                    const std::vector<ExprId>& order) {
    std::vector<std::uint8_t> needed(order.empty() ? 0 : order.back().index + 1, 0);
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
    return needed;
}

} // namespace

std::vector<ExprId> differentiate(ExprPool& pool, std::span<const ExprId> roots, Variable wrt) {
    const std::vector<ExprId> order = reachable_in_order(pool, roots);
    const ExprId zero = pool.zero();
    std::vector<ExprId> d(order.empty() ? 0 : order.back().index + 1, zero);
    const std::vector<std::uint8_t> needed = nodes_needing_derivatives(pool, roots, order);
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

namespace {

// Calls entry(row, column, derivative) for every derivative that is not zero, column by
// column (ascending), rows in no particular order within a column.
template <class Entry>
void jacobian_entries(ExprPool& pool, std::span<const ExprId> roots, VarKind kind,
                      std::uint32_t count, Entry entry) {
    // Column j is what differentiate(pool, roots, var(kind, j)) returns, node for node, but
    // computed only on the nodes that depend on var j: those reached from its leaf upwards
    // through the edges along which derivatives flow. Every other node's derivative is 0, as
    // it is in differentiate. The work is the sum over the columns of the nodes that depend on
    // each variable (plus a sort of each such set), not count times the DAG: linear in the
    // model for a model of sparse structure (a chain: every force depends on a few positions).
    const std::vector<ExprId> kept(roots.begin(), roots.end()); // roots may live in the pool
    const ExprId zero = pool.zero();
    const std::vector<ExprId> order = reachable_in_order(pool, kept);
    if (order.empty() || count == 0) {
        return;
    }
    const std::size_t top = order.back().index + 1;

    const std::vector<std::uint8_t> needed = nodes_needing_derivatives(pool, kept, order);
    // The derivative edges child -> parent (with the child's position in the parent), as
    // compressed rows by child, and the leaf of each variable of `kind`.
    struct Edge {
        std::uint32_t parent;
        std::uint32_t position;
    };
    std::vector<std::uint32_t> first(top + 1, 0);
    std::vector<ExprId> leaf(count, zero);
    for (ExprId id : order) {
        const Op op = pool.op(id);
        if (op == Op::variable) {
            const Variable v = pool.variable_of(id);
            if (v.kind == kind && v.index < count) {
                leaf[v.index] = id;
            }
        }
        if (needed[id.index] == 0 || op == Op::compare) {
            continue;
        }
        const auto c = pool.children(id);
        for (std::size_t i = op == Op::select ? 1 : 0; i < c.size(); ++i) {
            ++first[c[i].index + 1];
        }
    }
    for (std::size_t i = 0; i < top; ++i) {
        first[i + 1] += first[i];
    }
    std::vector<Edge> edges(first[top]);
    {
        std::vector<std::uint32_t> fill(first.begin(), first.end() - 1);
        for (ExprId id : order) {
            const Op op = pool.op(id);
            if (needed[id.index] == 0 || op == Op::compare) {
                continue;
            }
            const auto c = pool.children(id);
            for (std::size_t i = op == Op::select ? 1 : 0; i < c.size(); ++i) {
                edges[fill[c[i].index]++] = {id.index, static_cast<std::uint32_t>(i)};
            }
        }
    }
    // The root positions of each node (roots may repeat), as compressed rows too.
    std::vector<std::uint32_t> root_first(top + 1, 0);
    for (ExprId r : kept) {
        ++root_first[r.index + 1];
    }
    for (std::size_t i = 0; i < top; ++i) {
        root_first[i + 1] += root_first[i];
    }
    std::vector<std::uint32_t> root_rows(kept.size());
    {
        std::vector<std::uint32_t> fill(root_first.begin(), root_first.end() - 1);
        for (std::size_t i = 0; i < kept.size(); ++i) {
            root_rows[fill[kept[i].index]++] = static_cast<std::uint32_t>(i);
        }
    }

    // Per column: d[id] is valid where stamp[id] == the column's stamp, else the derivative
    // is 0. A sum's nonzero operands are collected as they are computed (with their positions,
    // to restore the operand order), so a sum of thousands of terms costs per column only the
    // few terms that depend on the variable.
    std::vector<std::uint32_t> stamp(top, 0);
    std::vector<ExprId> d(top, zero);
    std::vector<std::vector<std::pair<std::uint32_t, ExprId>>> sum_terms(top);
    std::vector<std::uint32_t> affected;
    std::vector<ExprId> kids;
    std::vector<ExprId> terms;
    std::vector<ExprId> factors;
    for (std::uint32_t j = 0; j < count; ++j) {
        const ExprId x = leaf[j];
        if (x == zero) {
            continue; // no root depends on var j
        }
        const std::uint32_t column_stamp = j + 1;
        affected.clear();
        affected.push_back(x.index);
        stamp[x.index] = column_stamp;
        for (std::size_t next = 0; next < affected.size(); ++next) {
            const std::uint32_t c = affected[next];
            for (std::uint32_t e = first[c]; e < first[c + 1]; ++e) {
                const std::uint32_t p = edges[e].parent;
                if (stamp[p] != column_stamp) {
                    stamp[p] = column_stamp;
                    affected.push_back(p);
                }
            }
        }
        std::sort(affected.begin(), affected.end());
        const auto d_of = [&](ExprId id) {
            return stamp[id.index] == column_stamp ? d[id.index] : zero;
        };
        for (std::uint32_t index : affected) {
            const ExprId id{index};
            const Node n = pool.node(id);
            ExprId out = zero;
            if (n.op == Op::variable) {
                out = pool.one(); // the only variable leaf in the set is var j
            } else if (n.op == Op::add) {
                auto& nonzero = sum_terms[index];
                std::sort(nonzero.begin(), nonzero.end());
                terms.clear();
                for (const auto& term : nonzero) {
                    terms.push_back(term.second);
                }
                nonzero.clear();
                // differentiate passes the zero terms too; add() drops them without effect
                if (!terms.empty()) {
                    out = pool.add(terms);
                }
            } else {
                const auto c = pool.children(id);
                kids.assign(c.begin(), c.end());
                bool any = false;
                for (std::size_t i = n.op == Op::select ? 1 : 0; i < kids.size(); ++i) {
                    any = any || d_of(kids[i]) != zero;
                }
                if (any) {
                    switch (n.op) {
                    case Op::mul:
                        terms.clear();
                        for (std::size_t i = 0; i < kids.size(); ++i) {
                            if (d_of(kids[i]) == zero) {
                                continue;
                            }
                            factors.clear();
                            for (std::size_t k = 0; k < kids.size(); ++k) {
                                factors.push_back(k == i ? d_of(kids[i]) : kids[k]);
                            }
                            terms.push_back(pool.mul(factors));
                        }
                        out = pool.add(terms);
                        break;
                    case Op::pow: {
                        const ExprId u = kids[0];
                        const ExprId w = kids[1];
                        const ExprId du = d_of(u);
                        const ExprId dw = d_of(w);
                        terms.clear();
                        if (du != zero) {
                            const ExprId w_minus_1 = pool.sub(w, pool.one());
                            const ExprId parts[] = {w, pool.pow(u, w_minus_1), du};
                            terms.push_back(pool.mul(parts));
                        }
                        if (dw != zero) {
                            const ExprId parts[] = {id, pool.call(Func::log, u), dw};
                            terms.push_back(pool.mul(parts));
                        }
                        out = pool.add(terms);
                        break;
                    }
                    case Op::call: {
                        const auto f = static_cast<Func>(n.tag);
                        if (f == Func::atan2) {
                            const ExprId y = kids[0];
                            const ExprId xx = kids[1];
                            const ExprId two = pool.constant(2.0);
                            const ExprId numerator =
                                pool.sub(pool.mul(xx, d_of(y)), pool.mul(y, d_of(xx)));
                            const ExprId denominator =
                                pool.add(pool.pow(xx, two), pool.pow(y, two));
                            out = pool.div(numerator, denominator);
                        } else {
                            const ExprId u = kids[0];
                            out = pool.mul(outer_derivative(pool, f, id, u), d_of(u));
                        }
                        break;
                    }
                    case Op::select:
                        out = pool.select(kids[0], d_of(kids[1]), d_of(kids[2]));
                        break;
                    case Op::constant:
                    case Op::variable:
                    case Op::add:
                    case Op::compare:
                        break;
                    }
                }
            }
            d[index] = out;
            if (out != zero) {
                for (std::uint32_t e = first[index]; e < first[index + 1]; ++e) {
                    const std::uint32_t p = edges[e].parent;
                    if (pool.op(ExprId{p}) == Op::add) {
                        sum_terms[p].emplace_back(edges[e].position, out);
                    }
                }
            }
            if (out != zero) {
                for (std::uint32_t r = root_first[index]; r < root_first[index + 1]; ++r) {
                    entry(root_rows[r], j, out);
                }
            }
        }
    }
}

} // namespace

std::vector<ExprId> jacobian(ExprPool& pool, std::span<const ExprId> roots, VarKind kind,
                             std::uint32_t count) {
    std::vector<ExprId> result(roots.size() * count, pool.zero());
    jacobian_entries(pool, roots, kind, count, [&](std::uint32_t row, std::uint32_t j, ExprId d) {
        result[static_cast<std::size_t>(row) * count + j] = d;
    });
    return result;
}

SparseJacobian sparse_jacobian(ExprPool& pool, std::span<const ExprId> roots, VarKind kind,
                               std::uint32_t count) {
    struct Triplet {
        std::uint32_t row, column;
        ExprId value;
    };
    std::vector<Triplet> found; // by column ascending
    jacobian_entries(pool, roots, kind, count, [&](std::uint32_t row, std::uint32_t j, ExprId d) {
        found.push_back({row, j, d});
    });
    const ExprId zero = pool.zero();
    SparseJacobian result;
    Sparsity& p = result.pattern;
    p.rows = static_cast<std::uint32_t>(roots.size());
    p.columns = count;
    // zero is +0.0; any other constant zero (-0.0) is kept, as the dense Jacobian has it
    std::erase_if(found, [&](const Triplet& t) { return t.value == zero; });
    // counting sort by row, stable: the columns stay ascending within each row
    p.row_start.assign(static_cast<std::size_t>(p.rows) + 1, 0);
    for (const Triplet& t : found) {
        ++p.row_start[t.row + 1];
    }
    for (std::uint32_t i = 0; i < p.rows; ++i) {
        p.row_start[i + 1] += p.row_start[i];
    }
    p.column.resize(found.size());
    result.values.resize(found.size(), zero);
    std::vector<std::uint32_t> fill(p.row_start.begin(), p.row_start.end() - 1);
    for (const Triplet& t : found) {
        const std::uint32_t at = fill[t.row]++;
        p.column[at] = t.column;
        result.values[at] = t.value;
    }
    return result;
}

std::vector<ExprId> gradient(ExprPool& pool, ExprId e, VarKind kind, std::uint32_t count) {
    const ExprId roots[] = {e};
    return jacobian(pool, roots, kind, count);
}

} // namespace mdl::symbolic
