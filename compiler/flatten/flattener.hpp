// The flattener (flatten.hpp) shared by its stages, each in its own file:
//   flatten.cpp              the entry point and the driver (run)
//   flat_expressions.cpp     building and cloning expressions of the flat model
//   integer_expressions.cpp  Integer expressions: sizes, bounds, subscripts, Integer parameters
//   collection.cpp           every name a model declares, before any expression is renamed
//   instantiation.cpp        instances of other models and their modifiers
//   static_conditions.cpp    conditions known when the model is flattened
//   renaming.cpp             expressions renamed into the flat model
//   emission.cpp             the flat declarations, in source order
#pragma once

#include "flatten/flatten.hpp"

#include <cmath>
#include <fmt/format.h>
#include <functional>
#include <map>
#include <memory>
#include <set>

namespace mdl::flatten::detail {

using ast::ComponentKind;
using ast::ExprPtr;
using source::Range;

// Loop variables in scope, innermost last.
using Env = std::vector<std::pair<std::string, long long>>;

// The innermost binding of `name` among the loop variables, or nullptr.
const long long* lookup(const Env& env, const std::string& name);
// "b[3]"
std::string element_name(const std::string& base, long long index);
ast::ExprPtr make(Range range, decltype(ast::Expr::node) node);
ast::ExprPtr number(Range range, double value);
ast::ExprPtr name(Range range, std::string text);
ast::ExprPtr finish(ast::ExprPtr e);
ast::ExprPtr clone(const ast::Expr& e);
std::vector<ast::ExprPtr> clone_all(const std::vector<ast::ExprPtr>& v);
ast::Modifier clone(const ast::Modifier& m);

struct Scope;

// What a name declared in a model stands for.
struct Decl {
    enum class Kind { real_parameter, integer_parameter, component, instance, constraint };
    Kind kind = Kind::component;
    ComponentKind component = ComponentKind::coordinate;
    bool array = false;           // declared with a size: elements 1..size
    long long size = 0;           // arrays
    std::set<long long> elements; // elements declared one by one in loops (spring s[i])
    Range range;
    std::string type; // instances: the model's name
    // Instances: the scope of the instance (scalar) or of each element, by index.
    std::map<long long, Scope*> scopes;
    std::optional<std::string> bound_to; // an anchor bound to an outer point by a modifier
};

// A modifier of an instance, already flattened in the scope that wrote it.
struct Override {
    ast::Modifier modifier; // values are flat expressions
};

struct IntegerParameter {
    const ast::Parameter* declaration = nullptr;
    std::optional<long long> given; // by a modifier of the instance or a -p override
    bool from_option = false;
    std::optional<long long> value;
    bool visiting = false;
};

// One model being instantiated: the top model, or an instance (or instance element).
struct Scope {
    std::string prefix; // "" or "left." or "cell[2]."
    const ast::Model* model = nullptr;
    std::uint32_t base_file = 0; // the file id the model's ranges carry
    std::uint32_t file_id = 0;   // the id given to them in this instance
    std::string path;            // the model's file, to find the models it uses
    int depth = 0;
    std::vector<std::string> types; // the models this scope is nested in, outermost first
    std::map<std::string, Decl> decls;
    std::map<std::string, IntegerParameter> integers;
    std::map<std::string, Override> overrides; // by the local name they modify

    Range map(Range r) const {
        if (r.file == base_file) {
            r.file = file_id;
        }
        return r;
    }
};

// One modifier given to an instance: as written at the instance (`own`, flattened in the
// scope that wrote it), or already flat from an enclosing instance's modifier (`flat`,
// `Outer o(inner(l = 3))`), which wins as in Modelica.
struct GivenModifier {
    const ast::Modifier* own = nullptr;
    const ast::Modifier* flat = nullptr;
};

// Where an instance (or one element of an array of instances) is declared, and the names
// its model lets modifiers set.
struct InstanceSite {
    Scope& outer;
    const ast::Component& c;
    const Env& env;
    long long index = 0; // 1..size for array elements, 0 for a scalar instance
    bool array = false;
    long long size = 0;
    std::map<std::string, const ast::Parameter*> parameters;
    std::map<std::string, const ast::Component*> components;
};

class Flattener {
public:
    Flattener(ModelLibrary& library, const FlattenOptions& options, source::Diagnostics& d)
        : library_(library), options_(options), d_(d) {}

