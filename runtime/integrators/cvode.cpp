#include "runtime/integrators/cvode.hpp"

#include "runtime/events/held_contact_steps.hpp"
#include "runtime/events/multistep_events.hpp"
#include "runtime/integrators/constrained_acceleration.hpp"
#include "runtime/integrators/dopri5.hpp"
#include "runtime/integrators/rk4.hpp"
#include "runtime/integrators/stepper_support.hpp"
#include "runtime/model_force.hpp"
#include "runtime/numerical_failure.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#if MDL_HAVE_SUNDIALS
#include <cstdlib>
#include <cvode/cvode.h>
#include <exception>
#include <memory>
#include <nvector/nvector_serial.h>
#include <optional>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#if MDL_HAVE_SUNDIALS_KLU
#include <sunlinsol/sunlinsol_klu.h>
#include <sunmatrix/sunmatrix_sparse.h>
#endif
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>
#endif

namespace mdl::runtime {

std::string_view to_string(CvodeMethod method) {
    return method == CvodeMethod::adams ? "cvode-adams" : "cvode-bdf";
}

CvodeOptions cvode_options(const Dopri5Options& adaptive) {
    CvodeOptions options;
    options.rtol = adaptive.rtol;
    options.atol = adaptive.atol;
    options.initial_step = adaptive.initial_step;
    options.max_step = adaptive.max_step;
    options.max_steps = adaptive.max_steps;
    return options;
}

#if MDL_HAVE_SUNDIALS

bool cvode_available() {
    return true;
}

namespace {

// What the C callbacks reach through user_data.
struct Problem {
    const Model* model = nullptr;
    ModelForce force;
    std::optional<ConstrainedModelForce> constrained; // constrained models (cvode-bdf)
    Eigen::Index n = 0, k = 0;
    Vector q, v, x, a, xdot; // scratch, sized once
    Matrix a_q, a_v;
    // the sparse Jacobian (sparse_jacobians.hpp): the kernels' patterns, values of f_q, f_v
    mdl_sparsity q_pattern{}, v_pattern{};
    std::vector<double> f_q, f_v;
    bool sparse = false;          // KLU on the sparse Jacobian (else dense LU)
    std::exception_ptr error;     // thrown inside a callback, rethrown after CVode returns
    bool non_finite = false;      // a right-hand side was NaN or Inf in this call of CVode
    std::string non_finite_where; // the velocity or state whose slope was not finite
    bool step_underflow = false;  // CVODE warned that t + h == t
    std::string last_message;     // CVODE's last error message
    Problem(const Model& m, bool use_sparse)
        : model(&m), force(m), n(m.positions()), k(m.states()), q(n), v(n), x(k), a(n), xdot(k),
          a_q(use_sparse ? 0 : n, use_sparse ? 0 : n), a_v(a_q), sparse(use_sparse) {
        if (sparse) {
            q_pattern = m.kernels().force_dq_pattern;
            v_pattern = m.kernels().force_dv_pattern;
            f_q.assign(q_pattern.nonzeros, 0.0);
            f_v.assign(v_pattern.nonzeros, 0.0);
        }
        if (m.constrained()) {
            constrained.emplace(m, SolverOptions{}, "cvode-bdf");
        }
    }

    // a of the unconstrained or the constrained (index-1) equations
    void acceleration(double t) {
        if (constrained) {
            constrained->acceleration(t, q, v, x, a);
        } else {
            force.acceleration(t, q, v, x, a);
        }
    }
    std::size_t evaluations() const {
        return force.evaluations() + (constrained ? constrained->evaluations() : 0);
    }

