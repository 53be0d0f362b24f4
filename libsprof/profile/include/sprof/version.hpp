// What --version says in every tool: the project version and the git
// revision it was built from (cmake/version.cmake).
#pragma once

namespace sprof {

// "0.1.0 (git 8f24c23)", or "0.1.0" when not built from a git checkout.
const char* version_text();

}  // namespace sprof
