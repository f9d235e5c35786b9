#include "RequestLines.h"

#include <variant>

namespace steward {

namespace {

constexpr std::size_t kMaxLineBytes = 8 * 1024 * 1024;

Response badRequest(const std::string &detail)
{
    return problem::make(400, problem::kBadRequest, "Bad Request", detail);
}

// Reads one line without ever holding more than the cap; 'tooLong' tells that the rest was skipped.
bool readLine(std::istream &in, std::string &line, bool &tooLong)
{
    line.clear();
    tooLong = false;
    std::streambuf *buffer = in.rdbuf();
    bool any = false;
    for (;;) {
        const int c = buffer->sbumpc();
        if (c == std::char_traits<char>::eof())
            return any;
        any = true;
        if (c == '\n')
            return true;
        if (line.size() >= kMaxLineBytes) {
            tooLong = true;
            continue;
        }
        line.push_back(static_cast<char>(c));
    }
}

bool isBlank(const std::string &line)
{
    for (char c : line)
        if (c != ' ' && c != '\t' && c != '\r')
            return false;
    return true;
}

} // namespace

std::variant<Request, Response> parseRequestLine(const std::string &line)
{
    JsonParseLimits limits;
    limits.maxBytes = kMaxLineBytes;
    JsonParseResult parsed = parseJson(line, limits);
    if (!parsed.value)
        return badRequest("The request line is not valid JSON: " + parsed.error + ".");
    const Json &json = *parsed.value;
    if (!json.is_object())
        return badRequest("The request line must be a JSON object with 'method' and 'path'.");
    Request request;
    auto method = json.find("method");
    if (method == json.end() || !method->is_string())
        return badRequest("The request has no 'method' string (GET, POST, PUT or DELETE).");
    auto path = json.find("path");
    if (path == json.end() || !path->is_string() || path->get_ref<const std::string &>().empty()
        || path->get_ref<const std::string &>().front() != '/')
        return badRequest("The request has no 'path' string starting with '/'.");
    request.method = method->get<std::string>();
    std::transform(request.method.begin(), request.method.end(), request.method.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    request.path = path->get<std::string>();
    if (auto body = json.find("body"); body != json.end() && !body->is_null())
        request.body = *body;
    if (auto headers = json.find("headers"); headers != json.end() && !headers->is_null()) {
        if (!headers->is_object())
            return badRequest("'headers' must be an object of strings.");
        for (auto it = headers->begin(); it != headers->end(); ++it) {
            if (!it->is_string())
                return badRequest("The header '" + it.key() + "' must be a string.");
            request.headers[toLower(it.key())] = it->get<std::string>();
        }
    }
    return request;
}

std::size_t runRequestLines(Engine &engine, std::istream &in, std::ostream &out, const std::string &actor)
{
    std::size_t answered = 0;
    std::string line;
    bool tooLong = false;
    while (readLine(in, line, tooLong)) {
        Response response;
        if (tooLong) {
            response = badRequest("The request line is longer than the limit of "
                                  + std::to_string(kMaxLineBytes) + " bytes; it was not read.");
        } else if (isBlank(line)) {
            continue;
        } else {
            std::variant<Request, Response> parsed = parseRequestLine(line);
            if (Request *request = std::get_if<Request>(&parsed)) {
                request->actor = actor;
                response = engine.handle(*request);
            } else {
                response = std::get<Response>(parsed);
            }
        }
        out << dumpJson(response.toJson()) << '\n';
        out.flush();
        ++answered;
    }
    return answered;
}

} // namespace steward
