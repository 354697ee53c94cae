// A compiled model as the runtime sees it: the kernels of kernel_abi.h, the parameter values
// they are evaluated with, and the names of positions, states and constraints for messages
// and output. Every kernel call takes its inputs explicitly (no scratch state), so one Model
// can be shared by any number of steppers and threads.
#pragma once

#include "abi/kernel_abi.h"
#include "runtime/events/event.hpp"
#include "runtime/state.hpp"

#include <Eigen/Cholesky>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace mdl::runtime {

// Names used in error messages and output headers; empty lists get q1.., x1.., g1.., p1..
struct ModelNames {
    std::string model;
    std::vector<std::string> positions;       // n
    std::vector<std::string> states;          // k
    std::vector<std::string> constraints;     // m
    std::vector<std::string> parameters;      // P
    std::vector<std::string> vibrations = {}; // r (may be empty: "number 1", ...)
};

class Model {
public:
    // Checks the kernel table against the sizes (throws std::invalid_argument naming the
    // missing kernel or the wrong count) and evaluates the mass, which must be positive.
    Model(const mdl_kernels& kernels, std::vector<double> parameters, ModelNames names = {});

    Eigen::Index positions() const { return kernels_.n_positions; }
    Eigen::Index states() const { return kernels_.n_states; }
    Eigen::Index constraints() const { return kernels_.n_constraints; }
    Eigen::Index vibrations() const { return kernels_.n_vibrations; }
    bool constrained() const { return kernels_.n_constraints > 0; }
    bool velocity_dependent() const { return kernels_.velocity_dependent != 0; }
    bool time_dependent() const { return kernels_.time_dependent != 0; }
    bool has_potential() const { return kernels_.potential != nullptr; }
    bool has_force_jacobians() const {
        return kernels_.force_dq != nullptr && kernels_.force_dv != nullptr;
    }
    // Kinetic plus potential energy is conserved: a potential exists and nothing else acts
    // (no velocity or explicit time dependence, no vibration, no first-order states; the
    // velocity terms of a kinetic energy with M(q) do no work and do not count).
    bool conservative() const;

    const mdl_kernels& kernels() const { return kernels_; }
    const std::string& name() const { return names_.model; }

    const std::vector<double>& parameters() const { return parameters_; }
    const std::vector<std::string>& parameter_names() const { return names_.parameters; }
    // Sets a parameter by name (`-p omega=1e8`) and re-evaluates the mass. Throws
    // std::invalid_argument for an unknown name, suggesting the closest one.
    void set_parameter(std::string_view name, double value);
    // The current value of a parameter by name; throws like set_parameter.
    double parameter(std::string_view name) const;

    // M is constant and diagonal: mass() is its diagonal. Otherwise (a kinetic energy with
    // M(q) or coupled coordinates) the entries of mass() and inverse_mass() for the coordinates
    // of the kinetic energy are NaN, and only methods that solve M(q) a = f apply
    // (require_constant_diagonal_mass).
    bool mass_constant_diagonal() const {
        return kernels_.mass_depends_on_positions == 0 && kernels_.mass_coupled == 0;
    }
    bool mass_depends_on_positions() const { return kernels_.mass_depends_on_positions != 0; }
    bool mass_coupled() const { return kernels_.mass_coupled != 0; }
    const Vector& mass() const { return mass_; }
    const Vector& inverse_mass() const { return inverse_mass_; }
    // M(q), n x n (diag(mass()) when the model has no mass_matrix kernel).
    void mass_matrix(const Vector& q, Matrix& M) const;

    const std::string& position_name(Eigen::Index i) const { return names_.positions[idx(i)]; }
    std::string velocity_name(Eigen::Index i) const; // der(q)
    const std::string& state_name(Eigen::Index i) const { return names_.states[idx(i)]; }
    const std::string& constraint_name(Eigen::Index i) const { return names_.constraints[idx(i)]; }
    const ModelNames& names() const { return names_; }

