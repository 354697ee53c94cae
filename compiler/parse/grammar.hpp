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
struct kw_for : key<TAO_PEGTL_STRING("for")> {};
struct kw_in : key<TAO_PEGTL_STRING("in")> {};
struct kw_loop : key<TAO_PEGTL_STRING("loop")> {};
struct kw_each : key<TAO_PEGTL_STRING("each")> {};
struct kw_if : key<TAO_PEGTL_STRING("if")> {};
struct kw_then : key<TAO_PEGTL_STRING("then")> {};
struct kw_elseif : key<TAO_PEGTL_STRING("elseif")> {};
struct kw_else : key<TAO_PEGTL_STRING("else")> {};
struct kw_and : key<TAO_PEGTL_STRING("and")> {};
struct kw_or : key<TAO_PEGTL_STRING("or")> {};
struct kw_not : key<TAO_PEGTL_STRING("not")> {};
struct kw_true : key<TAO_PEGTL_STRING("true")> {};
struct kw_false : key<TAO_PEGTL_STRING("false")> {};
struct kw_when : key<TAO_PEGTL_STRING("when")> {};
struct kw_elsewhen : key<TAO_PEGTL_STRING("elsewhen")> {};

// Declaration keywords that share the component syntax (see `component` below).
struct component_kind : sor<key<TAO_PEGTL_STRING("coordinate")>, key<TAO_PEGTL_STRING("body")>,
                            key<TAO_PEGTL_STRING("anchor")>, key<TAO_PEGTL_STRING("spring")>,
                            key<TAO_PEGTL_STRING("damper")>, key<TAO_PEGTL_STRING("potential")>,
                            key<TAO_PEGTL_STRING("force")>, key<TAO_PEGTL_STRING("gravity")>,
                            key<TAO_PEGTL_STRING("vibration")>, key<TAO_PEGTL_STRING("Real")>,
                            key<TAO_PEGTL_STRING("kinetic")>, key<TAO_PEGTL_STRING("rigid")>,
                            key<TAO_PEGTL_STRING("point")>, key<TAO_PEGTL_STRING("revolute")>,
                            key<TAO_PEGTL_STRING("prismatic")>, key<TAO_PEGTL_STRING("weld")>> {};

struct keyword
    : sor<kw_model, kw_end, kw_equation, kw_parameter, kw_constraint, kw_annotation, kw_fast,
          kw_for, kw_in, kw_loop, kw_each, kw_if, kw_then, kw_elseif, kw_else, kw_and, kw_or,
          kw_not, kw_true, kw_false, kw_when, kw_elsewhen, component_kind> {};

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
// Precedence, loosest first (Modelica's): if-then-else, or, and, not, relations (< <= > >= ==
// <>), + -, * /, unary - +, ^ (right-associative), so -a^2 is -(a^2) and 2^-1 is allowed.

struct expr;
struct operand; // an expression that must follow an operator, '(' or '='

struct close_paren : one<')'> {};
struct close_brace : one<'}'> {};
struct close_bracket : one<']'> {};
struct paren_expr : if_must<one<'('>, ws, operand, ws, close_paren> {};

// a:b or a:step:b, an integer range (for-loops, comprehensions and reductions).
struct arith;
struct range_bound : seq<arith> {};
struct range_expr : seq<range_bound, ws, one<':'>, ws, must<range_bound>,
                        opt<ws, one<':'>, ws, must<range_bound>>> {};
struct iterator_name : ident {};
// `for i in a:b` after an expression: {e for i in 1:n}, sum(e for i in 1:n).
struct for_iterator : if_must<kw_for, ws, iterator_name, ws, kw_in, ws, range_expr> {};

struct call_args : opt<expr, sor<seq<ws, for_iterator>, star<ws, one<','>, ws, must<operand>>>> {};
struct call : seq<ident, ws, one<'('>, ws, call_args, ws, must<close_paren>> {};
struct subscripts
    : if_must<one<'['>, ws, operand, star<ws, one<','>, ws, must<operand>>, ws, close_bracket> {};
struct member : ident {};
// a, a[i], a.b, a[i].b[j].x: a declaration, an element of an array, a member of a body or an
// instance.
struct name_ref
    : seq<ident, opt<ws, subscripts>, star<one<'.'>, must<member>, opt<ws, subscripts>>> {};
struct vector_literal
    : if_must<one<'{'>, ws, operand,
              sor<seq<ws, for_iterator>, star<ws, one<','>, ws, must<operand>>>, ws, close_brace> {
};
struct boolean : sor<kw_true, kw_false> {};
struct primary : sor<number, paren_expr, vector_literal, boolean, call, name_ref> {};

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
struct arith : seq<term, star<ws, add_op, ws, must<term_operand>>> {};

struct rel_op : sor<string<'<', '='>, string<'>', '='>, string<'=', '='>, string<'<', '>'>,
                    one<'<'>, one<'>'>> {};
struct rel_operand : arith {};
struct relation : seq<arith, opt<ws, rel_op, ws, must<rel_operand>>> {};
struct logical_factor;
struct logical_operand : seq<logical_factor> {};
struct logical_not : seq<kw_not, ws, must<logical_operand>> {};
struct logical_factor : sor<logical_not, relation> {};
struct and_op : kw_and {};
struct logical_term : seq<logical_factor, star<ws, and_op, ws, must<logical_operand>>> {};
struct or_op : kw_or {};
struct logical_term_operand : logical_term {};
struct logical_expr : seq<logical_term, star<ws, or_op, ws, must<logical_term_operand>>> {};

