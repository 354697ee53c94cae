#include "runtime/names.hpp"

#include <algorithm>
#include <cstddef>

namespace mdl::runtime {

namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) {
        row[j] = j;
    }
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
            diagonal = up;
        }
    }
    return row[b.size()];
}

} // namespace

std::string closest_name(std::string_view name, const std::vector<std::string_view>& candidates) {
    std::string_view best;
    std::size_t best_distance = 0;
    for (std::string_view candidate : candidates) {
        const std::size_t d = edit_distance(name, candidate);
        if (best.empty() || d < best_distance) {
            best = candidate;
            best_distance = d;
        }
    }
    if (best.empty() || best_distance > std::max<std::size_t>(1, name.size() / 3)) {
        return {};
    }
    return std::string(best);
}

} // namespace mdl::runtime
