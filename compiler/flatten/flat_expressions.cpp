// Building and cloning the expressions of the flat model (flattener.hpp).
#include "flattener.hpp"

namespace mdl::flatten::detail {

const long long* lookup(const Env& env, const std::string& name) {
    for (auto it = env.rbegin(); it != env.rend(); ++it) {
        if (it->first == name) {
            return &it->second;
        }
    }
    return nullptr;
}

std::string element_name(const std::string& base, long long index) {
    return fmt::format("{}[{}]", base, index);
}

ast::ExprPtr make(Range range, decltype(ast::Expr::node) node) {
    auto e = std::make_unique<ast::Expr>();
    e->range = range;
    e->node = std::move(node);
    return e;
}

ast::ExprPtr number(Range range, double value) {
    return make(range, ast::Number{value});
}

ast::ExprPtr name(Range range, std::string text) {
    ast::NameRef r;
    r.parts.push_back({std::move(text), range});
    return make(range, std::move(r));
}

// Depth of a flat tree, as the parser computes it (later stages rely on it).
ast::ExprPtr finish(ast::ExprPtr e) {
    std::uint32_t below = 0;
    auto visit = [&](const ast::ExprPtr& c) {
        if (c) {
            below = std::max(below, c->depth);
        }
    };
    std::visit(
        [&](auto& n) {
            using T = std::decay_t<decltype(n)>;
            if constexpr (std::is_same_v<T, ast::Negate> || std::is_same_v<T, ast::Not>) {
                visit(n.operand);
            } else if constexpr (std::is_same_v<T, ast::Binary>) {
                visit(n.lhs);
                visit(n.rhs);
            } else if constexpr (std::is_same_v<T, ast::Call>) {
                for (const auto& a : n.args) {
                    visit(a);
                }
            } else if constexpr (std::is_same_v<T, ast::VectorLiteral>) {
                for (const auto& a : n.elements) {
                    visit(a);
                }
            } else if constexpr (std::is_same_v<T, ast::If>) {
                for (const auto& [c, v] : n.branches) {
                    visit(c);
                    visit(v);
                }
                visit(n.otherwise);
            }
        },
        e->node);
    e->depth = below + 1;
    return e;
}

std::vector<ast::ExprPtr> clone_all(const std::vector<ast::ExprPtr>& v) {
    std::vector<ast::ExprPtr> out;
    for (const auto& x : v) {
        out.push_back(x ? clone(*x) : nullptr);
    }
    return out;
}

// A deep copy of a flat expression (no renaming).
ast::ExprPtr clone(const ast::Expr& e) {
    auto out = std::make_unique<ast::Expr>();
    out->range = e.range;
    out->depth = e.depth;
    std::visit(
        [&](const auto& n) {
            using T = std::decay_t<decltype(n)>;
            if constexpr (std::is_same_v<T, ast::Number> || std::is_same_v<T, ast::Boolean>) {
                out->node = n;
            } else if constexpr (std::is_same_v<T, ast::NameRef>) {
                ast::NameRef r;
                r.parts = n.parts;
                for (const auto& s : n.subscripts) {
                    r.subscripts.push_back(clone_all(s));
                }
                out->node = std::move(r);
            } else if constexpr (std::is_same_v<T, ast::Negate>) {
                out->node = ast::Negate{clone(*n.operand)};
            } else if constexpr (std::is_same_v<T, ast::Not>) {
                out->node = ast::Not{clone(*n.operand)};
            } else if constexpr (std::is_same_v<T, ast::Binary>) {
                out->node = ast::Binary{n.op, clone(*n.lhs), clone(*n.rhs), n.op_range};
            } else if constexpr (std::is_same_v<T, ast::Call>) {
                out->node = ast::Call{n.callee, clone_all(n.args), n.iterator};
            } else if constexpr (std::is_same_v<T, ast::VectorLiteral>) {
                out->node = ast::VectorLiteral{clone_all(n.elements), n.iterator};
            } else if constexpr (std::is_same_v<T, ast::If>) {
                ast::If f;
                for (const auto& [c, v] : n.branches) {
                    f.branches.emplace_back(clone(*c), clone(*v));
                }
                f.otherwise = clone(*n.otherwise);
                out->node = std::move(f);
            }
        },
        e.node);
    return out;
}

ast::Modifier clone(const ast::Modifier& m) {
    ast::Modifier out;
    out.each = m.each;
    out.name = m.name;
    out.range = m.range;
    out.value = m.value ? clone(*m.value) : nullptr;
    out.text = m.text;
    out.nested = m.nested;
    for (const auto& c : m.children) {
        out.children.push_back(clone(c));
    }
    return out;
}

} // namespace mdl::flatten::detail
