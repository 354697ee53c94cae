#include "symbolic/equations_of_motion.hpp"

#include "symbolic/dependence.hpp"
#include "symbolic/derivative.hpp"
#include "symbolic/derive_kernels.hpp"

#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <unordered_map>

namespace mdl::symbolic {

namespace {

using check::CheckedModel;
using Point = std::array<ExprId, 3>; // x, y, z

class Builder {
public:
    Builder(const CheckedModel& model, System& system, double relax_constraints)
        : m_(model), s_(system), pool_(system.pool()), relax_(relax_constraints) {}

    void run() {
        name_variables();
        // Vibration values and phases first: every other expression may refer to them.
        for (std::uint32_t i = 0; i < m_.vibrations.size(); ++i) {
            const check::Vibration& v = m_.vibrations[i];
            vibration_values_.push_back(translate(*v.value));
            ExprId phase = translate(*v.phase);
            s_.outputs(Kernel::phase).push_back(phase);
            ExprId rate = differentiate(pool_, phase, {VarKind::time, 0});
            phase_rates_.push_back(rate);
            s_.outputs(Kernel::phase_rate).push_back(rate);
        }
        const std::size_t n = m_.positions.size();
        std::vector<ExprId> force(n, pool_.zero());
        std::vector<ExprId> kinetic_terms(n, pool_.zero());
        add_kinetic_energy(kinetic_terms);
        ExprId potential = total_potential();
        if (has_potential_) {
            s_.outputs(Kernel::potential).push_back(potential);
            auto grad =
                gradient(pool_, potential, VarKind::position, static_cast<std::uint32_t>(n));
            for (std::size_t i = 0; i < n; ++i) {
                force[i] = pool_.sub(force[i], grad[i]);
            }
        }
        add_dampers(force);
        for (const auto& f : m_.forces) {
            if (!f.at.empty()) {
                std::vector<ExprId> components;
                for (const auto& c : f.components) {
                    components.push_back(translate(*c));
                }
                apply_at(force, f.at, f.positions, components, 1.0);
                continue;
            }
            for (std::size_t j = 0; j < f.positions.size(); ++j) {
                ExprId& fi = force[f.positions[j]];
                fi = pool_.add(fi, translate(*f.components[j]));
            }
        }
        for (const auto& e : m_.equations) {
            force[e.position] = pool_.add(force[e.position], translate(*e.rhs));
        }
        s_.applied_velocity_dependent = depends_on(pool_, force, VarKind::velocity);
        for (std::size_t i = 0; i < n; ++i) {
            force[i] = pool_.add(kinetic_terms[i], force[i]);
        }
        s_.outputs(Kernel::force) = std::move(force);
        for (const auto& st : m_.states) {
            s_.outputs(Kernel::rates).push_back(translate(*st.rate));
        }
        if (relax_ <= 0.0) {
            for (const auto& c : m_.constraints) {
                s_.outputs(Kernel::constraint).push_back(translate(*c.residual));
            }
        }
        for (const auto& e : m_.events) {
            s_.outputs(Kernel::event_indicator).push_back(translate(*e.indicator));
            for (const auto& r : e.reinits) {
                s_.outputs(Kernel::event_reinit).push_back(translate(*r.value));
            }
        }
    }

private:
    // Lagrange's equations for T(q, v) = 1/2 v^T M(q) v: with the momenta p = dT/dv,
    // d/dt p = (dp/dq) v + M a, so M(q) a = dT/dq - (dp/dq) v + (the other forces), and
    // M = dp/dv. Positions outside T keep their constant mass on the diagonal. When M comes
    // out constant and diagonal, the mass kernel carries it and every method applies;
    // otherwise its entries for the coordinates of T are NaN (kernel_abi.h), and the
    // mass_matrix kernel is M(q).
    void add_kinetic_energy(std::vector<ExprId>& force) {
        const auto n = static_cast<std::uint32_t>(m_.positions.size());
        if (m_.kinetic.empty()) {
            for (const auto& p : m_.positions) {
                s_.outputs(Kernel::mass).push_back(translate(*p.mass));
            }
            return; // derive_kernels sets M = diag(mass)
        }
        ExprId kinetic = pool_.zero();
        for (const auto& k : m_.kinetic) {
            kinetic = pool_.add(kinetic, translate(*k.value));
        }
        const std::vector<ExprId> momentum = gradient(pool_, kinetic, VarKind::velocity, n);
        std::vector<ExprId> matrix = jacobian(pool_, momentum, VarKind::velocity, n);
        const std::vector<ExprId> momentum_dq = jacobian(pool_, momentum, VarKind::position, n);
        const std::vector<ExprId> kinetic_dq = gradient(pool_, kinetic, VarKind::position, n);
        bool constant_diagonal = true;
        std::vector<ExprId> kinetic_diagonal;
        for (std::uint32_t i = 0; i < n; ++i) {
            const check::Position& p = m_.positions[i];
            if (!p.kinetic) {
                matrix[static_cast<std::size_t>(i) * n + i] = translate(*p.mass);
                continue;
            }
            kinetic_diagonal.push_back(matrix[static_cast<std::size_t>(i) * n + i]);
            std::vector<ExprId> terms{kinetic_dq[i]};
            for (std::uint32_t j = 0; j < n; ++j) {
                const ExprId entry = matrix[static_cast<std::size_t>(i) * n + j];
                if (j != i && !pool_.is_constant(entry, 0.0)) {
                    constant_diagonal = false;
                }
                const ExprId dp = momentum_dq[static_cast<std::size_t>(i) * n + j];
                if (dp != pool_.zero()) { // add() drops zero terms: only the work differs
                    terms.push_back(pool_.neg(pool_.mul(dp, s_.velocity(j))));
                }
            }
            force[i] = pool_.add(terms);
        }
        // one pass over the diagonal's DAG, not one per entry
        if (depends_on(pool_, kinetic_diagonal, VarKind::position)) {
            constant_diagonal = false;
        }
        for (std::uint32_t i = 0; i < n; ++i) {
            const check::Position& p = m_.positions[i];
            s_.outputs(Kernel::mass)
                .push_back(!p.kinetic ? translate(*p.mass)
                           : constant_diagonal
                               ? matrix[static_cast<std::size_t>(i) * n + i]
                               : pool_.constant(std::numeric_limits<double>::quiet_NaN()));
        }
        s_.outputs(Kernel::mass_matrix) = std::move(matrix);
    }

