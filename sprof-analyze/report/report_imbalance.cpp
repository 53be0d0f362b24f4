// The imbalance report: a job's ranks side by side (imbalance.hpp).
#include <iostream>

#include <fmt/format.h>

#include "imbalance_tables.hpp"
#include "reports.hpp"

namespace sprof::analyze {

void report_imbalance(const Context& c) {
    const Imbalance im = imbalance(c.data, {c.options.estimator});
    const auto incomplete = incomplete_ranks(c.data, im);
    const Table ranks = rank_table(c.data, im, c.options.ci);
    const Table spread = spread_table(c.data, im, c.options.top);
    switch (c.options.format) {
    case Format::text:
        c.out << fmt::format("{}: {} rank{}{}, estimator {}\n", c.data.program().empty() ? "sprof" : c.data.program(),
                             im.ranks.size(), im.ranks.size() == 1 ? "" : "s",
                             im.ranks_expected ? fmt::format(" of {}", im.ranks_expected) : "",
                             to_string(c.options.estimator));
        for (const auto& line : incomplete) c.out << line << '\n';
        c.out << '\n';
        ranks.write_text(c.out, c.options.names);
        c.out << "\nmax/mean = the heaviest rank over the mean of all ranks (1 = balanced)\n\n";
        spread.write_text(c.out, c.options.names);
        return;
    case Format::csv:
        // The table scripts read; what is missing goes to stderr, one line each.
        for (const auto& line : incomplete) std::cerr << "sprof: " << line << '\n';
        spread.write_csv(c.out);
        return;
    case Format::json:
        c.out << dump_json(Json{{"ranks", ranks.to_json()},
                                {"ranks_expected", im.ranks_expected},
                                {"incomplete", incomplete},
                                {"functions", spread.to_json()},
                                {"profiles", profiles_json(c.data)}},
                           2)
              << '\n';
        return;
    }
}

}  // namespace sprof::analyze