    std::optional<FlatModel> run();

private:
    Scope& new_scope();

    bool budget(Range where);

    // ---- Integer expressions (sizes, bounds, subscripts, Integer parameters) --------------

    std::optional<long long> integer(const ast::Expr& e, Scope& s, const Env& env,
                                     const char* what);

    // Reports `message` at `r` (in scope `s`) and gives nullopt.
    std::optional<long long> integer_error(Range r, Scope& s, const std::string& message);

    // A loop variable or an Integer parameter, by its name.
    std::optional<long long> integer_name(const ast::NameRef& r, Range range, Scope& s,
                                          const Env& env, const char* what);

    // + - * / ^ on Integers, with overflow and inexact division reported.
    std::optional<long long> integer_binary(const ast::Binary& b, Range range, Scope& s,
                                            const Env& env, const char* what);

    // div, mod, min and max of two Integers.
    std::optional<long long> integer_call(const ast::Call& c, Range range, Scope& s, const Env& env,
                                          const char* what);

    std::optional<long long> integer_parameter(Scope& s, const std::string& n);

    // ---- Collection: every name a model declares, before any expression is renamed ---------

    void collect(Scope& s);

    std::optional<long long> option_override(const std::string& flat);

    void walk_parameters(Scope& s, const ast::Model& m);

    // The size of an array declaration (one subscript), or nullopt after an error.
    std::optional<long long> array_size(const std::vector<ExprPtr>& subscripts, Scope& s,
                                        const Env& env, Range name);

    // The element a subscripted declaration inside a loop names.
    std::optional<long long> element_index(const std::vector<ExprPtr>& subscripts, Scope& s,
                                           const Env& env, Range name);

    void declare(Scope& s, const std::string& n, Decl d);

    void collect_statements(Scope& s, const ast::Model& m, const Env& env, bool in_loop);

    // Runs `body` once per value of the loop variable.
    void iterate(Scope& s, const ast::ForLoop& loop, const Env& env,
                 const std::function<void(const Env&)>& body);

    std::optional<std::tuple<long long, long long, long long>> bounds(const ast::Iterator& it,
                                                                      Scope& s, const Env& env);

    // ---- Instances ---------------------------------------------------------------------

    void instantiate(Scope& outer, const ast::Component& c, long long index, bool array,
                     const Env& env);

    // Reports and gives true when `c`'s model already encloses `outer`.
    bool recursive(const Scope& outer, const ast::Component& c);

    // A new scope for the instance `flat` of `def`, declared by `c` in `outer`.
    Scope& instance_scope(const Scope& outer, const ast::Component& c, const ModelDefinition& def,
                          const std::string& flat);

    // The modifiers of an instance: those an enclosing instance gives it, then its own
    // (those the enclosing one names are left out); positional arguments are reported.
    std::vector<GivenModifier> given_modifiers(const Scope& outer, const ast::Component& c,
                                               const std::string& flat);

    // Checks one modifier against the instance's model and records it in `s`.
    void apply_modifier(Scope& s, const InstanceSite& site, const GivenModifier& g);

    // A modifier setting an Integer parameter of the instance: its value, now.
    void apply_integer_modifier(Scope& s, const InstanceSite& site, const GivenModifier& g);

    // pivot = cart.b: the anchor stands for an outer body or anchor; false after an error.
    bool bind_anchor(Scope& s, const InstanceSite& site, const GivenModifier& g,
                     const ast::Component& anchor, const ast::Modifier& per_element);