struct then_keyword : kw_then {};
struct else_keyword : kw_else {};
struct if_branch : seq<operand, ws, must<then_keyword>, ws, must<operand>> {};
struct else_branch : if_must<kw_else, ws, operand> {};
struct if_expr : if_must<kw_if, ws, if_branch, star<ws, kw_elseif, ws, must<if_branch>>, ws,
                         must<else_branch>> {};

struct expr : sor<if_expr, logical_expr> {};
struct operand : expr {};

// ---- Modifiers: name = value, or name(modifiers) -----------------------------------------

struct modifier;
struct modifier_value : sor<string_literal, expr> {};
// `each` gives every element of an array declaration the same value.
struct each_mark : kw_each {};
struct value_modifier : seq<opt<each_mark, ws>, ident, ws, one<'='>, ws, must<modifier_value>> {};
struct modifier_list : seq<modifier, star<ws, one<','>, ws, must<modifier>>> {};
struct nested_modifier
    : seq<opt<each_mark, ws>, ident, ws, one<'('>, ws, modifier_list, ws, must<close_paren>> {};
struct modifier : sor<value_modifier, nested_modifier> {};

// ---- Declarations ------------------------------------------------------------------------

struct semicolon : seq<ws, one<';'>> {}; // reported right after the previous token
struct description : string_literal {};
// A declared name; subscripts make it an array of that size (body b[n]) or, inside a
// for-loop, name one element of an array (spring s[i]).
struct decl_name : seq<ident, opt<ws, subscripts>> {};

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

// An instance of another model: Type name [(modifiers)] ["description"], ...;
struct instance_type : ident {};
struct instance_item : seq<decl_name, ws, opt<component_args>, ws, opt<description>> {};
struct instance : seq<instance_type, ws, instance_item, star<ws, one<','>, ws, must<instance_item>>,
                      must<semicolon>> {};

struct type_name : identifier {}; // checked later: Real or Integer
struct parameter_value : if_must<one<'='>, ws, operand> {};
// parameter Real l(unit = "m") = 0.2: modifiers of the parameter, as in Modelica.
struct parameter_modifiers : if_must<one<'('>, ws, modifier_list, ws, close_paren> {};
struct parameter_item
    : seq<decl_name, ws, opt<parameter_modifiers>, ws, opt<parameter_value>, ws, opt<description>> {
};
struct parameter : if_must<kw_parameter, ws, type_name, ws, parameter_item,
                           star<ws, one<','>, ws, must<parameter_item>>, semicolon> {};

struct colon : one<':'> {};
struct equals : one<'='> {};
struct constraint : if_must<kw_constraint, ws, decl_name, ws, colon, ws, operand, ws, equals, ws,
                            operand, semicolon> {};

struct open_paren : one<'('> {};
struct annotation
    : if_must<kw_annotation, ws, open_paren, ws, modifier_list, ws, close_paren, semicolon> {};

// for i in a:b loop ... end for; -- the header and the end are statements of their own, so the
// statements between them are parsed (and recovered from) one by one.
struct loop_keyword : kw_loop {};
struct for_header
    : if_must<kw_for, ws, iterator_name, ws, kw_in, ws, range_expr, ws, loop_keyword> {};
struct end_for_keyword : kw_for {};
struct end_for : seq<kw_end, ws, end_for_keyword, must<semicolon>> {};

struct declaration
    : sor<component, parameter, constraint, annotation, for_header, end_for, instance> {};

// lhs = rhs;  Equations are only allowed after the `equation` keyword.
struct equation : seq<expr, ws, must<equals>, ws, must<operand>, must<semicolon>> {};

// when c then reinit(v, e); terminate("why"); elsewhen c2 then ... end when;
// Only in the equation section; the statements allowed inside are these two (events.md).
struct reinit_open : one<'('> {};
struct reinit_comma : one<','> {};
struct reinit_statement : if_must<key<TAO_PEGTL_STRING("reinit")>, ws, reinit_open, ws, operand, ws,
                                  reinit_comma, ws, operand, ws, close_paren, semicolon> {};
struct terminate_message : string_literal {};
struct terminate_statement : if_must<key<TAO_PEGTL_STRING("terminate")>, ws, reinit_open, ws,
                                     terminate_message, ws, close_paren, semicolon> {};
struct when_statement : sor<reinit_statement, terminate_statement> {};
struct when_then : kw_then {};
struct when_branch : seq<operand, ws, must<when_then>, star<ws, when_statement>> {};
struct elsewhen_branch : if_must<kw_elsewhen, ws, when_branch> {};
struct end_when_keyword : kw_when {};
struct end_when : seq<kw_end, ws, end_when_keyword, semicolon> {};
struct when_clause : if_must<kw_when, ws, when_branch, star<ws, elsewhen_branch>, ws, end_when> {};

// impact floor(b.y >= s, restitution = e); -- a position against a surface s(t): the
// when-clause of its crossing with the reinit of the relative velocity (docs/events.md).
// `impact` is no keyword: a statement is an impact when it starts `impact <name>(`.
struct impact_name : ident {};
struct impact_comma : one<','> {};
struct impact_restitution : seq<key<TAO_PEGTL_STRING("restitution")>, ws, one<'='>, ws, operand> {};
struct impact_statement
    : seq<key<TAO_PEGTL_STRING("impact")>, ws, impact_name, ws, one<'('>, ws,
          must<operand, ws, impact_comma, ws, impact_restitution, ws, close_paren, semicolon>> {};

// ---- The model ---------------------------------------------------------------------------

struct model_name : ident {};
struct model_header : seq<ws, must<kw_model>, ws, must<model_name>, ws, opt<description>> {};
struct end_name : ident {};
struct model_end : if_must<kw_end, ws, end_name, semicolon> {};

} // namespace mdl::grammar