    void name_variables() {
        VariableNames& names = s_.names;
        for (const auto& p : m_.parameters) {
            names.parameters.push_back(p.name);
        }
        for (const auto& p : m_.positions) {
            names.positions.push_back(p.name);
            names.velocities.push_back(p.velocity_name);
        }
        for (const auto& st : m_.states) {
            names.states.push_back(st.name);
        }
        for (const auto& v : m_.vibrations) {
            names.phases.push_back(v.phase_name + "_" + v.name);
        }
        names.time = "time";
    }

    // A checked expression in the pool. Checked expressions may share subtrees (a body's mass,
    // an anchor's coordinate), so results are memoized by node.
    ExprId translate(const check::Expr& e) {
        if (auto it = memo_.find(&e); it != memo_.end()) {
            return it->second;
        }
        ExprId out = translate_node(e);
        memo_.emplace(&e, out);
        return out;
    }

    ExprId translate_node(const check::Expr& e) {
        using K = check::Expr::Kind;
        auto arg = [&](std::size_t i) {
            return translate(*e.args[i]);
        };
        switch (e.kind) {
        case K::number:
            return pool_.constant(e.value);
        case K::parameter:
            return s_.parameter(e.index);
        case K::position:
            return s_.position(e.index);
        case K::velocity:
            return s_.velocity(e.index);
        case K::state:
            return s_.state(e.index);
        case K::time:
            return s_.time();
        case K::phase:
            return s_.phase(e.index);
        case K::vibration:
            return vibration_values_.at(e.index);
        case K::negate:
            return pool_.neg(arg(0));
        case K::add:
            return sum(e);
        case K::sub:
            return pool_.sub(arg(0), arg(1));
        case K::mul:
            return pool_.mul(arg(0), arg(1));
        case K::div:
            return pool_.div(arg(0), arg(1));
        case K::pow:
            return pool_.pow(arg(0), arg(1));
        case K::call: {
            if (e.function == check::Function::pow) {
                return pool_.pow(arg(0), arg(1));
            }
            auto f = function_named(check::to_string(e.function));
            if (!f) {
                throw std::logic_error(std::string("no symbolic function for ") +
                                       check::to_string(e.function));
            }
            return e.args.size() == 2 ? pool_.call(*f, arg(0), arg(1)) : pool_.call(*f, arg(0));
        }
        case K::compare:
            return pool_.comparison(e.comparison, arg(0), arg(1));
        case K::select:
            return pool_.select(arg(0), arg(1), arg(2));
        }
        throw std::logic_error("equations_of_motion: unknown expression kind");
    }

