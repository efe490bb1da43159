// MQSS_SANITIZED is 1 when this file is built with AddressSanitizer or
// ThreadSanitizer (gcc says so with __SANITIZE_*, clang with __has_feature).
#ifndef MQSS_UTIL_SANITIZED_H
#define MQSS_UTIL_SANITIZED_H

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define MQSS_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define MQSS_SANITIZED 1
#endif
#endif
#ifndef MQSS_SANITIZED
#define MQSS_SANITIZED 0
#endif

#endif // MQSS_UTIL_SANITIZED_H
