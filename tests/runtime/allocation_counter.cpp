#include "allocation_counter.hpp"

#include <cstdlib>
#include <new>

namespace {
bool counting = false;
std::size_t allocations = 0;
} // namespace

namespace mdl::test {
void start_counting_allocations() {
    allocations = 0;
    counting = true;
}
std::size_t stop_counting_allocations() {
    counting = false;
    return allocations;
}
} // namespace mdl::test

extern "C" {
void* __real_malloc(std::size_t size);
void* __real_calloc(std::size_t count, std::size_t size);
void* __real_realloc(void* pointer, std::size_t size);
void* __wrap_malloc(std::size_t size) {
    allocations += counting;
    return __real_malloc(size);
}
void* __wrap_calloc(std::size_t count, std::size_t size) {
    allocations += counting;
    return __real_calloc(count, size);
}
void* __wrap_realloc(void* pointer, std::size_t size) {
    allocations += counting;
    return __real_realloc(pointer, size);
}
}

void* operator new(std::size_t size) {
    allocations += counting;
    if (void* p = __real_malloc(size == 0 ? 1 : size)) {
        return p;
    }
    throw std::bad_alloc();
}
void* operator new[](std::size_t size) {
    return operator new(size);
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
    allocations += counting;
    return __real_malloc(size == 0 ? 1 : size);
}
void* operator new[](std::size_t size, const std::nothrow_t& tag) noexcept {
    return operator new(size, tag);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
    std::free(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
    std::free(p);
}
void operator delete(void* p) noexcept {
    std::free(p);
}
void operator delete[](void* p) noexcept {
    std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
    std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
    std::free(p);
}
