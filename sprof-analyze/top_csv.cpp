// sprof top's view where standard output is no terminal: the columns of
// --timeline --by-function plus time_pct, a row per function and interval,
// appended and flushed as each interval completes.
#include <chrono>
#include <thread>

#include "reports.hpp"
#include "top_view.hpp"

namespace sprof::analyze {

namespace {

class CsvView : public TopView {
public:
    CsvView(std::ostream& out, std::ostream& err) : out_(out), err_(err) {}

    void status(const std::string& what) override { err_ << "sprof: " << what << '\n'; }

    void rows(const TopContext& c, const std::vector<const LiveRow*>& rows) override {
        Table t;
        t.add_column({Column::integer, "interval"});
        t.add_column({Column::fixed, "start_s", 3});
        t.add_column({Column::fixed, "end_s", 3});
        add_function_columns(t);
        add_event_and_rate_columns(t, c.timeline.data(), c.rates, c.options.ci);
        const Dataset& d = c.timeline.data();
        for (const LiveRow* r : rows) {
            const Counts all = total(d, std::span<const uint32_t>(r->intervals));
            for (const auto& [f, counts] : top_functions(c, *r)) {
                t.new_row();
                t.put(r->number);
                t.put(seconds(r->start_ns));
                t.put(seconds(r->end_ns));
                put_function(t, d, f, counts, all);
                put_events_and_rates(t, counts, c.rates, c.options.estimator, c.options.ci);
            }
        }
        // The header once, with the first interval: the columns are the first image's events.
        t.write_csv(out_, !header_written_);
        header_written_ = true;
        out_.flush();
        if (!out_) throw std::runtime_error("cannot write to standard output");
    }

    bool wait(int ms) override {
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
        return true;
    }

    void ended(const std::string& how) override { err_ << "sprof: " << how << '\n'; }

private:
    std::ostream& out_;
    std::ostream& err_;
    bool header_written_ = false;
};

}  // namespace

std::unique_ptr<TopView> make_csv_view(std::ostream& out, std::ostream& err) {
    return std::make_unique<CsvView>(out, err);
}

}  // namespace sprof::analyze
