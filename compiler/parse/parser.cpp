#include "parse/parser.hpp"

#include "parse/grammar.hpp"
#include "parse/grammar_errors.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <stdexcept>
#include <tao/pegtl/contrib/parse_tree.hpp>

namespace mdl::parse {

namespace pegtl = tao::pegtl;
namespace g = mdl::grammar;
using source::Range;

namespace {

// ---- PEGTL control: messages for failed `must`s, and a bound on expression nesting --------

thread_local int expression_depth = 0;

template <typename Rule>
struct raising_control : pegtl::normal<Rule> {
    template <typename Input, typename... States>
    [[noreturn]] static void raise(const Input& in, States&&...) {
        const char* message = g::error_message<Rule>::value;
        throw pegtl::parse_error(message ? message : "syntax error", in);
    }
};

template <typename Rule>
struct control : raising_control<Rule> {};

// Every level of expression nesting passes through `power`, so counting it bounds recursion.
template <typename Rule>
struct depth_control : raising_control<Rule> {
    template <typename Input, typename... States>
    static void start(const Input& in, States&&...) {
        if (++expression_depth > max_expression_depth) {
            throw pegtl::parse_error(
                fmt::format("expression nested too deeply (more than {} levels)",
                            max_expression_depth),
                in);
        }
    }
    template <typename Input, typename... States>
    static void success(const Input&, States&&...) {
        --expression_depth;
    }
    template <typename Input, typename... States>
    static void failure(const Input&, States&&...) {
        --expression_depth;
    }
};
template <>
struct control<g::power> : depth_control<g::power> {};
template <>
struct control<g::exponent_operand> : depth_control<g::exponent_operand> {};

// ---- Parse tree: the rules whose matches become nodes --------------------------------------

template <typename Rule>
using selector = pegtl::parse_tree::selector<
    Rule,
    pegtl::parse_tree::store_content::on<
        g::number, g::ident, g::member, g::name_ref, g::subscripts, g::call, g::negate,
        g::unary_plus, g::power, g::exponent_operand, g::pow_op, g::term, g::term_operand,
        g::mul_op, g::add_op, g::arith, g::rel_op, g::rel_operand, g::relation, g::logical_not,
        g::logical_operand, g::and_op, g::logical_term, g::or_op, g::logical_term_operand,
        g::logical_expr, g::if_expr, g::if_branch, g::else_branch, g::boolean, g::expr, g::operand,
        g::vector_literal, g::for_iterator, g::iterator_name, g::range_expr, g::range_bound,
        g::string_literal, g::each_mark, g::value_modifier, g::nested_modifier, g::component_kind,
        g::decl_name, g::component_args, g::component_value, g::fast_mark, g::description,
        g::type_name, g::parameter_item, g::parameter_modifiers, g::parameter_value, g::parameter,
        g::component, g::instance, g::instance_type, g::instance_item, g::constraint, g::annotation,
        g::for_header, g::end_for, g::equation, g::model_name, g::end_name, g::paren_expr,
        g::when_clause, g::when_branch, g::reinit_statement, g::terminate_statement,
        g::terminate_message, g::impact_statement, g::impact_name>>;

using Node = pegtl::parse_tree::node;

// ---- Parse tree -> AST ---------------------------------------------------------------------

class Builder {
public:
    Builder(source::Diagnostics& diagnostics, std::uint32_t file_id)
        : diagnostics_(diagnostics), file_id_(file_id) {}

    // Byte offsets straight from the node's iterators: node.begin() would also copy the
    // input's source name, which does not outlive the per-statement input.
    Range range(const Node& n) const {
        return {static_cast<std::uint32_t>(n.m_begin.byte),
                static_cast<std::uint32_t>(n.m_end.byte), file_id_};
    }
    ast::Identifier identifier(const Node& n) const { return {n.string(), range(n)}; }

    static std::string unquote(const Node& n) {
        std::string_view s = n.string_view();
        s = s.substr(1, s.size() - 2);
        std::string out;
        for (std::size_t i = 0; i < s.size(); ++i) {
            if (s[i] == '\\' && i + 1 < s.size()) {
                char c = s[++i];
                out += c == 'n' ? '\n' : c == 't' ? '\t' : c;
            } else {
                out += s[i];
            }
        }
        return out;
    }

