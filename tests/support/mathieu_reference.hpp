// Independent references for the Mathieu equation x'' + (a - 2 q cos 2t) x = 0, for the tests of
// stability charts: the published characteristic values, the characteristic values computed by
// Hill's method (the eigenvalues of the equation's Fourier matrices, a spectral computation with
// no time integration), and the monodromy matrix by a classical RK4 written here.
#pragma once

#include <Eigen/Dense>

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <vector>

namespace mathieu {

// Abramowitz & Stegun, Handbook of Mathematical Functions (NBS, 1964), Table 20.1,
// "Characteristic values, joining factors, some critical values" (G. Blanch), 8 decimals,
// transcribed without the printed page at hand in this session: each agrees with Hill's method
// below to 1e-8. (b2 at q = 10, which this transcription had wrong in its sixth decimal, is
// left out.)
struct TabulatedValues {
    double q;
    std::array<double, 5> values; // a0, b1, a1, b2, a2; NaN: not transcribed
};
inline const std::array<TabulatedValues, 2> abramowitz_stegun_20_1 = {{
    {5.0, {-5.80004602, -5.79008060, 1.85818754, 2.09946045, 7.44910974}},
    {10.0, {-13.93697996, -13.93655248, -2.39914240, std::nan(""), 7.71736985}},
}};

// a0, b1, a1, b2, a2 by their power series in q to q^8, Abramowitz & Stegun 20.2.25
// (DLMF 28.6.1-28.6.5): the truncation error is below 1e-9 for q <= 0.2.
inline std::array<double, 5> power_series(double q) {
    const double q2 = q * q, q3 = q2 * q, q4 = q2 * q2, q5 = q4 * q, q6 = q4 * q2, q7 = q6 * q,
                 q8 = q4 * q4;
    const double a0 = -q2 / 2 + 7 * q4 / 128 - 29 * q6 / 2304 + 68687 * q8 / 18874368;
    const double even1 = 1 - q2 / 8 - q4 / 1536 + 49 * q6 / 589824 - 83 * q8 / 35389440;
    const double odd1 = q - q3 / 64 + 11 * q5 / 36864 - 55 * q7 / 9437184;
    const double b2 =
        4 - q2 / 12 + 5 * q4 / 13824 - 289 * q6 / 79626240 + 21391 * q8 / 458647142400.0;
    const double a2 = 4 + 5 * q2 / 12 - 763 * q4 / 13824 + 1002401 * q6 / 79626240 -
                      1669068401 * q8 / 458647142400.0;
    return {a0, even1 - odd1, even1 + odd1, b2, a2};
}

// The characteristic values below `limit` at q, sorted: a_0 < b_1 < a_1 < b_2 < a_2 < ...
// (q > 0). Hill's method: in the Fourier bases cos(2kt), cos((2k+1)t), sin((2k+1)t),
// sin((2k+2)t) the equation becomes four symmetric tridiagonal eigenvalue problems
// (DLMF 28.4 (i)-(iv) recurrences); 60 terms give every value here to round-off.
inline std::vector<double> characteristic_values(double q, double limit, int terms = 60) {
    std::vector<double> values;
    for (int kind = 0; kind < 4; ++kind) {
        Eigen::MatrixXd A = Eigen::MatrixXd::Zero(terms, terms);
        for (int k = 0; k < terms; ++k) {
            const double order = kind == 0 ? 2 * k : kind == 3 ? 2 * k + 2 : 2 * k + 1;
            A(k, k) = order * order;
            if (k + 1 < terms) {
                A(k, k + 1) = A(k + 1, k) = (kind == 0 && k == 0) ? std::sqrt(2.0) * q : q;
            }
        }
        if (kind == 1) {
            A(0, 0) += q; // a_{2n+1}: cos((2k+1)t)
        } else if (kind == 2) {
            A(0, 0) -= q; // b_{2n+1}: sin((2k+1)t)
        }
        Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(A, Eigen::EigenvaluesOnly);
        for (int k = 0; k < terms / 2; ++k) { // the lower half, converged
            if (solver.eigenvalues()(k) < limit) {
                values.push_back(solver.eigenvalues()(k));
            }
        }
    }
    std::sort(values.begin(), values.end());
    return values;
}

// The monodromy matrix over the period pi, by RK4 with `steps` steps, columns the solutions
// from (1, 0) and (0, 1). (Plain doubles: the sanitizer build's unoptimized Eigen would cost
// seconds here.)
inline Eigen::Matrix2d monodromy(double a, double q, int steps = 2000) {
    const double pi = std::acos(-1.0), h = pi / steps;
    // two solutions (x, x') side by side: y[0], y[1] from (1, 0); y[2], y[3] from (0, 1)
    double y[4] = {1, 0, 0, 1};
    auto f = [&](double t, const double* z, double* d) {
        const double k = -(a - 2 * q * std::cos(2 * t));
        d[0] = z[1];
        d[1] = k * z[0];
        d[2] = z[3];
        d[3] = k * z[2];
    };
    double k1[4], k2[4], k3[4], k4[4], z[4];
    for (int s = 0; s < steps; ++s) {
        const double t = s * h;
        f(t, y, k1);
        for (int i = 0; i < 4; ++i) {
            z[i] = y[i] + h / 2 * k1[i];
        }
        f(t + h / 2, z, k2);
        for (int i = 0; i < 4; ++i) {
            z[i] = y[i] + h / 2 * k2[i];
        }
        f(t + h / 2, z, k3);
        for (int i = 0; i < 4; ++i) {
            z[i] = y[i] + h * k3[i];
        }
        f(t + h, z, k4);
        for (int i = 0; i < 4; ++i) {
            y[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
        }
    }
    Eigen::Matrix2d M;
    M << y[0], y[2], y[1], y[3];
    return M;
}

// The largest |multiplier| of a 2 x 2 monodromy matrix.
inline double max_multiplier(const Eigen::Matrix2d& M) {
    const double tr = M.trace(), det = M.determinant();
    const std::complex<double> root = std::sqrt(std::complex<double>(tr * tr - 4 * det));
    return std::max(std::abs((tr + root) / 2.0), std::abs((tr - root) / 2.0));
}

} // namespace mathieu
