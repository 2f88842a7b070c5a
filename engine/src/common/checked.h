// Checked integer arithmetic for sizes and offsets read from untrusted files.
// Each returns false (and leaves *out unspecified) on overflow; callers turn
// that into a Status naming what overflowed.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

namespace burrow {

template <typename T>
[[nodiscard]] constexpr bool checkedAdd(T a, T b, T *out) { return !__builtin_add_overflow(a, b, out); }

template <typename T>
[[nodiscard]] constexpr bool checkedMul(T a, T b, T *out) { return !__builtin_mul_overflow(a, b, out); }

// Rounds value up to a multiple of alignment (alignment > 0); false on overflow.
template <typename T>
[[nodiscard]] constexpr bool checkedAlignUp(T value, T alignment, T *out)
{
    static_assert(std::is_unsigned_v<T>);
    if (alignment == 0)
        return false;
    const T rem = value % alignment;
    if (rem == 0) {
        *out = value;
        return true;
    }
    return checkedAdd<T>(value, alignment - rem, out);
}

} // namespace burrow