    // Sets the node's depth from its children's and enforces max_tree_depth, reporting once
    // per expression and cutting the tree there.
    ast::ExprPtr finish(ast::ExprPtr e) {
        std::uint32_t below = 0;
        auto visit = [&](const ast::ExprPtr& child) {
            if (child) {
                below = std::max(below, child->depth);
            }
        };
        if (auto* u = std::get_if<ast::Negate>(&e->node)) {
            visit(u->operand);
        } else if (auto* b = std::get_if<ast::Binary>(&e->node)) {
            visit(b->lhs);
            visit(b->rhs);
        } else if (auto* c = std::get_if<ast::Call>(&e->node)) {
            for (const auto& a : c->args) {
                visit(a);
            }
        } else if (auto* v = std::get_if<ast::VectorLiteral>(&e->node)) {
            for (const auto& x : v->elements) {
                visit(x);
            }
        } else if (auto* n = std::get_if<ast::Not>(&e->node)) {
            visit(n->operand);
        } else if (auto* f = std::get_if<ast::If>(&e->node)) {
            for (const auto& [condition, value] : f->branches) {
                visit(condition);
                visit(value);
            }
            visit(f->otherwise);
        }
        e->depth = below + 1;
        if (e->depth > max_tree_depth) {
            if (!too_deep_reported_) {
                diagnostics_.error(e->range,
                                   fmt::format("expression too complex: its tree is more than {} "
                                               "levels deep; split it, e.g. with parameters",
                                               max_tree_depth));
                too_deep_reported_ = true;
            }
            auto cut = std::make_unique<ast::Expr>();
            cut->range = e->range;
            cut->node = ast::Number{0};
            return cut;
        }
        return e;
    }

    // Each statement may report its own over-deep expression.
    void next_statement() { too_deep_reported_ = false; }

    ast::ExprPtr expr(const Node& n) {
        auto e = std::make_unique<ast::Expr>();
        e->range = range(n);
        if (n.is_type<g::arith>() || n.is_type<g::rel_operand>() || n.is_type<g::term>() ||
            n.is_type<g::term_operand>() || n.is_type<g::logical_expr>() ||
            n.is_type<g::logical_term>() || n.is_type<g::logical_term_operand>()) {
            return fold(n);
        }
        if (n.is_type<g::expr>() || n.is_type<g::operand>() || n.is_type<g::logical_operand>() ||
            n.is_type<g::range_bound>()) {
            return expr(*n.children[0]);
        }
        if (n.is_type<g::relation>()) {
            if (n.children.size() == 1) {
                return expr(*n.children[0]);
            }
            return fold(n);
        }
        if (n.is_type<g::logical_not>()) {
            e->node = ast::Not{expr(*n.children[0])};
            return finish(std::move(e));
        }
        if (n.is_type<g::if_expr>()) {
            ast::If f;
            for (const auto& c : n.children) {
                if (c->is_type<g::if_branch>()) {
                    f.branches.emplace_back(expr(*c->children[0]), expr(*c->children[1]));
                } else {
                    f.otherwise = expr(*c->children[0]);
                }
            }
            e->node = std::move(f);
            return finish(std::move(e));
        }
        if (n.is_type<g::boolean>()) {
            e->node = ast::Boolean{n.string_view() == "true"};
            return e;
        }
        if (n.is_type<g::power>() || n.is_type<g::exponent_operand>()) {
            if (n.children.size() == 1) {
                return expr(*n.children[0]);
            }
            // primary ^ exponent_operand
            auto lhs = expr(*n.children[0]);
            auto rhs = expr(*n.children[2]);
            e->node = ast::Binary{ast::BinaryOp::pow, std::move(lhs), std::move(rhs),
                                  range(*n.children[1])};
            return finish(std::move(e));
        }
        if (n.is_type<g::paren_expr>()) {
            auto inner = expr(*n.children[0]);
            inner->range = e->range; // the parentheses belong to the operand's extent
            return inner;
        }
        if (n.is_type<g::negate>()) {
            e->node = ast::Negate{expr(*n.children[0])};
            return finish(std::move(e));
        }
        if (n.is_type<g::unary_plus>()) {
            auto inner = expr(*n.children[0]);
            inner->range = e->range;
            return inner;
        }
        if (n.is_type<g::number>()) {
            e->node = ast::Number{number(n)};
            return e;
        }
        if (n.is_type<g::name_ref>()) {
            ast::NameRef ref;
            for (const auto& c : n.children) {
                if (c->is_type<g::subscripts>()) {
                    ref.subscripts.resize(ref.parts.size());
                    ref.subscripts.back() = subscripts(*c);
                } else {
                    ref.parts.push_back(identifier(*c));
                }
            }
            if (!ref.subscripts.empty()) {
                ref.subscripts.resize(ref.parts.size());
            }
            e->node = std::move(ref);
            return finish(std::move(e));
        }
        if (n.is_type<g::call>()) {
            ast::Call call{identifier(*n.children[0]), {}, nullptr};
            for (std::size_t i = 1; i < n.children.size(); ++i) {
                if (n.children[i]->is_type<g::for_iterator>()) {
                    call.iterator = iterator(*n.children[i]);
                } else {
                    call.args.push_back(expr(*n.children[i]));
                }
            }
            e->node = std::move(call);
            return finish(std::move(e));
        }
        if (n.is_type<g::vector_literal>()) {
            ast::VectorLiteral v;
            for (const auto& c : n.children) {
                if (c->is_type<g::for_iterator>()) {
                    v.iterator = iterator(*c);
                } else {
                    v.elements.push_back(expr(*c));
                }
            }
            e->node = std::move(v);
            return finish(std::move(e));
        }
        throw std::logic_error("parser: unexpected node " + std::string(n.type));
    }

