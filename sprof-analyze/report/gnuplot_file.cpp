#include "gnuplot_file.hpp"

#include <filesystem>
#include <stdexcept>

#include <gnuplot-iostream.h>

namespace sprof::analyze {

std::string gnuplot_string(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("''") : std::string(1, c);
    return q + "'";
}

void start_plot_file(gnuplotio::Gnuplot& gp, const std::string& file) {
    std::error_code ec;
    std::filesystem::remove(file, ec);
    gp << (file.ends_with(".svg") ? "set terminal svg size 1200,675 dynamic noenhanced font 'Sans,12'\n"
                                  : "set terminal pngcairo size 1200,675 noenhanced font 'Sans,11'\n");
    gp << "set output " << gnuplot_string(file) << "\n";
}

void check_plot_written(const std::string& file) {
    std::error_code ec;
    if (std::filesystem::file_size(file, ec) == 0 || ec)
        throw std::runtime_error("gnuplot wrote no plot to " + file + " (is gnuplot installed?)");
}

}  // namespace sprof::analyze
