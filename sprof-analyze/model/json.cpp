#include "json.hpp"

namespace sprof::analyze {

std::string dump_json(const Json& j, int indent) {
    return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

std::string valid_utf8(const std::string& s) { return Json::parse(dump_json(Json(s))).get<std::string>(); }

}  // namespace sprof::analyze