    std::vector<ast::ExprPtr> subscripts(const Node& n) {
        std::vector<ast::ExprPtr> out;
        for (const auto& c : n.children) {
            out.push_back(expr(*c));
        }
        return out;
    }

    // for_iterator or for_header: the variable and its range.
    std::shared_ptr<ast::Iterator> iterator(const Node& n) {
        auto it = std::make_shared<ast::Iterator>();
        it->range = range(n);
        it->variable = identifier(*n.children[0]);
        const Node& r = *n.children[1];
        it->first = expr(*r.children[0]);
        if (r.children.size() == 3) {
            it->step = expr(*r.children[1]);
            it->last = expr(*r.children[2]);
        } else {
            it->last = expr(*r.children[1]);
        }
        return it;
    }

    // a op b op c ... folded to the left.
    ast::ExprPtr fold(const Node& n) {
        ast::ExprPtr lhs = expr(*n.children[0]);
        for (std::size_t i = 1; i + 1 < n.children.size(); i += 2) {
            const Node& op = *n.children[i];
            std::string_view text = op.string_view();
            ast::BinaryOp bop = ast::BinaryOp::add;
            if (op.is_type<g::and_op>()) {
                bop = ast::BinaryOp::logical_and;
            } else if (op.is_type<g::or_op>()) {
                bop = ast::BinaryOp::logical_or;
            } else if (op.is_type<g::rel_op>()) {
                bop = text == "<"    ? ast::BinaryOp::lt
                      : text == "<=" ? ast::BinaryOp::le
                      : text == ">"  ? ast::BinaryOp::gt
                      : text == ">=" ? ast::BinaryOp::ge
                      : text == "==" ? ast::BinaryOp::eq
                                     : ast::BinaryOp::ne;
            } else {
                char c = text[0];
                bop = c == '+'   ? ast::BinaryOp::add
                      : c == '-' ? ast::BinaryOp::sub
                      : c == '*' ? ast::BinaryOp::mul
                                 : ast::BinaryOp::div;
            }
            auto rhs = expr(*n.children[i + 1]);
            auto e = std::make_unique<ast::Expr>();
            e->range = {lhs->range.begin, rhs->range.end, file_id_};
            e->node = ast::Binary{bop, std::move(lhs), std::move(rhs), range(op)};
            lhs = finish(std::move(e));
        }
        return lhs;
    }

    double number(const Node& n) {
        std::string text = n.string();
        errno = 0;
        double v = std::strtod(text.c_str(), nullptr);
        if (std::isinf(v)) {
            if (text.size() > 24) {
                text = text.substr(0, 20) + "...";
            }
            diagnostics_.error(range(n), fmt::format("number '{}' is too large for a Real", text));
        }
        return v;
    }