    // A chain of binary additions (a reduction `sum(... for i in 1:n)` unrolls to one) as one
    // n-ary sum: adding its terms one by one would flatten and sort the growing partial sum
    // at each step and intern every partial sum, quadratic in n. The left operands are
    // followed down the chain without recursion.
    ExprId sum(const check::Expr& e) {
        std::vector<const check::Expr*> right; // the right operands, last term first
        const check::Expr* left = &e;
        while (left->kind == check::Expr::Kind::add && !memo_.contains(left)) {
            right.push_back(left->args[1].get());
            left = left->args[0].get();
        }
        std::vector<ExprId> terms{translate(*left)};
        for (auto it = right.rbegin(); it != right.rend(); ++it) {
            terms.push_back(translate(**it));
        }
        return pool_.add(terms);
    }

    // The positions of the rigid body a point is fixed on: x, y, phi.
    std::vector<std::uint32_t> rigid_positions(std::uint32_t body) const {
        const check::Body& b = m_.bodies[body];
        return {static_cast<std::uint32_t>(b.position[0]),
                static_cast<std::uint32_t>(b.position[1]), static_cast<std::uint32_t>(b.rotation)};
    }

    // A Cartesian force (times sign) applied at a point whose position is an expression of
    // `positions`: its generalized forces are f . d(point)/dq_j (virtual work), the torque on
    // phi among them.
    void apply_at(std::vector<ExprId>& force, const std::vector<check::ExprPtr>& at,
                  const std::vector<std::uint32_t>& positions,
                  const std::vector<ExprId>& components, double sign) {
        for (std::uint32_t q : positions) {
            std::vector<ExprId> work;
            for (std::size_t axis = 0; axis < at.size() && axis < components.size(); ++axis) {
                const ExprId lever =
                    differentiate(pool_, translate(*at[axis]), {VarKind::position, q});
                work.push_back(pool_.mul(components[axis], lever));
            }
            ExprId& fq = force[q];
            fq = pool_.add(fq, pool_.mul(pool_.constant(sign), pool_.add(work)));
        }
    }

    // An endpoint's position; a body's missing components and an anchor's unnamed ones are 0.
    Point point(const check::Endpoint& e) {
        Point p{pool_.zero(), pool_.zero(), pool_.zero()};
        for (std::size_t axis = 0; axis < 3; ++axis) {
            if (e.point >= 0) {
                p[axis] = translate(*m_.points[static_cast<std::size_t>(e.point)].position[axis]);
            } else if (e.is_anchor) {
                p[axis] = translate(*m_.anchors[e.index].coordinate[axis]);
            } else if (int q = m_.bodies[e.index].position[axis]; q >= 0) {
                p[axis] = s_.position(static_cast<std::uint32_t>(q));
            }
        }
        return p;
    }