    // Kernel calls. Outputs must already have their size; theta holds the r phases (empty
    // when the model has no vibration).
    void phases(double t, Vector& theta) const;
    void phase_rates(Vector& omega) const;
    void force(double t, const Vector& q, const Vector& v, const Vector& x, const Vector& theta,
               Vector& f) const;
    // a = M^-1 f: the acceleration without constraint forces. With M(q), a Cholesky
    // factorization of M(q) per call (ModelForce keeps its workspace instead); throws
    // NumericalFailure(singular_mass_matrix) naming the velocity where M(q) is not positive
    // definite (solve_mass_matrix).
    void acceleration(double t, const Vector& q, const Vector& v, const Vector& x,
                      const Vector& theta, Vector& a) const;
    void rates(double t, const Vector& q, const Vector& v, const Vector& x, const Vector& theta,
               Vector& xdot) const;
    // df/dq and df/dv (n x n) from the compiler's kernels; has_force_jacobians() must hold.
    void force_jacobians(double t, const Vector& q, const Vector& v, const Vector& x,
                         const Vector& theta, Matrix& f_q, Matrix& f_v) const;
    // The constraints g(t, q) = 0 at time t (the kernels read t and the phases at t only when
    // the constraints are rheonomic: time, a moving anchor or a driven joint).
    bool rheonomic() const { return kernels_.constraint_rate != nullptr; }
    void constraint(double t, const Vector& q, Vector& g) const;          // g(t, q), m
    void constraint_jacobian(double t, const Vector& q, Matrix& G) const; // G = dg/dq, m x n
    // G's structural nonzeros (kernels().constraint_jacobian_values, which must exist).
    void constraint_jacobian_values(double t, const Vector& q, double* values) const;
    // g'' - G q'': (d/dq (G v)) v, plus the time terms when rheonomic, m
    void curvature(double t, const Vector& q, const Vector& v, Vector& c) const;
    // g_t = dg/dt at fixed q, so that g' = G v + g_t; zero when not rheonomic, m
    void constraint_rate(double t, const Vector& q, Vector& g_t) const;
    // The same at t = 0, for models whose constraints do not depend on time (tests, tools);
    // std::logic_error for a rheonomic model.
    void constraint(const Vector& q, Vector& g) const;
    void constraint_jacobian(const Vector& q, Matrix& G) const;
    void curvature(const Vector& q, const Vector& v, Vector& c) const;

    double kinetic_energy(const Vector& v) const; // 1/2 v^T M v, M constant and diagonal
    double kinetic_energy(const Vector& q, const Vector& v) const; // 1/2 v^T M(q) v
    double potential_energy(double t, const Vector& q, const Vector& theta) const;
    // Kinetic plus potential energy; has_potential() must hold.
    double energy(double t, const Vector& q, const Vector& v, const Vector& theta) const;

    // Events (when-clauses, docs/events.md): one per event_indicator output. set_events
    // throws std::invalid_argument when the list does not match the kernel table.
    void set_events(std::vector<Event> events);
    const std::vector<Event>& events() const { return events_; }
    bool has_events() const { return kernels_.n_events > 0; }
    void event_indicators(double t, const Vector& q, const Vector& v, const Vector& x,
                          const Vector& theta, Vector& g) const; // e
    void event_reinits(double t, const Vector& q, const Vector& v, const Vector& x,
                       const Vector& theta, Vector& values) const; // n_reinits
    // dg/dt of the indicators along the motion (grad_q g . v + g_t), compiled; only when
    // has_event_rates() (the indicators depend on t, q and the phases only).
    bool has_event_rates() const { return kernels_.event_rate != nullptr; }
    void event_rates(double t, const Vector& q, const Vector& v, const Vector& x,
                     const Vector& theta, Vector& r) const; // e

    // A state of the right sizes at time t, everything zero.
    State zero_state(double t = 0.0) const;

private:
    static std::size_t idx(Eigen::Index i) { return static_cast<std::size_t>(i); }
    std::size_t parameter_index(std::string_view name) const; // throws for an unknown name
    mdl_kernel_args args(double t, const Vector& q, const Vector& v, const Vector& x,
                         const Vector& theta) const;
    // Calls a constraint kernel at (t, q, v), with the phases at t when rheonomic.
    void call_constraint_kernel(mdl_kernel kernel, double t, const Vector& q, const Vector& v,
                                double* out) const;
    void require_scleronomic(const char* what) const;
    void evaluate_mass();

    mdl_kernels kernels_;
    std::vector<double> parameters_;
    ModelNames names_;
    std::vector<Event> events_;
    Vector mass_;
    Vector inverse_mass_;
};

// rhs <- M^-1 rhs by Cholesky (llt is the caller's workspace); throws
// NumericalFailure(singular_mass_matrix) at time t naming the velocity whose leading minor of
// M is not positive definite, without a method name (the drivers add theirs).
void solve_mass_matrix(const Model& model, double t, const Matrix& M, Eigen::LLT<Matrix>& llt,
                       Vector& rhs);

} // namespace mdl::runtime