    ast::Modifier modifier(const Node& n) {
        ast::Modifier m;
        m.range = range(n);
        std::size_t i = 0;
        if (n.children[0]->is_type<g::each_mark>()) {
            m.each = true;
            i = 1;
        }
        m.name = identifier(*n.children[i]);
        if (n.is_type<g::nested_modifier>()) {
            m.nested = true;
            for (std::size_t j = i + 1; j < n.children.size(); ++j) {
                m.children.push_back(modifier(*n.children[j]));
            }
        } else if (n.children[i + 1]->is_type<g::string_literal>()) {
            m.text = unquote(*n.children[i + 1]);
        } else {
            m.value = expr(*n.children[i + 1]);
        }
        return m;
    }

    // decl_name: the name and its subscripts.
    void decl_name(const Node& n, ast::Identifier& name, std::vector<ast::ExprPtr>& subs) {
        name = identifier(*n.children[0]);
        if (n.children.size() > 1) {
            subs = subscripts(*n.children[1]);
        }
    }

    void arguments(const Node& part, ast::Component& c) {
        c.has_arguments = true;
        for (const auto& a : part.children) {
            ast::Argument arg;
            arg.range = range(*a);
            if (is_modifier(*a)) {
                arg.modifier = modifier(*a);
            } else {
                arg.positional = expr(*a);
            }
            c.arguments.push_back(std::move(arg));
        }
    }

    static bool is_modifier(const Node& n) {
        return n.is_type<g::value_modifier>() || n.is_type<g::nested_modifier>();
    }

    ast::Component component(const Node& n) {
        ast::Component c;
        c.range = range(n);
        const Node& kind = *n.children[0];
        c.kind_range = range(kind);
        c.kind = component_kind(kind.string_view());
        decl_name(*n.children[1], c.name, c.subscripts);
        for (std::size_t i = 2; i < n.children.size(); ++i) {
            const Node& part = *n.children[i];
            if (part.is_type<g::component_args>()) {
                arguments(part, c);
            } else if (part.is_type<g::component_value>()) {
                c.value = expr(*part.children[0]);
            } else if (part.is_type<g::fast_mark>()) {
                c.fast = true;
                c.fast_range = range(part);
                for (const auto& m : part.children) {
                    c.fast_modifiers.push_back(modifier(*m));
                }
            } else if (part.is_type<g::description>()) {
                c.description = unquote(part);
            }
        }
        return c;
    }

    static ast::ComponentKind component_kind(std::string_view k) {
        using K = ast::ComponentKind;
        if (k == "coordinate")
            return K::coordinate;
        if (k == "body")
            return K::body;
        if (k == "anchor")
            return K::anchor;
        if (k == "spring")
            return K::spring;
        if (k == "damper")
            return K::damper;
        if (k == "potential")
            return K::potential;
        if (k == "force")
            return K::force;
        if (k == "gravity")
            return K::gravity;
        if (k == "vibration")
            return K::vibration;
        if (k == "kinetic")
            return K::kinetic;
        if (k == "rigid")
            return K::rigid;
        if (k == "point")
            return K::point;
        if (k == "revolute")
            return K::revolute;
        if (k == "prismatic")
            return K::prismatic;
        if (k == "weld")
            return K::weld;
        return K::real;
    }

    void parameters(const Node& n, ast::Model& model) {
        ast::Identifier type = identifier(*n.children[0]);
        for (std::size_t i = 1; i < n.children.size(); ++i) {
            const Node& item = *n.children[i];
            ast::Parameter p;
            p.type = type;
            p.range = range(item);
            decl_name(*item.children[0], p.name, p.subscripts);
            for (std::size_t j = 1; j < item.children.size(); ++j) {
                const Node& part = *item.children[j];
                if (part.is_type<g::parameter_value>()) {
                    p.value = expr(*part.children[0]);
                } else if (part.is_type<g::parameter_modifiers>()) {
                    for (const auto& m : part.children) {
                        p.modifiers.push_back(modifier(*m));
                    }
                } else {
                    p.description = unquote(part);
                }
            }
            model.parameters.push_back(std::move(p));
        }
    }

