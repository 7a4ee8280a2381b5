#include "cvmfs/status.h"

#include <cerrno>
#include <cstring>

namespace cvmfs {

Status Status::FromErrno(int err, const std::string& context) {
  std::string msg = context + ": " + std::strerror(err);
  switch (err) {
    case 0:
      return Status::Ok();
    case ENOENT:
    case ENOTDIR:
      return NotFound(msg);
    case ENOSPC:
    case EDQUOT:
      return NoSpace(msg);
    case EACCES:
    case EPERM:
    case EROFS:
      return Permission(msg);
    case EEXIST:
    case ENOTEMPTY:
      return AlreadyExists(msg);
    case EINVAL:
    case ENAMETOOLONG:
      return InvalidArgument(msg);
    case EBUSY:
    case EAGAIN:
      return Busy(msg);
    case ENOTSUP:
      return NotSupported(msg);
    default:
      return IoError(msg);
  }
}

int Status::ToErrno() const {
  // A read-only file system reports what a reader can act on: a missing
  // entry, a full cache, a refused access, a bad argument; anything else
  // (corruption, a failed download, ...) is an I/O error.
  switch (code_) {
    case Code::kOk:
      return 0;
    case Code::kNotFound:
      return ENOENT;
    case Code::kNoSpace:
      return ENOSPC;
    case Code::kPermission:
      return EACCES;
    case Code::kInvalidArgument:
      return EINVAL;
    case Code::kAlreadyExists:
    case Code::kBusy:
    case Code::kNotSupported:
    case Code::kCorruption:
    case Code::kIoError:
    case Code::kUnavailable:
      return EIO;
  }
  return EIO;
}

static const char* CodeName(Status::Code code) {
  switch (code) {
    case Status::Code::kOk:
      return "OK";
    case Status::Code::kNotFound:
      return "not found";
    case Status::Code::kCorruption:
      return "corruption";
    case Status::Code::kIoError:
      return "I/O error";
    case Status::Code::kInvalidArgument:
      return "invalid argument";
    case Status::Code::kNoSpace:
      return "no space";
    case Status::Code::kPermission:
      return "permission denied";
    case Status::Code::kUnavailable:
      return "unavailable";
    case Status::Code::kAlreadyExists:
      return "already exists";
    case Status::Code::kBusy:
      return "busy";
    case Status::Code::kNotSupported:
      return "not supported";
  }
  return "unknown";
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  return std::string(CodeName(code_)) + ": " + message_;
}

Status Status::Annotate(const std::string& prefix) const {
  if (ok()) return *this;
  return Status(code_, prefix + ": " + message_);
}

}  // namespace cvmfs
