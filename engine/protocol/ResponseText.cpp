#include "ResponseText.h"

namespace steward {

bool succeeded(const Response &response)
{
    return response.status >= 200 && response.status < 300;
}

std::string problemSummary(const Json &problem)
{
    if (!problem.is_object())
        return {};
    std::string text = problem.value("detail", std::string());
    std::string fields;
    if (auto errors = problem.find("validationErrors"); errors != problem.end() && errors->is_object())
        for (const auto &[path, messages] : errors->items())
            for (const Json &message : messages)
                if (message.is_string())
                    fields += (fields.empty() ? "" : "; ") + path + ": " + message.get<std::string>();
    if (auto errors = problem.find("errors"); errors != problem.end() && errors->is_array())
        for (const Json &message : *errors)
            if (message.is_string())
                fields += (fields.empty() ? "" : "; ") + message.get<std::string>();
    if (!fields.empty())
        text += " (" + fields + ")";
    return text;
}

} // namespace steward