    // An instance declaration: one component of kind instance per name.
    void instances(const Node& n, ast::Model& model) {
        ast::Identifier type = identifier(*n.children[0]);
        for (std::size_t i = 1; i < n.children.size(); ++i) {
            const Node& item = *n.children[i];
            ast::Component c;
            c.kind = ast::ComponentKind::instance;
            c.kind_range = type.range;
            c.type = type;
            c.range = range(item);
            decl_name(*item.children[0], c.name, c.subscripts);
            for (std::size_t j = 1; j < item.children.size(); ++j) {
                const Node& part = *item.children[j];
                if (part.is_type<g::component_args>()) {
                    arguments(part, c);
                } else {
                    c.description = unquote(part);
                }
            }
            add(model, ast::StatementKind::component, model.components.size());
            model.components.push_back(std::move(c));
        }
    }

    static void add(ast::Model& model, ast::StatementKind kind, std::size_t index) {
        model.statements.push_back({kind, static_cast<std::uint32_t>(index)});
    }

    void declaration(const Node& n, ast::Model& model) {
        using K = ast::StatementKind;
        if (n.is_type<g::component>()) {
            add(model, K::component, model.components.size());
            model.components.push_back(component(n));
        } else if (n.is_type<g::instance>()) {
            instances(n, model);
        } else if (n.is_type<g::parameter>()) {
            std::size_t before = model.parameters.size();
            parameters(n, model);
            for (std::size_t i = before; i < model.parameters.size(); ++i) {
                add(model, K::parameter, i);
            }
        } else if (n.is_type<g::constraint>()) {
            ast::Constraint c;
            decl_name(*n.children[0], c.name, c.subscripts);
            c.lhs = expr(*n.children[1]);
            c.rhs = expr(*n.children[2]);
            c.range = range(n);
            add(model, K::constraint, model.constraints.size());
            model.constraints.push_back(std::move(c));
        } else if (n.is_type<g::annotation>()) {
            ast::Annotation a;
            a.range = range(n);
            for (const auto& m : n.children) {
                a.modifiers.push_back(modifier(*m));
            }
            add(model, K::annotation, model.annotations.size());
            model.annotations.push_back(std::move(a));
        }
    }

    void equation(const Node& eq, ast::Model& model) {
        add(model, ast::StatementKind::equation, model.equations.size());
        model.equations.push_back({expr(*eq.children[0]), expr(*eq.children[1]), range(eq)});
    }

    // when c then reinit(v, e); ... elsewhen c2 then ... end when;
    void when(const Node& n, ast::Model& model) {
        ast::When w;
        w.range = range(n);
        for (const auto& b : n.children) {
            ast::WhenBranch branch;
            branch.range = range(*b);
            branch.condition = expr(*b->children[0]);
            for (std::size_t i = 1; i < b->children.size(); ++i) {
                const Node& st = *b->children[i];
                if (st.is_type<g::reinit_statement>()) {
                    branch.reinits.push_back(
                        {expr(*st.children[0]), expr(*st.children[1]), range(st)});
                } else if (!branch.terminate) { // a second terminate adds nothing
                    branch.terminate = unquote(*st.children[0]);
                    branch.terminate_range = range(st);
                }
            }
            w.branches.push_back(std::move(branch));
        }
        add(model, ast::StatementKind::when, model.whens.size());
        model.whens.push_back(std::move(w));
    }

    // impact name(condition, restitution = e); a when-clause of one branch
    void impact(const Node& n, ast::Model& model) {
        ast::When w;
        w.range = range(n);
        ast::WhenBranch branch;
        branch.range = range(n);
        branch.condition = expr(*n.children[1]);
        branch.impact = ast::Impact{identifier(*n.children[0]), expr(*n.children[2])};
        w.branches.push_back(std::move(branch));
        add(model, ast::StatementKind::when, model.whens.size());
        model.whens.push_back(std::move(w));
    }

    // Opens a for-loop in `model`; its statements go to the returned body.
    ast::Model* open_loop(const Node& header, ast::Model& model) {
        auto loop = std::make_shared<ast::ForLoop>();
        loop->range = range(header);
        loop->iterator = std::move(*iterator(header));
        add(model, ast::StatementKind::loop, model.loops.size());
        model.loops.push_back(loop);
        return &loop->body;
    }

private:
    source::Diagnostics& diagnostics_;
    std::uint32_t file_id_ = 0;
    bool too_deep_reported_ = false;
};

// ---- Statement-level driver with recovery --------------------------------------------------

class Parser {
public:
    Parser(const source::SourceFile& file, source::Diagnostics& diagnostics, std::uint32_t file_id)
        : file_(file), text_(file.text()), diagnostics_(diagnostics), file_id_(file_id),
          builder_(diagnostics, file_id) {}

