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
    Rule, pegtl::parse_tree::store_content::on<
              g::number, g::ident, g::member, g::name_ref, g::call, g::negate, g::unary_plus,
              g::power, g::exponent_operand, g::pow_op, g::term, g::term_operand, g::mul_op,
              g::add_op, g::expr, g::operand, g::vector_literal, g::string_literal,
              g::value_modifier, g::nested_modifier, g::component_kind, g::decl_name,
              g::component_args, g::component_value, g::fast_mark, g::description, g::type_name,
              g::parameter_item, g::parameter_value, g::parameter, g::component, g::constraint,
              g::annotation, g::equation, g::model_name, g::end_name, g::paren_expr>>;

using Node = pegtl::parse_tree::node;

// ---- Parse tree -> AST ---------------------------------------------------------------------

class Builder {
public:
    explicit Builder(source::Diagnostics& diagnostics) : diagnostics_(diagnostics) {}

    // Byte offsets straight from the node's iterators: node.begin() would also copy the
    // input's source name, which does not outlive the per-statement input.
    static Range range(const Node& n) {
        return {static_cast<std::uint32_t>(n.m_begin.byte),
                static_cast<std::uint32_t>(n.m_end.byte)};
    }
    static ast::Identifier identifier(const Node& n) { return {n.string(), range(n)}; }

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
        if (n.is_type<g::expr>() || n.is_type<g::operand>() || n.is_type<g::term>() ||
            n.is_type<g::term_operand>()) {
            return fold(n);
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
                ref.parts.push_back(identifier(*c));
            }
            e->node = std::move(ref);
            return e;
        }
        if (n.is_type<g::call>()) {
            ast::Call call{identifier(*n.children[0]), {}};
            for (std::size_t i = 1; i < n.children.size(); ++i) {
                call.args.push_back(expr(*n.children[i]));
            }
            e->node = std::move(call);
            return finish(std::move(e));
        }
        if (n.is_type<g::vector_literal>()) {
            ast::VectorLiteral v;
            for (const auto& c : n.children) {
                v.elements.push_back(expr(*c));
            }
            e->node = std::move(v);
            return finish(std::move(e));
        }
        throw std::logic_error("parser: unexpected node " + std::string(n.type));
    }

    // a op b op c ... folded to the left.
    ast::ExprPtr fold(const Node& n) {
        ast::ExprPtr lhs = expr(*n.children[0]);
        for (std::size_t i = 1; i + 1 < n.children.size(); i += 2) {
            const Node& op = *n.children[i];
            char c = op.string_view()[0];
            ast::BinaryOp bop = c == '+'   ? ast::BinaryOp::add
                                : c == '-' ? ast::BinaryOp::sub
                                : c == '*' ? ast::BinaryOp::mul
                                           : ast::BinaryOp::div;
            auto rhs = expr(*n.children[i + 1]);
            auto e = std::make_unique<ast::Expr>();
            e->range = {lhs->range.begin, rhs->range.end};
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
        m.name = identifier(*n.children[0]);
        if (n.is_type<g::nested_modifier>()) {
            m.nested = true;
            for (std::size_t i = 1; i < n.children.size(); ++i) {
                m.children.push_back(modifier(*n.children[i]));
            }
        } else if (n.children[1]->is_type<g::string_literal>()) {
            m.text = unquote(*n.children[1]);
        } else {
            m.value = expr(*n.children[1]);
        }
        return m;
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
        c.name = identifier(*n.children[1]);
        for (std::size_t i = 2; i < n.children.size(); ++i) {
            const Node& part = *n.children[i];
            if (part.is_type<g::component_args>()) {
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
        return K::real;
    }

    void parameters(const Node& n, ast::Model& model) {
        ast::Identifier type = identifier(*n.children[0]);
        for (std::size_t i = 1; i < n.children.size(); ++i) {
            const Node& item = *n.children[i];
            ast::Parameter p;
            p.type = type;
            p.range = range(item);
            p.name = identifier(*item.children[0]);
            for (std::size_t j = 1; j < item.children.size(); ++j) {
                const Node& part = *item.children[j];
                if (part.is_type<g::parameter_value>()) {
                    p.value = expr(*part.children[0]);
                } else {
                    p.description = unquote(part);
                }
            }
            model.parameters.push_back(std::move(p));
        }
    }

    void declaration(const Node& n, ast::Model& model) {
        if (n.is_type<g::component>()) {
            model.components.push_back(component(n));
        } else if (n.is_type<g::parameter>()) {
            parameters(n, model);
        } else if (n.is_type<g::constraint>()) {
            model.constraints.push_back(
                {identifier(*n.children[0]), expr(*n.children[1]), expr(*n.children[2]), range(n)});
        } else if (n.is_type<g::annotation>()) {
            ast::Annotation a;
            a.range = range(n);
            for (const auto& m : n.children) {
                a.modifiers.push_back(modifier(*m));
            }
            model.annotations.push_back(std::move(a));
        }
    }

private:
    source::Diagnostics& diagnostics_;
    bool too_deep_reported_ = false;
};

// ---- Statement-level driver with recovery --------------------------------------------------

class Parser {
public:
    Parser(const source::SourceFile& file, source::Diagnostics& diagnostics)
        : file_(file), text_(file.text()), diagnostics_(diagnostics), builder_(diagnostics) {}

    std::optional<ast::Model> run() {
        std::size_t errors_before = diagnostics_.error_count();
        ast::Model model;
        std::uint32_t pos = 0;
        // model Name "description"
        if (auto header = parse<g::model_header>(pos)) {
            model.name = Builder::identifier(*header->children[0]);
            if (header->children.size() > 1) {
                model.description = Builder::unquote(*header->children[1]);
            }
        } else {
            return std::nullopt; // nothing sensible to recover to
        }
        bool in_equations = false;
        while (!diagnostics_.saturated()) {
            if (!skip_space(pos)) {
                break;
            }
            if (pos >= text_.size()) {
                diagnostics_.error(Range::at(pos), fmt::format("expected 'end {};' at the end of "
                                                               "the model",
                                                               model.name.text));
                diagnostics_.note(model.name.range, "the model begins here");
                break;
            }
            if (at<g::kw_end>(pos)) {
                if (auto end = parse<g::model_end>(pos)) {
                    model.end_name = Builder::identifier(*end->children[0]);
                }
                break;
            }
            if (at<g::kw_equation>(pos)) {
                pos += 8; // "equation"
                in_equations = true;
                continue;
            }
            std::uint32_t start = pos;
            std::unique_ptr<Node> tree;
            if (!statement<g::declaration>(pos, tree)) {
                continue; // error reported, pos moved past it
            }
            if (tree) {
                builder_.declaration(*tree->children[0], model);
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
                const Node& eq = *tree->children[0];
                model.equations.push_back({builder_.expr(*eq.children[0]),
                                           builder_.expr(*eq.children[1]), Builder::range(eq)});
            } else {
                diagnostics_.error(token_range(start), "expected an equation, a declaration or "
                                                       "'end'");
                pos = skip_past_semicolon(start);
            }
        }
        if (diagnostics_.error_count() > errors_before) {
            return std::nullopt;
        }
        return model;
    }

private:
    // An input over the rest of the file that counts bytes from the file's start. Its source
    // name is a pointer to the file's own name, which outlives every parse tree node.
    using Input =
        pegtl::memory_input<pegtl::tracking_mode::eager, pegtl::eol::lf_crlf, const char*>;
    Input input_at(std::uint32_t pos) const {
        source::LineColumn lc = file_.line_column(pos);
        return Input(text_.data() + pos, text_.data() + text_.size(), file_.name().c_str(), pos,
                     lc.line, lc.column);
    }

    template <typename Rule>
    bool at(std::uint32_t pos) const {
        auto in = input_at(pos);
        return pegtl::parse<Rule>(in);
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
                diagnostics_.error({open, open + 2}, message);
                pos = static_cast<std::uint32_t>(text_.size());
                return false;
            }
            if (message == g::error_message<g::semicolon>::value) {
                // Clang's place for a missing ';': right after the previous token. The ';' is
                // then taken as inserted, so the next statement is still parsed.
                diagnostics_.error(Range::at(end_of_previous_token(where)), message);
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
            diagnostics_.error({open, open + 2}, std::string(e.message()));
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
        return {pos, end};
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
            "equation",  "annotation", "end",     "kinetic"};
        std::string suggestion = text.empty() ? "" : source::closest_name(text, keywords);
        if (!suggestion.empty()) {
            diagnostics_.error(word, fmt::format("unknown declaration '{}'; did you mean '{}'?",
                                                 text, suggestion));
        } else if (stmt.find('=') != std::string_view::npos && !text.empty()) {
            diagnostics_.error(word, "equations must follow the 'equation' keyword");
        } else {
            diagnostics_.error(word.begin == word.end ? Range{start, start + 1} : word,
                               "expected a declaration (parameter, coordinate, body, anchor, "
                               "spring, damper, potential, force, gravity, vibration, constraint, "
                               "Real) or 'equation'");
        }
        return next;
    }

    const source::SourceFile& file_;
    const std::string& text_;
    source::Diagnostics& diagnostics_;
    Builder builder_;
};

} // namespace

std::optional<ast::Model> parse_model(const source::SourceFile& file,
                                      source::Diagnostics& diagnostics) {
    Parser parser(file, diagnostics);
    return parser.run();
}

} // namespace mdl::parse
