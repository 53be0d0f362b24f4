#include "html_report.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

#include "export_file.hpp"
#include "notes.hpp"
#include "sprof/profile_io.hpp"
#include "html_assets.hpp"
#include "locality_views.hpp"
#include "report_mrc.hpp"

namespace sprof::analyze {

namespace {

// A source file the page shows at most: beyond, its lines are not inlined.
constexpr std::uintmax_t kMaxSourceBytes = 4 << 20;

// The view's JSON document, or the one line why the profile cannot give it.
void add_view(Json& reports, Json& errors, const char* key, const std::function<void(std::ostream&)>& write) {
    std::ostringstream out;
    try {
        write(out);
        reports[key] = Json::parse(out.str());
    } catch (const ProfileError& e) {
        errors[key] = e.what();
    } catch (const std::invalid_argument& e) {
        errors[key] = e.what();
    }
}

// "file.c:18" → "file.c"; a function or function+0xOFF → "".
std::string file_of(const std::string& location) {
    static const std::regex file_line(R"(^(.+):([0-9]+)$)");
    std::smatch m;
    return std::regex_match(location, m, file_line) ? m[1].str() : std::string();
}

// Every file a location of the views names.
std::set<std::string> named_files(const Json& reports) {
    std::set<std::string> files;
    auto take = [&](const Json& rows, std::initializer_list<const char*> keys) {
        if (!rows.is_array()) return;
        for (const Json& row : rows)
            for (const char* k : keys)
                if (row.contains(k) && row[k].is_string())
                    if (std::string f = file_of(row[k].get<std::string>()); !f.empty()) files.insert(f);
    };
    if (reports.contains("misses")) take(reports["misses"].value("locations", Json()), {"location"});
    if (reports.contains("use")) take(reports["use"].value("statements", Json()), {"location"});
    if (reports.contains("reuse_pairs")) take(reports["reuse_pairs"].value("pairs", Json()), {"use", "reuse"});
    return files;
}

// The lines of a source file, or why it cannot be shown (moved, unreadable).
Json read_source(const std::string& file, std::string& why) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(file, ec);
    if (ec) {
        why = "not found (moved since the run?): " + ec.message();
        return nullptr;
    }
    if (size > kMaxSourceBytes) {
        why = "larger than 4 MiB: not inlined";
        return nullptr;
    }
    std::ifstream in(file);
    if (!in) {
        why = std::string("cannot be read: ") + std::strerror(errno);
        return nullptr;
    }
    Json lines = Json::array();
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return Json{{"path", std::filesystem::absolute(file).string()}, {"lines", lines}};
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
    return text;
}

std::string html_escape(const std::string& text) {
    std::string out;
    for (char c : text) switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            default: out += c;
        }
    return out;
}

}  // namespace

std::string html_page(const Json& document) {
    // Inside <script>, "</" would end the element early: JSON lets it be "<\/".
    const std::string data = replace_all(document.dump(-1, ' ', false, Json::error_handler_t::replace), "</", "<\\/");
    std::string page(html::page);
    // One substitution each, in this order: what is inlined is never scanned again.
    const auto put = [&](const std::string& mark, const std::string& text) {
        const size_t at = page.find(mark);
        if (at == std::string::npos) throw std::logic_error("the page template lacks " + mark);
        page.replace(at, mark.size(), text);
    };
    put("@TITLE@", html_escape(document.value("title", "")));
    put("@CSS@", std::string(html::style));
    put("@DATA@", data);
    put("@JS@", std::string(html::script));
    return page;
}

void write_html_report(const Context& c) {
    ViewParams p = view_params(c.options);
    p.format = Format::json;
    p.top = 0;
    Json reports = Json::object(), errors = Json::object();
    // The lines by misses are the report's spine: without them, nothing to show.
    {
        std::ostringstream out;
        write_misses_view(c.data, p, out);
        reports["misses"] = Json::parse(out.str());
    }
    ViewParams by_function = p;
    by_function.by = Granularity::function;
    add_view(reports, errors, "functions", [&](std::ostream& o) { write_misses_view(c.data, by_function, o); });
    add_view(reports, errors, "use", [&](std::ostream& o) { write_use_view(c.data, p, o); });
    add_view(reports, errors, "data", [&](std::ostream& o) { write_data_view(c.data, p, o); });
    add_view(reports, errors, "reuse_pairs", [&](std::ostream& o) { write_reuse_pairs_view(c.data, p, o); });
    MrcParams mrc;
    mrc.line_size = p.line_size;
    mrc.format = Format::json;
    add_view(reports, errors, "mrc", [&](std::ostream& o) { report_mrc(c.data, mrc, o); });

    Json sources = Json::object(), missing = Json::object();
    for (const std::string& file : named_files(reports)) {
        std::string why;
        Json source = read_source(file, why);
        if (source.is_null()) {
            notes() << "sprof: warning: source " << file << " " << why << ": the report goes on without its text\n";
            missing[file] = why;
        } else {
            sources[file] = std::move(source);
        }
    }
    const Json document = {{"title", c.data.program()},
                           {"reports", reports},
                           {"errors", errors},
                           {"sources", sources},
                           {"missing_sources", missing}};
    const std::string dir = c.options.html_dir;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw std::runtime_error("cannot create " + dir + ": " + ec.message());
    const std::string index = (std::filesystem::path(dir) / "index.html").string();
    write_export_file(index, [&](std::ostream& o) { o << html_page(document); });
    c.out << "sprof: locality report in " << index << " (" << sources.size() << " source file(s), "
          << errors.size() << " view(s) the profile cannot give)\n";
}

}  // namespace sprof::analyze
