#include "short_names.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <stdexcept>
#include <string_view>
#include <unordered_map>

#include "sprof/option_values.hpp"
#include "text_columns.hpp"

namespace sprof::analyze {

NameStyle parse_name_style(const std::string& option, const std::string& value) {
    if (value == "short") return NameStyle::collapsed;
    if (value == "full") return NameStyle::full;
    throw UsageError(option + " takes short or full, not '" + value + "'");
}

namespace {

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The operator symbol that follows "operator" at `at` ("<", "<<=", "()",
// "[]"): kept as it is, or "operator<" would read as a template's bracket.
size_t operator_symbol_length(const std::string& s, size_t at) {
    if (s.compare(at, 2, "()") == 0 || s.compare(at, 2, "[]") == 0) return 2;
    size_t n = 0;
    while (at + n < s.size() && std::string_view("<>=!+-*/%&|^~,").find(s[at + n]) != std::string_view::npos) ++n;
    return n;
}

// The length of "operator" and its symbol at `at`, 0 when no operator starts there.
size_t operator_length(const std::string& s, size_t at) {
    if (s.compare(at, 8, "operator") != 0 || (at > 0 && identifier_char(s[at - 1])) ||
        (at + 8 < s.size() && identifier_char(s[at + 8])))
        return 0;
    return 8 + operator_symbol_length(s, at + 8);
}

// The end (one past the closing bracket) of the group opened at `open`, or
// npos when it never closes. Brackets of the other kind nest inside
// ("std::function<void (int)>", "foo(std::pair<int, int>)").
size_t group_end(const std::string& s, size_t open) {
    std::string closers(1, s[open] == '<' ? '>' : ')');
    for (size_t i = open + 1; i < s.size(); ++i) {
        if (const size_t op = operator_length(s, i)) {
            i += op - 1;
            continue;
        }
        const char c = s[i];
        if (c == '<' || c == '(') {
            closers.push_back(c == '<' ? '>' : ')');
        } else if (c == closers.back()) {
            closers.pop_back();
            if (closers.empty()) return i + 1;
        } else if (c == ')') {
            return std::string::npos;  // a ')' closing a '<': not a C++ name
        }
    }
    return std::string::npos;
}

// Appends name[begin, end) collapsed: groups nested deeper than `kept`
// levels become "<…>" / "(…)", those above keep their brackets and have
// their own contents collapsed one level further.
void collapse_range(const std::string& name, size_t begin, size_t end, unsigned kept, std::string& out) {
    bool after_name = false;  // a '(' here opens a parameter list, not "(anonymous namespace)"
    for (size_t i = begin; i < end;) {
        if (const size_t op = operator_length(name, i)) {
            out.append(name, i, std::min(op, end - i));
            i += op;
            after_name = true;
            continue;
        }
        const char c = name[i];
        if (c != '<' && !(c == '(' && after_name)) {
            out += c;
            after_name = identifier_char(c);
            ++i;
            continue;
        }
        const size_t close = group_end(name, i);
        if (close == std::string::npos || close > end) {  // unbalanced: the rest as it is
            out.append(name, i, end - i);
            return;
        }
        out += c;
        if (kept > 0) collapse_range(name, i + 1, close - 1, kept - 1, out);
        else if (close - i > 2) out += "…";
        out += name[close - 1];
        i = close;
        after_name = c == '<';
    }
}

// Levels of brackets beyond which a name is shown whole.
constexpr unsigned kMaxKeptLevels = 16;

}  // namespace

std::string collapse_name(const std::string& name, unsigned kept_levels) {
    std::string out;
    out.reserve(name.size());
    collapse_range(name, 0, name.size(), kept_levels, out);
    return out;
}

std::vector<std::string> short_names(const std::vector<std::string>& names, size_t width) {
    std::vector<unsigned> kept(names.size(), 0);
    std::vector<std::string> shown(names.size());
    for (size_t i = 0; i < names.size(); ++i) shown[i] = collapse_name(names[i]);
    // The rows whose text reads like another name's, not the same name's.
    auto alike = [&](const std::vector<std::string>& text) {
        std::unordered_map<std::string, std::set<std::string>> named;
        for (size_t i = 0; i < names.size(); ++i) named[text[i]].insert(names[i]);
        std::vector<bool> out(names.size());
        for (size_t i = 0; i < names.size(); ++i) out[i] = named[text[i]].size() > 1;
        return out;
    };
    for (bool changed = true; changed;) {
        changed = false;
        const std::vector<bool> clash = alike(shown);
        for (size_t i = 0; i < names.size(); ++i)
            if (clash[i] && shown[i] != names[i]) {
                shown[i] = ++kept[i] < kMaxKeptLevels ? collapse_name(names[i], kept[i]) : names[i];
                changed = true;
            }
    }
    std::vector<std::string> cut(names.size());
    for (size_t i = 0; i < names.size(); ++i) cut[i] = elide_middle(shown[i], width);
    // A name kept deeper for its difference is not cut: the difference
    // lies inside its brackets, in the middle the cut would take.
    const std::vector<bool> clash = alike(cut);
    for (size_t i = 0; i < names.size(); ++i)
        if (!clash[i] && kept[i] == 0) shown[i] = std::move(cut[i]);
    return shown;
}

}  // namespace sprof::analyze
