// One message per grammar rule that must match, in the words a user needs ("expected ';'"),
// and the control that turns a failed `must` into a parse error carrying that message.
#pragma once

#include "parse/grammar.hpp"

namespace mdl::grammar {

template <typename Rule>
struct error_message {
    static constexpr const char* value = nullptr; // rules that cannot fail need none
};

#define MDL_ERROR_MESSAGE(RULE, TEXT)                                                              \
    template <>                                                                                    \
    struct error_message<RULE> {                                                                   \
        static constexpr const char* value = TEXT;                                                 \
    }

MDL_ERROR_MESSAGE(block_comment_end, "unterminated /* comment");
MDL_ERROR_MESSAGE(exponent_digits, "expected digits in the exponent of a number");
MDL_ERROR_MESSAGE(string_close, "unterminated string");
MDL_ERROR_MESSAGE(operand, "expected an expression");
MDL_ERROR_MESSAGE(term_operand, "expected an expression");
MDL_ERROR_MESSAGE(exponent_operand, "expected an expression");
MDL_ERROR_MESSAGE(close_paren, "expected ')'");
MDL_ERROR_MESSAGE(close_brace, "expected '}'");
MDL_ERROR_MESSAGE(member, "expected a member name after '.'");
MDL_ERROR_MESSAGE(modifier_value, "expected a value after '='");
MDL_ERROR_MESSAGE(modifier, "expected a modifier such as 'start = 1'");
MDL_ERROR_MESSAGE(modifier_list, "expected a modifier such as 'start = 1'");
MDL_ERROR_MESSAGE(component_arg, "expected an argument");
MDL_ERROR_MESSAGE(decl_name, "expected a name for the declaration");
MDL_ERROR_MESSAGE(type_name, "expected a type name ('Real')");
MDL_ERROR_MESSAGE(parameter_item, "expected a parameter name");
MDL_ERROR_MESSAGE(semicolon, "expected ';'");
MDL_ERROR_MESSAGE(colon, "expected ':' after the constraint's name");
MDL_ERROR_MESSAGE(equals, "expected '='");
MDL_ERROR_MESSAGE(open_paren, "expected '('");
MDL_ERROR_MESSAGE(kw_model, "expected 'model'");
MDL_ERROR_MESSAGE(model_name, "expected the model's name");
MDL_ERROR_MESSAGE(end_name, "expected the model's name after 'end'");
MDL_ERROR_MESSAGE(close_bracket, "expected ']'");
MDL_ERROR_MESSAGE(subscripts, "expected a subscript such as [i]");
MDL_ERROR_MESSAGE(rel_operand, "expected an expression");
MDL_ERROR_MESSAGE(logical_operand, "expected an expression");
MDL_ERROR_MESSAGE(logical_term_operand, "expected an expression");
MDL_ERROR_MESSAGE(if_branch, "expected a condition, 'then' and a value");
MDL_ERROR_MESSAGE(then_keyword, "expected 'then'");
MDL_ERROR_MESSAGE(else_branch, "expected 'else': an if-expression needs an else branch");
MDL_ERROR_MESSAGE(iterator_name, "expected a loop variable name");
MDL_ERROR_MESSAGE(kw_in, "expected 'in'");
MDL_ERROR_MESSAGE(range_expr, "expected a range such as 1:n");
MDL_ERROR_MESSAGE(range_bound, "expected a range bound");
MDL_ERROR_MESSAGE(loop_keyword, "expected 'loop'");
MDL_ERROR_MESSAGE(instance_item, "expected an instance name");
MDL_ERROR_MESSAGE(reinit_open, "expected '('");
MDL_ERROR_MESSAGE(reinit_comma, "expected ',' between the variable and the new value of reinit");
MDL_ERROR_MESSAGE(terminate_message, "expected a message string: terminate(\"why\")");
MDL_ERROR_MESSAGE(when_then, "expected 'then' after the condition of a when-clause");
MDL_ERROR_MESSAGE(when_branch, "expected a condition such as 'h <= 0'");
MDL_ERROR_MESSAGE(end_when, "expected 'reinit(...);', 'terminate(...);', 'elsewhen' or "
                            "'end when;' in a when-clause");
MDL_ERROR_MESSAGE(impact_comma, "expected ', restitution = <coefficient>' after the condition "
                                "of an impact");
MDL_ERROR_MESSAGE(impact_restitution, "expected 'restitution = <coefficient>' in an impact");

#undef MDL_ERROR_MESSAGE

} // namespace mdl::grammar
