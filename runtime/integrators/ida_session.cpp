#include "runtime/integrators/ida_session.hpp"

#include "runtime/integrators/constrained_acceleration.hpp"
#include "runtime/integrators/ida_residual.hpp"
#include "runtime/integrators/sparse_constraint_solves.hpp"
#include "runtime/integrators/stepper_support.hpp"
#include "runtime/model_force.hpp"
#include "runtime/numerical_failure.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#if MDL_HAVE_SUNDIALS
#include <cstdlib>
#include <exception>
#include <ida/ida.h>
#include <ida/ida_ls.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#if MDL_HAVE_SUNDIALS_KLU
#include <sunlinsol/sunlinsol_klu.h>
#include <sunmatrix/sunmatrix_sparse.h>
#endif

namespace mdl::runtime::detail {

namespace {

constexpr std::string_view method_name = "ida";
// IDA's absolute tolerance of the multipliers (see IdaSession's constructor).
constexpr double algebraic_atol = 1e10;

// What the C callbacks reach through user_data.
struct Problem {
    const Model* model = nullptr;
    IdaResidual residual;
    std::size_t residuals = 0;
    std::size_t jacobians = 0;
    std::exception_ptr error;     // thrown inside a callback, rethrown after IDASolve returns
    bool non_finite = false;      // a residual was NaN or Inf in this call of IDASolve
    std::string non_finite_where; // the equation's variable
    std::string last_message;     // IDA's last error message
    explicit Problem(const Model& model_) : model(&model_), residual(model_) {}

