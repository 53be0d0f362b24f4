// The HTML report's page template, style and script (sprof-analyze/html/),
// compiled into the tool so that `sprof --html` needs no files beside it.
#pragma once
#include <string_view>

namespace sprof::analyze::html {

extern const std::string_view page;    // report.html: @TITLE@, @CSS@, @DATA@, @JS@ to fill in
extern const std::string_view style;   // report.css
extern const std::string_view script;  // report.js

}  // namespace sprof::analyze::html
