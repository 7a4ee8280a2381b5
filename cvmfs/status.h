// Status: the one error type of the project.
//
// Functions return a Status (or a Result<T>) instead of throwing. errno values
// become a Status in exactly one place (Status::FromErrno) and a Status becomes
// an errno in exactly one place (Status::ToErrno), used at the FUSE boundary.
// "Not found" is a result, not a failure of the system; corruption means data
// that failed verification and maps to EIO.
//
// Thread safety: a Status is an immutable value; copies are independent.
#ifndef CVMFS_STATUS_H_
#define CVMFS_STATUS_H_

#include <optional>
#include <string>
#include <utility>

namespace cvmfs {

class Status {
 public:
  enum class Code {
    kOk = 0,
    kNotFound,         // the object/path/key does not exist
    kCorruption,       // data failed parsing or verification
    kIoError,          // the local system failed (read, write, rename, ...)
    kInvalidArgument,  // the caller (or the user) asked for something wrong
    kNoSpace,          // disk or quota full
    kPermission,       // access denied
    kUnavailable,      // a remote service could not be reached
    kAlreadyExists,
    kBusy,  // locked by someone else; try again later
    kNotSupported,
  };

  Status() = default;
  static Status Ok() { return Status(); }
  static Status NotFound(std::string msg) {
    return {Code::kNotFound, std::move(msg)};
  }
  static Status Corruption(std::string msg) {
    return {Code::kCorruption, std::move(msg)};
  }
  static Status IoError(std::string msg) {
    return {Code::kIoError, std::move(msg)};
  }
  static Status InvalidArgument(std::string msg) {
    return {Code::kInvalidArgument, std::move(msg)};
  }
  static Status NoSpace(std::string msg) {
    return {Code::kNoSpace, std::move(msg)};
  }
  static Status Permission(std::string msg) {
    return {Code::kPermission, std::move(msg)};
  }
  static Status Unavailable(std::string msg) {
    return {Code::kUnavailable, std::move(msg)};
  }
  static Status AlreadyExists(std::string msg) {
    return {Code::kAlreadyExists, std::move(msg)};
  }
  static Status Busy(std::string msg) { return {Code::kBusy, std::move(msg)}; }
  static Status NotSupported(std::string msg) {
    return {Code::kNotSupported, std::move(msg)};
  }

  // Maps an errno value to a Status; `context` says what was being done
  // (e.g. "open /srv/cvmfs/x/data/ab/cd").
  static Status FromErrno(int err, const std::string& context);

  // The errno a FUSE reply carries for this status (0 for ok): the FUSE
  // adapter replies with it; nothing else maps a Status to an errno.
  int ToErrno() const;

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  bool IsNotFound() const { return code_ == Code::kNotFound; }
  bool IsCorruption() const { return code_ == Code::kCorruption; }
  const std::string& message() const { return message_; }
  std::string ToString() const;

  // Returns a copy with "prefix: " put before the message.
  Status Annotate(const std::string& prefix) const;

 private:
  Status(Code code, std::string msg) : code_(code), message_(std::move(msg)) {}
  Code code_ = Code::kOk;
  std::string message_;
};

// A value or the Status that explains why there is none.
template <typename T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {}  // NOLINT
  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T value() && {
    return std::move(*value_);
  }  // by value: no dangling temporaries
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace cvmfs

// Returns early from the enclosing function when `expr` is not ok.
#define CVMFS_RETURN_IF_ERROR(expr) \
  do {                              \
    ::cvmfs::Status _st = (expr);   \
    if (!_st.ok()) return _st;      \
  } while (0)

#define CVMFS_CONCAT_INNER_(a, b) a##b
#define CVMFS_CONCAT_(a, b) CVMFS_CONCAT_INNER_(a, b)
// Declares `lhs` from a Result<T>, returning its status on failure.
#define CVMFS_ASSIGN_OR_RETURN(lhs, expr) \
  CVMFS_ASSIGN_OR_RETURN_IMPL_(CVMFS_CONCAT_(_res_, __LINE__), lhs, expr)
#define CVMFS_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                 \
  if (!tmp.ok()) return tmp.status();                \
  lhs = std::move(tmp).value()

#endif  // CVMFS_STATUS_H_
