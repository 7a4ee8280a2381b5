// Configuration files written from templates: the text of the file with
// @NAME@ placeholders, so that a template reads like the file it makes.
// Values are inserted verbatim; callers validate them for the target
// syntax first (quotes, newlines).
//
// Thread safety: pure function.
#ifndef SERVER_CONFIG_TEMPLATE_H_
#define SERVER_CONFIG_TEMPLATE_H_

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace server {

// Replaces every "@NAME@" of `values` in `text`; inserted values are not
// scanned again.
std::string FillTemplate(
    std::string_view text,
    std::initializer_list<std::pair<std::string_view, std::string>> values);

}  // namespace server

#endif  // SERVER_CONFIG_TEMPLATE_H_
