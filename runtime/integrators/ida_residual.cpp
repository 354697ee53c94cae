#include "runtime/integrators/ida_residual.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>

namespace mdl::runtime {

namespace {

mdl_kernel_args kernel_args(const Model& model, double t, const Vector& q, const Vector& v,
                            const Vector& x, const Vector& theta) {
    const std::vector<double>& p = model.parameters();
    return mdl_kernel_args{t,
                           q.size() ? q.data() : nullptr,
                           v.size() ? v.data() : nullptr,
                           x.size() ? x.data() : nullptr,
                           theta.size() ? theta.data() : nullptr,
                           p.empty() ? nullptr : p.data()};
}

// The pattern of a values kernel, or every entry of a rows x columns dense kernel.
KernelCsr kernel_csr(mdl_kernel values, const mdl_sparsity& pattern, Eigen::Index rows,
                     Eigen::Index columns) {
    KernelCsr csr;
    csr.rows = rows;
    csr.columns = columns;
    csr.row_start.assign(static_cast<std::size_t>(rows) + 1, 0);
    if (values != nullptr && pattern.rows == rows && pattern.columns == columns) {
        for (Eigen::Index i = 0; i <= rows; ++i) {
            csr.row_start[static_cast<std::size_t>(i)] = static_cast<int>(pattern.row_start[i]);
        }
        csr.column.assign(pattern.column, pattern.column + pattern.nonzeros);
    } else {
        for (Eigen::Index i = 0; i < rows; ++i) {
            for (Eigen::Index j = 0; j < columns; ++j) {
                csr.column.push_back(static_cast<int>(j));
            }
            csr.row_start[static_cast<std::size_t>(i) + 1] = static_cast<int>(csr.column.size());
        }
    }
    csr.value.assign(csr.column.size(), 0.0);
    return csr;
}

bool has_values(mdl_kernel values, const mdl_sparsity& pattern, Eigen::Index rows,
                Eigen::Index columns) {
    return values != nullptr && pattern.rows == rows && pattern.columns == columns;
}

// The entries of a CSR matrix at (row_offset + i, column_offset + j), or transposed.
PatternEntries shifted(const KernelCsr& a, int row_offset, int column_offset, bool transpose) {
    PatternEntries e;
    e.row.reserve(a.nonzeros());
    e.column.reserve(a.nonzeros());
    for (Eigen::Index i = 0; i < a.rows; ++i) {
        for (int at = a.row_start[static_cast<std::size_t>(i)];
             at < a.row_start[static_cast<std::size_t>(i) + 1]; ++at) {
            const int j = a.column[static_cast<std::size_t>(at)];
            e.row.push_back((transpose ? j : static_cast<int>(i)) + row_offset);
            e.column.push_back((transpose ? static_cast<int>(i) : j) + column_offset);
        }
    }
    return e;
}

PatternEntries diagonal(Eigen::Index count, int row_offset, int column_offset) {
    PatternEntries e;
    for (Eigen::Index i = 0; i < count; ++i) {
        e.row.push_back(static_cast<int>(i) + row_offset);
        e.column.push_back(static_cast<int>(i) + column_offset);
    }
    return e;
}

// y = A x and y = A^T x for a CSR matrix
void multiply(const KernelCsr& a, const std::vector<double>& values, const Vector& x, Vector& y) {
    for (Eigen::Index i = 0; i < a.rows; ++i) {
        double s = 0.0;
        for (int at = a.row_start[static_cast<std::size_t>(i)];
             at < a.row_start[static_cast<std::size_t>(i) + 1]; ++at) {
            s += values[static_cast<std::size_t>(at)] * x[a.column[static_cast<std::size_t>(at)]];
        }
        y[i] = s;
    }
}

void multiply_transposed(const KernelCsr& a, const std::vector<double>& values, const Vector& x,
                         Vector& y) {
    y.setZero();
    for (Eigen::Index i = 0; i < a.rows; ++i) {
        for (int at = a.row_start[static_cast<std::size_t>(i)];
             at < a.row_start[static_cast<std::size_t>(i) + 1]; ++at) {
            y[a.column[static_cast<std::size_t>(at)]] +=
                values[static_cast<std::size_t>(at)] * x[i];
        }
    }
}

} // namespace

IdaResidual::IdaResidual(const Model& model)
    : model_(&model), n_(model.positions()), k_(model.states()), m_(model.constraints()),
      diagonal_mass_(model.mass_constant_diagonal()), q_(n_), v_(n_), x_(k_), lambda_(m_), mu_(m_),
      qdot_(n_), vdot_(n_), xdot_(k_), theta_(model.vibrations()), f_(n_), rates_(k_), g_(m_),
      work_(n_) {
    rate_ = Vector::Zero(m_);
    rate_plus_ = Vector::Zero(m_);
    rate_minus_ = Vector::Zero(m_);
    if (!diagonal_mass_) {
        M_.resize(n_, n_);
        model.mass_matrix(Vector::Zero(n_), M_);
    }
    const mdl_kernels& kernels = model.kernels();
    // Without the kernels' Newton matrix (IDA's difference quotients of the residual), the
    // constraint terms are dense products as before issue 19: the quotients, and with them
    // IDA's steps, follow the round-off of the residual (Andrews' squeezer at rtol 1e-10
    // moves by 3e-9 relative when the products sum in another order).
    dense_constraints_ =
        m_ > 0 && (!has_newton_matrix(model) ||
                   !has_values(model.kernels().constraint_jacobian_values,
                               model.kernels().constraint_jacobian_pattern, m_, n_));
    if (dense_constraints_) {
        dense_.resize(m_, n_);
    }
    if (m_ > 0) {
        G_ = kernel_csr(kernels.constraint_jacobian_values, kernels.constraint_jacobian_pattern, m_,
                        n_);
    }
    if (has_newton_matrix(model)) {
        f_q_ = kernel_csr(kernels.force_dq_values, kernels.force_dq_pattern, n_, n_);
        f_v_ = kernel_csr(kernels.force_dv_values, kernels.force_dv_pattern, n_, n_);
        colour_constraint_columns();
        build_pattern();
    }
}

bool IdaResidual::has_newton_matrix(const Model& model) {
    return model.has_force_jacobians() && model.states() == 0 && !model.mass_depends_on_positions();
}

std::string IdaResidual::name(Eigen::Index i) const {
    const Model& model = *model_;
    if (i < n_) {
        return model.position_name(i);
    }
    if (i < 2 * n_) {
        return model.velocity_name(i - n_);
    }
    if (i < 2 * n_ + k_) {
        return model.state_name(i - 2 * n_);
    }
    if (i < 2 * n_ + k_ + m_) {
        return "lambda(" + model.constraint_name(i - 2 * n_ - k_) + ")";
    }
    return "mu(" + model.constraint_name(i - 2 * n_ - k_ - m_) + ")";
}

void IdaResidual::unpack(const double* a, const double* b) {
    const Eigen::Index n = n_, k = k_, m = m_;
    q_ = Eigen::Map<const Vector>(a, n);
    v_ = Eigen::Map<const Vector>(a + n, n);
    x_ = Eigen::Map<const Vector>(a + 2 * n, k);
    lambda_ = Eigen::Map<const Vector>(a + 2 * n + k, m);
    mu_ = Eigen::Map<const Vector>(a + 2 * n + k + m, m);
    qdot_ = Eigen::Map<const Vector>(b, n);
    vdot_ = Eigen::Map<const Vector>(b + n, n);
    xdot_ = Eigen::Map<const Vector>(b + 2 * n, k);
}

void IdaResidual::constraint_jacobian(double t, const Vector& q,
                                      std::vector<double>& values) const {
    const mdl_kernels& kernels = model_->kernels();
    if (has_values(kernels.constraint_jacobian_values, kernels.constraint_jacobian_pattern, m_,
                   n_)) {
        model_->constraint_jacobian_values(t, q, values.data());
        return;
    }
    Matrix G(m_, n_);
    model_->constraint_jacobian(t, q, G);
    std::copy(G.data(), G.data() + G.size(), values.begin()); // row-major: the full pattern
}

Eigen::Index IdaResidual::evaluate(double t, const double* y, const double* yp, double* out) {
    unpack(y, yp);
    const Model& model = *model_;
    model.phases(t, theta_);
    model.force(t, q_, v_, x_, theta_, f_);
    const Eigen::Index n = n_, k = k_, m = m_;
    Eigen::Map<Vector> r_q(out, n), r_v(out + n, n), r_x(out + 2 * n, k),
        r_velocity(out + 2 * n + k, m), r_position(out + 2 * n + k + m, m);
    r_q = qdot_ - v_;
    if (diagonal_mass_) {
        r_v = model.mass().cwiseProduct(vdot_);
    } else {
        if (model.mass_depends_on_positions()) {
            model.mass_matrix(q_, M_);
        }
        r_v.noalias() = M_ * vdot_;
    }
    r_v -= f_;
    if (m > 0) {
        if (dense_constraints_) {
            model.constraint_jacobian(t, q_, dense_);
            r_q.noalias() -= dense_.transpose() * mu_;
            r_v.noalias() -= dense_.transpose() * lambda_;
            r_velocity.noalias() = dense_ * v_;
        } else {
            constraint_jacobian(t, q_, G_.value);
            multiply_transposed(G_, G_.value, mu_, work_);
            r_q -= work_;
            multiply_transposed(G_, G_.value, lambda_, work_);
            r_v -= work_;
            multiply(G_, G_.value, v_, g_); // G v, then g below
            r_velocity = g_;
        }
        if (model.rheonomic()) {
            model.constraint_rate(t, q_, rate_);
            r_velocity += rate_; // G v + g_t
        }
        model.constraint(t, q_, g_);
        r_position = g_;
    }
    if (k > 0) {
        model.rates(t, q_, v_, x_, theta_, rates_);
        r_x = xdot_ - rates_;
    }
    for (Eigen::Index i = 0; i < size(); ++i) {
        if (!std::isfinite(out[i])) {
            return i;
        }
    }
    return -1;
}

// Greedy distance-2 colouring of the columns of P = union of supp(g_i) x supp(g_i): two
// columns conflict when a row of P holds both.
void IdaResidual::colour_constraint_columns() {
    const auto n = static_cast<std::size_t>(n_);
    // the constraints of each position (G transposed)
    std::vector<std::vector<int>> constraints_of(n);
    g_column_start_.assign(n + 1, 0);
    for (Eigen::Index i = 0; i < m_; ++i) {
        for (int at = G_.row_start[static_cast<std::size_t>(i)];
             at < G_.row_start[static_cast<std::size_t>(i) + 1]; ++at) {
            constraints_of[static_cast<std::size_t>(G_.column[static_cast<std::size_t>(at)])]
                .push_back(at); // G's entry, whose row is the constraint
        }
    }
    std::vector<int>& entry_row = g_entry_row_;
    entry_row.assign(G_.nonzeros(), 0);
    for (Eigen::Index i = 0; i < m_; ++i) {
        for (int at = G_.row_start[static_cast<std::size_t>(i)];
             at < G_.row_start[static_cast<std::size_t>(i) + 1]; ++at) {
            entry_row[static_cast<std::size_t>(at)] = static_cast<int>(i);
        }
    }
    g_entry_.clear();
    for (std::size_t j = 0; j < n; ++j) {
        g_entry_.insert(g_entry_.end(), constraints_of[j].begin(), constraints_of[j].end());
        g_column_start_[j + 1] = static_cast<int>(g_entry_.size());
    }
    // P's column j: the positions of every constraint that holds j, sorted
    p_start_.assign(n + 1, 0);
    p_row_.clear();
    std::vector<int> seen(n, -1);
    std::vector<int> column;
    for (std::size_t j = 0; j < n; ++j) {
        column.clear();
        for (const int at : constraints_of[j]) {
            const auto i = static_cast<std::size_t>(entry_row[static_cast<std::size_t>(at)]);
            for (int e = G_.row_start[i]; e < G_.row_start[i + 1]; ++e) {
                const int r = G_.column[static_cast<std::size_t>(e)];
                if (seen[static_cast<std::size_t>(r)] != static_cast<int>(j)) {
                    seen[static_cast<std::size_t>(r)] = static_cast<int>(j);
                    column.push_back(r);
                }
            }
        }
        std::sort(column.begin(), column.end());
        p_row_.insert(p_row_.end(), column.begin(), column.end());
        p_start_[j + 1] = static_cast<int>(p_row_.size());
    }
    // P is symmetric: the columns sharing a row with column j are the columns of P's rows
    // r in column j, i.e. P's columns r's rows.
    colour_.assign(n, -1);
    colours_ = 0;
    std::vector<int> forbidden; // forbidden[c] == j: colour c is taken near column j
    for (std::size_t j = 0; j < n; ++j) {
        if (p_start_[j] == p_start_[j + 1]) {
            continue;
        }
        for (int e = p_start_[j]; e < p_start_[j + 1]; ++e) {
            const auto r = static_cast<std::size_t>(p_row_[static_cast<std::size_t>(e)]);
            for (int f = p_start_[r]; f < p_start_[r + 1]; ++f) {
                const int c =
                    colour_[static_cast<std::size_t>(p_row_[static_cast<std::size_t>(f)])];
                if (c >= 0) {
                    forbidden[static_cast<std::size_t>(c)] = static_cast<int>(j);
                }
            }
        }
        int c = 0;
        while (c < colours_ && forbidden[static_cast<std::size_t>(c)] == static_cast<int>(j)) {
            ++c;
        }
        if (c == colours_) {
            ++colours_;
            forbidden.push_back(-1);
        }
        colour_[j] = c;
    }
    colour_columns_.assign(static_cast<std::size_t>(colours_), {});
    for (std::size_t j = 0; j < n; ++j) {
        if (colour_[j] >= 0) {
            colour_columns_[static_cast<std::size_t>(colour_[j])].push_back(static_cast<int>(j));
        }
    }
    h_lambda_.assign(p_row_.size(), 0.0);
    h_mu_.assign(p_row_.size(), 0.0);
    c_v_.assign(G_.nonzeros(), 0.0);
    g_plus_.assign(G_.nonzeros(), 0.0);
    g_minus_.assign(G_.nonzeros(), 0.0);
    for (Vector* vector : {&x_plus_lambda_, &x_minus_lambda_, &x_plus_mu_, &x_minus_mu_}) {
        vector->resize(n_);
    }
    gv_plus_.resize(m_);
    gv_minus_.resize(m_);
}

void IdaResidual::build_pattern() {
    const int n = static_cast<int>(n_), m = static_cast<int>(m_);
    const int Q = 0, V = n, L = 2 * n, U = 2 * n + m;
    PatternEntries p;
    for (int j = 0; j < n; ++j) {
        for (int e = p_start_[static_cast<std::size_t>(j)];
             e < p_start_[static_cast<std::size_t>(j) + 1]; ++e) {
            p.row.push_back(p_row_[static_cast<std::size_t>(e)]);
            p.column.push_back(j);
        }
    }
    auto shift = [](PatternEntries e, int row_offset, int column_offset) {
        for (int& r : e.row) {
            r += row_offset;
        }
        for (int& c : e.column) {
            c += column_offset;
        }
        return e;
    };
    jacobian_ = FixedPatternMatrix(size());
    s_qq_ = jacobian_.add_source(diagonal(n_, Q, Q));
    s_hmu_ = jacobian_.add_source(shift(p, Q, Q));
    s_qv_ = jacobian_.add_source(diagonal(n_, Q, V));
    s_qmu_ = jacobian_.add_source(shifted(G_, Q, U, true));
    s_fq_ = jacobian_.add_source(shifted(f_q_, V, Q, false));
    s_hlam_ = jacobian_.add_source(shift(p, V, Q));
    if (diagonal_mass_) {
        s_mass_ = jacobian_.add_source(diagonal(n_, V, V));
        mass_values_.assign(model_->mass().data(), model_->mass().data() + n_);
    } else {
        PatternEntries mass;
        mass_values_.clear();
        for (Eigen::Index j = 0; j < n_; ++j) {
            for (Eigen::Index i = 0; i < n_; ++i) {
                if (M_(i, j) != 0.0) {
                    mass.row.push_back(V + static_cast<int>(i));
                    mass.column.push_back(V + static_cast<int>(j));
                    mass_values_.push_back(M_(i, j));
                }
            }
        }
        s_mass_ = jacobian_.add_source(mass);
    }
    s_fv_ = jacobian_.add_source(shifted(f_v_, V, V, false));
    s_vlam_ = jacobian_.add_source(shifted(G_, V, L, true));
    s_cv_ = jacobian_.add_source(shifted(G_, L, Q, false));
    s_lv_ = jacobian_.add_source(shifted(G_, L, V, false));
    s_uq_ = jacobian_.add_source(shifted(G_, U, Q, false));
    jacobian_.build();
}

bool IdaResidual::newton_matrix(double t, const double* y, const double* yp, double cj) {
    unpack(y, yp);
    const Model& model = *model_;
    model.phases(t, theta_);
    const mdl_kernels& kernels = model.kernels();
    if (has_values(kernels.force_dq_values, kernels.force_dq_pattern, n_, n_) &&
        has_values(kernels.force_dv_values, kernels.force_dv_pattern, n_, n_)) {
        const mdl_kernel_args args = kernel_args(model, t, q_, v_, x_, theta_);
        kernels.force_dq_values(&args, f_q_.value.data());
        kernels.force_dv_values(&args, f_v_.value.data());
    } else {
        Matrix f_q(n_, n_), f_v(n_, n_);
        model.force_jacobians(t, q_, v_, x_, theta_, f_q, f_v);
        std::copy(f_q.data(), f_q.data() + f_q.size(), f_q_.value.begin());
        std::copy(f_v.data(), f_v.data() + f_v.size(), f_v_.value.begin());
    }
    if (m_ > 0) {
        constraint_jacobian(t, q_, G_.value);
        // the second derivatives, one colour at a time
        q_step_ = q_;
        const double relative = std::cbrt(DBL_EPSILON);
        for (const std::vector<int>& columns : colour_columns_) {
            for (const int j : columns) {
                q_step_[j] = q_[j] + relative * std::max(1.0, std::abs(q_[j]));
            }
            constraint_jacobian(t, q_step_, g_plus_);
            model.constraint_rate(t, q_step_, rate_plus_);
            for (const int j : columns) {
                q_step_[j] = q_[j] - relative * std::max(1.0, std::abs(q_[j]));
            }
            constraint_jacobian(t, q_step_, g_minus_);
            model.constraint_rate(t, q_step_, rate_minus_);
            multiply_transposed(G_, g_plus_, lambda_, x_plus_lambda_);
            multiply_transposed(G_, g_minus_, lambda_, x_minus_lambda_);
            multiply_transposed(G_, g_plus_, mu_, x_plus_mu_);
            multiply_transposed(G_, g_minus_, mu_, x_minus_mu_);
            multiply(G_, g_plus_, v_, gv_plus_);
            multiply(G_, g_minus_, v_, gv_minus_);
            if (model.rheonomic()) {
                gv_plus_ += rate_plus_;
                gv_minus_ += rate_minus_;
            }
            for (const int j : columns) {
                const double width = (q_[j] + relative * std::max(1.0, std::abs(q_[j]))) -
                                     (q_[j] - relative * std::max(1.0, std::abs(q_[j])));
                for (int e = p_start_[static_cast<std::size_t>(j)];
                     e < p_start_[static_cast<std::size_t>(j) + 1]; ++e) {
                    const int r = p_row_[static_cast<std::size_t>(e)];
                    h_lambda_[static_cast<std::size_t>(e)] =
                        (x_plus_lambda_[r] - x_minus_lambda_[r]) / width;
                    h_mu_[static_cast<std::size_t>(e)] = (x_plus_mu_[r] - x_minus_mu_[r]) / width;
                }
                for (int e = g_column_start_[static_cast<std::size_t>(j)];
                     e < g_column_start_[static_cast<std::size_t>(j) + 1]; ++e) {
                    const auto at = static_cast<std::size_t>(g_entry_[static_cast<std::size_t>(e)]);
                    const int row = g_entry_row_[at];
                    c_v_[at] = (gv_plus_[row] - gv_minus_[row]) / width;
                }
                q_step_[j] = q_[j];
            }
        }
    }
    jacobian_.set_zero();
    double* value = jacobian_.matrix().valuePtr();
    const auto add = [&](std::size_t source, const auto& entry) {
        const std::vector<int>& slots = jacobian_.slots(source);
        for (std::size_t e = 0; e < slots.size(); ++e) {
            value[slots[e]] += entry(e);
        }
    };
    add(s_qq_, [&](std::size_t) { return cj; });
    add(s_qv_, [&](std::size_t) { return -1.0; });
    add(s_fq_, [&](std::size_t e) { return -f_q_.value[e]; });
    add(s_mass_, [&](std::size_t e) { return cj * mass_values_[e]; });
    add(s_fv_, [&](std::size_t e) { return -f_v_.value[e]; });
    if (m_ > 0) {
        add(s_hmu_, [&](std::size_t e) { return -h_mu_[e]; });
        add(s_qmu_, [&](std::size_t e) { return -G_.value[e]; });
        add(s_hlam_, [&](std::size_t e) { return -h_lambda_[e]; });
        add(s_vlam_, [&](std::size_t e) { return -G_.value[e]; });
        add(s_cv_, [&](std::size_t e) { return c_v_[e]; });
        add(s_lv_, [&](std::size_t e) { return G_.value[e]; });
        add(s_uq_, [&](std::size_t e) { return G_.value[e]; });
    }
    const SparseMatrix& J = jacobian_.matrix();
    return std::all_of(J.valuePtr(), J.valuePtr() + J.nonZeros(),
                       [](double a) { return std::isfinite(a); });
}

} // namespace mdl::runtime
