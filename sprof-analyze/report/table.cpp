#include "table.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace sprof::analyze {

namespace {

// Text columns wider than this are not padded further (C++ template names).
constexpr size_t kMaxPaddedWidth = 60;

std::string number(const Column& c, double v) {
    if (c.kind == Column::fixed) return fmt::format("{:.{}f}", v, c.precision);
    if (c.kind == Column::integer) return fmt::format("{:.0f}", v);
    return fmt::format("{:.{}g}", v, c.precision > 0 ? c.precision : 6);
}

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

void Table::write_text(std::ostream& out) const {
    std::vector<size_t> width(columns_.size());
    std::vector<std::vector<std::string>> cells;
    for (size_t c = 0; c < columns_.size(); ++c) width[c] = columns_[c].name.size();
    for (const auto& row : rows_) {
        auto& line = cells.emplace_back();
        for (size_t c = 0; c < columns_.size(); ++c) {
            line.push_back(c < row.size() ? text_cell(c, row[c]) : "-");
            width[c] = std::max(width[c], std::min(line.back().size(), kMaxPaddedWidth));
        }
    }
    auto emit = [&](size_t c, const std::string& s, bool last) {
        bool left = columns_[c].kind == Column::text;
        if (last && left) out << s;
        else if (left) out << fmt::format("{:<{}}", s, width[c]);
        else out << fmt::format("{:>{}}", s, width[c]);
        out << (last ? "\n" : "  ");
    };
    for (size_t c = 0; c < columns_.size(); ++c) emit(c, columns_[c].name, c + 1 == columns_.size());
    for (const auto& line : cells)
        for (size_t c = 0; c < columns_.size(); ++c) emit(c, line[c], c + 1 == columns_.size());
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
