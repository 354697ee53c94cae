#include "test_models.hpp"

#include <cstring>
#include <numeric>

namespace mdl::runtime::test {

namespace {

mdl_kernels empty_kernels(unsigned n, unsigned k, unsigned m, unsigned parameters) {
    mdl_kernels kernels;
    std::memset(&kernels, 0, sizeof kernels);
    kernels.n_positions = n;
    kernels.n_states = k;
    kernels.n_constraints = m;
    kernels.n_parameters = parameters;
    return kernels;
}

// ---- harmonic oscillator: p = {m, k}
void ho_mass(const mdl_kernel_args* a, double* out) {
    out[0] = a->p[0];
}
void ho_force(const mdl_kernel_args* a, double* out) {
    out[0] = -a->p[1] * a->q[0];
}
void ho_potential(const mdl_kernel_args* a, double* out) {
    out[0] = 0.5 * a->p[1] * a->q[0] * a->q[0];
}
void ho_force_dq(const mdl_kernel_args* a, double* out) {
    out[0] = -a->p[1];
}
void zero_1x1(const mdl_kernel_args*, double* out) {
    out[0] = 0.0;
}

// ---- damped oscillator: p = {m, c, k}
void do_mass(const mdl_kernel_args* a, double* out) {
    out[0] = a->p[0];
}
void do_force(const mdl_kernel_args* a, double* out) {
    out[0] = -a->p[2] * a->q[0] - a->p[1] * a->v[0];
}
void do_force_dq(const mdl_kernel_args* a, double* out) {
    out[0] = -a->p[2];
}
void do_force_dv(const mdl_kernel_args* a, double* out) {
    out[0] = -a->p[1];
}

// ---- angle pendulum: p = {m, l, g}
void ap_mass(const mdl_kernel_args* a, double* out) {
    out[0] = a->p[0] * a->p[1] * a->p[1];
}
void ap_force(const mdl_kernel_args* a, double* out) {
    out[0] = -a->p[0] * a->p[2] * a->p[1] * std::sin(a->q[0]);
}
void ap_force_dq(const mdl_kernel_args* a, double* out) {
    out[0] = -a->p[0] * a->p[2] * a->p[1] * std::cos(a->q[0]);
}
void ap_potential(const mdl_kernel_args* a, double* out) {
    out[0] = a->p[0] * a->p[2] * a->p[1] * (1.0 - std::cos(a->q[0]));
}

// ---- oscillator with a first-order filter: p = {a}
void unit_mass(const mdl_kernel_args*, double* out) {
    out[0] = 1.0;
}
void unit_spring(const mdl_kernel_args* a, double* out) {
    out[0] = -a->q[0];
}
void filter_rates(const mdl_kernel_args* a, double* out) {
    out[0] = -a->p[0] * a->x[0] + a->q[0];
}

// ---- two-frequency chain: p = {m1, m2, k1, k2}
void tf_mass(const mdl_kernel_args* a, double* out) {
    out[0] = a->p[0];
    out[1] = a->p[1];
}
void tf_force(const mdl_kernel_args* a, double* out) {
    const double k1 = a->p[2], k2 = a->p[3];
    out[0] = -(k1 + k2) * a->q[0] + k2 * a->q[1];
    out[1] = k2 * a->q[0] - k2 * a->q[1];
}
void tf_force_dq(const mdl_kernel_args* a, double* out) {
    const double k1 = a->p[2], k2 = a->p[3];
    out[0] = -(k1 + k2);
    out[1] = k2;
    out[2] = k2;
    out[3] = -k2;
}
void zero_2x2(const mdl_kernel_args*, double* out) {
    std::fill(out, out + 4, 0.0);
}
void tf_potential(const mdl_kernel_args* a, double* out) {
    const double k1 = a->p[2], k2 = a->p[3];
    const double d = a->q[1] - a->q[0];
    out[0] = 0.5 * k1 * a->q[0] * a->q[0] + 0.5 * k2 * d * d;
}

// ---- seated human body: p = {M1..M4, k1..k3, B1..B3, F0, Omega}
void sb_mass(const mdl_kernel_args* a, double* out) {
    std::copy(a->p, a->p + 4, out);
}
void sb_force(const mdl_kernel_args* a, double* out) {
    const double* p = a->p;
    const double k1 = p[4], k2 = p[5], k3 = p[6], B1 = p[7], B2 = p[8], B3 = p[9];
    const double* x = a->q;
    const double* v = a->v;
    // the equations of "Introduction II", Newton's law for each mass
    const double s1 = k1 * (x[1] - x[0]) + B1 * (v[1] - v[0]);
    const double s2 = k2 * (x[2] - x[1]) + B2 * (v[2] - v[1]);
    const double s3 = k3 * (x[3] - x[1]) + B3 * (v[3] - v[1]);
    out[0] = s1;
    out[1] = s2 + s3 - s1;
    out[2] = -s2;
    out[3] = p[10] * std::sin(p[11] * a->t) - s3;
}
void sb_matrix(const double* p, double c1, double c2, double c3, double* out) {
    (void)p;
    const double m[16] = {-c1, c1,  0.0, 0.0, c1, -(c1 + c2 + c3), c2, c3, 0.0, c2, -c2,
                          0.0, 0.0, c3,  0.0, -c3};
    std::copy(m, m + 16, out);
}
void sb_force_dq(const mdl_kernel_args* a, double* out) {
    sb_matrix(a->p, a->p[4], a->p[5], a->p[6], out);
}
void sb_force_dv(const mdl_kernel_args* a, double* out) {
    sb_matrix(a->p, a->p[7], a->p[8], a->p[9], out);
}

// ---- double pendulum: p = {m1, m2, l1, l2, g}, q = (x1, y1, x2, y2)
void dp_mass(const mdl_kernel_args* a, double* out) {
    out[0] = out[1] = a->p[0];
    out[2] = out[3] = a->p[1];
}
void dp_force(const mdl_kernel_args* a, double* out) {
    out[0] = 0.0;
    out[1] = -a->p[0] * a->p[4];
    out[2] = 0.0;
    out[3] = -a->p[1] * a->p[4];
}
void zero_4x4(const mdl_kernel_args*, double* out) {
    std::fill(out, out + 16, 0.0);
}
void dp_potential(const mdl_kernel_args* a, double* out) {
    out[0] = a->p[4] * (a->p[0] * a->q[1] + a->p[1] * a->q[3]);
}
void dp_constraint(const mdl_kernel_args* a, double* out) {
    const double* q = a->q;
    const double dx = q[2] - q[0], dy = q[3] - q[1];
    out[0] = q[0] * q[0] + q[1] * q[1] - a->p[2] * a->p[2];
    out[1] = dx * dx + dy * dy - a->p[3] * a->p[3];
}
void dp_jacobian(const mdl_kernel_args* a, double* out) {
    const double* q = a->q;
    const double dx = q[2] - q[0], dy = q[3] - q[1];
    const double G[8] = {2 * q[0], 2 * q[1], 0.0, 0.0, -2 * dx, -2 * dy, 2 * dx, 2 * dy};
    std::copy(G, G + 8, out);
}
void dp_curvature(const mdl_kernel_args* a, double* out) {
    const double* v = a->v;
    const double dvx = v[2] - v[0], dvy = v[3] - v[1];
    out[0] = 2.0 * (v[0] * v[0] + v[1] * v[1]);
    out[1] = 2.0 * (dvx * dvx + dvy * dvy);
}

// ---- Cartesian pendulum: p = {m, l, g}, q = (x, y)
void cp_mass(const mdl_kernel_args* a, double* out) {
    out[0] = out[1] = a->p[0];
}
void cp_force(const mdl_kernel_args* a, double* out) {
    out[0] = 0.0;
    out[1] = -a->p[0] * a->p[2];
}
void cp_potential(const mdl_kernel_args* a, double* out) {
    out[0] = a->p[0] * a->p[2] * a->q[1];
}
void cp_constraint(const mdl_kernel_args* a, double* out) {
    out[0] = a->q[0] * a->q[0] + a->q[1] * a->q[1] - a->p[1] * a->p[1];
}
void cp_jacobian(const mdl_kernel_args* a, double* out) {
    out[0] = 2.0 * a->q[0];
    out[1] = 2.0 * a->q[1];
}
void cp_curvature(const mdl_kernel_args* a, double* out) {
    out[0] = 2.0 * (a->v[0] * a->v[0] + a->v[1] * a->v[1]);
}
void cp_constraint2(const mdl_kernel_args* a, double* out) {
    cp_constraint(a, out);
    out[1] = out[0];
}
void cp_jacobian2(const mdl_kernel_args* a, double* out) {
    cp_jacobian(a, out);
    out[2] = out[0];
    out[3] = out[1];
}
void cp_curvature2(const mdl_kernel_args* a, double* out) {
    cp_curvature(a, out);
    out[1] = out[0];
}

// ---- failures
void cubic_force(const mdl_kernel_args* a, double* out) {
    out[0] = 2.0 * a->q[0] * a->q[0] * a->q[0];
}
void two_unit_masses(const mdl_kernel_args*, double* out) {
    out[0] = out[1] = 1.0;
}
void sqrt_force(const mdl_kernel_args* a, double* out) {
    out[0] = -a->q[0];
    out[1] = std::sqrt(a->q[0]);
}
void exp_force(const mdl_kernel_args* a, double* out) {
    out[0] = std::exp(a->q[0]);
}
void exp_force_dq(const mdl_kernel_args* a, double* out) {
    out[0] = std::exp(a->q[0]);
}

// ---- averaged Kapitza pendulum
void kapitza_force(const mdl_kernel_args* a, double* out) {
    const double l = 0.2, g = 9.8, vmax = 4.0;
    out[0] = (g / l - vmax * vmax / (2.0 * l * l) * std::cos(a->q[0])) * std::sin(a->q[0]);
}

} // namespace

Model harmonic_oscillator(double m, double k) {
    mdl_kernels kernels = empty_kernels(1, 0, 0, 2);
    kernels.mass = ho_mass;
    kernels.force = ho_force;
    kernels.potential = ho_potential;
    kernels.force_dq = ho_force_dq;
    kernels.force_dv = zero_1x1;
    return Model(kernels, {m, k}, {"oscillator", {"q"}, {}, {}, {"m", "k"}});
}

void harmonic_solution(double omega, double q0, double v0, double t, double& q, double& v) {
    q = q0 * std::cos(omega * t) + v0 / omega * std::sin(omega * t);
    v = -q0 * omega * std::sin(omega * t) + v0 * std::cos(omega * t);
}

Model damped_oscillator(double m, double c, double k) {
    mdl_kernels kernels = empty_kernels(1, 0, 0, 3);
    kernels.mass = do_mass;
    kernels.force = do_force;
    kernels.force_dq = do_force_dq;
    kernels.force_dv = do_force_dv;
    kernels.velocity_dependent = 1;
    return Model(kernels, {m, c, k}, {"damped", {"q"}, {}, {}, {"m", "c", "k"}});
}

void damped_solution(double m, double c, double k, double q0, double v0, double t, double& q,
                     double& v) {
    const double omega = std::sqrt(k / m);
    const double zeta = c / (2.0 * std::sqrt(k * m));
    const double wd = omega * std::sqrt(1.0 - zeta * zeta);
    const double sigma = zeta * omega;
    const double A = q0, B = (v0 + sigma * q0) / wd;
    const double e = std::exp(-sigma * t);
    q = e * (A * std::cos(wd * t) + B * std::sin(wd * t));
    v = -sigma * q + e * (-A * wd * std::sin(wd * t) + B * wd * std::cos(wd * t));
}

Model angle_pendulum(double m, double l, double g) {
    mdl_kernels kernels = empty_kernels(1, 0, 0, 3);
    kernels.mass = ap_mass;
    kernels.force = ap_force;
    kernels.potential = ap_potential;
    kernels.force_dq = ap_force_dq;
    kernels.force_dv = zero_1x1;
    return Model(kernels, {m, l, g}, {"pendulum", {"phi"}, {}, {}, {"m", "l", "g"}});
}

Model oscillator_with_filter(double a) {
    mdl_kernels kernels = empty_kernels(1, 1, 0, 1);
    kernels.mass = unit_mass;
    kernels.force = unit_spring;
    kernels.rates = filter_rates;
    return Model(kernels, {a}, {"filtered", {"q"}, {"x"}, {}, {"a"}});
}

double filter_solution(double a, double x0, double t) {
    const double c = x0 - a / (1.0 + a * a);
    return c * std::exp(-a * t) + (a * std::cos(t) + std::sin(t)) / (1.0 + a * a);
}

Model two_frequency_chain(double m1, double m2, double k1, double k2) {
    mdl_kernels kernels = empty_kernels(2, 0, 0, 4);
    kernels.mass = tf_mass;
    kernels.force = tf_force;
    kernels.potential = tf_potential;
    kernels.force_dq = tf_force_dq;
    kernels.force_dv = zero_2x2;
    return Model(kernels, {m1, m2, k1, k2},
                 {"chain", {"x1", "x2"}, {}, {}, {"m1", "m2", "k1", "k2"}});
}

SeatedBody seated_body_parameters() {
    // The GE3 slides give the structure but no numbers. These are the magnitudes of Wan &
    // Schimmels' four-mass seated-body model (1995): masses 4.17-36 kg, springs 1e4-1.3e5 N/m,
    // dampers 2e2-2.5e3 N s/m, assigned to the slides' topology (M4 on the seat, excited by F;
    // M2 the torso; M1 the head, M3 the viscera); a 5 Hz, 100 N seat force.
    return SeatedBody{4.17,    15.0,  5.5,   36.0,   134400.0, 20000.0,
                      49340.0, 250.0, 330.0, 2475.0, 100.0,    2.0 * 3.14159265358979323846 * 5.0};
}

Model seated_human_body(const SeatedBody& p) {
    mdl_kernels kernels = empty_kernels(4, 0, 0, 12);
    kernels.mass = sb_mass;
    kernels.force = sb_force;
    kernels.force_dq = sb_force_dq;
    kernels.force_dv = sb_force_dv;
    kernels.velocity_dependent = 1;
    kernels.time_dependent = 1;
    return Model(kernels,
                 {p.M1, p.M2, p.M3, p.M4, p.k1, p.k2, p.k3, p.B1, p.B2, p.B3, p.F0, p.Omega},
                 {"SeatedHumanBody",
                  {"x1", "x2", "x3", "x4"},
                  {},
                  {},
                  {"M1", "M2", "M3", "M4", "k1", "k2", "k3", "B1", "B2", "B3", "F0", "Omega"}});
}

Model double_pendulum(double m1, double m2, double l1, double l2, double g) {
    mdl_kernels kernels = empty_kernels(4, 0, 2, 5);
    kernels.mass = dp_mass;
    kernels.force = dp_force;
    kernels.potential = dp_potential;
    kernels.constraint = dp_constraint;
    kernels.constraint_jacobian = dp_jacobian;
    kernels.curvature = dp_curvature;
    kernels.force_dq = zero_4x4;
    kernels.force_dv = zero_4x4;
    return Model(kernels, {m1, m2, l1, l2, g},
                 {"DoublePendulum",
                  {"b1.x", "b1.y", "b2.x", "b2.y"},
                  {},
                  {"rod1", "rod2"},
                  {"m1", "m2", "l1", "l2", "g"}});
}

State double_pendulum_state(const Model& model, double phi1, double phi2, double w1, double w2) {
    const double l1 = model.parameters()[2], l2 = model.parameters()[3];
    State s = model.zero_state();
    s.q << l1 * std::sin(phi1), -l1 * std::cos(phi1), 0.0, 0.0;
    s.q[2] = s.q[0] + l2 * std::sin(phi2);
    s.q[3] = s.q[1] - l2 * std::cos(phi2);
    s.v << l1 * std::cos(phi1) * w1, l1 * std::sin(phi1) * w1, 0.0, 0.0;
    s.v[2] = s.v[0] + l2 * std::cos(phi2) * w2;
    s.v[3] = s.v[1] + l2 * std::sin(phi2) * w2;
    return s;
}

Model cartesian_pendulum(double m, double l, double g, bool duplicate) {
    mdl_kernels kernels = empty_kernels(2, 0, duplicate ? 2 : 1, 3);
    kernels.mass = cp_mass;
    kernels.force = cp_force;
    kernels.potential = cp_potential;
    kernels.constraint = duplicate ? cp_constraint2 : cp_constraint;
    kernels.constraint_jacobian = duplicate ? cp_jacobian2 : cp_jacobian;
    kernels.curvature = duplicate ? cp_curvature2 : cp_curvature;
    kernels.force_dq = zero_2x2;
    kernels.force_dv = zero_2x2;
    ModelNames names{"Pendulum", {"x", "y"}, {}, {"rod"}, {"m", "l", "g"}};
    if (duplicate) {
        names.constraints.push_back("rod_again");
    }
    return Model(kernels, {m, l, g}, names);
}

Model blow_up() {
    mdl_kernels kernels = empty_kernels(1, 0, 0, 0);
    kernels.mass = unit_mass;
    kernels.force = cubic_force;
    return Model(kernels, {}, {"BlowUp", {"q"}, {}, {}, {}});
}

Model square_root_of_cosine() {
    mdl_kernels kernels = empty_kernels(2, 0, 0, 0);
    kernels.mass = two_unit_masses;
    kernels.force = sqrt_force;
    return Model(kernels, {}, {"SquareRoot", {"q1", "q2"}, {}, {}, {}});
}

Model exponential_force() {
    mdl_kernels kernels = empty_kernels(1, 0, 0, 0);
    kernels.mass = unit_mass;
    kernels.force = exp_force;
    kernels.force_dq = exp_force_dq;
    kernels.force_dv = zero_1x1;
    return Model(kernels, {}, {"Exponential", {"q"}, {}, {}, {}});
}

Model averaged_kapitza() {
    mdl_kernels kernels = empty_kernels(1, 0, 0, 0);
    kernels.mass = unit_mass;
    kernels.force = kapitza_force;
    return Model(kernels, {}, {"AveragedKapitza", {"Q"}, {}, {}, {}});
}

double observed_order(const std::vector<double>& steps, const std::vector<double>& errors) {
    const auto n = static_cast<double>(steps.size());
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (std::size_t i = 0; i < steps.size(); ++i) {
        const double x = std::log(steps[i]), y = std::log(errors[i]);
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
    }
    return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

} // namespace mdl::runtime::test

#include "runtime/integrators/dopri5.hpp"

namespace mdl::runtime::test {

State cartesian_pendulum_start(const Model& cartesian, double theta0) {
    State s = cartesian.zero_state();
    s.q << std::sin(theta0), -std::cos(theta0);
    return s;
}

State cartesian_pendulum_reference(const Model& cartesian, double theta0, double T) {
    const Model angle = angle_pendulum(1.0, 1.0, 1.0);
    Dopri5 dopri5(angle, Dopri5Options{1e-13, 1e-13});
    State a = angle.zero_state();
    a.q[0] = theta0;
    integrate_adaptive(dopri5, a, T, [](const State&) {});
    State s = cartesian.zero_state();
    s.t = T;
    const double th = a.q[0], w = a.v[0];
    s.q << std::sin(th), -std::cos(th);
    s.v << std::cos(th) * w, std::sin(th) * w;
    return s;
}

} // namespace mdl::runtime::test