    Eigen::Index size() const { return residual.size(); }
    std::string name(Eigen::Index i) const { return residual.name(i); }
};

void pack(const State& s, const Vector& mu, N_Vector y) {
    double* data = N_VGetArrayPointer(y);
    const Eigen::Index n = s.q.size(), k = s.x.size(), m = s.lambda.size();
    Eigen::Map<Vector>(data, n) = s.q;
    Eigen::Map<Vector>(data + n, n) = s.v;
    Eigen::Map<Vector>(data + 2 * n, k) = s.x;
    Eigen::Map<Vector>(data + 2 * n + k, m) = s.lambda;
    Eigen::Map<Vector>(data + 2 * n + k + m, m) = mu;
}

void unpack(N_Vector y, State& s) {
    const double* data = N_VGetArrayPointer(y);
    const Eigen::Index n = s.q.size(), k = s.x.size(), m = s.lambda.size();
    s.q = Eigen::Map<const Vector>(data, n);
    s.v = Eigen::Map<const Vector>(data + n, n);
    s.x = Eigen::Map<const Vector>(data + 2 * n, k);
    s.lambda = Eigen::Map<const Vector>(data + 2 * n + k, m);
}

// The residual of the stabilized index-2 form (ida.hpp). Non-finite values are a recoverable
// failure: IDA retries with a smaller step.
int residual(sunrealtype t, N_Vector y, N_Vector yp, N_Vector r, void* user_data) {
    auto& p = *static_cast<Problem*>(user_data);
    try {
        ++p.residuals;
        const Eigen::Index bad = p.residual.evaluate(t, N_VGetArrayPointer(y),
                                                     N_VGetArrayPointer(yp), N_VGetArrayPointer(r));
        if (bad >= 0) {
            p.non_finite = true;
            p.non_finite_where = p.name(bad);
            return 1;
        }
        return 0;
    } catch (...) {
        p.error = std::current_exception();
        return -1;
    }
}

// Newton's matrix from the kernels (ida_residual.hpp), spread into IDA's dense matrix or
// copied into its compressed-column sparse one. Non-finite entries: recoverable.
int jacobian(sunrealtype t, sunrealtype cj, N_Vector y, N_Vector yp, N_Vector, SUNMatrix J,
             void* user_data, N_Vector, N_Vector, N_Vector) {
    auto& p = *static_cast<Problem*>(user_data);
    try {
        ++p.jacobians;
        if (!p.residual.newton_matrix(t, N_VGetArrayPointer(y), N_VGetArrayPointer(yp), cj)) {
            return 1;
        }
        const SparseMatrix& a = p.residual.matrix();
        if (SUNMatGetID(J) == SUNMATRIX_DENSE) {
            SUNMatZero(J);
            for (Eigen::Index c = 0; c < a.outerSize(); ++c) {
                for (SparseMatrix::InnerIterator it(a, c); it; ++it) {
                    SM_ELEMENT_D(J, it.row(), c) = it.value();
                }
            }
            return 0;
        }
#if MDL_HAVE_SUNDIALS_KLU
        sunindextype* start = SM_INDEXPTRS_S(J);
        sunindextype* row = SM_INDEXVALS_S(J);
        double* value = SM_DATA_S(J);
        for (Eigen::Index c = 0; c <= a.outerSize(); ++c) {
            start[c] = a.outerIndexPtr()[c];
        }
        for (Eigen::Index e = 0; e < a.nonZeros(); ++e) {
            row[e] = a.innerIndexPtr()[e];
            value[e] = a.valuePtr()[e];
        }
        return 0;
#else
        return -1;
#endif
    } catch (...) {
        p.error = std::current_exception();
        return -1;
    }
}

void error_handler(int code, const char* module, const char* function, char* message,
                   void* user_data) {
    auto& p = *static_cast<Problem*>(user_data);
    if (code == IDA_WARNING) {
        return;
    }
    p.last_message = std::string(module) + " " + function + ": " + message;
}

// The SUNDIALS objects of one integration, freed in reverse order of creation.
struct Solver {
    SUNContext context = nullptr;
    N_Vector y = nullptr, yp = nullptr, id = nullptr, atol = nullptr;
    void* memory = nullptr;
    SUNMatrix matrix = nullptr;
    SUNLinearSolver linear = nullptr;
    Solver() = default;
    Solver(const Solver&) = delete;
    Solver& operator=(const Solver&) = delete;
    ~Solver() {
        if (memory != nullptr) {
            IDAFree(&memory);
        }
        if (linear != nullptr) {
            SUNLinSolFree(linear);
        }
        if (matrix != nullptr) {
            SUNMatDestroy(matrix);
        }
        for (N_Vector* vector : {&atol, &id, &yp, &y}) {
            if (*vector != nullptr) {
                N_VDestroy(*vector);
            }
        }
        if (context != nullptr) {
            SUNContext_Free(&context);
        }
    }
};

std::string flag_name(int flag) {
    char* name = IDAGetReturnFlagName(flag);
    std::string out = name != nullptr ? name : std::to_string(flag);
    std::free(name);
    return out;
}

void check_setup(int flag, const char* call) {
    if (flag < 0) {
        throw std::runtime_error(std::string("IDA setup failed in ") + call + ": " +
                                 flag_name(flag));
    }
}

[[noreturn]] void throw_failure(Solver& solver, Problem& problem, int flag, double t_end) {
    if (problem.error) {
        try {
            std::rethrow_exception(problem.error);
        } catch (const NumericalFailure& failure) {
            throw failure.in_method(method_name); // a model evaluation's failure (M(q))
        }
    }
    double t = 0.0;
    IDAGetCurrentTime(solver.memory, &t);
    // the unknown with the largest weighted local error estimate of the failed step
    std::string where;
    N_Vector ele = N_VClone(solver.y);
    N_Vector weights = N_VClone(solver.y);
    if (ele != nullptr && weights != nullptr &&
        IDAGetEstLocalErrors(solver.memory, ele) == IDA_SUCCESS &&
        IDAGetErrWeights(solver.memory, weights) == IDA_SUCCESS) {
        const double* e = N_VGetArrayPointer(ele);
        const double* w = N_VGetArrayPointer(weights);
        double worst = -1.0;
        for (Eigen::Index i = 0; i < problem.size(); ++i) {
            const double weighted = std::isfinite(e[i] * w[i]) ? std::abs(e[i] * w[i]) : HUGE_VAL;
            if (weighted > worst) {
                worst = weighted;
                where = problem.name(i);
            }
        }
    }
    for (N_Vector vector : {ele, weights}) {
        if (vector != nullptr) {
            N_VDestroy(vector);
        }
    }
    const std::string ida = "IDA " + flag_name(flag) +
                            (problem.last_message.empty() ? "" : " (" + problem.last_message + ")");
    if (problem.non_finite) {
        throw NumericalFailure(FailureKind::non_finite, method_name, t, problem.non_finite_where,
                               "the residual of this equation is NaN or Inf and stays so however "
                               "small the step; " +
                                   ida);
    }
    switch (flag) {
    case IDA_TOO_MUCH_WORK:
        throw NumericalFailure(FailureKind::too_many_steps, method_name, t, where,
                               "the step budget is exhausted without reaching t = " +
                                   format_number(t_end) + "; " + ida);
    case IDA_CONV_FAIL:
    case IDA_LSETUP_FAIL:
    case IDA_LSOLVE_FAIL:
    case IDA_NLS_INIT_FAIL:
    case IDA_NLS_SETUP_FAIL:
    case IDA_NLS_FAIL:
        throw NumericalFailure(FailureKind::newton_not_converged, method_name, t, where,
                               ida + "; the constraints may be dependent or singular here, or "
                                     "the solution may blow up");
    case IDA_RES_FAIL:
    case IDA_REP_RES_ERR:
        throw NumericalFailure(FailureKind::non_finite, method_name, t, where,
                               "the residual is NaN or Inf however small the step; " + ida);
    default:
        throw NumericalFailure(FailureKind::step_size_underflow, method_name, t, where,
                               ida + "; the solution may blow up here or the problem is "
                                     "discontinuous");
    }
}

} // namespace

void require_ida_run(const Model& model, const State& state, const IdaOptions& options,
                     double t_end, double output_interval) {
    require_state_shape(model, state, method_name);
    require_run_interval(state.t, t_end, output_interval > 0.0 ? output_interval : 1.0,
                         method_name);
    if (!(t_end >= state.t)) {
        throw std::invalid_argument("ida: integrates forward in time only (stop time " +
                                    format_number(t_end) + " before the start " +
                                    format_number(state.t) + ")");
    }
    if (!(options.rtol >= 0.0) || !(options.atol >= 0.0) ||
        (options.rtol == 0.0 && options.atol == 0.0)) {
        throw std::invalid_argument("ida: rtol and atol must be non-negative and not both zero");
    }
}

void ida_consistent_derivatives(const Model& model, State& s, Vector& a, Vector& xdot) {
    const Eigen::Index n = model.positions(), k = model.states(), m = model.constraints();
    a = Vector::Zero(n);
    xdot = Vector::Zero(k);
    if (m > 0 && use_sparse_constraints(model, LinearAlgebra::automatic)) {
        // the same system through the sparse Gram matrix (sparse_constraint_solves.hpp) from
        // constraint_sparse_threshold constraints on, whatever the Newton matrix: the dense
        // one costs m^2 n, 0.7 s on a chain of 1000 links
        ModelForce start(model);
        start.acceleration(s.t, s.q, s.v, s.x, a);
        start.rates(s.t, s.q, s.v, s.x, xdot);
        SparseConstraintJacobian G(model);
        G.evaluate(s.t, s.q);
        SparseConstraintGram gram(model);
        gram.factorize(G.matrix(), s.t, method_name);
        Vector curvature(m);
        model.curvature(s.t, s.q, s.v, curvature);
        acceleration_multipliers(gram, G.matrix(), a, curvature, s.lambda);
        const Vector constraint_force = G.matrix().transpose() * s.lambda;
        a += model.inverse_mass().cwiseProduct(constraint_force);
    } else if (m > 0) {
        ConstrainedModelForce start(model, SolverOptions{}, method_name);
        start.acceleration(s.t, s.q, s.v, s.x, a);
        s.lambda = start.multipliers();
        start.rates(s.t, s.q, s.v, s.x, xdot);
    } else {
        ModelForce start(model);
        start.acceleration(s.t, s.q, s.v, s.x, a);
        start.rates(s.t, s.q, s.v, s.x, xdot);
        s.lambda.resize(0);
    }
}

struct IdaSession::Impl {
    const Model* model;
    IdaOptions options;
    double t_end;
    Problem problem;
    Solver solver;
    long steps = 0; // of the integration since the last (re)start
    long earlier_steps = 0, earlier_rejected = 0;