    // d/dt of an expression of time and phases: the partial in time plus, through each phase
    // theta_i = omega_i t + c_i, the partial in theta_i times omega_i.
    ExprId time_derivative(ExprId e) {
        ExprId d = differentiate(pool_, e, {VarKind::time, 0});
        for (std::uint32_t i = 0; i < phase_rates_.size(); ++i) {
            ExprId dtheta = differentiate(pool_, e, {VarKind::phase, i});
            d = pool_.add(d, pool_.mul(dtheta, phase_rates_[i]));
        }
        return d;
    }

    Point velocity(const check::Endpoint& e) {
        Point v{pool_.zero(), pool_.zero(), pool_.zero()};
        for (std::size_t axis = 0; axis < 3; ++axis) {
            if (e.point >= 0) {
                v[axis] = translate(*m_.points[static_cast<std::size_t>(e.point)].velocity[axis]);
            } else if (e.is_anchor) {
                v[axis] = time_derivative(translate(*m_.anchors[e.index].coordinate[axis]));
            } else if (int q = m_.bodies[e.index].position[axis]; q >= 0) {
                v[axis] = s_.velocity(static_cast<std::uint32_t>(q));
            }
        }
        return v;
    }

    // U = sum of the potentials + k/2 (|B - A| - L)^2 per spring - sum m_b g . x_b per field.
    // The terms are collected and summed once: adding them one by one would flatten and sort
    // the growing sum again for each, quadratic in the number of springs and bodies.
    ExprId total_potential() {
        std::vector<ExprId> u;
        for (const auto& p : m_.potentials) {
            u.push_back(translate(*p.value));
            has_potential_ = true;
        }
        for (const auto& sp : m_.springs) {
            Point a = point(sp.a), b = point(sp.b);
            ExprId squared = pool_.zero();
            for (std::size_t axis = 0; axis < 3; ++axis) {
                ExprId d = pool_.sub(b[axis], a[axis]);
                squared = pool_.add(squared, pool_.mul(d, d));
            }
            ExprId k = translate(*sp.stiffness);
            ExprId rest = translate(*sp.rest_length);
            ExprId stretch2 = squared; // a zero-length spring is linear: k/2 |B - A|^2
            if (!pool_.is_constant(rest, 0.0)) {
                ExprId stretch = pool_.sub(pool_.call(Func::sqrt, squared), rest);
                stretch2 = pool_.mul(stretch, stretch);
            }
            u.push_back(pool_.mul(pool_.mul(pool_.constant(0.5), k), stretch2));
            has_potential_ = true;
        }
        if (relax_ > 0.0) {
            u.push_back(relaxed_constraints());
        }
        for (const auto& g : m_.gravity) {
            for (const auto& body : m_.bodies) {
                if (body.name.compare(0, g.scope.size(), g.scope) != 0) {
                    continue; // a field declared in an instance acts on its bodies only
                }
                ExprId mass = translate(*body.mass);
                for (std::size_t axis = 0; axis < 3; ++axis) {
                    if (body.position[axis] < 0) {
                        continue;
                    }
                    ExprId x = s_.position(static_cast<std::uint32_t>(body.position[axis]));
                    ExprId work = pool_.mul(pool_.mul(mass, translate(*g.acceleration[axis])), x);
                    u.push_back(pool_.neg(work));
                    has_potential_ = true;
                }
            }
        }
        return pool_.add(u);
    }