    static void gather_names(const ast::Model& m,
                             std::map<std::string, const ast::Parameter*>& parameters,
                             std::map<std::string, const ast::Component*>& components);

    // A modifier flattened in the scope that wrote it, with array values reduced to the
    // element `index` of an array declaration (index 1..size); nullopt after an error.
    std::optional<ast::Modifier> element_of(const ast::Modifier& m, Scope& s, const Env& env,
                                            long long index, bool array, long long size);

    // The elements of an array modifier's value, computed once per modifier, scope and loop
    // iteration; null after an error.
    const std::vector<ast::ExprPtr>* array_values(const ast::Modifier& m, Scope& s, const Env& env,
                                                  long long size);

    // An already flat modifier of an array declaration reduced to one element: an array
    // value gives element `index`, anything else (or `each`) is the same for every element.
    std::optional<ast::Modifier> flat_element(const ast::Modifier& m, long long index,
                                              long long size);

    // ---- Conditions known when the model is flattened -----------------------------------------

    // The value of an expression of numbers, loop variables and Integer parameters, or nullopt
    // (without a diagnostic) when it depends on anything else: Real parameters, positions, time.
    std::optional<double> static_value(const ast::Expr& e, Scope& s, const Env& env);

    // Both operands' static values, or nullopt.
    std::optional<std::pair<double, double>> static_operands(const ast::Binary& b, Scope& s,
                                                             const Env& env);

    // Whether a condition holds, when it is known now; nullopt when it is decided at run time.
    std::optional<bool> static_condition(const ast::Expr& e, Scope& s, const Env& env);

    // ---- Renaming expressions into the flat model ------------------------------------------

    ast::ExprPtr rename(const ast::Expr& e, Scope& s, const Env& env);

    // The elements of an array-valued expression: {a, b}, {e for i in r}, or an array's name.
    // nullopt (after an error) when it is not one.
    std::optional<std::vector<ast::ExprPtr>> elements_of(const ast::Expr& e, Scope& s,
                                                         const Env& env);

    ast::ExprPtr rename_call(const ast::Call& c, Range original, Scope& s, const Env& env);

    std::optional<long long> subscript(const ast::NameRef& r, std::size_t part, Scope& s,
                                       const Env& env, const Decl& d, const std::string& shown);

    static std::string describe_elements(const std::set<long long>& e);

    // a, a[i], inst.b[j].x: the flat name of the declaration (one part) and its members.
    ast::ExprPtr rename_name(const ast::NameRef& r, Range original, Scope& s, const Env& env);

    // ---- Emission: the flat declarations, in source order ------------------------------------

    void emit(Scope& s, const ast::Model& m, const Env& env, bool top);

    void add(ast::StatementKind kind, std::size_t index);

    // A when-clause with its names flattened (b.y in instance c: c.b.y).
    void emit_when(Scope& s, const ast::When& w, const Env& env);

    void emit_parameter(Scope& s, const ast::Parameter& p, const Env& env);

    // The arguments of one element of a component: its own (flattened, reduced to the
    // element) with the instance's modifiers in place of those they name.
    std::optional<std::vector<ast::Argument>> arguments(Scope& s, const ast::Component& c,
                                                        const Env& env, long long index, bool array,
                                                        long long size);

    void emit_component(Scope& s, const ast::Component& c, const Env& env, bool in_loop);

    void emit_constraint(Scope& s, const ast::Constraint& c, const Env& env);

    void emit_annotation(Scope& s, const ast::Annotation& a, const Env& env);

    void report_structural(Scope& top);

    ModelLibrary& library_;
    const FlattenOptions& options_;
    source::Diagnostics& d_;
    std::vector<std::unique_ptr<Scope>> scopes_;
    FlatModel out_;
    std::set<std::string> applied_;
    std::map<std::string, std::optional<std::vector<ast::ExprPtr>>> array_values_;
    long long elements_ = 0;
    bool over_budget_ = false;
};

} // namespace mdl::flatten::detail
