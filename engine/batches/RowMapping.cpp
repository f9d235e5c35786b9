#include "RowMapping.h"

#include <QDate>
#include <QFile>

#include <SQLiteCpp/Statement.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cmath>
#include <set>

namespace steward {

std::string foldedName(const std::string &text)
{
    std::string out;
    for (char c : text)
        if (std::isalnum(static_cast<unsigned char>(c)))
            out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

namespace {

std::string folded(const std::string &text)
{
    return foldedName(text);
}

// "gradeLevels[0].gradeLevelDescriptor" -> {"gradeLevels", "[0]", "gradeLevelDescriptor"}; empty when malformed.
std::vector<std::string> splitField(const std::string &field)
{
    std::vector<std::string> steps;
    std::string name;
    for (std::size_t i = 0; i < field.size(); ++i) {
        const char c = field[i];
        if (c == '.') {
            if (name.empty())
                return {};
            steps.push_back(name);
            name.clear();
        } else if (c == '[') {
            const std::size_t close = field.find(']', i);
            if (close == std::string::npos || close == i + 1)
                return {};
            const std::string index = field.substr(i + 1, close - i - 1);
            if (!std::all_of(index.begin(), index.end(), [](char d) { return std::isdigit(static_cast<unsigned char>(d)); })
                || index.size() > 3)
                return {};
            if (!name.empty())
                steps.push_back(name);
            name.clear();
            steps.push_back("[" + index + "]");
            i = close;
            if (i + 1 < field.size() && field[i + 1] == '.')
                ++i;
        } else {
            name += c;
        }
    }
    if (!name.empty())
        steps.push_back(name);
    return steps;
}

// The type of the value at the steps in the resource's JSON Schema; empty when there is no such field.
std::string typeAt(const Json &schema, const std::vector<std::string> &steps)
{
    const Json *node = &schema;
    for (const std::string &step : steps) {
        if (step.front() == '[') {
            if (node->value("type", std::string()) != "array" || !node->contains("items"))
                return {};
            node = &(*node)["items"];
        } else {
            if (!node->contains("properties") || !(*node)["properties"].contains(step))
                return {};
            node = &(*node)["properties"][step];
        }
    }
    const std::string type = node->value("type", std::string());
    if (type == "string" && node->value("format", std::string()) == "date")
        return "date";
    if (type == "object" || type == "array")
        return {}; // a field takes a value, not a whole object or list
    return type.empty() ? "string" : type;
}

void assignAt(Json &body, const std::vector<std::string> &steps, Json value)
{
    Json *node = &body;
    for (std::size_t i = 0; i < steps.size(); ++i) {
        const std::string &step = steps[i];
        const bool last = i + 1 == steps.size();
        if (step.front() == '[') {
            const std::size_t index = std::stoul(step.substr(1, step.size() - 2));
            if (!node->is_array())
                *node = Json::array();
            while (node->size() <= index)
                node->push_back(Json::object());
            node = &(*node)[index];
        } else {
            if (!node->is_object())
                *node = Json::object();
            node = &(*node)[step];
        }
        if (last)
            *node = std::move(value);
    }
}

const std::set<std::string> &knownFormats()
{
    static const std::set<std::string> formats = {"MM/DD/YYYY", "M/D/YYYY", "DD/MM/YYYY", "D/M/YYYY", "D.M.YYYY",
                                                  "DD.MM.YYYY", "YYYY-MM-DD", "MM-DD-YYYY", "DD-MM-YYYY", "YYYY/MM/DD",
                                                  "excel"};
    return formats;
}

// A date as ISO text; empty when the text is not a date in the format.
std::string parseDate(const std::string &text, const std::string &format)
{
    // A date already in ISO form (an .xlsx date cell) is one whatever the format says.
    const QDate iso = QDate::fromString(QString::fromStdString(text.substr(0, 10)), Qt::ISODate);
    if (text.size() >= 10 && iso.isValid() && text[4] == '-')
        return iso.toString(Qt::ISODate).toStdString();
    bool number = false;
    const double serial = QString::fromStdString(text).toDouble(&number);
    if (number && (format == "excel" || (serial >= 1 && serial < 2958466 && text.find_first_of("/.-") == std::string::npos)))
        return excelSerialToIso(serial).substr(0, 10);
    if (format.empty() || format == "excel")
        return {};
    std::vector<int> parts;
    std::string digits;
    for (char c : text + " ") {
        if (std::isdigit(static_cast<unsigned char>(c))) {
            digits += c;
        } else if (!digits.empty()) {
            if (digits.size() > 4)
                return {};
            parts.push_back(std::stoi(digits));
            digits.clear();
        } else if (!std::isspace(static_cast<unsigned char>(c)) && c != '/' && c != '.' && c != '-') {
            return {};
        }
    }
    if (parts.size() != 3)
        return {};
    int year = 0;
    int month = 0;
    int day = 0;
    int position = 0;
    // The order of Y, M and D in the format gives the order of the parts.
    std::string order;
    for (char c : format)
        if ((c == 'Y' || c == 'M' || c == 'D') && (order.empty() || order.back() != c))
            order += c;
    for (char c : order) {
        (c == 'Y' ? year : c == 'M' ? month : day) = parts[static_cast<std::size_t>(position++)];
    }
    const QDate date(year, month, day);
    if (!date.isValid() || year < 1000)
        return {};
    return date.toString(Qt::ISODate).toStdString();
}

// A number written with grouping: "1,234.5" (comma groups) or "1.234,5" (decimal comma).
std::string plainNumber(std::string text, const std::string &format)
{
    if (format == "1,234.5") {
        text.erase(std::remove(text.begin(), text.end(), ','), text.end());
    } else if (format == "1.234,5") {
        text.erase(std::remove(text.begin(), text.end(), '.'), text.end());
        std::replace(text.begin(), text.end(), ',', '.');
    }
    text.erase(std::remove(text.begin(), text.end(), ' '), text.end());
    return text;
}

std::optional<Json> typedValue(const std::string &written, const FieldRule &rule, std::string &why)
{
    const bool numeric = rule.type == "integer" || rule.type == "number";
    const std::string text = numeric ? plainNumber(written, rule.format) : written;
    if (rule.type == "integer") {
        char *end = nullptr;
        errno = 0;
        const long long value = std::strtoll(text.c_str(), &end, 10);
        if (end != text.c_str() && *end == '\0' && errno == 0)
            return Json(static_cast<std::int64_t>(value));
        // "604822.0" from a spreadsheet that stored a whole number as a decimal
        const double d = std::strtod(text.c_str(), &end);
        if (end != text.c_str() && *end == '\0' && std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9e15)
            return Json(static_cast<std::int64_t>(d));
        why = "'" + written + "' is not a whole number";
        return std::nullopt;
    }
    if (rule.type == "number") {
        char *end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        if (end != text.c_str() && *end == '\0' && std::isfinite(value))
            return Json(value);
        why = "'" + written + "' is not a number" + (rule.format.empty() ? "" : " in " + rule.format);
        return std::nullopt;
    }
    if (rule.type == "boolean") {
        const std::string word = toLower(text);
        if (word == "true" || word == "yes" || word == "y" || word == "1")
            return Json(true);
        if (word == "false" || word == "no" || word == "n" || word == "0")
            return Json(false);
        why = "'" + text + "' is not true or false (yes/no, y/n, 1/0 also do)";
        return std::nullopt;
    }
    if (rule.type == "date") {
        const std::string date = parseDate(text, rule.format);
        if (date.empty()) {
            why = "'" + text + "' is not a date" + (rule.format.empty() ? " (YYYY-MM-DD; give a format for others)"
                                                                         : " in " + rule.format);
            return std::nullopt;
        }
        return Json(date);
    }
    return Json(text);
}

std::string cellOf(const HeaderIndex &header, const SheetRow &row, const std::string &column)
{
    const std::size_t i = header.find(column);
    return i < row.cells.size() ? trimmedCell(row.cells[i]) : std::string();
}

// The {Column} names of a template.
std::vector<std::string> templateColumns(const std::string &text)
{
    std::vector<std::string> columns;
    for (std::size_t open = text.find('{'); open != std::string::npos; open = text.find('{', open + 1)) {
        const std::size_t close = text.find('}', open);
        if (close == std::string::npos)
            break;
        columns.push_back(text.substr(open + 1, close - open - 1));
    }
    return columns;
}

} // namespace

namespace {

StudentIdCrosswalk crosswalkFrom(const Json &ids)
{
    if (!ids.is_object())
        throw MappingError("studentIds: an object with column and system");
    for (const auto &[key, value] : ids.items())
        if (key != "column" && key != "system" && key != "assigningOrganization")
            throw MappingError("studentIds: '" + key + "' is not a setting (column, system, assigningOrganization)");
    StudentIdCrosswalk crosswalk;
    crosswalk.column = ids.value("column", std::string());
    crosswalk.system = ids.value("system", std::string());
    crosswalk.assigningOrganization = ids.contains("assigningOrganization") && ids["assigningOrganization"].is_number()
                                          ? ids["assigningOrganization"].dump()
                                          : ids.value("assigningOrganization", std::string());
    if (crosswalk.column.empty())
        throw MappingError("studentIds.column: the header of the column with the other system's student ids");
    if (crosswalk.system.rfind("uri://", 0) != 0 || crosswalk.system.find('#') == std::string::npos)
        throw MappingError("studentIds.system: a StudentIdentificationSystemDescriptor URI "
                           "(uri://ed-fi.org/StudentIdentificationSystemDescriptor#Local), not '"
                           + crosswalk.system + "'");
    return crosswalk;
}

// One field of a document rule: where its value comes from (one column, constant or template),
// its format and value map, checked against the field's type in the resource.
FieldRule fieldRuleFrom(const std::string &at, const std::string &field, const Json &source,
                        const ResourceSchema &resource)
{
    FieldRule fieldRule;
    fieldRule.field = field;
    fieldRule.steps = splitField(field);
    fieldRule.type = fieldRule.steps.empty() ? std::string() : typeAt(resource.jsonSchema, fieldRule.steps);
    if (fieldRule.type.empty())
        throw MappingError(at + ": " + resource.resourceName + " has no field '" + field
                           + "' that takes a value (dotted paths reach nested ones: schoolReference.schoolId, "
                             "gradeLevels[0].gradeLevelDescriptor)");
    if (!source.is_object())
        throw MappingError(at + ": expected {\"column\": \"Header\"}, {\"constant\": value} or {\"template\": \"{A} {B}\"}");
    int sources = 0;
    for (const auto &[key, value] : source.items()) {
        if (key == "column" && value.is_string()) {
            fieldRule.column = value.get<std::string>();
            ++sources;
        } else if (key == "constant" && value.is_primitive() && !value.is_null()) {
            fieldRule.constant = value;
            ++sources;
        } else if (key == "template" && value.is_string()) {
            fieldRule.text = value.get<std::string>();
            ++sources;
        } else if (key == "format" && value.is_string()) {
            fieldRule.format = value.get<std::string>();
        } else if (key == "values" && value.is_object()) {
            for (const auto &[code, target] : value.items()) {
                if (!target.is_string())
                    throw MappingError(at + ".values." + code + ": expected text");
                fieldRule.values[toLower(trimmedCell(code))] = target.get<std::string>();
            }
        } else {
            throw MappingError(at + ": '" + key + "' is not a field setting (column, constant, template, "
                                                  "format, values) or has the wrong type");
        }
    }
    if (sources != 1)
        throw MappingError(at + ": give exactly one of column, constant or template");
    const bool numeric = fieldRule.type == "integer" || fieldRule.type == "number";
    if (!fieldRule.format.empty() && numeric && fieldRule.format != "1,234.5" && fieldRule.format != "1.234,5")
        throw MappingError(at + ".format: '" + fieldRule.format + "' is not a number format (1,234.5 or 1.234,5)");
    if (!fieldRule.format.empty() && !numeric && !knownFormats().count(fieldRule.format))
        throw MappingError(at + ".format: '" + fieldRule.format
                           + "' is not a known date format (MM/DD/YYYY, DD/MM/YYYY, D.M.YYYY, "
                             "YYYY-MM-DD, excel...)");
    return fieldRule;
}

// documents[d]: which resource a row makes, when, and from which cells.
DocumentRule documentRuleFrom(const Json &document, const std::string &where, const Model &model)
{
    if (!document.is_object())
        throw MappingError(where + ": expected an object");
    for (const auto &[key, value] : document.items())
        if (key != "resource" && key != "fields" && key != "when")
            throw MappingError(where + ": '" + key + "' is not a document setting (resource, fields, when)");
    DocumentRule rule;
    const std::string resource =
        document.contains("resource") && document["resource"].is_string() ? document["resource"].get<std::string>() : "";
    rule.resource = model.findByPath(!resource.empty() && resource.front() == '/' ? resource.substr(1) : resource);
    if (rule.resource == nullptr)
        throw MappingError(where + ".resource: '" + resource + "' is not a resource of the model (ed-fi/students)");
    if (document.contains("when")) {
        const Json &when = document["when"];
        if (!when.is_object() || !when.contains("column") || !when["column"].is_string())
            throw MappingError(where + ".when: {\"column\": ..., \"equals\": ...} (equals optional: not empty)");
        rule.whenColumn = when["column"].get<std::string>();
        if (when.contains("equals"))
            rule.whenEquals = when["equals"].is_string() ? when["equals"].get<std::string>() : when["equals"].dump();
    }
    if (!document.contains("fields") || !document["fields"].is_object() || document["fields"].empty())
        throw MappingError(where + ".fields: an object of field -> {\"column\"|\"constant\"|\"template\": ...}");
    for (const auto &[field, source] : document["fields"].items()) {
        const std::string at = where + ".fields." + field;
        FieldRule fieldRule = fieldRuleFrom(at, field, source, *rule.resource);
        rule.fields.push_back(std::move(fieldRule));
    }
    return rule;
}

} // namespace

RowMapping parseRowMapping(const Json &mapping, const Model &model)
{
    if (!mapping.is_object())
        throw MappingError("a mapping is a JSON object with \"documents\"");
    for (const auto &[key, value] : mapping.items())
        if (key != "sheet" && key != "delimiter" && key != "documents" && key != "studentIds")
            throw MappingError("'" + key + "' is not a mapping setting (sheet, delimiter, documents, studentIds)");
    RowMapping out;
    out.sheet = mapping.value("sheet", std::string());
    if (mapping.contains("delimiter")) {
        const std::string delimiter = mapping["delimiter"].is_string() ? mapping["delimiter"].get<std::string>() : "?";
        if (delimiter != "," && delimiter != ";" && delimiter != "\t" && delimiter != "\\t")
            throw MappingError("delimiter: '" + delimiter + "' is not ',', ';' or a tab");
        out.delimiter = delimiter == "\\t" ? '\t' : delimiter[0];
    }
    if (mapping.contains("studentIds"))
        out.studentIds = crosswalkFrom(mapping["studentIds"]);
    if (!mapping.contains("documents") || !mapping["documents"].is_array() || mapping["documents"].empty())
        throw MappingError("documents: a list of at least one {\"resource\": ..., \"fields\": {...}} is required");
    for (std::size_t d = 0; d < mapping["documents"].size(); ++d) {
        const std::string where = "documents[" + std::to_string(d) + "]";
        out.documents.push_back(documentRuleFrom(mapping["documents"][d], where, model));
    }
    return out;
}

RowMapping loadRowMapping(const std::string &path, const Model &model)
{
    QFile file(QString::fromStdString(path));
    if (!file.open(QIODevice::ReadOnly))
        throw MappingError(path + ": cannot be read: " + file.errorString().toStdString());
    JsonParseResult parsed = parseJson(file.readAll().toStdString());
    if (!parsed.value)
        throw MappingError(path + ": " + parsed.error);
    try {
        return parseRowMapping(*parsed.value, model);
    } catch (const MappingError &e) {
        throw MappingError(path + ": " + e.what());
    }
}

void checkColumns(const RowMapping &mapping, const std::vector<std::string> &header)
{
    const HeaderIndex columns(header);
    auto check = [&header, &columns](const std::string &column, const std::string &where) {
        if (columns.find(column) != std::string::npos)
            return;
        std::string list;
        for (const std::string &name : header)
            list += (list.empty() ? "" : ", ") + std::string("'") + name + "'";
        throw MappingError(where + ": there is no column '" + column + "' (the columns: " + list + ")");
    };
    if (mapping.studentIds)
        check(mapping.studentIds->column, "studentIds.column");
    for (std::size_t d = 0; d < mapping.documents.size(); ++d) {
        const DocumentRule &rule = mapping.documents[d];
        const std::string where = "documents[" + std::to_string(d) + "]";
        if (!rule.whenColumn.empty())
            check(rule.whenColumn, where + ".when");
        for (const FieldRule &field : rule.fields) {
            if (!field.column.empty())
                check(field.column, where + ".fields." + field.field);
            for (const std::string &column : templateColumns(field.text))
                check(column, where + ".fields." + field.field + ".template");
        }
    }
}

Json rowObject(const std::vector<std::string> &header, const SheetRow &row)
{
    Json out = Json::object();
    for (std::size_t i = 0; i < row.cells.size(); ++i)
        out[i < header.size() && !header[i].empty() ? header[i] : "column " + std::to_string(i + 1)] = row.cells[i];
    return out;
}

HeaderIndex::HeaderIndex(const std::vector<std::string> &header)
{
    for (std::size_t i = 0; i < header.size(); ++i)
        m_columns.emplace(folded(header[i]), i); // the first of two equal headers wins, as before
}

std::size_t HeaderIndex::find(const std::string &column) const
{
    auto it = m_columns.find(folded(column));
    return it == m_columns.end() ? std::string::npos : it->second;
}

std::vector<MappedDocument> mapRow(const RowMapping &mapping, const std::vector<std::string> &header,
                                   const SheetRow &row)
{
    return mapRow(mapping, HeaderIndex(header), row);
}

namespace {

// The student a crosswalk finds for a row: its studentUniqueId, or empty with why set.
std::string crosswalkStudent(const StudentIdCrosswalk &crosswalk, const HeaderIndex &header, const SheetRow &row,
                             std::string &why)
{
    const std::string code = cellOf(header, row, crosswalk.column);
    if (code.empty()) {
        why = "column '" + crosswalk.column + "' is empty: no student id to look up";
        return {};
    }
    const std::string system = crosswalk.system.substr(crosswalk.system.find('#') + 1);
    if (!crosswalk.codes) {
        why = "the student ids of " + system + " were not loaded";
        return {};
    }
    auto found = crosswalk.codes->find(code);
    if (found == crosswalk.codes->end())
        why = "column '" + crosswalk.column + "': no student has the " + system + " id '" + code + "'";
    else if (found->second.empty())
        why = "column '" + crosswalk.column + "': the " + system + " id '" + code + "' belongs to more than one student";
    return found == crosswalk.codes->end() ? std::string() : found->second;
}

// Every document of the row gets the student the crosswalk found; without one, each says why.
void applyStudentIds(const StudentIdCrosswalk &crosswalk, const HeaderIndex &header, const SheetRow &row,
                     std::vector<MappedDocument> &documents)
{
    std::string why;
    const std::string student = crosswalkStudent(crosswalk, header, row, why);
    for (MappedDocument &document : documents) {
        const Json &properties = document.resource->jsonSchema.contains("properties")
                                     ? document.resource->jsonSchema["properties"]
                                     : Json::object();
        const bool isStudent = properties.contains("studentUniqueId");
        if (!isStudent && !properties.contains("studentReference"))
            continue;
        if (student.empty()) {
            document.error += (document.error.empty() ? "" : "; ") + why;
            continue;
        }
        if (isStudent)
            document.body["studentUniqueId"] = student;
        else
            document.body["studentReference"]["studentUniqueId"] = student;
    }
}

} // namespace

void loadStudentIdCodes(SQLite::Database &db, const Model &model, RowMapping &mapping)
{
    if (!mapping.studentIds)
        return;
    const ResourceSchema *associations = model.findByName("Ed-Fi", "StudentEducationOrganizationAssociation");
    if (associations == nullptr)
        throw MappingError("studentIds: the model has no StudentEducationOrganizationAssociation to find student ids in ("
                           + model.describe() + ")");
    auto codes = std::make_shared<std::unordered_map<std::string, std::string>>();
    SQLite::Statement query(
        db, "SELECT json_extract(c.value, '$.identificationCode'), json_extract(d.b, '$.studentReference.studentUniqueId')"
            " FROM (SELECT steward_text(body) AS b FROM documents WHERE project = ? AND resource = ?) d,"
            " json_each(d.b, '$.studentIdentificationCodes') c"
            " WHERE lower(json_extract(c.value, '$.studentIdentificationSystemDescriptor')) = lower(?)"
            " AND (? = '' OR json_extract(c.value, '$.assigningOrganizationIdentificationCode') = ?)");
    query.bind(1, associations->projectName());
    query.bind(2, associations->resourceName);
    query.bind(3, mapping.studentIds->system);
    query.bind(4, mapping.studentIds->assigningOrganization);
    query.bind(5, mapping.studentIds->assigningOrganization);
    while (query.executeStep()) {
        const std::string code = query.getColumn(0).getString();
        const std::string student = query.getColumn(1).getString();
        auto [at, inserted] = codes->emplace(code, student);
        if (!inserted && at->second != student)
            at->second.clear(); // two students, one code: ambiguous
    }
    mapping.studentIds->codes = std::move(codes);
}

StudentIdMatch matchStudentIds(const std::string &path, const RowMapping &mapping)
{
    StudentIdMatch match;
    if (!mapping.studentIds)
        return match;
    std::string error;
    std::unique_ptr<SheetReader> reader = openSheet(path, mapping.delimiter, mapping.sheet, &error);
    if (!reader)
        throw MappingError(error);
    checkColumns(mapping, reader->header());
    match.header = reader->header();
    const HeaderIndex header(reader->header());
    SheetRow row;
    while (reader->next(row)) {
        ++match.rows;
        std::string why;
        if (crosswalkStudent(*mapping.studentIds, header, row, why).empty())
            match.unmatched.push_back({row, why});
        else
            ++match.matched;
    }
    if (!reader->error().empty())
        throw MappingError(reader->error());
    return match;
}

std::vector<MappedDocument> mapRow(const RowMapping &mapping, const HeaderIndex &header, const SheetRow &row)
{
    std::vector<MappedDocument> out;
    for (const DocumentRule &rule : mapping.documents) {
        if (!rule.whenColumn.empty()) {
            const std::string cell = cellOf(header, row, rule.whenColumn);
            if (rule.whenEquals ? toLower(cell) != toLower(*rule.whenEquals) : cell.empty())
                continue;
        }
        MappedDocument document;
        document.resource = rule.resource;
        document.body = Json::object();
        for (const FieldRule &field : rule.fields) {
            std::string text;
            if (field.constant) {
                assignAt(document.body, field.steps, *field.constant);
                continue;
            }
            if (!field.column.empty()) {
                text = cellOf(header, row, field.column);
            } else {
                text = field.text;
                for (const std::string &column : templateColumns(field.text)) {
                    const std::string cell = cellOf(header, row, column);
                    const std::size_t at = text.find("{" + column + "}");
                    if (at != std::string::npos)
                        text.replace(at, column.size() + 2, cell);
                }
                text = trimmedCell(text);
            }
            if (text.empty())
                continue; // an empty cell leaves the field out
            // A value that cannot be read is kept as text where it goes, so that the draft shows it
            // in its field; the error names the column.
            auto keepAsText = [&](const std::string &why) {
                // Where the value came from, named only when it could not be read.
                const std::string what =
                    field.column.empty() ? "template '" + field.text + "'" : "column '" + field.column + "'";
                document.error += (document.error.empty() ? "" : "; ") + what + " (" + field.field + "): " + why;
                assignAt(document.body, field.steps, Json(text));
            };
            if (!field.values.empty()) {
                auto mapped = field.values.find(toLower(text));
                if (mapped != field.values.end()) {
                    text = mapped->second;
                } else if (text.rfind("uri://", 0) != 0) {
                    keepAsText("'" + text + "' has no entry in the mapping's values");
                    continue;
                }
            }
            std::string why;
            std::optional<Json> value = typedValue(text, field, why);
            if (!value) {
                keepAsText(why);
                continue;
            }
            assignAt(document.body, field.steps, std::move(*value));
        }
        out.push_back(std::move(document));
    }
    if (mapping.studentIds)
        applyStudentIds(*mapping.studentIds, header, row, out);
    return out;
}

namespace {

struct Candidate
{
    std::string field; // the mapping's field name ("schoolReference.schoolId")
    std::string type;
    std::vector<std::string> names; // folded names it answers to
    std::string descriptor;         // the descriptor resource, for a descriptor field
};

void collectCandidates(const ResourceSchema &resource, const Json &schema, const std::string &prefix,
                       const std::string &parentName, std::vector<Candidate> &out, int depth)
{
    if (depth > 3 || !schema.contains("properties"))
        return;
    for (const auto &[name, property] : schema["properties"].items()) {
        const std::string field = prefix.empty() ? name : prefix + "." + name;
        const std::string type = property.value("type", std::string());
        if (type == "object") {
            collectCandidates(resource, property, field, name, out, depth + 1);
            continue;
        }
        if (type == "array")
            continue; // lists are mapped by hand (gradeLevels[0]...)
        Candidate candidate;
        candidate.field = field;
        candidate.type = typeAt(resource.jsonSchema, splitField(field));
        std::string base = folded(name);
        std::set<std::string> names{base};
        auto without = [&names](std::string text, const std::string &part) {
            const std::size_t at = text.find(part);
            if (at != std::string::npos && text.size() > part.size())
                names.insert(text.erase(at, part.size()));
        };
        without(base, "unique");
        without(base, "descriptor");
        without(base, "identifier");
        if (const std::size_t at = base.find("surname"); at != std::string::npos)
            names.insert(std::string(base).replace(at, 7, "name"));
        if (!parentName.empty())
            names.insert(folded(parentName) + base);
        for (const DescriptorMapping &descriptor : resource.descriptors)
            if (descriptor.path.text() == "$." + field)
                candidate.descriptor = descriptor.descriptorResourceName;
        candidate.names.assign(names.begin(), names.end());
        out.push_back(std::move(candidate));
    }
}

std::string detectDateFormat(const std::vector<std::string> &values)
{
    bool slashes = true;
    bool dots = true;
    bool serials = true;
    int dayFirstVotes = 0;   // a first part over 12 can only be a day
    int monthFirstVotes = 0; // a second part over 12 can only be a day
    int seen = 0;
    for (const std::string &value : values) {
        if (value.empty())
            continue;
        ++seen;
        if (value.size() >= 10 && value[4] == '-')
            return {}; // ISO already
        int a = 0;
        int b = 0;
        int c = 0;
        char s1 = 0;
        char s2 = 0;
        const bool three = std::sscanf(value.c_str(), "%d%c%d%c%d", &a, &s1, &b, &s2, &c) == 5;
        slashes = slashes && three && s1 == '/' && s2 == '/';
        dots = dots && three && s1 == '.' && s2 == '.';
        serials = serials && value.find_first_not_of("0123456789.") == std::string::npos;
        // A value with both parts over 12 is no date at all: it says nothing about the order.
        dayFirstVotes += three && a > 12 && b <= 12 ? 1 : 0;
        monthFirstVotes += three && b > 12 && a <= 12 ? 1 : 0;
    }
    if (seen == 0)
        return {};
    if (slashes)
        return dayFirstVotes > monthFirstVotes ? "DD/MM/YYYY" : "MM/DD/YYYY";
    if (dots)
        return "D.M.YYYY";
    if (serials)
        return "excel";
    return {};
}

void collectFields(const Json &schema, const std::string &prefix, std::vector<std::string> &out, int depth)
{
    if (depth > 4 || !schema.contains("properties"))
        return;
    for (const auto &[name, property] : schema["properties"].items()) {
        const std::string field = prefix.empty() ? name : prefix + "." + name;
        const std::string type = property.value("type", std::string());
        if (type == "object")
            collectFields(property, field, out, depth + 1);
        else if (type == "array" && property.contains("items") && property["items"].value("type", "") == "object")
            collectFields(property["items"], field + "[0]", out, depth + 1);
        else if (type != "array")
            out.push_back(field);
    }
}

} // namespace

std::vector<std::string> storedDescriptorUris(SQLite::Database &db, const std::string &descriptorResource)
{
    std::vector<std::string> uris;
    SQLite::Statement s(db, "SELECT json_extract(steward_text(body), '$.namespace') || '#' || json_extract(steward_text(body), '$.codeValue') "
                            "FROM documents WHERE resource = ?");
    s.bind(1, descriptorResource);
    while (s.executeStep())
        uris.push_back(s.getColumn(0).getString());
    return uris;
}

std::vector<std::string> mappableFields(const ResourceSchema &resource)
{
    std::vector<std::string> fields;
    collectFields(resource.jsonSchema, "", fields, 0);
    return fields;
}

MappingSuggestion suggestRowMapping(const ResourceSchema &resource, const std::vector<std::string> &header,
                                    const std::vector<SheetRow> &rows,
                                    const std::function<std::vector<std::string>(const std::string &)> &storedDescriptors)
{
    std::vector<Candidate> candidates;
    collectCandidates(resource, resource.jsonSchema, "", "", candidates, 0);
    MappingSuggestion suggestion;
    Json fields = Json::object();
    std::set<std::string> taken;
    for (std::size_t column = 0; column < header.size(); ++column) {
        const std::string name = folded(header[column]);
        if (name.empty())
            continue;
        const Candidate *best = nullptr;
        int bestScore = 0;
        for (const Candidate &candidate : candidates) {
            if (taken.count(candidate.field))
                continue;
            int score = 0;
            for (const std::string &known : candidate.names) {
                if (known == name)
                    score = std::max(score, 3);
                else if (name.size() >= 3 && known.size() > name.size()
                         && known.compare(known.size() - name.size(), name.size(), name) == 0)
                    score = std::max(score, 1); // "Sex" -> birthSex
            }
            if (score > bestScore) {
                bestScore = score;
                best = &candidate;
            }
        }
        if (best == nullptr) {
            suggestion.unmatched.push_back("column '" + header[column] + "': no field of " + resource.resourceName
                                           + " has this name");
            continue;
        }
        taken.insert(best->field);
        std::vector<std::string> values;
        for (const SheetRow &row : rows)
            if (column < row.cells.size())
                values.push_back(trimmedCell(row.cells[column]));
        Json rule{{"column", header[column]}};
        if (best->type == "date") {
            const std::string format = detectDateFormat(values);
            if (!format.empty())
                rule["format"] = format;
        }
        if (!best->descriptor.empty() && storedDescriptors) {
            const std::vector<std::string> uris = storedDescriptors(best->descriptor);
            Json map = Json::object();
            std::set<std::string> distinct(values.begin(), values.end());
            for (const std::string &value : distinct) {
                if (value.empty() || value.rfind("uri://", 0) == 0)
                    continue;
                std::string found;
                int matches = 0;
                for (const std::string &uri : uris) {
                    const std::string code = toLower(uri.substr(uri.find('#') + 1));
                    if (code == toLower(value)) {
                        found = uri;
                        matches = 1;
                        break;
                    }
                    if (code.rfind(toLower(value), 0) == 0) {
                        found = uri;
                        ++matches;
                    }
                }
                if (matches == 1)
                    map[value] = found;
                else
                    suggestion.unmatched.push_back("column '" + header[column] + "': '" + value + "' matches "
                                                   + (matches == 0 ? "no" : "more than one") + " stored "
                                                   + best->descriptor + " value");
            }
            if (!map.empty())
                rule["values"] = map;
        }
        fields[best->field] = rule;
    }
    for (const JsonPath &identity : resource.identityPaths) {
        std::string field = identity.text().substr(2);
        if (!fields.contains(field))
            suggestion.unmatched.push_back("identity field " + field + ": no column matches it; map one, or give a "
                                           "constant");
    }
    suggestion.mapping =
        Json{{"documents", Json::array({Json{{"resource", resource.resourceKey()}, {"fields", fields}}})}};
    return suggestion;
}

} // namespace steward
