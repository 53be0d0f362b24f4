// A report as columns and rows, rendered as aligned text, CSV or JSON.
// Unknown values print as "-" (text), an empty field (CSV) or null (JSON).
#pragma once
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "json.hpp"

#include "short_names.hpp"

namespace sprof::analyze {

enum class Format { text, csv, json };

struct Column {
    enum Kind { text, integer, fixed, general } kind;
    std::string name;
    int precision = 0;  // digits after the point (fixed) or significant digits (general)
    // Function names (text): a text table shortens them (short_names()),
    // or with NameStyle::full prints them
    // whole as the last columns, as perf puts its symbol last; either way no
    // name pushes the columns after it out of line.
    bool names = false;
};

// The widest a function name is in a text table (before "…" replaces its middle).
constexpr size_t kNameColumns = 60;

// One cell. (Not a std::variant: g++ 12 warns falsely about variants of strings.)
struct Value {
    enum Kind { unknown, text, integer, real } kind = unknown;
    std::string str;
    uint64_t u = 0;
    double d = 0;
    Value() = default;
    Value(std::string s) : kind(text), str(std::move(s)) {}
    Value(uint64_t v) : kind(integer), u(v) {}
    Value(double v) : kind(real), d(v) {}
};

class Table {
public:
    void add_column(Column c) { columns_.push_back(std::move(c)); }
    const std::vector<Column>& columns() const { return columns_; }
    // A new row; fill it with put() in column order.
    void new_row() { rows_.emplace_back(); }
    void put_value(Value v) { rows_.back().push_back(std::move(v)); }
    void put(const std::string& s) { put_value(s); }
    void put(uint64_t u) { put_value(u); }
    void put(double d) { put_value(d); }
    void put(std::optional<double> v) { put_value(v ? Value(*v) : Value()); }
    size_t rows() const { return rows_.size(); }

    void write_text(std::ostream& out, NameStyle names = NameStyle::collapsed) const;
    void write_csv(std::ostream& out, bool with_header = true) const;  // without: rows appended to earlier ones
    Json to_json() const;  // array of objects keyed by column name, in column order

private:
    std::string text_cell(size_t col, const Value& v) const;
    std::vector<Column> columns_;
    std::vector<std::vector<Value>> rows_;
};

std::string csv_quote(const std::string& s);

}  // namespace sprof::analyze
