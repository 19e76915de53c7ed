// A counting malloc for the allocation checks of a test executable (test_momentum,
// test_dense_simplex, test_scenario_dual): the executable's malloc interposes on glibc's for the
// whole process, plugins included, and operator new and Eigen's temporaries go through it.
// Include it from ONE source file of an executable (it defines malloc). Under a sanitizer, which
// owns malloc, nothing is interposed and g_mallocs stays 0: the checks skip there
// (sanitizer_support.hpp). test_no_alloc counts every allocation function with its own table.
#pragma once

#include <atomic>
#include <cstddef>

#include "sanitizer_support.hpp"

inline std::atomic<long> g_mallocs{0};
#if !SCFW_ALLOCATOR_SANITIZED
extern "C" void* __libc_malloc(std::size_t);
extern "C" void* malloc(std::size_t size) {
  g_mallocs.fetch_add(1, std::memory_order_relaxed);
  return __libc_malloc(size);
}
#endif
