#include "SchemaFormParts.h"

#include "FieldLabels.h"

#include <QFormLayout>
#include <QLabel>
#include <QStyle>

#include <algorithm>

namespace formparts {

const Json &emptyObject()
{
    static const Json empty = Json::object();
    return empty;
}

std::string schemaType(const Json &schema)
{
    auto it = schema.find("type");
    if (it != schema.end()) {
        if (it->is_string())
            return it->get<std::string>();
        if (it->is_array())
            for (const Json &t : *it)
                if (t.is_string() && t.get<std::string>() != "null")
                    return t.get<std::string>();
    }
    if (schema.contains("properties"))
        return "object";
    if (schema.contains("items"))
        return "array";
    return "string";
}

const Json &propertiesOf(const Json &schema)
{
    auto it = schema.find("properties");
    return it != schema.end() && it->is_object() ? *it : emptyObject();
}

const Json &itemsOf(const Json &schema)
{
    auto it = schema.find("items");
    return it != schema.end() && it->is_object() ? *it : emptyObject();
}

std::vector<std::string> requiredOf(const Json &schema)
{
    std::vector<std::string> out;
    auto it = schema.find("required");
    if (it != schema.end() && it->is_array())
        for (const Json &name : *it)
            if (name.is_string())
                out.push_back(name.get<std::string>());
    return out;
}

bool isRequired(const Json &schema, const std::string &name)
{
    const std::vector<std::string> required = requiredOf(schema);
    return std::find(required.begin(), required.end(), name) != required.end();
}

const Json *childSchema(const Json *schema, const std::string &key)
{
    if (schema == nullptr)
        return nullptr;
    const Json &properties = propertiesOf(*schema);
    auto it = properties.find(key);
    return it == properties.end() ? nullptr : &*it;
}

void writeJson(std::string &out, const Json &value, const Json *schema, const steward::ResourceSchema *resource,
               bool root, int indent)
{
    if (value.is_object()) {
        if (value.empty()) {
            out += "{}";
            return;
        }
        std::vector<std::string> keys;
        if (schema != nullptr)
            for (const std::string &key : schemaPropertyOrder(*schema, resource, root))
                if (value.contains(key))
                    keys.push_back(key);
        for (const auto &item : value.items())
            if (std::find(keys.begin(), keys.end(), item.key()) == keys.end())
                keys.push_back(item.key());
        out += "{\n";
        for (std::size_t i = 0; i < keys.size(); ++i) {
            out += std::string(static_cast<std::size_t>(indent + 2), ' ');
            out += Json(keys[i]).dump(-1, ' ', false, Json::error_handler_t::replace);
            out += ": ";
            writeJson(out, value.at(keys[i]), childSchema(schema, keys[i]), resource, false, indent + 2);
            if (i + 1 < keys.size())
                out += ",";
            out += "\n";
        }
        out += std::string(static_cast<std::size_t>(indent), ' ') + "}";
        return;
    }
    if (value.is_array()) {
        if (value.empty()) {
            out += "[]";
            return;
        }
        const Json *items = schema != nullptr ? &itemsOf(*schema) : nullptr;
        out += "[\n";
        for (std::size_t i = 0; i < value.size(); ++i) {
            out += std::string(static_cast<std::size_t>(indent + 2), ' ');
            writeJson(out, value[i], items, resource, false, indent + 2);
            if (i + 1 < value.size())
                out += ",";
            out += "\n";
        }
        out += std::string(static_cast<std::size_t>(indent), ' ') + "]";
        return;
    }
    out += value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

QString singular(const std::string &name)
{
    return singularLabel(name).toLower();
}

void repolish(QWidget *widget)
{
    widget->style()->unpolish(widget);
    widget->style()->polish(widget);
    widget->update();
}

QString bodyName(const Json &body)
{
    for (const char *key : {"nameOfInstitution", "courseTitle", "sessionName", "classPeriodName", "locationName",
                            "programName", "gradingPeriodName", "title", "shortDescription"}) {
        auto it = body.find(key);
        if (it != body.end() && it->is_string())
            return QString::fromStdString(it->get<std::string>());
    }
    const QString first = QString::fromStdString(body.value("firstName", std::string()));
    const QString last = QString::fromStdString(body.value("lastSurname", std::string()));
    return (first + u' ' + last).trimmed();
}

Json parseOr(const std::string &text, Json fallback)
{
    Json parsed = Json::parse(text, nullptr, false);
    return parsed.is_discarded() ? fallback : parsed;
}

ValueCheckBox::ValueCheckBox(bool allowUnset, QWidget *parent)
    : QCheckBox(parent)
    , m_allowUnset(allowUnset)
{
    setTristate(true);
    setCheckState(Qt::PartiallyChecked);
    updateText();
    connect(this, &QCheckBox::stateChanged, this, [this] { updateText(); });
}

void ValueCheckBox::nextCheckState()
{
    switch (checkState()) {
    case Qt::PartiallyChecked:
        setCheckState(Qt::Checked);
        break;
    case Qt::Checked:
        setCheckState(Qt::Unchecked);
        break;
    case Qt::Unchecked:
        setCheckState(m_allowUnset ? Qt::PartiallyChecked : Qt::Checked);
        break;
    }
}

void ValueCheckBox::updateText()
{
    switch (checkState()) {
    case Qt::PartiallyChecked:
        setText(tr("not set"));
        break;
    case Qt::Checked:
        setText(tr("yes"));
        break;
    case Qt::Unchecked:
        setText(tr("no"));
        break;
    }
}

std::vector<Step> appended(std::vector<Step> steps, Step step)
{
    steps.push_back(std::move(step));
    return steps;
}

QFormLayout *makeFormLayout()
{
    auto *form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    // In a narrow pane (a laptop's editor) a field that does not fit beside its label goes under it.
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    form->setLabelAlignment(Qt::AlignRight | Qt::AlignVCenter);
    form->setFormAlignment(Qt::AlignLeft | Qt::AlignTop);
    form->setHorizontalSpacing(12);
    form->setVerticalSpacing(7);
    return form;
}

QLabel *makeErrorLabel()
{
    auto *label = new QLabel;
    label->setObjectName(QStringLiteral("fieldError"));
    label->setWordWrap(true);
    label->setTextFormat(Qt::PlainText);
    label->hide();
    return label;
}

} // namespace formparts

using namespace formparts;

const steward::Json *SchemaForm::Private::valueAt(const std::vector<Step> &steps) const
{
    const Json *current = &document;
    for (const Step &step : steps) {
        if (step.isIndex) {
            if (!current->is_array() || step.index >= current->size())
                return nullptr;
            current = &(*current)[step.index];
        } else {
            if (!current->is_object())
                return nullptr;
            auto it = current->find(step.key);
            if (it == current->end())
                return nullptr;
            current = &*it;
        }
    }
    return current;
}

steward::Json &SchemaForm::Private::assignAt(const std::vector<Step> &steps, Json value)
{
    Json *current = &document;
    for (const Step &step : steps) {
        if (step.isIndex) {
            if (!current->is_array())
                *current = Json::array();
            while (current->size() <= step.index)
                current->push_back(Json::object());
            current = &(*current)[step.index];
        } else {
            if (!current->is_object())
                *current = Json::object();
            current = &(*current)[step.key];
        }
    }
    *current = std::move(value);
    return *current;
}

void SchemaForm::Private::removeAt(std::vector<Step> steps)
{
    if (steps.empty() || steps.back().isIndex)
        return;
    const std::string key = steps.back().key;
    steps.pop_back();
    Json *parent = mutableAt(steps);
    if (parent == nullptr || !parent->is_object())
        return;
    parent->erase(key);
    // Objects left empty go too (an empty reference is "absent", not "incomplete"); array items stay.
    while (!steps.empty() && !steps.back().isIndex) {
        Json *object = mutableAt(steps);
        if (object == nullptr || !object->is_object() || !object->empty())
            return;
        const std::string member = steps.back().key;
        steps.pop_back();
        Json *owner = mutableAt(steps);
        if (owner == nullptr || !owner->is_object())
            return;
        owner->erase(member);
    }
}