    // Every model of the file, or nullopt after a syntax error.
    std::optional<ast::File> run() {
        std::size_t errors_before = diagnostics_.error_count();
        ast::File out;
        std::uint32_t pos = 0;
        do {
            if (!model(pos, out)) {
                break;
            }
            if (!skip_space(pos)) {
                break;
            }
        } while (pos < text_.size() && !diagnostics_.saturated());
        if (diagnostics_.error_count() > errors_before || out.models.empty()) {
            return std::nullopt;
        }
        return out;
    }

private:
    // One model from pos; false when nothing sensible can follow.
    bool model(std::uint32_t& pos, ast::File& out) {
        ast::Model& model = out.models.emplace_back();
        // model Name "description"
        if (auto header = parse<g::model_header>(pos)) {
            model.name = builder_.identifier(*header->children[0]);
            model.range = builder_.range(*header);
            if (header->children.size() > 1) {
                model.description = Builder::unquote(*header->children[1]);
            }
        } else {
            return false; // nothing sensible to recover to
        }
        // The model, then one body per open for-loop.
        std::vector<ast::Model*> open = {&model};
        std::vector<Range> loop_headers;
        bool in_equations = false;
        while (!diagnostics_.saturated()) {
            if (!skip_space(pos)) {
                return false;
            }
            if (pos >= text_.size()) {
                diagnostics_.error(
                    Range::at(pos, file_id_),
                    fmt::format("expected 'end {};' at the end of the model", model.name.text));
                diagnostics_.note(model.name.range, "the model begins here");
                return false;
            }
            if (at<g::kw_end>(pos) && !at<g::end_for>(pos)) {
                for (std::size_t i = loop_headers.size(); i-- > 0;) {
                    diagnostics_.error(Range::at(pos, file_id_),
                                       "expected 'end for;' before the end of the model");
                    diagnostics_.note(loop_headers[i], "the for-loop begins here");
                }
                if (auto end = parse<g::model_end>(pos)) {
                    model.end_name = builder_.identifier(*end->children[0]);
                    model.range = model.range.to(builder_.range(*end));
                    return true;
                }
                return false;
            }
            if (at<g::kw_equation>(pos)) {
                if (open.size() > 1) {
                    diagnostics_.error(token_range(pos), "'equation' inside a for-loop; close the "
                                                         "loop with 'end for;' first");
                }
                pos += 8; // "equation"
                in_equations = true;
                continue;
            }
            std::uint32_t start = pos;
            std::unique_ptr<Node> tree;
            // before the declarations: `impact floor(...)` would read as an instance
            if (!statement<g::impact_statement>(pos, tree)) {
                continue;
            }
            if (tree) {
                if (!in_equations) {
                    diagnostics_.error(token_range(start),
                                       "impacts must follow the 'equation' keyword");
                }
                builder_.impact(*tree->children[0], *open.back());
                continue;
            }
            if (!statement<g::declaration>(pos, tree)) {
                continue; // error reported, pos moved past it
            }
            if (tree) {
                const Node& decl = *tree->children[0];
                if (decl.is_type<g::for_header>()) {
                    open.push_back(builder_.open_loop(decl, *open.back()));
                    loop_headers.push_back(builder_.range(decl));
                } else if (decl.is_type<g::end_for>()) {
                    if (open.size() == 1) {
                        diagnostics_.error(builder_.range(decl),
                                           "'end for;' without a matching 'for ... loop'");
                    } else {
                        open.pop_back();
                        loop_headers.pop_back();
                    }
                } else {
                    builder_.declaration(decl, *open.back());
                }
                continue;
            }
            const bool when_start = at<g::kw_when>(pos);
            if (!statement<g::when_clause>(pos, tree)) {
                // recover after the clause's `end when;`, not at the first `;` inside it
                if (const auto end = text_.find("end when", start);
                    when_start && end != std::string::npos) {
                    pos = skip_past_semicolon(static_cast<std::uint32_t>(end));
                }
                continue;
            }
            if (tree) {
                if (!in_equations) {
                    diagnostics_.error(token_range(start),
                                       "when-clauses must follow the 'equation' keyword");
                }
                builder_.when(*tree->children[0], *open.back());
                continue;
            }
            if (!in_equations) {
                pos = unknown_statement(start);
                continue;
            }
            if (!statement<g::equation>(pos, tree)) {
                continue;
            }
            if (tree) {
                builder_.equation(*tree->children[0], *open.back());
            } else {
                diagnostics_.error(token_range(start), "expected an equation, a declaration or "
                                                       "'end'");
                pos = skip_past_semicolon(start);
            }
        }
        return false;
    }