    void unpack(N_Vector y) {
        const double* data = N_VGetArrayPointer(y);
        q = Eigen::Map<const Vector>(data, n);
        v = Eigen::Map<const Vector>(data + n, n);
        x = Eigen::Map<const Vector>(data + 2 * n, k);
    }
};

void pack(const State& s, N_Vector y) {
    double* data = N_VGetArrayPointer(y);
    const Eigen::Index n = s.q.size();
    Eigen::Map<Vector>(data, n) = s.q;
    Eigen::Map<Vector>(data + n, n) = s.v;
    Eigen::Map<Vector>(data + 2 * n, s.x.size()) = s.x;
}

void unpack(N_Vector y, State& s) {
    const double* data = N_VGetArrayPointer(y);
    const Eigen::Index n = s.q.size();
    s.q = Eigen::Map<const Vector>(data, n);
    s.v = Eigen::Map<const Vector>(data + n, n);
    s.x = Eigen::Map<const Vector>(data + 2 * n, s.x.size());
}

// y' = (v, M^-1 f, rates). Non-finite slopes are a recoverable failure: CVODE retries with a
// smaller step, and reports CV_REPTD_RHSFUNC_ERR if that does not help.
int right_hand_side(sunrealtype t, N_Vector y, N_Vector ydot, void* user_data) {
    auto& p = *static_cast<Problem*>(user_data);
    if (p.step_underflow) {
        return -1; // CVODE would go on with steps below the round-off of t: stop it
    }
    try {
        p.unpack(y);
        p.acceleration(t);
        if (p.k > 0) {
            p.force.rates(t, p.q, p.v, p.x, p.xdot);
        }
        double* out = N_VGetArrayPointer(ydot);
        Eigen::Map<Vector>(out, p.n) = p.v;
        Eigen::Map<Vector>(out + p.n, p.n) = p.a;
        Eigen::Map<Vector>(out + 2 * p.n, p.k) = p.xdot;
        for (Eigen::Index i = 0; i < p.n + p.k; ++i) {
            if (!std::isfinite(i < p.n ? p.a[i] : p.xdot[i - p.n])) {
                p.non_finite = true; // since the last call of CVode
                p.non_finite_where =
                    i < p.n ? p.model->velocity_name(i) : p.model->state_name(i - p.n);
                return 1;
            }
        }
        return 0;
    } catch (...) {
        p.error = std::current_exception();
        return -1;
    }
}

// The dense Jacobian of (v, a) from the model's df/dq, df/dv (no first-order states).
int jacobian(sunrealtype t, N_Vector y, N_Vector, SUNMatrix J, void* user_data, N_Vector, N_Vector,
             N_Vector) {
    auto& p = *static_cast<Problem*>(user_data);
    try {
        p.unpack(y);
        p.force.acceleration_jacobians(t, p.q, p.v, p.x, p.a_q, p.a_v);
        SUNMatZero(J);
        const Eigen::Index n = p.n;
        for (Eigen::Index i = 0; i < n; ++i) {
            SM_ELEMENT_D(J, i, n + i) = 1.0;
            for (Eigen::Index j = 0; j < n; ++j) {
                SM_ELEMENT_D(J, n + i, j) = p.a_q(i, j);
                SM_ELEMENT_D(J, n + i, n + j) = p.a_v(i, j);
            }
        }
        return p.a_q.allFinite() && p.a_v.allFinite() ? 0 : 1;
    } catch (...) {
        p.error = std::current_exception();
        return -1;
    }
}

#if MDL_HAVE_SUNDIALS_KLU
// The same Jacobian in compressed sparse rows, from the structural nonzeros of df/dq and
// df/dv: row i < n has the 1 of dq_i/dt = v_i, row n + i the entries of a_q's row i (columns
// below n) then a_v's (columns n + j): ascending.
int sparse_jacobian(sunrealtype t, N_Vector y, N_Vector, SUNMatrix J, void* user_data, N_Vector,
                    N_Vector, N_Vector) {
    auto& p = *static_cast<Problem*>(user_data);
    try {
        p.unpack(y);
        p.force.force_jacobian_values(t, p.q, p.v, p.x, p.f_q.data(), p.f_v.data());
        const Vector& inverse_mass = p.model->inverse_mass();
        sunindextype* start = SM_INDEXPTRS_S(J);
        sunindextype* column = SM_INDEXVALS_S(J);
        double* value = SM_DATA_S(J);
        const auto n = static_cast<sunindextype>(p.n);
        sunindextype at = 0;
        for (sunindextype i = 0; i < n; ++i) {
            start[i] = at;
            column[at] = n + i;
            value[at++] = 1.0;
        }
        bool finite = true;
        for (sunindextype i = 0; i < n; ++i) {
            start[n + i] = at;
            const double scale = inverse_mass[i];
            for (unsigned e = p.q_pattern.row_start[i]; e < p.q_pattern.row_start[i + 1]; ++e) {
                column[at] = static_cast<sunindextype>(p.q_pattern.column[e]);
                value[at] = p.f_q[e] * scale;
                finite = finite && std::isfinite(value[at++]);
            }
            for (unsigned e = p.v_pattern.row_start[i]; e < p.v_pattern.row_start[i + 1]; ++e) {
                column[at] = n + static_cast<sunindextype>(p.v_pattern.column[e]);
                value[at] = p.f_v[e] * scale;
                finite = finite && std::isfinite(value[at++]);
            }
        }
        start[2 * n] = at;
        return finite ? 0 : 1;
    } catch (...) {
        p.error = std::current_exception();
        return -1;
    }
}
#endif

// Errors and warnings go here instead of stderr. The warning "t + h = t on the next step"
// means the step fell below the round-off of t (a blow-up or a singularity): the next
// right-hand side then fails, which ends the integration (CVODE itself would continue).
void error_handler(int code, const char* module, const char* function, char* message,
                   void* user_data) {
    auto& p = *static_cast<Problem*>(user_data);
    const std::string text = std::string(module) + " " + function + ": " + message;
    if (code == CV_WARNING) {
        if (text.find("t + h = t") != std::string::npos) {
            p.step_underflow = true;
            p.last_message = text;
        }
        return;
    }
    p.last_message = text;
}

// The SUNDIALS objects of one integration, freed in reverse order of creation.
struct Solver {
    SUNContext context = nullptr;
    N_Vector y = nullptr;
    void* memory = nullptr;
    SUNMatrix matrix = nullptr;
    SUNLinearSolver linear = nullptr;
    SUNNonlinearSolver nonlinear = nullptr;
    Solver() = default;
    Solver(const Solver&) = delete;
    Solver& operator=(const Solver&) = delete;
    ~Solver() {
        if (memory != nullptr) {
            CVodeFree(&memory);
        }
        if (nonlinear != nullptr) {
            SUNNonlinSolFree(nonlinear);
        }
        if (linear != nullptr) {
            SUNLinSolFree(linear);
        }
        if (matrix != nullptr) {
            SUNMatDestroy(matrix);
        }
        if (y != nullptr) {
            N_VDestroy(y);
        }
        if (context != nullptr) {
            SUNContext_Free(&context);
        }
    }
};

std::string flag_name(int flag) {
    char* name = CVodeGetReturnFlagName(flag);
    std::string out = name != nullptr ? name : std::to_string(flag);
    std::free(name);
    return out;
}

// A setup call that cannot fail with valid arguments.
void check_setup(int flag, const char* call) {
    if (flag < 0) {
        throw std::runtime_error(std::string("CVODE setup failed in ") + call + ": " +
                                 flag_name(flag));
    }
}

[[noreturn]] void throw_failure(const Model& model, std::string_view method, Solver& solver,
                                Problem& problem, int flag, double t_end) {
    if (problem.error) {
        try {
            std::rethrow_exception(problem.error);
        } catch (const NumericalFailure& failure) {
            throw failure.in_method(method); // a model evaluation's failure (M(q))
        }
    }
    double t = 0.0;
    CVodeGetCurrentTime(solver.memory, &t);
    // The variable with the largest weighted local error estimate of the failed step.
    std::string where;
    N_Vector ele = N_VClone(solver.y);
    N_Vector weights = N_VClone(solver.y);
    if (ele != nullptr && weights != nullptr &&
        CVodeGetEstLocalErrors(solver.memory, ele) == CV_SUCCESS &&
        CVodeGetErrWeights(solver.memory, weights) == CV_SUCCESS) {
        const double* e = N_VGetArrayPointer(ele);
        const double* w = N_VGetArrayPointer(weights);
        const Eigen::Index n = model.positions();
        const Eigen::Index size = N_VGetLength(solver.y);
        double worst = -1.0;
        for (Eigen::Index i = 0; i < size; ++i) {
            const double weighted = std::isfinite(e[i] * w[i]) ? std::abs(e[i] * w[i]) : HUGE_VAL;
            if (weighted > worst) {
                worst = weighted;
                where = i < n       ? model.position_name(i)
                        : i < 2 * n ? model.velocity_name(i - n)
                                    : model.state_name(i - 2 * n);
            }
        }
    }
    if (ele != nullptr) {
        N_VDestroy(ele);
    }
    if (weights != nullptr) {
        N_VDestroy(weights);
    }
    const std::string cvode =
        "CVODE " + flag_name(flag) +
        (problem.last_message.empty() ? "" : " (" + problem.last_message + ")");
    if (problem.non_finite) { // NaN or Inf in a right-hand side of the failed call
        throw NumericalFailure(FailureKind::non_finite, method, t, problem.non_finite_where,
                               "the slope of this variable is NaN or Inf and stays so however "
                               "small the step; " +
                                   cvode);
    }
    if (problem.step_underflow) {
        throw NumericalFailure(FailureKind::step_size_underflow, method, t, where,
                               "the step size is below the round-off of t; the solution may "
                               "blow up here or the problem is stiff or discontinuous; " +
                                   cvode);
    }
    switch (flag) {
    case CV_TOO_MUCH_WORK:
        throw NumericalFailure(FailureKind::too_many_steps, method, t, where,
                               "the step budget is exhausted without reaching t = " +
                                   format_number(t_end) + "; " + cvode +
                                   "; the problem may be stiff (try cvode-bdf) or the tolerances "
                                   "too tight");
    case CV_CONV_FAILURE:
    case CV_LSETUP_FAIL:
    case CV_LSOLVE_FAIL:
    case CV_NLS_INIT_FAIL:
    case CV_NLS_SETUP_FAIL:
    case CV_NLS_FAIL:
        throw NumericalFailure(FailureKind::newton_not_converged, method, t, where,
                               cvode + "; the problem may be stiff for cvode-adams (try "
                                       "cvode-bdf) or the solution may blow up here");
    case CV_RHSFUNC_FAIL:
    case CV_FIRST_RHSFUNC_ERR:
    case CV_REPTD_RHSFUNC_ERR:
    case CV_UNREC_RHSFUNC_ERR:
        throw NumericalFailure(FailureKind::non_finite, method, t, where,
                               "the force is NaN or Inf however small the step; " + cvode);
    default:
        throw NumericalFailure(FailureKind::step_size_underflow, method, t, where,
                               cvode + "; the solution may blow up here or the problem is stiff "
                                       "or discontinuous");
    }
}

// cvode-bdf with the model's Jacobian takes the sparse path (KLU) above the size threshold of
// sparse_jacobians.hpp, or when the options ask for it.
bool use_sparse_jacobian(const Model& model, CvodeMethod method, const CvodeOptions& options) {
    return MDL_HAVE_SUNDIALS_KLU && method == CvodeMethod::bdf && options.model_jacobian &&
           model.states() == 0 && use_sparse_linear_algebra(model, options.linear_algebra);
}

// The CVODE objects for integrating from `state` towards t_end with `options`.
void set_up(Solver& solver, Problem& problem, const Model& model, CvodeMethod method,
            const CvodeOptions& options, const State& state, double t_end) {
    const bool sparse = problem.sparse;
    const auto size = static_cast<sunindextype>(2 * model.positions() + model.states());
    check_setup(SUNContext_Create(nullptr, &solver.context), "SUNContext_Create");
    solver.y = N_VNew_Serial(size, solver.context);
    solver.memory = CVodeCreate(method == CvodeMethod::adams ? CV_ADAMS : CV_BDF, solver.context);
    if (solver.y == nullptr || solver.memory == nullptr) {
        throw std::bad_alloc();
    }
    pack(state, solver.y);
    check_setup(CVodeInit(solver.memory, right_hand_side, state.t, solver.y), "CVodeInit");
    check_setup(CVodeSetUserData(solver.memory, &problem), "CVodeSetUserData");
    check_setup(CVodeSetErrHandlerFn(solver.memory, error_handler, &problem),
                "CVodeSetErrHandlerFn");
    check_setup(CVodeSStolerances(solver.memory, options.rtol, options.atol), "CVodeSStolerances");
    if (method == CvodeMethod::adams) {
        // Functional iteration: no Jacobian, the non-stiff setting.
        solver.nonlinear = SUNNonlinSol_FixedPoint(solver.y, 0, solver.context);
        check_setup(CVodeSetNonlinearSolver(solver.memory, solver.nonlinear),
                    "CVodeSetNonlinearSolver");
    } else {
#if MDL_HAVE_SUNDIALS_KLU
        if (sparse) {
            const auto nonzeros =
                static_cast<sunindextype>(model.positions()) +
                static_cast<sunindextype>(model.kernels().force_dq_pattern.nonzeros) +
                static_cast<sunindextype>(model.kernels().force_dv_pattern.nonzeros);
            solver.matrix = SUNSparseMatrix(size, size, nonzeros, CSR_MAT, solver.context);
            solver.linear = SUNLinSol_KLU(solver.y, solver.matrix, solver.context);
        }
#endif
        if (!sparse) {
            solver.matrix = SUNDenseMatrix(size, size, solver.context);
            solver.linear = SUNLinSol_Dense(solver.y, solver.matrix, solver.context);
        }
        if (solver.matrix == nullptr || solver.linear == nullptr) {
            throw std::bad_alloc();
        }
        check_setup(CVodeSetLinearSolver(solver.memory, solver.linear, solver.matrix),
                    "CVodeSetLinearSolver");
        // BDF of orders 3 to 5 is unstable near the imaginary axis, where undamped stiff
        // oscillations of mechanical models sit: CVODE's stability limit detection lowers
        // the order there.
        check_setup(CVodeSetStabLimDet(solver.memory, SUNTRUE), "CVodeSetStabLimDet");
        // constrained: CVODE's difference quotients (the kernels' Jacobian omits the
        // constraint forces' derivatives)
        if (options.model_jacobian && model.states() == 0 && !model.constrained()) {
#if MDL_HAVE_SUNDIALS_KLU
            check_setup(CVodeSetJacFn(solver.memory, sparse ? sparse_jacobian : jacobian),
                        "CVodeSetJacFn");
#else
            check_setup(CVodeSetJacFn(solver.memory, jacobian), "CVodeSetJacFn");
#endif
        }
    }
    if (options.max_order > 0) {
        check_setup(CVodeSetMaxOrd(solver.memory, options.max_order), "CVodeSetMaxOrd");
    }
    if (options.initial_step > 0.0) {
        check_setup(
            CVodeSetInitStep(solver.memory, std::copysign(options.initial_step, t_end - state.t)),
            "CVodeSetInitStep");
    }
    if (std::isfinite(options.max_step) && options.max_step > 0.0) {
        check_setup(CVodeSetMaxStep(solver.memory, options.max_step), "CVodeSetMaxStep");
    }
    check_setup(CVodeSetStopTime(solver.memory, t_end), "CVodeSetStopTime");
}

// The checks both drivers make before integrating.
void require_runnable(const Model& model, const State& state, std::string_view name,
                      CvodeMethod method, const CvodeOptions& options, double t_end,
                      double output_interval) {
    if (method == CvodeMethod::adams && model.constrained()) {
        throw MethodNotApplicable(name, "the model has " + std::to_string(model.constraints()) +
                                            " constraint(s) (" + model.constraint_name(0) +
                                            ", ...); use cvode-bdf, dopri5, rk4 or ida");
    }
    require_state_shape(model, state, name);
    require_run_interval(state.t, t_end, output_interval > 0.0 ? output_interval : 1.0, name);
    if (!(options.rtol >= 0.0) || !(options.atol >= 0.0) ||
        (options.rtol == 0.0 && options.atol == 0.0)) {
        throw std::invalid_argument(std::string(name) +
                                    ": rtol and atol must be non-negative and not both zero");
    }
}

} // namespace

IntegrationStats integrate_cvode(const Model& model, State& state, CvodeMethod method,
                                 const CvodeOptions& options, double t_end, double output_interval,
                                 const std::function<void(const State&)>& observer) {
    const std::string_view name = to_string(method);
    require_runnable(model, state, name, method, options, t_end, output_interval);
    IntegrationStats stats;
    require_finite(model, state, name);
    observer(static_cast<const State&>(state));
    ++stats.outputs;
    const double t0 = state.t;
    if (t_end == t0) {
        return stats;
    }

    Problem problem(model, use_sparse_jacobian(model, method, options));
    Solver solver;
    set_up(solver, problem, model, method, options, state, t_end);

    const double direction = t_end < t0 ? -1.0 : 1.0;
    const double span = std::abs(t_end - t0);
    long steps = 0;
    // One call of CVode towards `target`; false when the stop time t_end was reached.
    const auto advance = [&](double target, int task) {
        if (options.max_steps > 0) {
            const long remaining = static_cast<long>(options.max_steps) - steps;
            if (remaining <= 0) {
                throw_failure(model, name, solver, problem, CV_TOO_MUCH_WORK, t_end);
            }
            CVodeSetMaxNumSteps(solver.memory, remaining);
        } else {
            CVodeSetMaxNumSteps(solver.memory, -1); // no limit
        }
        sunrealtype reached = 0.0;
        problem.non_finite = false;
        const int flag = CVode(solver.memory, target, solver.y, &reached, task);
        CVodeGetNumSteps(solver.memory, &steps);
        if (flag < 0) {
            throw_failure(model, name, solver, problem, flag, t_end);
        }
        unpack(solver.y, state);
        const bool end = flag == CV_TSTOP_RETURN || reached == t_end;
        state.t = end ? t_end : (task == CV_NORMAL ? target : reached);
        if (problem.constrained) { // the multipliers of the output state
            problem.q = state.q;
            problem.v = state.v;
            problem.x = state.x;
            problem.acceleration(state.t);
            state.lambda = problem.constrained->multipliers();
        }
        require_finite(model, state, name);
        observer(static_cast<const State&>(state));
        ++stats.outputs;
        return !end;
    };
    if (output_interval > 0.0) {
        for (std::size_t k = 1;; ++k) {
            const double t_out = t0 + direction * static_cast<double>(k) * output_interval;
            if (direction * (t_end - t_out) <= 1e-12 * span) {
                advance(t_end, CV_NORMAL);
                break;
            }
            advance(t_out, CV_NORMAL);
        }
    } else {
        while (advance(t_end, CV_ONE_STEP)) {
        }
    }
    state.t = t_end;
    long error_test_failures = 0, convergence_failures = 0;
    CVodeGetNumErrTestFails(solver.memory, &error_test_failures);
    CVodeGetNumNonlinSolvConvFails(solver.memory, &convergence_failures);
    stats.steps = static_cast<std::size_t>(steps);
    stats.rejected = static_cast<std::size_t>(error_test_failures + convergence_failures);
    stats.force_evaluations = problem.evaluations();
    return stats;
}

IntegrationStats integrate_cvode_events(const Model& model, State& state, CvodeMethod method,
                                        const CvodeOptions& options, double t_end,
                                        double output_interval,
                                        const std::function<void(const State&)>& observer,
                                        const EventObserver& on_event, EventOptions events) {
    const std::string_view name = to_string(method);
    require_runnable(model, state, name, method, options, t_end, output_interval);
    if (!(t_end >= state.t)) {
        throw MethodNotApplicable(name, "a model with events runs forward in time only");
    }
    EventTracker tracker(model, name, events);
    if (model.constrained()) {
        // the rates and the release test with the constraint forces
        tracker.set_acceleration(constrained_motion(model, name));
    }
    require_finite(model, state, name);
    tracker.start(state);
    observer(static_cast<const State&>(state));
    if (t_end == state.t) {
        IntegrationStats stats;
        stats.outputs = 1;
        stats.event_counts = tracker.counts().fired;
        stats.event_rests = tracker.counts().rests;
        stats.event_projections = tracker.counts().projections;
        return stats;
    }
    Problem problem(model, use_sparse_jacobian(model, method, options));
    Solver solver;
    set_up(solver, problem, model, method, options, state, t_end);
    N_Vector work = N_VClone(solver.y);
    if (work == nullptr) {
        throw std::bad_alloc();
    }
    struct Release {
        N_Vector v;
        ~Release() { N_VDestroy(v); }
    } release{work};

    // CVodeReInit zeroes CVODE's counters: those of the integrations before it add up here
    long steps = 0, earlier_steps = 0, earlier_rejected = 0;
    const auto rejected_now = [&] {
        long error_test_failures = 0, convergence_failures = 0;
        CVodeGetNumErrTestFails(solver.memory, &error_test_failures);
        CVodeGetNumNonlinSolvConvFails(solver.memory, &convergence_failures);
        return error_test_failures + convergence_failures;
    };
    // CVODE's interpolant of its last step
    const Interpolant at = [&](double t, State& out) {
        const int flag = CVodeGetDky(solver.memory, t, 0, work);
        if (flag < 0) {
            throw_failure(model, name, solver, problem, flag, t_end);
        }
        unpack(work, out);
        out.t = t;
    };
    // a new initial value problem from s (an event's reinits, a contact released)
    const auto restart = [&](const State& s) {
        earlier_steps += steps;
        earlier_rejected += rejected_now();
        steps = 0;
        pack(s, solver.y);
        check_setup(CVodeReInit(solver.memory, s.t, solver.y), "CVodeReInit");
    };
    MultistepMethod stepping;
    stepping.step = [&](State& end) {
        if (options.max_steps > 0) {
            const long remaining = static_cast<long>(options.max_steps) - earlier_steps - steps;
            if (remaining <= 0) {
                throw_failure(model, name, solver, problem, CV_TOO_MUCH_WORK, t_end);
            }
            CVodeSetMaxNumSteps(solver.memory, remaining);
        } else {
            CVodeSetMaxNumSteps(solver.memory, -1);
        }
        sunrealtype reached = 0.0;
        problem.non_finite = false;
        const int flag = CVode(solver.memory, t_end, solver.y, &reached, CV_ONE_STEP);
        CVodeGetNumSteps(solver.memory, &steps);
        if (flag < 0) {
            throw_failure(model, name, solver, problem, flag, t_end);
        }
        unpack(solver.y, end);
        const bool last = flag == CV_TSTOP_RETURN || reached >= t_end;
        end.t = last ? t_end : reached;
        require_finite(model, end, name);
        return last;
    };
    stepping.at = at;
    stepping.restart = [&](State& s) {
        restart(s);
    };
    IntegrationStats stats = drive_multistep_events(model, name, state, t_end, output_interval,
                                                    tracker, stepping, observer, on_event);
    stats.outputs += 1; // the first row
    stats.steps += static_cast<std::size_t>(earlier_steps + steps);
    stats.rejected = static_cast<std::size_t>(earlier_rejected + rejected_now());
    stats.force_evaluations = problem.evaluations();
    return stats;
}

#else // built without SUNDIALS

bool cvode_available() {
    return false;
}

IntegrationStats integrate_cvode(const Model&, State&, CvodeMethod method, const CvodeOptions&,
                                 double, double, const std::function<void(const State&)>&) {
    throw MethodNotApplicable(to_string(method),
                              "this build of mdl has no SUNDIALS (install libsundials-dev and "
                              "rebuild)");
}

IntegrationStats integrate_cvode_events(const Model&, State&, CvodeMethod method,
                                        const CvodeOptions&, double, double,
                                        const std::function<void(const State&)>&,
                                        const EventObserver&, EventOptions) {
    throw MethodNotApplicable(to_string(method),
                              "this build of mdl has no SUNDIALS (install libsundials-dev and "
                              "rebuild)");
}

#endif

} // namespace mdl::runtime
