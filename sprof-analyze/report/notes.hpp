// Where the analyzer's warnings and notes go: standard error, or nowhere
// once -q asked for quiet. Errors are no notes: they always reach stderr.
#pragma once
#include <ostream>

namespace sprof::analyze {

std::ostream& notes();
void silence_notes();

}  // namespace sprof::analyze