    // Each constraint g_j = 0 as the stiff potential (omega^2/2) g_j^2 / (grad g_j^T M^-1 grad
    // g_j) (equations_of_motion.hpp).
    ExprId relaxed_constraints() {
        const auto n = static_cast<std::uint32_t>(m_.positions.size());
        ExprId u = pool_.zero();
        const ExprId half_omega2 = pool_.constant(0.5 * relax_ * relax_);
        for (const auto& p : m_.positions) {
            if (p.kinetic) {
                throw std::invalid_argument(
                    "relaxing the constraints needs a constant diagonal mass matrix; coordinate '" +
                    p.name + "' gets its inertia from a kinetic energy");
            }
        }
        for (const auto& c : m_.constraints) {
            ExprId g = translate(*c.residual);
            auto grad = gradient(pool_, g, VarKind::position, n);
            ExprId metric = pool_.zero(); // grad g^T M^-1 grad g
            for (std::uint32_t i = 0; i < n; ++i) {
                ExprId mass = translate(*m_.positions[i].mass);
                metric = pool_.add(metric, pool_.div(pool_.mul(grad[i], grad[i]), mass));
            }
            u = pool_.add(u, pool_.mul(half_omega2, pool_.div(pool_.mul(g, g), metric)));
            has_potential_ = true;
        }
        return u;
    }

    // Viscous dampers: the force on A is -c (v_A - v_B) component-wise, the opposite on B.
    void add_dampers(std::vector<ExprId>& force) {
        for (const auto& d : m_.dampers) {
            Point va = velocity(d.a), vb = velocity(d.b);
            ExprId c = translate(*d.coefficient);
            std::vector<ExprId> on_a; // the force on A, per axis
            for (std::size_t axis = 0; axis < 3; ++axis) {
                on_a.push_back(pool_.mul(pool_.neg(c), pool_.sub(va[axis], vb[axis])));
            }
            for (const auto& [end, sign] : {std::pair{d.a, 1.0}, std::pair{d.b, -1.0}}) {
                if (end.point >= 0) {
                    const check::Point& p = m_.points[static_cast<std::size_t>(end.point)];
                    apply_at(force, {p.position[0], p.position[1]}, rigid_positions(end.index),
                             on_a, sign);
                }
            }
            for (std::size_t axis = 0; axis < 3; ++axis) {
                ExprId f = on_a[axis];
                for (const auto& [end, sign] : {std::pair{d.a, 1.0}, std::pair{d.b, -1.0}}) {
                    if (end.is_anchor || end.point >= 0) {
                        continue;
                    }
                    int q = m_.bodies[end.index].position[axis];
                    if (q >= 0) {
                        ExprId& fq = force[static_cast<std::size_t>(q)];
                        fq = pool_.add(fq, pool_.mul(pool_.constant(sign), f));
                    }
                }
            }
        }
    }

    const CheckedModel& m_;
    System& s_;
    ExprPool& pool_;
    std::vector<ExprId> vibration_values_;
    std::vector<ExprId> phase_rates_;
    std::unordered_map<const check::Expr*, ExprId> memo_;
    bool has_potential_ = false;
    double relax_ = 0.0;
};

} // namespace

System equations_of_motion(const check::CheckedModel& model, std::size_t node_limit,
                           double relax_constraints) {
    if (!(relax_constraints >= 0.0) || !std::isfinite(relax_constraints)) {
        throw std::invalid_argument("the relaxation frequency of the constraints must be a "
                                    "finite number >= 0");
    }
    SystemSizes sizes;
    sizes.positions = static_cast<std::uint32_t>(model.positions.size());
    sizes.states = static_cast<std::uint32_t>(model.states.size());
    sizes.constraints =
        relax_constraints > 0.0 ? 0u : static_cast<std::uint32_t>(model.constraints.size());
    sizes.vibrations = static_cast<std::uint32_t>(model.vibrations.size());
    sizes.parameters = static_cast<std::uint32_t>(model.parameters.size());
    sizes.events = static_cast<std::uint32_t>(model.events.size());
    for (const auto& e : model.events) {
        sizes.reinits += static_cast<std::uint32_t>(e.reinits.size());
    }
    System system(sizes, node_limit);
    Builder(model, system, relax_constraints).run();
    derive_kernels(system);
    return system;
}

} // namespace mdl::symbolic