    // An input over the rest of the file that counts bytes from the file's start. Its source
    // name is a pointer to the file's own name, which outlives every parse tree node.
    using Input =
        pegtl::memory_input<pegtl::tracking_mode::eager, pegtl::eol::lf_crlf, const char*>;
    Input input_at(std::uint32_t pos) const {
        source::LineColumn lc = file_.line_column(pos);
        return Input(text_.data() + pos, text_.data() + text_.size(), file_.name().c_str(), pos,
                     lc.line, lc.column);
    }

    // Whether Rule starts at pos: a lookahead that never throws. A rule whose must<> fails
    // after its prefix matched ("end for x" without the ';') counts as there: the statement's
    // own parse then reports the error at its place.
    template <typename Rule>
    bool at(std::uint32_t pos) const {
        auto in = input_at(pos);
        try {
            return pegtl::parse<Rule>(in);
        } catch (const pegtl::parse_error&) {
            return true;
        }
    }

    // Parses Rule at pos; on a syntax error reports it and returns null.
    template <typename Rule>
    std::unique_ptr<Node> parse(std::uint32_t& pos) {
        std::unique_ptr<Node> tree;
        statement<Rule>(pos, tree);
        return tree;
    }

    // Returns false after reporting a syntax error (pos then points past the bad statement);
    // true with tree == null when Rule does not match at all; true with the tree on success.
    template <typename Rule>
    bool statement(std::uint32_t& pos, std::unique_ptr<Node>& tree) {
        auto in = input_at(pos);
        expression_depth = 0;
        builder_.next_statement();
        try {
            tree = pegtl::parse_tree::parse<Rule, selector, pegtl::nothing, control>(in);
            if (tree) {
                pos = static_cast<std::uint32_t>(in.current() - text_.data());
            }
            return true;
        } catch (const pegtl::parse_error& e) {
            auto where = static_cast<std::uint32_t>(e.positions().front().byte);
            std::string message(e.message());
            tree.reset();
            if (message == g::error_message<g::block_comment_end>::value) {
                std::uint32_t open = unterminated_comment(pos);
                diagnostics_.error({open, open + 2, file_id_}, message);
                pos = static_cast<std::uint32_t>(text_.size());
                return false;
            }
            if (message == g::error_message<g::semicolon>::value) {
                // Clang's place for a missing ';': right after the previous token. The ';' is
                // then taken as inserted, so the next statement is still parsed.
                diagnostics_.error(Range::at(end_of_previous_token(where), file_id_), message);
                pos = where;
                return false;
            }
            diagnostics_.error(token_range(where), message);
            pos = skip_past_semicolon(where);
            return false;
        }
    }

    std::uint32_t end_of_previous_token(std::uint32_t pos) const {
        while (pos > 0 && std::isspace(static_cast<unsigned char>(text_[pos - 1]))) {
            --pos;
        }
        return pos;
    }

    // The offset of the "/*" that is never closed, scanning from `from` as the lexer does.
    std::uint32_t unterminated_comment(std::uint32_t from) const {
        auto n = static_cast<std::uint32_t>(text_.size());
        for (std::uint32_t i = from; i + 1 < n; ++i) {
            if (text_[i] == '"') {
                while (++i < n && text_[i] != '"' && text_[i] != '\n') {
                    i += text_[i] == '\\' ? 1 : 0;
                }
            } else if (text_[i] == '/' && text_[i + 1] == '/') {
                while (i < n && text_[i] != '\n') {
                    ++i;
                }
            } else if (text_[i] == '/' && text_[i + 1] == '*') {
                auto close = text_.find("*/", i + 2);
                if (close == std::string::npos) {
                    return i;
                }
                i = static_cast<std::uint32_t>(close + 1);
            }
        }
        return from;
    }

