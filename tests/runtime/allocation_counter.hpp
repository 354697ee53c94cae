// Counts heap allocations for the tests that check that stepping loops allocate nothing.
// Link allocation_counter.cpp into the test program with
//   -Wl,--wrap=malloc -Wl,--wrap=calloc -Wl,--wrap=realloc
// (Eigen allocates with malloc; the runtime libraries are linked statically, so their calls
// are wrapped too); it also replaces operator new.
#pragma once

#include <cstddef>

namespace mdl::test {

// Allocations (malloc, calloc, realloc, operator new) between start and stop.
void start_counting_allocations();
std::size_t stop_counting_allocations();

// Allocations made by f().
template <class F>
std::size_t allocations_in(F&& f) {
    start_counting_allocations();
    f();
    return stop_counting_allocations();
}

} // namespace mdl::test
