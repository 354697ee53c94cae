// The .mdl grammar as PEGTL rules, and nothing else: actions that build the AST live in
// parser.cpp, the message for each rule that must match lives in grammar_errors.hpp.
// Read top-down, this file is the syntax part of the language reference (docs/language.md).
#pragma once

#include <tao/pegtl.hpp>

namespace mdl::grammar {

using namespace tao::pegtl;

// ---- Lexical structure -------------------------------------------------------------------

struct line_comment : seq<two<'/'>, until<eolf>> {};
struct block_comment_end : until<string<'*', '/'>> {};
struct block_comment : if_must<string<'/', '*'>, block_comment_end> {};
// Whitespace and comments between tokens.
struct ws : star<sor<plus<space>, line_comment, block_comment>> {};

template <typename Key>
struct key : seq<Key, not_at<identifier_other>> {};

struct kw_model : key<TAO_PEGTL_STRING("model")> {};
struct kw_end : key<TAO_PEGTL_STRING("end")> {};
struct kw_equation : key<TAO_PEGTL_STRING("equation")> {};
struct kw_parameter : key<TAO_PEGTL_STRING("parameter")> {};
struct kw_constraint : key<TAO_PEGTL_STRING("constraint")> {};
struct kw_annotation : key<TAO_PEGTL_STRING("annotation")> {};
struct kw_fast : key<TAO_PEGTL_STRING("fast")> {};

// Declaration keywords that share the component syntax (see `component` below).
struct component_kind : sor<key<TAO_PEGTL_STRING("coordinate")>, key<TAO_PEGTL_STRING("body")>,
                            key<TAO_PEGTL_STRING("anchor")>, key<TAO_PEGTL_STRING("spring")>,
                            key<TAO_PEGTL_STRING("damper")>, key<TAO_PEGTL_STRING("potential")>,
                            key<TAO_PEGTL_STRING("force")>, key<TAO_PEGTL_STRING("gravity")>,
                            key<TAO_PEGTL_STRING("vibration")>, key<TAO_PEGTL_STRING("Real")>,
                            key<TAO_PEGTL_STRING("kinetic")>> {};

struct keyword : sor<kw_model, kw_end, kw_equation, kw_parameter, kw_constraint, kw_annotation,
                     kw_fast, component_kind> {};

struct ident : seq<not_at<keyword>, identifier> {};

// 1, 2.5, 1e-3, .5, 3.
struct exponent_digits : plus<digit> {};
struct exponent : seq<one<'e', 'E'>, opt<one<'+', '-'>>, must<exponent_digits>> {};
struct number : seq<sor<seq<plus<digit>, opt<one<'.'>, star<digit>>>, seq<one<'.'>, plus<digit>>>,
                    opt<exponent>> {};

struct string_char : sor<seq<one<'\\'>, one<'"', '\\', 'n', 't'>>, not_one<'"', '\\', '\n'>> {};
struct string_close : one<'"'> {};
struct string_literal : if_must<one<'"'>, star<string_char>, string_close> {};

// ---- Expressions -------------------------------------------------------------------------
// Precedence, loosest first: + -, then * /, then unary - +, then ^ (right-associative), so
// -a^2 is -(a^2) and 2^-1 is allowed.

struct expr;
struct operand; // an expression that must follow an operator, '(' or '='

struct close_paren : one<')'> {};
struct close_brace : one<'}'> {};
struct paren_expr : if_must<one<'('>, ws, operand, ws, close_paren> {};
struct call_args : opt<expr, star<ws, one<','>, ws, must<operand>>> {};
struct call : seq<ident, ws, one<'('>, ws, call_args, ws, must<close_paren>> {};
struct member : ident {};
struct name_ref : seq<ident, star<one<'.'>, must<member>>> {};
struct vector_literal
    : if_must<one<'{'>, ws, operand, star<ws, one<','>, ws, must<operand>>, ws, close_brace> {};
struct primary : sor<number, paren_expr, vector_literal, call, name_ref> {};

struct power;
struct exponent_operand; // a power that must follow an operator
struct negate : seq<one<'-'>, ws, must<exponent_operand>> {};
struct unary_plus : seq<one<'+'>, ws, must<exponent_operand>> {};
struct pow_op : one<'^'> {};
struct power : sor<negate, unary_plus, seq<primary, opt<ws, pow_op, ws, must<exponent_operand>>>> {
};
struct exponent_operand : power {};

struct mul_op : one<'*', '/'> {};
struct term : seq<power, star<ws, mul_op, ws, must<exponent_operand>>> {};
struct term_operand : term {};
struct add_op : one<'+', '-'> {};
struct expr : seq<term, star<ws, add_op, ws, must<term_operand>>> {};
struct operand : expr {};

// ---- Modifiers: name = value, or name(modifiers) -----------------------------------------

struct modifier;
struct modifier_value : sor<string_literal, expr> {};
struct value_modifier : seq<ident, ws, one<'='>, ws, must<modifier_value>> {};
struct modifier_list : seq<modifier, star<ws, one<','>, ws, must<modifier>>> {};
struct nested_modifier : seq<ident, ws, one<'('>, ws, modifier_list, ws, must<close_paren>> {};
struct modifier : sor<value_modifier, nested_modifier> {};

// ---- Declarations ------------------------------------------------------------------------

struct semicolon : seq<ws, one<';'>> {}; // reported right after the previous token
struct description : string_literal {};
struct decl_name : ident {};

// A component: kind name [(arguments)] [= value] [fast [(modifiers)]] ["description"];
// Arguments are modifiers (k = 1, x(start = 0)) or positional expressions (the bodies a spring
// connects). Which parts each kind takes is checked later, with better messages than a
// grammar could give.
struct component_arg : sor<modifier, expr> {};
struct component_args
    : if_must<one<'('>, ws, opt<component_arg, star<ws, one<','>, ws, must<component_arg>>>, ws,
              close_paren> {};
struct component_value : if_must<one<'='>, ws, operand> {};
struct fast_mark : seq<kw_fast, opt<ws, if_must<one<'('>, ws, modifier_list, ws, close_paren>>> {};
struct component
    : if_must<component_kind, ws, decl_name, ws, opt<component_args>, ws, opt<component_value>, ws,
              opt<fast_mark>, ws, opt<description>, semicolon> {};

struct type_name : identifier {}; // checked later: parameters are Real
struct parameter_value : if_must<one<'='>, ws, operand> {};
struct parameter_item : seq<decl_name, ws, opt<parameter_value>, ws, opt<description>> {};
struct parameter : if_must<kw_parameter, ws, type_name, ws, parameter_item,
                           star<ws, one<','>, ws, must<parameter_item>>, semicolon> {};

struct colon : one<':'> {};
struct equals : one<'='> {};
struct constraint : if_must<kw_constraint, ws, decl_name, ws, colon, ws, operand, ws, equals, ws,
                            operand, semicolon> {};

struct open_paren : one<'('> {};
struct annotation
    : if_must<kw_annotation, ws, open_paren, ws, modifier_list, ws, close_paren, semicolon> {};

struct declaration : sor<component, parameter, constraint, annotation> {};

// lhs = rhs;  Equations are only allowed after the `equation` keyword.
struct equation : seq<expr, ws, must<equals>, ws, must<operand>, must<semicolon>> {};

// ---- The model ---------------------------------------------------------------------------

struct model_name : ident {};
struct model_header : seq<ws, must<kw_model>, ws, must<model_name>, ws, opt<description>> {};
struct end_name : ident {};
struct model_end : if_must<kw_end, ws, end_name, semicolon, ws, eof> {};

} // namespace mdl::grammar