    Impl(const Model& model_, const IdaOptions& options_, double t_end_)
        : model(&model_), options(options_), t_end(t_end_), problem(model_) {}

    long rejected_now() const {
        long error_test_failures = 0, convergence_failures = 0;
        IDAGetNumErrTestFails(solver.memory, &error_test_failures);
        IDAGetNumNonlinSolvConvFails(solver.memory, &convergence_failures);
        return error_test_failures + convergence_failures;
    }

    // y and y' of s, consistent (mu = 0); s.lambda set
    void load(State& s) {
        const Eigen::Index n = model->positions(), k = model->states();
        Vector a, xdot;
        ida_consistent_derivatives(*model, s, a, xdot);
        pack(s, Vector::Zero(model->constraints()), solver.y);
        double* yp = N_VGetArrayPointer(solver.yp);
        for (Eigen::Index i = 0; i < problem.size(); ++i) {
            yp[i] = 0.0;
        }
        Eigen::Map<Vector>(yp, n) = s.v;
        Eigen::Map<Vector>(yp + n, n) = a;
        Eigen::Map<Vector>(yp + 2 * n, k) = xdot;
    }

    void set_up(State& state);
};

void IdaSession::Impl::set_up(State& state) {
    const Eigen::Index n = model->positions(), k = model->states();
    const auto size = static_cast<sunindextype>(problem.size());
    check_setup(SUNContext_Create(nullptr, &solver.context), "SUNContext_Create");
    solver.y = N_VNew_Serial(size, solver.context);
    solver.yp = N_VNew_Serial(size, solver.context);
    solver.id = N_VNew_Serial(size, solver.context);
    solver.atol = N_VNew_Serial(size, solver.context);
    solver.memory = IDACreate(solver.context);
    if (solver.y == nullptr || solver.yp == nullptr || solver.id == nullptr ||
        solver.atol == nullptr || solver.memory == nullptr) {
        throw std::bad_alloc();
    }
    load(state);
    double* id = N_VGetArrayPointer(solver.id);
    double* atol = N_VGetArrayPointer(solver.atol);
    for (Eigen::Index i = 0; i < problem.size(); ++i) {
        const bool differential = i < 2 * n + k;
        id[i] = differential ? 1.0 : 0.0;
        atol[i] = differential ? options.atol : algebraic_atol;
    }
    check_setup(IDAInit(solver.memory, residual, state.t, solver.y, solver.yp), "IDAInit");
    check_setup(IDASetUserData(solver.memory, &problem), "IDASetUserData");
    check_setup(IDASetErrHandlerFn(solver.memory, error_handler, &problem), "IDASetErrHandlerFn");
    // The multipliers lambda and mu are index-2 variables: out of the error test
    // (suppressalg), and with a tolerance that leaves them out of Newton's convergence test
    // too, whose weighted norm would otherwise demand their O(1/h)-sensitive corrections to
    // atol (IDA then fails at the first step). The differential unknowns q, v, x converge, and
    // the constraint rows of the residual hold g = 0, G v = 0 at every converged step.
    check_setup(IDASVtolerances(solver.memory, options.rtol, solver.atol), "IDASVtolerances");
    check_setup(IDASetId(solver.memory, solver.id), "IDASetId");
    check_setup(IDASetSuppressAlg(solver.memory, SUNTRUE), "IDASetSuppressAlg");
    const IdaLinearAlgebra algebra = ida_linear_algebra(*model, options);
#if MDL_HAVE_SUNDIALS_KLU
    if (algebra == IdaLinearAlgebra::sparse) {
        const auto nonzeros = static_cast<sunindextype>(problem.residual.matrix().nonZeros());
        solver.matrix = SUNSparseMatrix(size, size, nonzeros, CSC_MAT, solver.context);
        solver.linear = SUNLinSol_KLU(solver.y, solver.matrix, solver.context);
    }
#endif
    if (algebra != IdaLinearAlgebra::sparse) {
        solver.matrix = SUNDenseMatrix(size, size, solver.context);
        solver.linear = SUNLinSol_Dense(solver.y, solver.matrix, solver.context);
    }
    if (solver.matrix == nullptr || solver.linear == nullptr) {
        throw std::bad_alloc();
    }
    check_setup(IDASetLinearSolver(solver.memory, solver.linear, solver.matrix),
                "IDASetLinearSolver");
    if (algebra != IdaLinearAlgebra::dense_difference_quotients) {
        check_setup(IDASetJacFn(solver.memory, jacobian), "IDASetJacFn");
    }
    if (options.initial_step > 0.0) {
        check_setup(IDASetInitStep(solver.memory, options.initial_step), "IDASetInitStep");
    }
    if (std::isfinite(options.max_step) && options.max_step > 0.0) {
        check_setup(IDASetMaxStep(solver.memory, options.max_step), "IDASetMaxStep");
    }
    check_setup(IDASetStopTime(solver.memory, t_end), "IDASetStopTime");
}

IdaSession::IdaSession(const Model& model, const IdaOptions& options, State& state, double t_end)
    : impl_(std::make_unique<Impl>(model, options, t_end)) {
    impl_->set_up(state);
}

IdaSession::~IdaSession() = default;

bool IdaSession::advance(double target, bool one_step, State& out) {
    Impl& s = *impl_;
    if (s.options.max_steps > 0) {
        const long remaining = static_cast<long>(s.options.max_steps) - s.earlier_steps - s.steps;
        if (remaining <= 0) {
            throw_failure(s.solver, s.problem, IDA_TOO_MUCH_WORK, s.t_end);
        }
        IDASetMaxNumSteps(s.solver.memory, remaining);
    } else {
        IDASetMaxNumSteps(s.solver.memory, -1); // no limit
    }
    sunrealtype reached = 0.0;
    s.problem.non_finite = false;
    const int flag = IDASolve(s.solver.memory, target, &reached, s.solver.y, s.solver.yp,
                              one_step ? IDA_ONE_STEP : IDA_NORMAL);
    IDAGetNumSteps(s.solver.memory, &s.steps);
    if (flag < 0) {
        throw_failure(s.solver, s.problem, flag, s.t_end);
    }
    unpack(s.solver.y, out);
    const bool end = flag == IDA_TSTOP_RETURN || reached == s.t_end;
    out.t = end ? s.t_end : (one_step ? reached : target);
    require_finite(*s.model, out, method_name);
    return end;
}

void IdaSession::restart(State& state) {
    Impl& s = *impl_;
    s.earlier_steps += s.steps;
    s.earlier_rejected += s.rejected_now();
    s.steps = 0;
    s.load(state);
    check_setup(IDAReInit(s.solver.memory, state.t, s.solver.y, s.solver.yp), "IDAReInit");
}

IntegrationStats IdaSession::statistics() const {
    const Impl& s = *impl_;
    IntegrationStats stats;
    stats.steps = static_cast<std::size_t>(s.earlier_steps + s.steps);
    stats.rejected = static_cast<std::size_t>(s.earlier_rejected + s.rejected_now());
    stats.force_evaluations = s.problem.residuals;
    return stats;
}

} // namespace mdl::runtime::detail

#endif