    // Skips whitespace and comments; false when an unterminated comment ends the file.
    bool skip_space(std::uint32_t& pos) {
        auto in = input_at(pos);
        try {
            pegtl::parse<g::ws, pegtl::nothing, control>(in);
            pos = static_cast<std::uint32_t>(in.current() - text_.data());
            return true;
        } catch (const pegtl::parse_error& e) {
            std::uint32_t open = unterminated_comment(pos);
            diagnostics_.error({open, open + 2, file_id_}, std::string(e.message()));
            return false;
        }
    }

    // The position after the next ';' that is not inside a string or comment.
    std::uint32_t skip_past_semicolon(std::uint32_t pos) const {
        auto n = static_cast<std::uint32_t>(text_.size());
        while (pos < n) {
            char c = text_[pos];
            if (c == ';') {
                return pos + 1;
            }
            if (c == '"') {
                ++pos;
                while (pos < n && text_[pos] != '"' && text_[pos] != '\n') {
                    pos += text_[pos] == '\\' ? 2 : 1;
                }
            } else if (c == '/' && pos + 1 < n && text_[pos + 1] == '/') {
                while (pos < n && text_[pos] != '\n') {
                    ++pos;
                }
            } else if (c == '/' && pos + 1 < n && text_[pos + 1] == '*') {
                auto close = text_.find("*/", pos + 2);
                pos = close == std::string::npos ? n : static_cast<std::uint32_t>(close + 1);
            }
            ++pos;
        }
        return n;
    }

    // The range of the identifier (or single character) at pos, for carets.
    Range token_range(std::uint32_t pos) const {
        auto n = static_cast<std::uint32_t>(text_.size());
        std::uint32_t end = pos;
        while (end < n &&
               (std::isalnum(static_cast<unsigned char>(text_[end])) || text_[end] == '_')) {
            ++end;
        }
        return {pos, end, file_id_};
    }

    // Reports a statement that is neither a declaration nor (before `equation`) allowed as
    // one; returns the position after it.
    std::uint32_t unknown_statement(std::uint32_t start) {
        Range word = token_range(start);
        std::string text(file_.slice(word));
        std::uint32_t next = skip_past_semicolon(start);
        std::string_view stmt = std::string_view(text_).substr(start, next - start);
        static const std::vector<std::string> keywords = {
            "parameter", "coordinate", "body",    "anchor",    "spring", "damper",
            "potential", "force",      "gravity", "vibration", "Real",   "constraint",
            "equation",  "annotation", "end",     "kinetic",   "rigid",  "point",
            "revolute",  "prismatic",  "weld"};
        std::string suggestion = text.empty() ? "" : source::closest_name(text, keywords);
        if (!suggestion.empty()) {
            diagnostics_.error(word, fmt::format("unknown declaration '{}'; did you mean '{}'?",
                                                 text, suggestion));
        } else if (stmt.find('=') != std::string_view::npos && !text.empty()) {
            diagnostics_.error(word, "equations must follow the 'equation' keyword");
        } else {
            diagnostics_.error(word.begin == word.end ? Range{start, start + 1, file_id_} : word,
                               "expected a declaration (parameter, coordinate, body, anchor, "
                               "spring, damper, potential, force, gravity, vibration, constraint, "
                               "Real) or 'equation'");
        }
        return next;
    }

    const source::SourceFile& file_;
    const std::string& text_;
    source::Diagnostics& diagnostics_;
    std::uint32_t file_id_;
    Builder builder_;
};

} // namespace

std::optional<ast::File> parse_file(const source::SourceFile& file,
                                    source::Diagnostics& diagnostics, std::uint32_t file_id) {
    Parser parser(file, diagnostics, file_id);
    return parser.run();
}

std::optional<ast::Model> parse_model(const source::SourceFile& file,
                                      source::Diagnostics& diagnostics) {
    auto parsed = parse_file(file, diagnostics, 0);
    if (!parsed) {
        return std::nullopt;
    }
    return std::move(parsed->models.back());
}

} // namespace mdl::parse
