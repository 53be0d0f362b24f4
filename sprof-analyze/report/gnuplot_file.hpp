// What every plot of sprof shares: gnuplot (through gnuplot-iostream)
// drawing into a PNG or SVG file chosen by its name.
#pragma once
#include <string>

namespace gnuplotio {
class Gnuplot;  // gnuplot-iostream.h
}

namespace sprof::analyze {

// A gnuplot single-quoted string.
std::string gnuplot_string(const std::string& s);

// Removes an old FILE, so a stale plot cannot pass for a new one, and sets
// gnuplot's terminal (by the extension: .svg or .png) and output.
void start_plot_file(gnuplotio::Gnuplot& gp, const std::string& file);

// After gnuplot has closed: throws std::runtime_error when it wrote nothing.
void check_plot_written(const std::string& file);

}  // namespace sprof::analyze
