#include "table.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "text_columns.hpp"

namespace sprof::analyze {

namespace {

// Text columns wider than this are not padded further (paths).
constexpr size_t kMaxPaddedWidth = 60;

std::string number(const Column& c, double v) {
    if (c.kind == Column::fixed) return fmt::format("{:.{}f}", v, c.precision);
    if (c.kind == Column::integer) return fmt::format("{:.0f}", v);
    return fmt::format("{:.{}g}", v, c.precision > 0 ? c.precision : 6);
}

// Characters, not bytes (Table::columns() hides the free function's name).
size_t text_width(const std::string& s) { return columns(s); }

}  // namespace

std::string Table::text_cell(size_t col, const Value& v) const {
    const Column& c = columns_[col];
    switch (v.kind) {
    case Value::unknown: return "-";
    case Value::text: return v.str;
    case Value::integer: return std::to_string(v.u);
    case Value::real: break;
    }
    return number(c, v.d);
}

void Table::write_text(std::ostream& out, NameStyle names) const {
    // The order the columns are printed in: full names last.
    std::vector<size_t> order;
    for (size_t c = 0; c < columns_.size(); ++c)
        if (!(names == NameStyle::full && columns_[c].names)) order.push_back(c);
    for (size_t c = 0; c < columns_.size(); ++c)
        if (names == NameStyle::full && columns_[c].names) order.push_back(c);
    std::vector<size_t> width(columns_.size());
    std::vector<std::vector<std::string>> cells;
    for (size_t c = 0; c < columns_.size(); ++c) width[c] = text_width(columns_[c].name);
    for (const auto& row : rows_) {
        auto& line = cells.emplace_back();
        for (size_t c = 0; c < columns_.size(); ++c) line.push_back(c < row.size() ? text_cell(c, row[c]) : "-");
    }
    if (names == NameStyle::collapsed)
        for (size_t c = 0; c < columns_.size(); ++c) {
            if (!columns_[c].names) continue;
            std::vector<std::string> column;
            for (const auto& line : cells) column.push_back(line[c]);
            column = short_names(column, kNameColumns);
            for (size_t r = 0; r < cells.size(); ++r) cells[r][c] = std::move(column[r]);
        }
    for (const auto& line : cells) {
        for (size_t c = 0; c < columns_.size(); ++c) {
            // A name column is as wide as its widest name (short_names()
            // keeps them short; a full one is followed only by other names).
            const size_t cap = columns_[c].names ? SIZE_MAX : kMaxPaddedWidth;
            width[c] = std::max(width[c], std::min(text_width(line[c]), cap));
        }
    }
    auto emit = [&](size_t c, const std::string& s, bool last) {
        bool left = columns_[c].kind == Column::text;
        // Padded by characters: "…" and a name's UTF-8 are one column each.
        const std::string pad(width[c] - std::min(width[c], text_width(s)), ' ');
        if (last && left) out << s;
        else if (left) out << s << pad;
        else out << pad << s;
        out << (last ? "\n" : "  ");
    };
    auto emit_row = [&](const auto& text_of) {
        for (size_t i = 0; i < order.size(); ++i) emit(order[i], text_of(order[i]), i + 1 == order.size());
    };
    emit_row([&](size_t c) -> const std::string& { return columns_[c].name; });
    for (const auto& line : cells) emit_row([&](size_t c) -> const std::string& { return line[c]; });
}

std::string csv_quote(const std::string& s) {
    if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
    std::string q = "\"";
    for (char ch : s) {
        if (ch == '"') q += '"';
        q += ch;
    }
    return q + '"';
}

void Table::write_csv(std::ostream& out, bool with_header) const {
    if (with_header) {
        for (size_t c = 0; c < columns_.size(); ++c) out << (c ? "," : "") << csv_quote(columns_[c].name);
        out << '\n';
    }
    for (const auto& row : rows_) {
        for (size_t c = 0; c < columns_.size(); ++c) {
            if (c) out << ',';
            if (c >= row.size()) continue;
            const Value& v = row[c];
            if (v.kind == Value::text) out << csv_quote(v.str);
            else if (v.kind == Value::integer) out << v.u;
            // Full precision: CSV is for further processing.
            else if (v.kind == Value::real) out << fmt::format("{}", v.d);
        }
        out << '\n';
    }
}

Json Table::to_json() const {
    Json arr = Json::array();
    for (const auto& row : rows_) {
        Json obj = Json::object();
        for (size_t c = 0; c < columns_.size(); ++c) {
            const Value* v = c < row.size() ? &row[c] : nullptr;
            Json& slot = obj[columns_[c].name];
            if (!v || v->kind == Value::unknown) slot = nullptr;
            else if (v->kind == Value::text) slot = v->str;
            else if (v->kind == Value::integer) slot = v->u;
            else slot = v->d;
        }
        arr.push_back(std::move(obj));
    }
    return arr;
}

}  // namespace sprof::analyze
