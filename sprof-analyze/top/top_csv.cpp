// sprof top's view where standard output is no terminal: the columns of
// --timeline --by-function plus time_pct, a row per function and interval,
// appended and flushed as each interval completes.
#include <chrono>
#include <thread>

#include "notes.hpp"
#include "reports.hpp"
#include "top_view.hpp"

namespace sprof::analyze {

namespace {

class CsvView : public TopView {
public:
    CsvView(std::ostream& out, std::ostream& err) : out_(out), err_(err) {}

    void status(const std::string& what) override { notes() << "sprof: " << what << '\n'; }

    void rows(const TopContext& c, const std::vector<const LiveRow*>& rows) override {
        Table t = table(c);
        for (const LiveRow* r : rows) put_row(t, c, *r, r->number);
        write(t);
    }

    // The run's rows: interval `all`, from its first interval's start to its
    // last one's end; the flat report's, so their events are the functions'
    // shares of the run's total (conserved_estimates), not their own.
    void summary(const TopContext& c, const LiveRow& whole) override {
        Table t = table(c);
        const Dataset& d = c.timeline.data();
        const auto flat = function_estimates(by_function(d, std::span<const uint32_t>(whole.intervals)), c.options.estimator);
        put_row(t, c, whole, std::string("all"), &flat);
        write(t);
    }

    bool wait(int ms) override {
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
        return true;
    }

    void ended(const std::string& how) override { err_ << "sprof: " << how << '\n'; }

private:
    static Table table(const TopContext& c) {
        Table t;
        t.add_column({Column::integer, "interval"});
        t.add_column({Column::fixed, "start_s", 3});
        t.add_column({Column::fixed, "end_s", 3});
        add_function_columns(t);
        add_event_and_rate_columns(t, c.timeline.data(), c.rates, c.options.ci);
        return t;
    }

    // A row per function of `r`, most time first, its interval named `name`;
    // its events `given` per function, else the row's own estimates.
    template <typename Name>
    static void put_row(Table& t, const TopContext& c, const LiveRow& r, const Name& name,
                        const std::vector<Estimates>* given = nullptr) {
        const Dataset& d = c.timeline.data();
        const Counts all = total(d, std::span<const uint32_t>(r.intervals));
        for (const auto& [f, counts] : top_functions(c, r)) {
            t.new_row();
            t.put(name);
            t.put(seconds(r.start_ns));
            t.put(seconds(r.end_ns));
            put_function(t, d, f, counts, all);
            if (given) put_events_and_rates(t, counts, c.rates, (*given)[f], c.options.ci);
            else put_events_and_rates(t, counts, c.rates, c.options.estimator, c.options.ci);
        }
    }

    void write(const Table& t) {
        // The header once, with the first interval: the columns are the first image's events.
        t.write_csv(out_, !header_written_);
        header_written_ = true;
        out_.flush();
        if (!out_) throw std::runtime_error("cannot write to standard output");
    }

    std::ostream& out_;
    std::ostream& err_;
    bool header_written_ = false;
};

}  // namespace

std::unique_ptr<TopView> make_csv_view(std::ostream& out, std::ostream& err) {
    return std::make_unique<CsvView>(out, err);
}

}  // namespace sprof::analyze
