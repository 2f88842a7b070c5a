// Status and Result: how every input or resource failure leaves the engine.
//
// Contract: engine code never throws across a public boundary and never aborts
// on bad input. A function that can fail on input returns Status (or
// Result<T>); the message is for a human and names what failed, where, and
// what was expected ("stories.gguf: tensor infos: tensor 'blk.0.attn_q.weight'
// at offset 1234: dimension 2 is 0, expected >= 1").
//
// A status also carries a code, so a caller tells a cancelled operation from
// a failed one without reading the message: code() / isCancelled().
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace burrow {

enum class StatusCode {
    STATUS_CODE_OK,
    STATUS_CODE_ERROR,        // bad input or a missing resource; the message says which
    STATUS_CODE_CANCELLED,    // stopped on request (a cancel token, Session::cancel, a progress callback)
    STATUS_CODE_BUSY,         // not now: a queue or pool is full; the same call may succeed later
};

class [[nodiscard]] Status {
public:
    Status() = default;                         // ok
    static Status ok() { return {}; }
    static Status error(std::string message) { return make(StatusCode::STATUS_CODE_ERROR, std::move(message)); }
    // Not a failure of the input: the caller (or a user) asked to stop.
    static Status cancelled(std::string message = "cancelled")
    {
        return make(StatusCode::STATUS_CODE_CANCELLED, std::move(message));
    }

    // Not a failure of the input either: try again later (Scheduler::submit with a full queue).
    static Status busy(std::string message) { return make(StatusCode::STATUS_CODE_BUSY, std::move(message)); }

    bool isOk() const { return !m_error.has_value(); }
    bool isBusy() const { return m_code == StatusCode::STATUS_CODE_BUSY; }
    bool isCancelled() const { return m_code == StatusCode::STATUS_CODE_CANCELLED; }
    StatusCode code() const { return m_code; }
    explicit operator bool() const { return isOk(); }
    // Empty when ok.
    const std::string &message() const { static const std::string empty; return m_error ? *m_error : empty; }

    // Prefixes the message with context ("model.gguf: " + message); no-op
    // when ok. The code stays.
    Status withContext(const std::string &context) const
    {
        return isOk() ? *this : make(m_code, context + ": " + *m_error);
    }

private:
    static Status make(StatusCode code, std::string message)
    {
        Status s;
        s.m_code = code;
        s.m_error = std::move(message);
        return s;
    }

    StatusCode m_code = StatusCode::STATUS_CODE_OK;
    std::optional<std::string> m_error;
};

// A value or an error Status. Access to value() on an error is a programmer bug.
template <typename T>
class [[nodiscard]] Result {
public:
    Result(T value) : m_value(std::move(value)) {}                 // NOLINT: implicit by design
    Result(Status status) : m_status(std::move(status)) {}         // NOLINT: must be an error

    bool isOk() const { return m_value.has_value(); }
    explicit operator bool() const { return isOk(); }
    const Status &status() const { return m_status; }
    const std::string &message() const { return m_status.message(); }
    bool isCancelled() const { return m_status.isCancelled(); }

    T &value() & { return *m_value; }
    const T &value() const & { return *m_value; }
    T &&value() && { return std::move(*m_value); }
    T *operator->() { return &*m_value; }
    const T *operator->() const { return &*m_value; }
    T &operator*() { return *m_value; }
    const T &operator*() const { return *m_value; }

private:
    std::optional<T> m_value;
    Status m_status;
};

} // namespace burrow
