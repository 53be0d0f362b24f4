// sprof top on a terminal: a screen redrawn as each interval completes,
// through ncurses (it owns the terminal's modes, keys without Enter, the
// size and its changes, and gives the terminal back however sprof ends).
// Functions by their share of the interval's time, with its rates and a
// sparkline of their share in the last intervals; q quits. When the program
// ends the screen closes and its last content stays printed on the terminal.
#include <langinfo.h>
#include <unistd.h>

#include <csignal>

#include <algorithm>
#include <clocale>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <span>
#include <stdexcept>
#include <unordered_map>

#include <fmt/format.h>

#include "short_names.hpp"
#include "text_columns.hpp"
#include "top_view.hpp"

// Last, and as functions: its macros (erase(), timeout(), …) would rewrite
// any later use of those names.
#define NCURSES_NOMACROS
#include <curses.h>

namespace sprof::analyze {

namespace {

constexpr size_t kHistory = 24;  // intervals in a sparkline
constexpr size_t kHeadLines = 5;  // title, interval, status, blank, column names

// A share in [0, 1] as one of eight bars, or a blank when the function had
// none; plain ASCII where the terminal's character set is not UTF-8.
std::string bar(double share, bool utf8) {
    static const char* const kBars[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
    static const char kAscii[] = "_.-:=+*#";
    if (!(share > 0)) return " ";
    const int level = std::clamp(static_cast<int>(share * 8 - 1e-9), 0, 7);
    return utf8 ? kBars[level] : std::string(1, kAscii[level]);
}

std::string pad_left(const std::string& s, size_t width) {
    return std::string(width - std::min(width, columns(s)), ' ') + s;
}
std::string pad_right(const std::string& s, size_t width) {
    return s + std::string(width - std::min(width, columns(s)), ' ');
}

// Ctrl-C quits like q: the screen is closed and sprof exits 0.
volatile std::sig_atomic_t interrupted = 0;
extern "C" void on_interrupt(int) { interrupted = 1; }

std::string number(std::optional<double> v, const char* spec) {
    return v ? fmt::format(fmt::runtime(spec), *v) : std::string("-");
}

// The screen's lines: what the current row holds, most time first.
// `whole`: `current` is the whole run (its summary, once it ended).
std::vector<std::string> screen_lines(const TopContext* c, const LiveRow* current, const std::string& status,
                                      size_t max_functions, bool utf8, bool whole = false) {
    std::vector<std::string> lines;
    if (!c || !c->timeline.has_image()) {
        lines = {"sprof top", "no profile yet", status};
        return lines;
    }
    const Dataset& d = c->timeline.data();
    const ProfileHeader& h = d.sources.back().profile.header;
    std::string events;
    for (const auto& e : h.events) events += (events.empty() ? "" : ",") + e.name;
    lines.push_back(fmt::format("sprof top: {} (pid {}, {}, {})   q: quit", h.program, h.pid, h.collector, events));
    if (!current) {
        lines.push_back("no interval complete yet");
        lines.push_back(status);
        return lines;
    }
    const Counts all = total(d, std::span<const uint32_t>(current->intervals));
    lines.push_back(fmt::format("{}: {:.3f}-{:.3f} s, {} samples, {:.3f} s of CPU time",
                                whole ? "whole run" : fmt::format("interval {}", current->number),
                                seconds(current->start_ns), seconds(current->end_ns), all.samples, all.seconds()));
    lines.push_back(status);
    lines.push_back("");

    // Each function's share of the last intervals' time, for the sparklines.
    const auto history = c->timeline.last_taken(kHistory);
    std::vector<std::unordered_map<uint32_t, double>> shares;
    for (const LiveRow* r : history) {
        auto& s = shares.emplace_back();
        const Counts row_total = total(d, std::span<const uint32_t>(r->intervals));
        if (row_total.time_ns == 0) continue;
        for (const auto& [f, counts] : occurring_functions(d, std::span<const uint32_t>(r->intervals)))
            s[f] = static_cast<double>(counts.time_ns) / row_total.time_ns;
    }

    auto functions = top_functions(*c, *current);
    if (functions.size() > max_functions) functions.resize(max_functions);
    // Cells per column, then each column as wide as its widest cell.
    std::vector<std::string> head = {"time%", "samples"};
    for (const auto& r : c->rates.rates()) head.push_back(r.name);
    head.push_back("history");
    head.push_back("object");
    head.push_back("function");
    std::vector<std::vector<std::string>> cells;
    for (const auto& [f, counts] : functions) {
        auto& row = cells.emplace_back();
        row.push_back(number(all.time_ns ? std::optional<double>(100.0 * counts.time_ns / all.time_ns) : std::nullopt,
                             "{:.1f}"));
        row.push_back(std::to_string(counts.samples));
        for (const auto& v : c->rates.evaluate(counts, c->options.estimator)) row.push_back(number(v, "{:.4g}"));
        std::string spark;
        for (size_t k = history.size(); k < kHistory; ++k) spark += ' ';  // older than the run
        for (const auto& s : shares) {
            auto it = s.find(f);
            spark += bar(it == s.end() ? 0.0 : it->second, utf8);
        }
        row.push_back(spark);
        row.push_back(object_basename(d.functions[f].object));
        row.push_back(d.functions[f].name);  // last, as perf does
    }
    if (c->options.names == NameStyle::collapsed) {  // short, uncut: nothing follows
        std::vector<std::string> names;
        for (const auto& row : cells) names.push_back(row.back());
        names = short_names(names, 0);
        for (size_t r = 0; r < cells.size(); ++r) cells[r].back() = std::move(names[r]);
    }
    std::vector<size_t> width(head.size());
    for (size_t k = 0; k < head.size(); ++k) {
        width[k] = columns(head[k]);
        for (const auto& row : cells) width[k] = std::max(width[k], columns(row[k]));
    }
    const size_t numeric = head.size() - 3;  // right-aligned; history, object and function left
    auto join = [&](const std::vector<std::string>& row) {
        std::string line;
        for (size_t k = 0; k < row.size(); ++k) {
            if (k) line += "  ";
            if (k < numeric) line += pad_left(row[k], width[k]);
            else if (k + 1 < row.size()) line += pad_right(row[k], width[k]);
            else line += row[k];
        }
        return line;
    };
    lines.push_back(join(head));
    for (const auto& row : cells) lines.push_back(join(row));
    return lines;
}

class ScreenView : public TopView {
public:
    explicit ScreenView(std::ostream& out) : out_(out) {
        std::setlocale(LC_ALL, "");
        utf8_ = std::strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
        struct sigaction sa {};
        sa.sa_handler = on_interrupt;  // before newterm: ncurses then leaves SIGINT to us
        sigaction(SIGINT, &sa, nullptr);
        screen_ = newterm(nullptr, stdout, stdin);
        if (!screen_)
            throw std::runtime_error(fmt::format("cannot use the terminal (TERM={}): give --format csv",
                                                 std::getenv("TERM") ? std::getenv("TERM") : ""));
        keys_ = isatty(STDIN_FILENO);
        cbreak();
        noecho();
        curs_set(0);
        keypad(stdscr, TRUE);
    }

    ~ScreenView() override { close(); }

    void status(const std::string& what) override {
        status_ = what;
        draw();
    }

    void rows(const TopContext& c, const std::vector<const LiveRow*>& rows) override {
        context_.emplace(c);
        if (!rows.empty()) current_ = rows.back();
        draw();
    }

    bool wait(int ms) override {
        if (!keys_) {
            napms(ms);
            return !interrupted;
        }
        timeout(ms);
        const int key = getch();
        if (key == 'q' || key == 'Q' || interrupted) return false;
        if (key == KEY_RESIZE) draw();
        return true;
    }

    void summary(const TopContext& c, const LiveRow& whole) override {
        context_.emplace(c);
        whole_ = whole;
    }

    void ended(const std::string& how) override {
        status_ = how;
        // The last screen is the run's summary (sparklines: its last intervals).
        const LiveRow* shown = whole_ ? &*whole_ : current_;
        const auto lines = screen_lines(context_ ? &*context_ : nullptr, shown, status_, SIZE_MAX, utf8_, whole_.has_value());
        close();
        // The last screen stays on the terminal, whole.
        for (const auto& l : lines) out_ << l << '\n';
        out_.flush();
    }

private:
    void draw() {
        if (!screen_) return;
        const size_t rows = static_cast<size_t>(std::max(LINES, 0));
        const size_t cols = static_cast<size_t>(std::max(COLS - 1, 0));  // the last column would wrap
        const size_t room = rows > kHeadLines ? rows - kHeadLines : 0;
        const auto lines = screen_lines(context_ ? &*context_ : nullptr, current_, status_, room, utf8_);
        erase();
        for (size_t y = 0; y < lines.size() && y < rows; ++y) mvaddstr(static_cast<int>(y), 0, fit(lines[y], cols).c_str());
        refresh();
    }

    void close() {
        if (!screen_) return;
        endwin();
        delscreen(screen_);
        screen_ = nullptr;
    }

    std::ostream& out_;
    SCREEN* screen_ = nullptr;
    bool utf8_ = false;
    bool keys_ = false;
    std::string status_;
    std::optional<TopContext> context_;
    const LiveRow* current_ = nullptr;
    std::optional<LiveRow> whole_;
};

}  // namespace

std::unique_ptr<TopView> make_screen_view(std::ostream& out) { return std::make_unique<ScreenView>(out); }

}  // namespace sprof::analyze
