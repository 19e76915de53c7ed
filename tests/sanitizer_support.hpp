// Whether this translation unit is built with a sanitizer that replaces the allocator
// (AddressSanitizer, ThreadSanitizer, MemorySanitizer): the tests that interpose malloc to count
// allocations (test_no_alloc, test_momentum, test_dense_simplex) cannot run there, since the
// sanitizer owns malloc and free. They skip those checks with kSanitizerSkipMessage, which
// tests/CMakeLists.txt also gives ctest as the "skipped" pattern.
#pragma once

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SCFW_ALLOCATOR_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define SCFW_ALLOCATOR_SANITIZED 1
#endif
#endif
#ifndef SCFW_ALLOCATOR_SANITIZED
#define SCFW_ALLOCATOR_SANITIZED 0
#endif

namespace scfw::test {
inline constexpr bool kAllocatorSanitized = SCFW_ALLOCATOR_SANITIZED != 0;
inline constexpr const char* kSanitizerSkipMessage =
    "skipped under a sanitizer: the sanitizer owns malloc, so allocations cannot be counted";
}  // namespace scfw::test
