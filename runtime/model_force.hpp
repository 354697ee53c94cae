// The right-hand side a stepper integrates, as a template parameter (no virtual call or
// std::function per evaluation). Steppers work in accelerations a = M^-1 f; constraint
// forces G^T lambda are added by the constrained steppers from the model's constraint
// kernels, whatever the force.
//
// ModelForce evaluates the compiled model. The multiscale methods supply their own field
// (HMM's macro integrator a kernel-averaged force; its micro integrator the model at a
// given phase, which ModelForce provides through set_phase_origin).
#pragma once

#include "runtime/model.hpp"

#include <concepts>
#include <cstddef>

namespace mdl::runtime {

// Every stepper needs accelerations; `velocity_dependent()` tells whether a depends on v
// (the Verlet family then iterates its implicit half kick, Störmer refuses).
template <class F>
concept AccelerationField = requires(F& f, const F& cf, double t, const Vector& q, const Vector& v,
                                     const Vector& x, Vector& out) {
    f.acceleration(t, q, v, x, out);
    { cf.velocity_dependent() } -> std::convertible_to<bool>;
};

// First-order states x' = rates(t, q, v, x), integrated by RK4 and DOPRI5.
template <class F>
concept RatesField = requires(F& f, double t, const Vector& q, const Vector& v, const Vector& x,
                              Vector& out) {
    f.rates(t, q, v, x, out);
};

// Newmark and generalized-alpha also need da/dq and da/dv (n x n).
template <class F>
concept DifferentiableAccelerationField = AccelerationField<F>&&
requires(F& f, double t, const Vector& q, const Vector& v, const Vector& x, Matrix& a_q,
         Matrix& a_v) {
    f.acceleration_jacobians(t, q, v, x, a_q, a_v);
};

class ModelForce {
public:
    explicit ModelForce(const Model& model);
    explicit ModelForce(const Model&&) = delete; // keeps a pointer: the model must outlive it

    const Model& model() const { return *model_; }
    bool velocity_dependent() const { return model_->velocity_dependent(); }

    // a = M^-1 f(t, q, v, x, theta(t)), by Cholesky of M(q) when the mass matrix is not
    // constant and diagonal; counted in evaluations().
    void acceleration(double t, const Vector& q, const Vector& v, const Vector& x, Vector& a);
    void rates(double t, const Vector& q, const Vector& v, const Vector& x, Vector& xdot);
    // B <- M^-1 B (n x m) with M = M(q) of the last acceleration() call, reusing its Cholesky
    // factorization (the constrained accelerations' M^-1 G^T).
    void solve_last_mass(Matrix& B) const;
    // M^-1 df/dq and M^-1 df/dv from the compiler's kernels, or by central differences of
    // the force when the model has none. With M(q) the term -M^-1 (dM/dq a) of da/dq is left
    // out: the matrix serves Newton iterations (CVODE BDF), whose residual stays exact.
    void acceleration_jacobians(double t, const Vector& q, const Vector& v, const Vector& x,
                                Matrix& a_q, Matrix& a_v);

    // The values of df/dq and df/dv at the structural nonzeros of the model's patterns
    // (kernel_abi.h: force_dq_values, force_dv_values; sparse_jacobians.hpp), unscaled by
    // M^-1; the phases and the explicit time as in acceleration().
    void force_jacobian_values(double t, const Vector& q, const Vector& v, const Vector& x,
                               double* f_q, double* f_v);

    // By default the phases are the model's, theta(t) = omega t + c. With an origin they are
    // theta0 + omega (t - t0): HMM's asynchronous micro-integrations start at phase 0
    // whatever the macro time (Calvo & Sanz-Serna, Algorithm 2), and the model's explicit
    // time is t + time_offset. A micro-integration runs in micro time tau from 0 with the
    // macro time as the offset: the phase omega tau keeps full precision (omega (t_n + tau -
    // t_n) would lose omega ulp(t_n), 1e-7 rad at omega = 1e8), and the slow time is exact
    // to ulp(t_n).
    void set_phase_origin(double t0, const Vector& theta0, double time_offset = 0.0);
    void use_model_phases() {
        phase_origin_set_ = false;
        time_offset_ = 0.0;
    }
    const Vector& phases_at(double t);

    // Force evaluations so far (cost reports: "force evaluations" of HMM, DOPRI5).
    std::size_t evaluations() const { return evaluations_; }
    void reset_evaluations() { evaluations_ = 0; }

private:
    const Model* model_;
    Vector theta_;
    Vector omega_;
    double t0_ = 0.0;
    double time_offset_ = 0.0;
    Vector theta0_;
    bool phase_origin_set_ = false;
    std::size_t evaluations_ = 0;
    // central differences when the model has no Jacobian kernels
    Vector shifted_, f_plus_, f_minus_;
    // M(q) and its Cholesky factorization (models with a kinetic energy)
    Matrix mass_;
    // Cholesky workspace for M(q). A copy or move starts empty: Eigen's LLT leaves its status
    // uninitialised until compute(), so copying a fresh one would read an indeterminate enum
    // (UBSan: "load of value ..., which is not a valid value for type 'ComputationInfo'").
    struct Cholesky {
        Eigen::LLT<Matrix> llt;
        Cholesky() = default;
        Cholesky(const Cholesky&) {}
        Cholesky(Cholesky&&) noexcept {}
        Cholesky& operator=(const Cholesky&) { return *this; }
        Cholesky& operator=(Cholesky&&) noexcept { return *this; }
        ~Cholesky() = default;
    };
    Cholesky llt_;
};

static_assert(DifferentiableAccelerationField<ModelForce>);
static_assert(RatesField<ModelForce>);

} // namespace mdl::runtime
