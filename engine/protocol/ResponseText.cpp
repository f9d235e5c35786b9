#include "ResponseText.h"

#include <array>

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

namespace {

struct ProblemTypeText
{
    const char *type;
    const char *title;
    const char *fix;
};

// ODS/API's problem types, most specific first (a type is matched by its longest known prefix).
constexpr std::array kProblemTypeTexts = {
    ProblemTypeText{problem::kKeyChangeNotSupported, "This record's identity cannot be changed",
                    "Keep the identifying values, or use Edit > Change identity to make a new record."},
    ProblemTypeText{problem::kDataValidationFailed, "A value breaks the data standard's rules",
                    "Correct the fields named; each says what the standard expects."},
    ProblemTypeText{problem::kParameterValidationFailed, "A query value is not of its field's type",
                    "Correct the value named."},
    ProblemTypeText{problem::kUnresolvedReference, "It points at a record that is not stored",
                    "Create the record it points at first, or correct the reference."},
    ProblemTypeText{problem::kDependentItemExists, "Other records still point at this one",
                    "Delete or re-point the records that point at it first."},
    ProblemTypeText{problem::kIdentityConflict, "Another record already has this identity",
                    "Open the record that has it, or change the identifying values."},
    ProblemTypeText{problem::kOptimisticLockFailed, "Someone changed the record since it was read",
                    "Reload it, then make the change again."},
    ProblemTypeText{problem::kNotFound, "The record is not there", "It was deleted; look it up again."},
    ProblemTypeText{problem::kMethodNotAllowed, "This request is not allowed here", ""},
    ProblemTypeText{problem::kServiceUnavailable, "The database was busy", "Try again in a moment."},
    ProblemTypeText{problem::kInternalError, "Steward failed to handle it", "Report it with the message."},
    ProblemTypeText{problem::kBadRequest, "The document cannot be read", "Correct the text named."},
};

const ProblemTypeText *problemTypeText(const std::string &type)
{
    for (const ProblemTypeText &text : kProblemTypeTexts) {
        const std::string known = text.type;
        if (type == known || (type.size() > known.size() && type.compare(0, known.size(), known) == 0
                              && type[known.size()] == ':'))
            return &text;
    }
    return nullptr;
}

} // namespace

std::string problemTypeTitle(const std::string &type)
{
    const ProblemTypeText *text = problemTypeText(type);
    return text != nullptr ? text->title : type;
}

std::string problemTypeFix(const std::string &type)
{
    const ProblemTypeText *text = problemTypeText(type);
    return text != nullptr ? text->fix : std::string();
}

} // namespace steward
