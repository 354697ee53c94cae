// An event of a model: one branch of a when-clause (docs/events.md), as the runtime needs it.
// Its condition is the model's event_indicator kernel output of the same index, >= 0 where
// the condition holds; it fires when that indicator crosses zero from below.
#pragma once

#include <Eigen/Core>

#include <cstddef>
#include <string>
#include <vector>

namespace mdl::runtime {

struct EventReinit {
    enum class Target { position, velocity, state };
    Target target = Target::velocity;
    Eigen::Index index = 0; // into q (position), v (velocity) or x (state)
};

struct Event {
    std::string name;       // the condition as written: "b.y <= 0"
    std::size_t clause = 0; // the when-clause; of its branches firing at once, the first wins
    std::vector<EventReinit> reinits;
    std::size_t first_reinit = 0; // its reinits' values: event_reinit outputs from here on
    bool terminates = false;
    std::string terminate_message;
};

} // namespace mdl::runtime
