#include "rate_expr.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

namespace sprof::analyze {

RateExprError::RateExprError(const std::string& what, size_t pos)
    : std::runtime_error(what + " at position " + std::to_string(pos)), position(pos) {}

struct RateExpr::Node {
    enum Kind { number, variable, negate, add, subtract, multiply, divide } kind;
    double value = 0;
    size_t index = 0;
    std::shared_ptr<const Node> left, right;
};

namespace {

using NodePtr = std::shared_ptr<const RateExpr::Node>;
using Node = RateExpr::Node;

NodePtr make_node(Node::Kind kind, double value, size_t index, NodePtr left, NodePtr right) {
    return std::make_shared<const Node>(Node{kind, value, index, std::move(left), std::move(right)});
}

bool is_word_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("_-:.", c) != nullptr;
}

// Recursive descent: expr = term {(+|-) term}; term = unary {(*|/) unary};
// unary = -unary | +unary | primary; primary = number | name | ( expr ).
class Parser {
public:
    Parser(const std::string& text, const std::vector<std::string>& names) : text_(text) {
        for (size_t i = 0; i < names.size(); ++i) by_length_.push_back(i);
        // Longest first, so "page-faults" wins over a name "page".
        std::stable_sort(by_length_.begin(), by_length_.end(),
                         [&](size_t a, size_t b) { return names[a].size() > names[b].size(); });
        names_ = &names;
    }

    NodePtr parse() {
        skip_space();
        if (pos_ == text_.size()) throw RateExprError("empty expression", pos_ + 1);
        NodePtr n = expression();
        skip_space();
        if (pos_ != text_.size()) throw RateExprError(unexpected(), pos_ + 1);
        return n;
    }

private:
    NodePtr expression() {
        NodePtr n = term();
        for (;;) {
            skip_space();
            if (accept('+')) n = binary(Node::add, n, term());
            else if (accept('-')) n = binary(Node::subtract, n, term());
            else return n;
        }
    }

    NodePtr term() {
        NodePtr n = unary();
        for (;;) {
            skip_space();
            if (accept('*')) n = binary(Node::multiply, n, unary());
            else if (accept('/')) n = binary(Node::divide, n, unary());
            else return n;
        }
    }

    NodePtr unary() {
        skip_space();
        if (accept('-')) {
            return make_node(Node::negate, 0, 0, unary(), nullptr);
        }
        if (accept('+')) return unary();
        return primary();
    }

    NodePtr primary() {
        skip_space();
        if (pos_ == text_.size()) throw RateExprError("expected a number, a name or '('", pos_ + 1);
        if (accept('(')) {
            size_t open = pos_;
            NodePtr n = expression();
            skip_space();
            if (!accept(')')) throw RateExprError("expected ')' to close the '(' at position " +
                                                      std::to_string(open),
                                                  pos_ + 1);
            return n;
        }
        if (NodePtr n = name()) return n;
        if (NodePtr n = number()) return n;
        size_t start = pos_;
        if (is_word_char(text_[pos_])) {
            size_t end = start;
            while (end < text_.size() && is_word_char(text_[end])) ++end;
            throw RateExprError("unknown name '" + text_.substr(start, end - start) + "'", start + 1);
        }
        throw RateExprError(unexpected(), pos_ + 1);
    }

    NodePtr name() {
        for (size_t i : by_length_) {
            const std::string& candidate = (*names_)[i];
            if (!candidate.empty() && text_.compare(pos_, candidate.size(), candidate) == 0) {
                pos_ += candidate.size();
                return make_node(Node::variable, 0, i, nullptr, nullptr);
            }
        }
        return nullptr;
    }

    NodePtr number() {
        char c = text_[pos_];
        if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.') return nullptr;
        double v = 0;
        auto [end, ec] = std::from_chars(text_.data() + pos_, text_.data() + text_.size(), v);
        if (ec != std::errc()) throw RateExprError("malformed number", pos_ + 1);
        pos_ = static_cast<size_t>(end - text_.data());
        return make_node(Node::number, v, 0, nullptr, nullptr);
    }

    static NodePtr binary(Node::Kind k, NodePtr l, NodePtr r) {
        return make_node(k, 0, 0, std::move(l), std::move(r));
    }

    bool accept(char c) {
        if (pos_ < text_.size() && text_[pos_] == c) {
            ++pos_;
            return true;
        }
        return false;
    }

    void skip_space() {
        while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    }

    std::string unexpected() const { return std::string("unexpected '") + text_[pos_] + "'"; }

    const std::string& text_;
    const std::vector<std::string>* names_;
    std::vector<size_t> by_length_;
    size_t pos_ = 0;
};

std::optional<double> eval(const Node& n, std::span<const std::optional<double>> values) {
    switch (n.kind) {
    case Node::number: return n.value;
    case Node::variable: return n.index < values.size() ? values[n.index] : std::nullopt;
    case Node::negate: {
        auto v = eval(*n.left, values);
        return v ? std::optional<double>(-*v) : std::nullopt;
    }
    default: break;
    }
    auto l = eval(*n.left, values);
    auto r = eval(*n.right, values);
    if (!l || !r) return std::nullopt;
    switch (n.kind) {
    case Node::add: return *l + *r;
    case Node::subtract: return *l - *r;
    case Node::multiply: return *l * *r;
    default:
        if (*r == 0) return std::nullopt;
        return *l / *r;
    }
}

void collect(const Node& n, std::vector<size_t>& out) {
    if (n.kind == Node::variable) out.push_back(n.index);
    if (n.left) collect(*n.left, out);
    if (n.right) collect(*n.right, out);
}

}  // namespace

RateExpr RateExpr::parse(const std::string& text, const std::vector<std::string>& names) {
    RateExpr e;
    e.root_ = Parser(text, names).parse();
    return e;
}

std::optional<double> RateExpr::evaluate(std::span<const std::optional<double>> values) const {
    auto v = eval(*root_, values);
    if (v && !std::isfinite(*v)) return std::nullopt;
    return v;
}

std::vector<size_t> RateExpr::variables() const {
    std::vector<size_t> out;
    collect(*root_, out);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

}  // namespace sprof::analyze
