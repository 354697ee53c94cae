// The flow of a mechanical model over a time interval and its monodromy matrix: the
// derivative of the end state with respect to the start state, from the variational
// equations integrated together with the flow.
//
// In first-order form y = (q, v), y' = F(t, y) = (v, a) with a = M^-1 f(t, q, v, theta(t)).
// Phi(t) = dy(t)/dy(t0) solves Phi' = A(t) Phi, Phi(t0) = I, with
//     A = [ 0        I      ]
//         [ M^-1 f_q M^-1 f_v ]
// where f_q = df/dq and f_v = df/dv are the compiler's Jacobian kernels (Model::
// force_jacobians), exact, not difference quotients. Over one period T of a periodic orbit
// Phi(t0 + T) is the monodromy matrix; its eigenvalues are the Floquet multipliers
// (floquet.hpp). Flow and variational equations (2n + 4n^2 components) are integrated by
// Gragg–Bulirsch–Stoer extrapolation (extrapolation.hpp) to a relative 1e-12 by default.
//
//     runtime::analysis::Flow flow(model);
//     const FlowEnd end = flow.monodromy(0.0, q, v, 2 * pi / Omega);
//     // end.q, end.v: the state at T; end.phi: the 2n x 2n monodromy matrix
//
// Models covered: constant mass matrix (diagonal or coupled), any force with Jacobian
// kernels, explicit time and vibrations. Refused with MethodNotApplicable (the variational
// equations would need what no kernel gives): constraints, first-order states, a mass
// matrix M(q) (da/dq needs d(M(q) a)/dq), events (the flow is not smooth across them).
#pragma once

#include "runtime/analysis/extrapolation.hpp"
#include "runtime/model.hpp"

#include <Eigen/Cholesky>

#include <cstddef>
#include <string>
#include <string_view>

namespace mdl::runtime::analysis {

struct FlowOptions {
    double rtol = 1e-12;
    double atol = 1e-12;
    std::size_t max_steps = 100000; // per integration
};

// Throws MethodNotApplicable(method, reason) when the model is not one Flow covers.
void require_variational_form(const Model& model, std::string_view method);

struct FlowEnd {
    Vector q, v;           // the state at t0 + T
    Matrix phi;            // 2n x 2n monodromy d(q, v)(t0 + T)/d(q, v)(t0); empty from state()
    Vector rate;           // F(t0 + T, y(t0 + T)) = (v, a): d y(t0 + T)/dT, 2n
    std::size_t steps = 0; // accepted integration steps
};

// A workspace over one model, which must outlive it. The model's parameters are read at each
// call, so a caller may change them between calls (continuation). Not thread-safe: one Flow
// per thread.
class Flow {
public:
    explicit Flow(const Model& model, FlowOptions options = {}, std::string method = "periodic");
    Flow(const Model&&, FlowOptions = {}, std::string = {}) = delete;

    const Model& model() const { return *model_; }
    const FlowOptions& options() const { return options_; }
    Eigen::Index positions() const { return n_; }

    // The state at t0 + T from (q, v) at t0 (T >= 0).
    FlowEnd state(double t0, const Vector& q, const Vector& v, double T);
    // The state and the monodromy matrix at t0 + T.
    FlowEnd monodromy(double t0, const Vector& q, const Vector& v, double T);
    // The orbit at t0 + i T/N, i = 0..N: N + 1 rows (t, q_1..q_n, v_1..v_n).
    Matrix samples(double t0, const Vector& q, const Vector& v, double T, Eigen::Index N);
    // The same rows from N classical Runge-Kutta steps of T/N (no error control; error
    // O((T/N)^4)): a cheap trace of the orbit, for amplitudes along a branch.
    Matrix rk4_samples(double t0, const Vector& q, const Vector& v, double T, Eigen::Index N);
    // F(t, y) = (v, a), 2n.
    void vector_field(double t, const Vector& q, const Vector& v, Vector& rate);

    // Right-hand side evaluations so far (each also evaluates the Jacobian kernels when the
    // variational equations are integrated).
    std::size_t evaluations() const { return evaluations_; }

private:
    void factor_mass();
    void accelerate(Vector& f) const; // f <- M^-1 f
    void field(double t, const Vector& y, Vector& dydt, bool variational);
    std::string component_name(Eigen::Index i) const;
    FlowEnd run(double t0, const Vector& q, const Vector& v, double T, bool variational);

    const Model* model_;
    FlowOptions options_;
    std::string method_;
    Eigen::Index n_;
    Eigen::LLT<Matrix> mass_llt_; // constant coupled M
    Vector q_, v_, x_, theta_, f_;
    Matrix f_q_, f_v_;
    double h_ = 0.0, h_variational_ = 0.0; // step-size guesses carried between calls
    std::size_t evaluations_ = 0;
};

// One-shot: Flow(model, options).monodromy(t0, q, v, T).
FlowEnd monodromy(const Model& model, double t0, const Vector& q, const Vector& v, double T,
                  const FlowOptions& options = {});

} // namespace mdl::runtime::analysis
