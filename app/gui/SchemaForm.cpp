#include "SchemaForm.h"

#include "FieldLabels.h"

#include "AppSession.h"

#include <QAbstractScrollArea>
#include <QLayout>
#include <QAbstractItemView>
#include <QCalendarWidget>
#include <QCheckBox>
#include <QComboBox>
#include <QCompleter>
#include <QDate>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHash>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QRegularExpression>
#include <QRegularExpressionValidator>
#include <QScopedValueRollback>
#include <QStringListModel>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWidgetAction>

#include <algorithm>
#include <optional>
#include <set>

using steward::Json;

// Named, not anonymous: The form's Private holds these types, and a class whose members have
// internal linkage is warned about once the file is compiled inside a unity batch.
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

// "gradeLevels" -> "grade level", "addresses" -> "address", "categories" -> "category".
QString singular(const std::string &name)
{
    QString text = humanize(name).toLower();
    if (text.endsWith(QLatin1String("ies")))
        return text.chopped(3) + u'y';
    for (const char *ending : {"sses", "xes", "ches", "shes"})
        if (text.endsWith(QLatin1String(ending)))
            return text.chopped(2);
    if (text.endsWith(u's') && !text.endsWith(QLatin1String("ss")))
        return text.chopped(1);
    return text;
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

Json parseOr(const std::string &text, Json fallback = Json::object())
{
    Json parsed = Json::parse(text, nullptr, false);
    return parsed.is_discarded() ? fallback : parsed;
}

// A check box whose third state means "not set" and comes first: not set -> yes -> no (-> not set
// again only when the field is optional).
class ValueCheckBox : public QCheckBox
{
public:
    ValueCheckBox(bool allowUnset, QWidget *parent)
        : QCheckBox(parent)
        , m_allowUnset(allowUnset)
    {
        setTristate(true);
        setCheckState(Qt::PartiallyChecked);
        updateText();
        connect(this, &QCheckBox::stateChanged, this, [this] { updateText(); });
    }

protected:
    void nextCheckState() override
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

private:
    void updateText()
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

    bool m_allowUnset;
};

enum class FieldType { Text, Integer, Number, Boolean, Date, DateTime, Time, Enum, Descriptor };

struct Step
{
    std::string key;
    std::size_t index = 0;
    bool isIndex = false;
};

struct Node
{
    enum class Kind { Object, Array, Scalar };
    Kind kind = Kind::Scalar;
    Node *parent = nullptr;
    std::vector<Step> steps;
    QString path;
    std::string property; // member name; empty for the root and array items
    const Json *schema = nullptr;
    bool required = false;
    std::vector<std::unique_ptr<Node>> children;

    QWidget *box = nullptr;      // containers: group box or row
    QWidget *input = nullptr;    // scalars: the input; references: the search line
    QLabel *label = nullptr;     // scalars: the form label
    QLabel *errorLabel = nullptr; // containers: messages shown inside
    QString toolTip;
    FieldType type = FieldType::Text;

    QVBoxLayout *rows = nullptr; // arrays
    QLabel *emptyHint = nullptr;

    const steward::ReferenceMapping *reference = nullptr;
    QLabel *referenceStatus = nullptr;
    QToolButton *gotoButton = nullptr;
    QCompleter *completer = nullptr;
    QStringListModel *completions = nullptr;
    std::vector<steward::StoredDocument> candidates;
    QString targetId;

    const steward::DescriptorMapping *descriptor = nullptr;
};

std::vector<Step> appended(std::vector<Step> steps, Step step)
{
    steps.push_back(std::move(step));
    return steps;
}

QFormLayout *makeFormLayout()
{
    auto *form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->setRowWrapPolicy(QFormLayout::DontWrapRows);
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

std::vector<std::string> schemaPropertyOrder(const Json &objectSchema, const steward::ResourceSchema *resource,
                                             bool root)
{
    const Json &properties = propertiesOf(objectSchema);
    std::vector<std::string> out;
    std::set<std::string> used;
    auto add = [&](const std::string &name) {
        if (name != "_ext" && properties.contains(name) && used.insert(name).second)
            out.push_back(name);
    };
    if (root && resource != nullptr)
        for (const steward::JsonPath &path : resource->identityPaths)
            if (!path.steps().empty() && !path.steps().front().isArray())
                add(path.steps().front().property);
    const std::vector<std::string> required = requiredOf(objectSchema);
    for (const std::string &name : required)
        if (properties.contains(name) && schemaType(properties.at(name)) != "array")
            add(name);
    for (const char *group : {"scalar", "object"})
        for (const auto &item : properties.items()) {
            const std::string type = schemaType(item.value());
            const bool isScalar = type != "object" && type != "array";
            if ((std::string(group) == "scalar") == isScalar && type != "array")
                add(item.key());
        }
    for (const std::string &name : required)
        add(name);
    for (const auto &item : properties.items())
        add(item.key());
    if (properties.contains("_ext"))
        out.push_back("_ext");
    return out;
}

QString formatDocumentJson(const Json &document, const steward::ResourceSchema *resource)
{
    std::string out;
    writeJson(out, document, resource != nullptr ? &resource->jsonSchema : nullptr, resource, true, 0);
    return QString::fromStdString(out);
}

Json newDocumentSkeleton(const Json &objectSchema)
{
    Json out = Json::object();
    const Json &properties = propertiesOf(objectSchema);
    for (const std::string &name : requiredOf(objectSchema)) {
        auto it = properties.find(name);
        if (it != properties.end() && schemaType(*it) == "array" && it->value("minItems", 0) == 0)
            out[name] = Json::array();
    }
    return out;
}

std::string genericJsonPath(const std::string &concretePath)
{
    std::string out;
    out.reserve(concretePath.size());
    for (std::size_t i = 0; i < concretePath.size(); ++i) {
        if (concretePath[i] == '[') {
            const std::size_t close = concretePath.find(']', i);
            if (close != std::string::npos) {
                out += "[*]";
                i = close;
                continue;
            }
        }
        out += concretePath[i];
    }
    return out;
}

QString parentJsonPath(const QString &path)
{
    if (path.isEmpty() || path == QLatin1String("$"))
        return QString();
    const qsizetype cut = std::max(path.lastIndexOf(u'.'), path.lastIndexOf(u'['));
    if (cut <= 0)
        return QStringLiteral("$");
    return path.left(cut);
}

struct SchemaForm::Private
{
    SchemaForm *q;
    AppSession *session;
    const steward::ResourceSchema *resource = nullptr;
    Json document = Json::object();
    std::unique_ptr<Node> root;
    QVBoxLayout *outer = nullptr;
    QLabel *rootError = nullptr;
    QWidget *content = nullptr;
    QHash<QString, Node *> byPath;
    std::map<std::string, const steward::DescriptorMapping *> descriptorsByPath;
    std::map<std::string, const steward::ReferenceMapping *> referencesByPath;
    steward::ValidationErrors problems;
    bool refreshing = false;

    static QString tr(const char *text, const char *disambiguation = nullptr, int n = -1)
    {
        return SchemaForm::tr(text, disambiguation, n);
    }

    // Document access
    const Json *valueAt(const std::vector<Step> &steps) const
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

    Json *mutableAt(const std::vector<Step> &steps)
    {
        return const_cast<Json *>(valueAt(steps));
    }

    Json &assignAt(const std::vector<Step> &steps, Json value)
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

    void removeAt(std::vector<Step> steps)
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

    // Building
    void build();
    void buildMembers(Node *node, QFormLayout *form);
    // A titled box for an object or array, its tooltip and error label; returns its layout.
    QVBoxLayout *makeGroupBox(Node *node, QString title, bool named);
    void buildObjectBox(Node *node, QFormLayout *form);
    void buildArrayBox(Node *node, QFormLayout *form);
    QWidget *buildScalar(Node *node, bool withLabel);
    void classifyScalar(Node *node);
    void buildScalarLabel(Node *node, bool withLabel);
    QWidget *buildBooleanInput(Node *node);
    QWidget *buildEnumInput(Node *node);
    QWidget *buildDescriptorInput(Node *node);
    QWidget *buildTextInput(Node *node);
    QWidget *buildDateField(Node *node, QLineEdit *edit);
    void buildPicker(Node *node, QVBoxLayout *layout);
    void rebuildRows(Node *node);
    void destroyWidget(QWidget *widget);
    void reindex();
    void orderTabs();
    void index(Node *node);
    QString describe(const Node *node) const;

    // Values
    std::optional<Json> scalarValue(const Node *node) const;
    void commitScalar(Node *node);
    // An edit the steward finished (not one made while the form shows a document) becomes an undo step.
    void announceEdit(const Node *node);
    void commitAndAnnounce(Node *node)
    {
        commitScalar(node);
        announceEdit(node);
    }
    void refreshNode(Node *node);
    void showScalar(Node *node);
    void addRow(Node *array);
    void removeRow(Node *array, std::size_t index);

    // Problems
    Node *nearest(const QString &path) const;
    void clearMarks(Node *node);
    void applyProblems();

    // Lookups
    // The descriptor's stored values as the combo's items: each label, its URI as data and tooltip.
    void fillDescriptorItems(Node *node, QComboBox *combo);
    // The URI on hover; a value no stored descriptor has marked as such.
    void markDescriptor(Node *node, const QString &uri, bool unknown);
    // The field's value as a URI (empty when blank), and whether a stored descriptor has it.
    std::pair<QString, bool> descriptorState(Node *node);
    QString candidateText(const steward::ReferenceMapping *reference, const steward::StoredDocument &doc) const;
    void searchReferences(Node *node, const QString &text);
    void chooseReference(Node *node, int row);
    void resolveReference(Node *node);
    void setReferenceStatus(Node *node, const QString &text, bool found);
    std::vector<Step> memberSteps(const Node *node, const steward::ReferencePathPair &pair) const;
    void collectReferences(Node *node, std::vector<Node *> &out);
    void collectDescriptors(Node *node, std::vector<Node *> &out);
};

void SchemaForm::Private::destroyWidget(QWidget *widget)
{
    if (widget == nullptr)
        return;
    // Nothing of a row that is going away may call back into nodes that no longer exist.
    widget->disconnect(q);
    const QList<QObject *> objects = widget->findChildren<QObject *>();
    for (QObject *object : objects)
        object->disconnect(q);
    widget->hide();
    widget->setParent(nullptr);
    widget->deleteLater();
}

void SchemaForm::Private::build()
{
    destroyWidget(content);
    content = nullptr;
    root.reset();
    byPath.clear();
    descriptorsByPath.clear();
    referencesByPath.clear();
    problems.clear();
    rootError->hide();
    if (resource == nullptr)
        return;
    for (const steward::DescriptorMapping &mapping : resource->descriptors)
        descriptorsByPath[mapping.path.text()] = &mapping;
    for (const steward::ReferenceMapping &mapping : resource->references)
        referencesByPath[mapping.objectPath.text()] = &mapping;

    content = new QWidget(q);
    content->setObjectName(QStringLiteral("formContent"));
    content->setMaximumWidth(920);
    auto *form = makeFormLayout();
    form->setContentsMargins(0, 0, 0, 0);
    content->setLayout(form);
    outer->insertWidget(1, content);
    content->show(); // a widget added to a shown parent is otherwise shown only by a queued call

    root = std::make_unique<Node>();
    root->kind = Node::Kind::Object;
    root->path = QStringLiteral("$");
    root->schema = &resource->jsonSchema;
    root->required = true;
    root->errorLabel = rootError;
    {
        QScopedValueRollback<bool> guard(refreshing, true);
        buildMembers(root.get(), form);
    }
    reindex();
}

void SchemaForm::Private::buildMembers(Node *node, QFormLayout *form)
{
    const Json &properties = propertiesOf(*node->schema);
    for (const std::string &name : schemaPropertyOrder(*node->schema, resource, node == root.get())) {
        auto child = std::make_unique<Node>();
        child->parent = node;
        child->property = name;
        child->steps = appended(node->steps, Step{name});
        child->path = node->path + u'.' + QString::fromStdString(name);
        child->schema = &properties.at(name);
        child->required = isRequired(*node->schema, name);
        const std::string type = schemaType(*child->schema);
        Node *raw = child.get();
        node->children.push_back(std::move(child));
        if (type == "object") {
            raw->kind = Node::Kind::Object;
            buildObjectBox(raw, form);
        } else if (type == "array") {
            raw->kind = Node::Kind::Array;
            buildArrayBox(raw, form);
        } else {
            raw->kind = Node::Kind::Scalar;
            QWidget *field = buildScalar(raw, true);
            form->addRow(raw->label, field);
        }
    }
}

QString SchemaForm::Private::describe(const Node *node) const
{
    QStringList lines;
    const Json &schema = *node->schema;
    if (auto it = schema.find("description"); it != schema.end() && it->is_string())
        lines << QString::fromStdString(it->get<std::string>());
    QStringList facts;
    if (node->required)
        facts << tr("Required.");
    if (node->descriptor != nullptr)
        facts << tr("A %1 URI: namespace#codeValue.")
                     .arg(QString::fromStdString(node->descriptor->descriptorResourceName));
    if (node->reference != nullptr)
        facts << tr("Refers to a %1; type the start of its key to search.")
                     .arg(QString::fromStdString(node->reference->targetResourceName));
    switch (node->type) {
    case FieldType::Date:
        facts << tr("A date: YYYY-MM-DD.");
        break;
    case FieldType::DateTime:
        facts << tr("A date and time: YYYY-MM-DDThh:mm:ssZ.");
        break;
    case FieldType::Time:
        facts << tr("A time: hh:mm:ss.");
        break;
    default:
        break;
    }
    if (schema.contains("minimum") && schema.contains("maximum"))
        facts << tr("From %1 to %2.")
                     .arg(QString::fromStdString(schema["minimum"].dump()), QString::fromStdString(schema["maximum"].dump()));
    else if (schema.contains("minimum"))
        facts << tr("At least %1.").arg(QString::fromStdString(schema["minimum"].dump()));
    else if (schema.contains("maximum"))
        facts << tr("At most %1.").arg(QString::fromStdString(schema["maximum"].dump()));
    if (schema.contains("minLength") && schema["minLength"].is_number() && schema["minLength"].get<int>() > 1)
        facts << tr("At least %1 characters.").arg(schema["minLength"].get<int>());
    if (schema.contains("maxLength") && schema["maxLength"].is_number())
        facts << tr("At most %1 characters.").arg(schema["maxLength"].get<int>());
    if (schema.contains("minItems") && schema["minItems"].is_number() && schema["minItems"].get<int>() > 0)
        facts << tr("At least %n item(s).", nullptr, schema["minItems"].get<int>());
    if (!facts.isEmpty())
        lines << facts.join(u' ');
    lines << node->path;
    return lines.join(u'\n');
}

QVBoxLayout *SchemaForm::Private::makeGroupBox(Node *node, QString title, bool named)
{
    if (node->required)
        title += QStringLiteral(" *");
    auto *box = new QGroupBox(title);
    if (named)
        box->setObjectName(node->path);
    node->box = box;
    node->toolTip = describe(node);
    box->setToolTip(node->toolTip);
    auto *layout = new QVBoxLayout(box);
    layout->setContentsMargins(10, 8, 10, 10);
    layout->setSpacing(6);
    node->errorLabel = makeErrorLabel();
    layout->addWidget(node->errorLabel);
    return layout;
}

void SchemaForm::Private::buildObjectBox(Node *node, QFormLayout *form)
{
    auto refIt = referencesByPath.find(genericJsonPath(node->path.toStdString()));
    node->reference = refIt == referencesByPath.end() ? nullptr : refIt->second;
    QString title = humanize(node->property);
    if (node->reference != nullptr)
        title = withoutSuffix(title, QStringLiteral("reference"));
    // A reference's name belongs to its search line, not the box.
    QVBoxLayout *layout = makeGroupBox(node, title, node->reference == nullptr);
    QWidget *box = node->box;
    if (node->reference != nullptr)
        buildPicker(node, layout);
    auto *inner = makeFormLayout();
    layout->addLayout(inner);
    buildMembers(node, inner);
    form->addRow(box);
}

void SchemaForm::Private::buildPicker(Node *node, QVBoxLayout *layout)
{
    const steward::ReferenceMapping *reference = node->reference;
    const QString target = QString::fromStdString(reference->targetResourceName);
    auto *row = new QHBoxLayout;
    row->setSpacing(6);
    auto *search = new QLineEdit;
    search->setObjectName(node->path);
    search->setPlaceholderText(tr("Find a %1: type the start of its key…").arg(target));
    search->setClearButtonEnabled(true);
    search->setToolTip(node->toolTip);
    node->input = search;
    node->completions = new QStringListModel(search);
    node->completer = new QCompleter(node->completions, search);
    node->completer->setWidget(search);
    node->completer->setCompletionMode(QCompleter::UnfilteredPopupCompletion);
    node->completer->setCaseSensitivity(Qt::CaseInsensitive);
    node->completer->setMaxVisibleItems(12);
    auto *go = new QToolButton;
    go->setObjectName(node->path + QStringLiteral("#goto"));
    go->setText(tr("Go to"));
    go->setToolTip(tr("Open the referenced %1").arg(target));
    go->setEnabled(false);
    node->gotoButton = go;
    row->addWidget(search, 1);
    row->addWidget(go);
    layout->addLayout(row);
    node->referenceStatus = new QLabel;
    node->referenceStatus->setObjectName(QStringLiteral("referenceStatus"));
    node->referenceStatus->setTextFormat(Qt::PlainText);
    node->referenceStatus->hide();
    layout->addWidget(node->referenceStatus);

    QObject::connect(search, &QLineEdit::textEdited, q, [this, node](const QString &text) {
        searchReferences(node, text);
    });
    QObject::connect(node->completer, qOverload<const QString &>(&QCompleter::activated), q,
                     [this, node](const QString &text) {
                         const QStringList list = node->completions->stringList();
                         chooseReference(node, static_cast<int>(list.indexOf(text)));
                     });
    QObject::connect(search, &QLineEdit::returnPressed, q, [this, node] {
        if (node->completer->popup()->isVisible())
            return;
        // Enter on a search that matches a single stored document chooses it.
        if (node->candidates.size() == 1)
            chooseReference(node, 0);
    });
    QObject::connect(go, &QToolButton::clicked, q, [this, node] {
        if (!node->targetId.isEmpty())
            Q_EMIT q->navigateRequested(node->targetId);
    });
}

void SchemaForm::Private::buildArrayBox(Node *node, QFormLayout *form)
{
    QVBoxLayout *layout = makeGroupBox(node, humanize(node->property), true);
    QWidget *box = node->box;
    auto *rowsHost = new QWidget;
    node->rows = new QVBoxLayout(rowsHost);
    node->rows->setContentsMargins(0, 0, 0, 0);
    node->rows->setSpacing(6);
    layout->addWidget(rowsHost);
    node->emptyHint = new QLabel(tr("No items."));
    node->emptyHint->setObjectName(QStringLiteral("emptyHint"));
    layout->addWidget(node->emptyHint);
    auto *buttons = new QHBoxLayout;
    auto *add = new QPushButton(tr("Add %1").arg(singular(node->property)));
    add->setObjectName(node->path + QStringLiteral("#add"));
    add->setAutoDefault(false);
    buttons->addWidget(add);
    buttons->addStretch(1);
    layout->addLayout(buttons);
    form->addRow(box);
    QObject::connect(add, &QPushButton::clicked, q, [this, node] { addRow(node); });
    rebuildRows(node);
}

void SchemaForm::Private::rebuildRows(Node *node)
{
    QScopedValueRollback<bool> guard(refreshing, true);
    for (const std::unique_ptr<Node> &child : node->children)
        destroyWidget(child->box != nullptr ? child->box : child->input);
    node->children.clear();
    const Json *array = valueAt(node->steps);
    const std::size_t count = array != nullptr && array->is_array() ? array->size() : 0;
    const Json &itemSchema = itemsOf(*node->schema);
    const std::string itemType = schemaType(itemSchema);
    const QString noun = singular(node->property);
    for (std::size_t i = 0; i < count; ++i) {
        auto item = std::make_unique<Node>();
        Node *raw = item.get();
        raw->parent = node;
        raw->steps = appended(node->steps, Step{std::string(), i, true});
        raw->path = node->path + QStringLiteral("[%1]").arg(i);
        raw->schema = &itemSchema;
        raw->required = true;
        node->children.push_back(std::move(item));

        auto *remove = new QToolButton;
        remove->setObjectName(raw->path + QStringLiteral("#remove"));
        remove->setText(tr("Remove"));
        remove->setToolTip(tr("Remove this %1").arg(noun));
        QObject::connect(remove, &QToolButton::clicked, q, [this, node, i] { removeRow(node, i); });

        const Json &properties = propertiesOf(itemSchema);
        const bool compact = itemType == "object" && properties.size() == 1
                             && schemaType(properties.begin().value()) != "object"
                             && schemaType(properties.begin().value()) != "array";
        if (itemType != "object") {
            // An array of plain values: each row is one input.
            raw->kind = Node::Kind::Scalar;
            auto *row = new QWidget;
            row->setObjectName(raw->path + QStringLiteral("#row"));
            auto *layout = new QHBoxLayout(row);
            layout->setContentsMargins(0, 0, 0, 0);
            layout->addWidget(buildScalar(raw, false), 1);
            layout->addWidget(remove);
            raw->box = row;
            node->rows->addWidget(row);
            row->show();
        } else if (compact) {
            raw->kind = Node::Kind::Object;
            auto *row = new QWidget;
            row->setObjectName(raw->path);
            auto *layout = new QVBoxLayout(row);
            layout->setContentsMargins(0, 0, 0, 0);
            layout->setSpacing(2);
            auto *line = new QHBoxLayout;
            auto member = std::make_unique<Node>();
            Node *field = member.get();
            const std::string name = properties.begin().key();
            field->parent = raw;
            field->property = name;
            field->steps = appended(raw->steps, Step{name});
            field->path = raw->path + u'.' + QString::fromStdString(name);
            field->schema = &properties.begin().value();
            field->required = isRequired(itemSchema, name);
            field->kind = Node::Kind::Scalar;
            raw->children.push_back(std::move(member));
            line->addWidget(buildScalar(field, false), 1);
            line->addWidget(remove);
            layout->addLayout(line);
            raw->errorLabel = makeErrorLabel();
            layout->addWidget(raw->errorLabel);
            raw->box = row;
            node->rows->addWidget(row);
            row->show();
        } else {
            raw->kind = Node::Kind::Object;
            auto *row = new QFrame;
            row->setObjectName(raw->path);
            row->setFrameShape(QFrame::StyledPanel);
            auto *layout = new QVBoxLayout(row);
            layout->setContentsMargins(10, 6, 10, 10);
            layout->setSpacing(6);
            auto *header = new QHBoxLayout;
            auto *caption = new QLabel(QStringLiteral("%1 %2").arg(noun.left(1).toUpper() + noun.mid(1)).arg(i + 1));
            caption->setObjectName(QStringLiteral("rowCaption"));
            header->addWidget(caption);
            header->addStretch(1);
            header->addWidget(remove);
            layout->addLayout(header);
            raw->errorLabel = makeErrorLabel();
            layout->addWidget(raw->errorLabel);
            auto *inner = makeFormLayout();
            layout->addLayout(inner);
            raw->box = row;
            buildMembers(raw, inner);
            node->rows->addWidget(row);
            row->show();
        }
        refreshNode(raw);
    }
    node->emptyHint->setVisible(count == 0);
    reindex();
    applyProblems();
}

QWidget *SchemaForm::Private::buildScalar(Node *node, bool withLabel)
{
    classifyScalar(node);
    node->toolTip = describe(node);
    buildScalarLabel(node, withLabel);

    QWidget *field = nullptr;
    switch (node->type) {
    case FieldType::Boolean:
        field = buildBooleanInput(node);
        break;
    case FieldType::Enum:
        field = buildEnumInput(node);
        break;
    case FieldType::Descriptor:
        field = buildDescriptorInput(node);
        break;
    default:
        field = buildTextInput(node);
        break;
    }
    node->input->setObjectName(node->path);
    node->input->setToolTip(node->toolTip);
    if (node->label != nullptr)
        node->label->setBuddy(node->input);
    if (node->box == nullptr)
        node->box = field != node->input ? field : nullptr;
    return field;
}

void SchemaForm::Private::classifyScalar(Node *node)
{
    const Json &schema = *node->schema;
    const std::string type = schemaType(schema);
    const std::string format = schema.value("format", std::string());
    auto descriptorIt = descriptorsByPath.find(genericJsonPath(node->path.toStdString()));
    node->descriptor = descriptorIt == descriptorsByPath.end() ? nullptr : descriptorIt->second;
    if (node->descriptor != nullptr)
        node->type = FieldType::Descriptor;
    else if (schema.contains("enum") && schema["enum"].is_array())
        node->type = FieldType::Enum;
    else if (type == "boolean")
        node->type = FieldType::Boolean;
    else if (type == "integer")
        node->type = FieldType::Integer;
    else if (type == "number")
        node->type = FieldType::Number;
    else if (format == "date")
        node->type = FieldType::Date;
    else if (format == "date-time")
        node->type = FieldType::DateTime;
    else if (format == "time")
        node->type = FieldType::Time;
    else
        node->type = FieldType::Text;
}

void SchemaForm::Private::buildScalarLabel(Node *node, bool withLabel)
{
    QString labelText = humanize(node->property.empty() ? std::string("value") : node->property);
    if (node->descriptor != nullptr)
        labelText = withoutSuffix(labelText, QStringLiteral("descriptor"));
    if (withLabel) {
        node->label = new QLabel(labelText + (node->required ? QStringLiteral(" *") : QString()));
        node->label->setToolTip(node->toolTip);
        if (node->required) {
            QFont font = node->label->font();
            font.setBold(true);
            node->label->setFont(font);
        }
    }
}

QWidget *SchemaForm::Private::buildBooleanInput(Node *node)
{
    auto *box = new ValueCheckBox(!node->required, nullptr);
    QObject::connect(box, &QCheckBox::stateChanged, q, [this, node] { commitAndAnnounce(node); });
    node->input = box;
    return box;
}

QWidget *SchemaForm::Private::buildEnumInput(Node *node)
{
    const Json &schema = *node->schema;
    auto *combo = new QComboBox;
    combo->addItem(QString());
    for (const Json &value : schema["enum"])
        combo->addItem(value.is_string() ? QString::fromStdString(value.get<std::string>())
                                         : QString::fromStdString(value.dump()));
    QObject::connect(combo, &QComboBox::currentIndexChanged, q, [this, node] { commitAndAnnounce(node); });
    node->input = combo;
    return combo;
}

QWidget *SchemaForm::Private::buildDescriptorInput(Node *node)
{
    auto *combo = new QComboBox;
    combo->setEditable(true);
    combo->setInsertPolicy(QComboBox::NoInsert);
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo->setMinimumContentsLength(16);
    fillDescriptorItems(node, combo);
    combo->lineEdit()->setPlaceholderText(
        tr("%1 (a code value)").arg(withoutSuffix(humanize(node->descriptor->descriptorResourceName), tr("descriptor"))));
    // The completer works on the combo's own items (so choosing one selects it in the combo); an item
    // reads "code value — description", so typing either part finds it.
    auto *completer = new QCompleter(combo->model(), combo);
    completer->setCaseSensitivity(Qt::CaseInsensitive);
    completer->setFilterMode(Qt::MatchContains);
    completer->setCompletionMode(QCompleter::PopupCompletion);
    completer->setMaxVisibleItems(12);
    combo->setCompleter(completer);
    QObject::connect(combo, &QComboBox::currentTextChanged, q, [this, node] {
        commitScalar(node);
        // While typing, a value that is stored loses its mark at once; one that is not gets it when done.
        const auto [uri, stored] = descriptorState(node);
        if (stored || uri.isEmpty())
            markDescriptor(node, uri, false);
    });
    QObject::connect(combo, &QComboBox::activated, q, [this, node] { announceEdit(node); });
    QObject::connect(combo->lineEdit(), &QLineEdit::editingFinished, q, [this, node] {
        const auto [uri, stored] = descriptorState(node);
        markDescriptor(node, uri, !uri.isEmpty() && !stored);
        announceEdit(node);
    });
    node->input = combo;
    return combo;
}

std::pair<QString, bool> SchemaForm::Private::descriptorState(Node *node)
{
    const std::optional<Json> value = scalarValue(node);
    if (!value)
        return {QString(), false};
    const QString uri = QString::fromStdString(value->get<std::string>());
    const auto *combo = static_cast<QComboBox *>(node->input);
    return {uri, combo->findData(uri, Qt::UserRole, Qt::MatchFixedString) >= 0};
}

void SchemaForm::Private::markDescriptor(Node *node, const QString &uri, bool unknown)
{
    auto *combo = static_cast<QComboBox *>(node->input);
    combo->setToolTip(unknown ? tr("%1 is not a stored %2 value")
                                    .arg(uri, QString::fromStdString(node->descriptor->descriptorResourceName))
                              : uri);
    combo->setProperty("unknownValue", unknown);
    combo->lineEdit()->setStyleSheet(unknown ? QStringLiteral("color: #b71c1c; font-style: italic;") : QString());
}

// Text, numbers, dates and times: one line edit, restricted to what the format allows.
QWidget *SchemaForm::Private::buildTextInput(Node *node)
{
    const Json &schema = *node->schema;
    auto *edit = new QLineEdit;
    if (auto it = schema.find("maxLength"); it != schema.end() && it->is_number_integer())
        edit->setMaxLength(std::max(1, it->get<int>()));
    const bool negative = !(schema.contains("minimum") && schema["minimum"].is_number()
                            && schema["minimum"].get<double>() >= 0);
    const QString sign = negative ? QStringLiteral("-?") : QString();
    switch (node->type) {
    case FieldType::Integer:
        edit->setValidator(new QRegularExpressionValidator(QRegularExpression(sign + QStringLiteral("[0-9]*")), edit));
        edit->setPlaceholderText(tr("whole number"));
        break;
    case FieldType::Number:
        edit->setValidator(new QRegularExpressionValidator(
            QRegularExpression(sign + QStringLiteral("[0-9]*([.][0-9]*)?")), edit));
        edit->setPlaceholderText(tr("number"));
        break;
    case FieldType::Date:
        edit->setValidator(new QRegularExpressionValidator(
            QRegularExpression(QStringLiteral("[0-9]{0,4}(-[0-9]{0,2}(-[0-9]{0,2})?)?")), edit));
        edit->setPlaceholderText(tr("YYYY-MM-DD"));
        break;
    case FieldType::DateTime:
        edit->setPlaceholderText(tr("YYYY-MM-DDThh:mm:ssZ"));
        break;
    case FieldType::Time:
        edit->setPlaceholderText(tr("hh:mm:ss"));
        break;
    default:
        break;
    }
    QObject::connect(edit, &QLineEdit::textChanged, q, [this, node] { commitScalar(node); });
    QObject::connect(edit, &QLineEdit::editingFinished, q, [this, node] { announceEdit(node); });
    node->input = edit;
    if (node->type == FieldType::Date)
        return buildDateField(node, edit);
    return edit;
}

// A date's line edit beside a calendar button; returns the composite that holds both.
QWidget *SchemaForm::Private::buildDateField(Node *node, QLineEdit *edit)
{
    auto *composite = new QWidget;
    auto *layout = new QHBoxLayout(composite);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    edit->setMaximumWidth(160);
    layout->addWidget(edit);
    auto *pick = new QToolButton;
    pick->setObjectName(node->path + QStringLiteral("#calendar"));
    pick->setText(tr("Calendar"));
    pick->setToolTip(tr("Choose the date on a calendar"));
    pick->setPopupMode(QToolButton::InstantPopup);
    auto *menu = new QMenu(pick);
    auto *calendar = new QCalendarWidget(menu);
    calendar->setGridVisible(true);
    auto *action = new QWidgetAction(menu);
    action->setDefaultWidget(calendar);
    menu->addAction(action);
    pick->setMenu(menu);
    layout->addWidget(pick);
    layout->addStretch(1);
    QObject::connect(menu, &QMenu::aboutToShow, q, [edit, calendar] {
        const QDate date = QDate::fromString(edit->text(), Qt::ISODate);
        calendar->setSelectedDate(date.isValid() ? date : QDate::currentDate());
    });
    QObject::connect(calendar, &QCalendarWidget::clicked, q, [this, node, edit, menu](QDate date) {
        edit->setText(date.toString(Qt::ISODate));
        menu->close();
        Q_EMIT q->editFinished(node->path);
    });
    return composite;
}

void SchemaForm::Private::reindex()
{
    byPath.clear();
    if (root)
        index(root.get());
    orderTabs();
}

namespace {

// The widgets Tab stops at, in the order their layouts show them (top to bottom, then left to right).
void collectTabStops(QLayout *layout, QList<QWidget *> &out)
{
    for (int i = 0; i < layout->count(); ++i) {
        QLayoutItem *item = layout->itemAt(i);
        if (QLayout *inner = item->layout()) {
            collectTabStops(inner, out);
        } else if (QWidget *widget = item->widget()) {
            // Hidden on purpose (not merely waiting for the layout to show it, as a new row is).
            if (widget->isHidden() && widget->testAttribute(Qt::WA_WState_ExplicitShowHide))
                continue;
            if ((widget->focusPolicy() & Qt::TabFocus) == Qt::TabFocus)
                out << widget;
            if (widget->layout() != nullptr)
                collectTabStops(widget->layout(), out);
        }
    }
}

} // namespace

void SchemaForm::Private::orderTabs()
{
    if (content == nullptr || content->layout() == nullptr)
        return;
    // Rows and pickers are built after the buttons around them; Tab follows the page, not that order.
    QList<QWidget *> stops;
    collectTabStops(content->layout(), stops);
    QWidget *previous = nullptr;
    for (QWidget *p = q->parentWidget(); p != nullptr && previous == nullptr; p = p->parentWidget())
        if (qobject_cast<QAbstractScrollArea *>(p) != nullptr)
            previous = p;
    for (QWidget *stop : std::as_const(stops)) {
        if (previous != nullptr)
            QWidget::setTabOrder(previous, stop);
        previous = stop;
    }
}

void SchemaForm::Private::index(Node *node)
{
    byPath.insert(node->path, node);
    for (const std::unique_ptr<Node> &child : node->children)
        index(child.get());
}

std::optional<Json> SchemaForm::Private::scalarValue(const Node *node) const
{
    switch (node->type) {
    case FieldType::Boolean: {
        const Qt::CheckState state = static_cast<QCheckBox *>(node->input)->checkState();
        if (state == Qt::PartiallyChecked)
            return std::nullopt;
        return Json(state == Qt::Checked);
    }
    case FieldType::Enum: {
        const QString text = static_cast<QComboBox *>(node->input)->currentText();
        if (text.isEmpty())
            return std::nullopt;
        return Json(text.toStdString());
    }
    case FieldType::Descriptor: {
        // What is shown is a label; what is stored is the URI it stands for.
        const auto *combo = static_cast<QComboBox *>(node->input);
        const QString text = combo->currentText();
        if (text.trimmed().isEmpty())
            return std::nullopt;
        const int index = combo->currentIndex();
        if (index >= 0 && combo->itemText(index) == text)
            return Json(combo->itemData(index).toString().toStdString());
        return Json(session->descriptorLabels().uriFor(node->descriptor->descriptorProjectName,
                                                       node->descriptor->descriptorResourceName, text));
    }
    default:
        break;
    }
    const QString text = static_cast<QLineEdit *>(node->input)->text();
    if (text.isEmpty())
        return std::nullopt;
    if (node->type == FieldType::Integer) {
        bool ok = false;
        const qlonglong value = text.toLongLong(&ok);
        if (ok)
            return Json(static_cast<std::int64_t>(value));
    } else if (node->type == FieldType::Number) {
        bool ok = false;
        if (!text.contains(u'.')) {
            const qlonglong value = text.toLongLong(&ok);
            if (ok)
                return Json(static_cast<std::int64_t>(value));
        }
        const double value = text.toDouble(&ok);
        if (ok)
            return Json(value);
    }
    // Text, or a number still being typed ("-"): kept as typed, the engine says what is wrong.
    return Json(text.toStdString());
}

void SchemaForm::Private::announceEdit(const Node *node)
{
    if (!refreshing)
        Q_EMIT q->editFinished(node->path);
}

void SchemaForm::Private::commitScalar(Node *node)
{
    if (refreshing)
        return;
    if (std::optional<Json> value = scalarValue(node))
        assignAt(node->steps, std::move(*value));
    else
        removeAt(node->steps);
    Q_EMIT q->changed(node->path);
}

void SchemaForm::Private::showScalar(Node *node)
{
    const Json *value = valueAt(node->steps);
    const QString text = value == nullptr || value->is_null() ? QString()
                         : value->is_string()                 ? QString::fromStdString(value->get<std::string>())
                                                              : QString::fromStdString(value->dump());
    switch (node->type) {
    case FieldType::Boolean: {
        auto *box = static_cast<QCheckBox *>(node->input);
        const Qt::CheckState state = value != nullptr && value->is_boolean()
                                         ? (value->get<bool>() ? Qt::Checked : Qt::Unchecked)
                                         : Qt::PartiallyChecked;
        if (box->checkState() != state)
            box->setCheckState(state);
        break;
    }
    case FieldType::Enum: {
        auto *combo = static_cast<QComboBox *>(node->input);
        int index = combo->findText(text);
        if (index < 0) {
            combo->addItem(text);
            index = combo->count() - 1;
        }
        combo->setCurrentIndex(index);
        break;
    }
    case FieldType::Descriptor: {
        auto *combo = static_cast<QComboBox *>(node->input);
        // A stored value shows by its label, the URI on hover; any other shows whole, marked.
        const int index = text.isEmpty() ? -1 : combo->findData(text, Qt::UserRole, Qt::MatchFixedString);
        const bool unknown = !text.isEmpty() && index < 0;
        if (index >= 0 && combo->currentIndex() != index)
            combo->setCurrentIndex(index);
        else if (index < 0 && combo->currentText() != text)
            combo->setEditText(text);
        markDescriptor(node, text, unknown);
        break;
    }
    default: {
        auto *edit = static_cast<QLineEdit *>(node->input);
        if (edit->text() != text)
            edit->setText(text);
        break;
    }
    }
}

void SchemaForm::Private::refreshNode(Node *node)
{
    QScopedValueRollback<bool> guard(refreshing, true);
    switch (node->kind) {
    case Node::Kind::Scalar:
        showScalar(node);
        break;
    case Node::Kind::Object:
        for (const std::unique_ptr<Node> &child : node->children)
            refreshNode(child.get());
        break;
    case Node::Kind::Array: {
        const Json *array = valueAt(node->steps);
        const std::size_t count = array != nullptr && array->is_array() ? array->size() : 0;
        if (count != node->children.size()) {
            rebuildRows(node);
        } else {
            for (const std::unique_ptr<Node> &child : node->children)
                refreshNode(child.get());
        }
        break;
    }
    }
}

void SchemaForm::Private::addRow(Node *array)
{
    Json *value = mutableAt(array->steps);
    if (value == nullptr || !value->is_array())
        value = &assignAt(array->steps, Json::array());
    const Json &itemSchema = itemsOf(*array->schema);
    const std::string itemType = schemaType(itemSchema);
    if (itemType == "object")
        value->push_back(newDocumentSkeleton(itemSchema));
    else if (itemType == "boolean")
        value->push_back(false);
    else if (itemType == "integer" || itemType == "number")
        value->push_back(0);
    else
        value->push_back("");
    rebuildRows(array);
    // Typing can start in the new row at once.
    if (!array->children.empty()) {
        const Node *last = array->children.back().get();
        QWidget *first = last->input;
        for (const Node *n = last; first == nullptr && !n->children.empty(); n = n->children.front().get())
            first = n->children.front()->input;
        if (first != nullptr)
            first->setFocus(Qt::OtherFocusReason);
    }
    Q_EMIT q->changed(array->path);
    Q_EMIT q->editFinished(array->path);
}

void SchemaForm::Private::removeRow(Node *array, std::size_t index)
{
    Json *value = mutableAt(array->steps);
    if (value == nullptr || !value->is_array() || index >= value->size())
        return;
    value->erase(value->begin() + static_cast<std::ptrdiff_t>(index));
    if (value->empty() && !array->required)
        removeAt(array->steps);
    rebuildRows(array);
    Q_EMIT q->changed(array->path);
    Q_EMIT q->editFinished(array->path);
}

Node *SchemaForm::Private::nearest(const QString &path) const
{
    for (QString p = path; !p.isEmpty(); p = parentJsonPath(p))
        if (Node *node = byPath.value(p))
            return node;
    return root.get();
}

void SchemaForm::Private::clearMarks(Node *node)
{
    if (node->input != nullptr && node->input->property("invalid").toBool()) {
        node->input->setProperty("invalid", false);
        node->input->setToolTip(node->toolTip);
        repolish(node->input);
    }
    if (node->label != nullptr && node->label->property("invalid").toBool()) {
        node->label->setProperty("invalid", false);
        repolish(node->label);
    }
    if (node->errorLabel != nullptr)
        node->errorLabel->hide();
    for (const std::unique_ptr<Node> &child : node->children)
        clearMarks(child.get());
}

void SchemaForm::Private::applyProblems()
{
    if (!root) {
        rootError->hide();
        return;
    }
    clearMarks(root.get());
    rootError->hide();
    std::vector<std::pair<Node *, QStringList>> marks;
    for (const auto &[key, messages] : problems) {
        const QString path = QString::fromStdString(key);
        Node *node = nearest(path);
        QStringList texts;
        for (const std::string &message : messages) {
            QString text = QString::fromStdString(message);
            if (node->path != path)
                text = path.mid(node->path.size()).remove(QRegularExpression(QStringLiteral("^\\."))) + QStringLiteral(": ")
                       + text;
            texts << text;
        }
        auto it = std::find_if(marks.begin(), marks.end(), [node](const auto &m) { return m.first == node; });
        if (it == marks.end())
            marks.emplace_back(node, texts);
        else
            it->second << texts;
    }
    for (const auto &[node, texts] : marks) {
        if (node->input != nullptr) {
            node->input->setProperty("invalid", true);
            node->input->setToolTip(texts.join(u'\n') + QStringLiteral("\n\n") + node->toolTip);
            repolish(node->input);
            if (node->label != nullptr) {
                node->label->setProperty("invalid", true);
                repolish(node->label);
            }
        }
        if (node->errorLabel != nullptr && (node->input == nullptr || node->reference != nullptr)) {
            node->errorLabel->setText(texts.join(u'\n'));
            node->errorLabel->show();
        }
    }
}

void SchemaForm::Private::fillDescriptorItems(Node *node, QComboBox *combo)
{
    // Filling an empty combo selects an item; what the field shows must stay.
    QScopedValueRollback<bool> guard(refreshing, true);
    const QString text = combo->currentText();
    combo->clear();
    for (const DescriptorLabels::Value &value : session->descriptorLabels().values(
             node->descriptor->descriptorProjectName, node->descriptor->descriptorResourceName)) {
        combo->addItem(value.label, QString::fromStdString(value.uri));
        combo->setItemData(combo->count() - 1, QString::fromStdString(value.uri), Qt::ToolTipRole);
    }
    combo->setCurrentIndex(-1);
    combo->setEditText(text);
}

QString SchemaForm::Private::candidateText(const steward::ReferenceMapping *reference,
                                           const steward::StoredDocument &doc) const
{
    QString text = QString::fromStdString(steward::naturalKeyText(parseOr(doc.identity)));
    const QString name = bodyName(parseOr(doc.body));
    if (!name.isEmpty())
        text += QStringLiteral(" — ") + name;
    if (doc.resource != reference->targetResourceName)
        text += QStringLiteral(" (%1)").arg(QString::fromStdString(doc.resource));
    return text;
}

void SchemaForm::Private::searchReferences(Node *node, const QString &text)
{
    node->candidates.clear();
    const QString prefix = text.trimmed();
    if (!prefix.isEmpty()) {
        try {
            node->candidates = session->engine().lookup(node->reference->targetProjectName,
                                                        node->reference->targetResourceName, prefix.toStdString(), 20);
        } catch (const std::exception &) {
            node->candidates.clear();
        }
    }
    QStringList texts;
    for (const steward::StoredDocument &doc : node->candidates)
        texts << candidateText(node->reference, doc);
    node->completions->setStringList(texts);
    if (texts.isEmpty()) {
        node->completer->popup()->hide();
        if (!prefix.isEmpty())
            setReferenceStatus(node, tr("No stored %1 has a key starting with “%2”.")
                                         .arg(QString::fromStdString(node->reference->targetResourceName), prefix),
                               false);
    } else {
        node->completer->complete();
    }
}

std::vector<Step> SchemaForm::Private::memberSteps(const Node *node, const steward::ReferencePathPair &pair) const
{
    // "$.classPeriods[*].classPeriodReference.classPeriodName" less the object path: ".classPeriodName".
    const std::string &objectPath = node->reference->objectPath.text();
    std::string rest = pair.referencePath.text().substr(std::min(objectPath.size(), pair.referencePath.text().size()));
    std::vector<Step> steps = node->steps;
    const QStringList parts = QString::fromStdString(rest).split(u'.', Qt::SkipEmptyParts);
    for (const QString &part : parts)
        steps.push_back(Step{part.toStdString()});
    return steps;
}

void SchemaForm::Private::chooseReference(Node *node, int row)
{
    if (row < 0 || row >= static_cast<int>(node->candidates.size()))
        return;
    const steward::StoredDocument doc = node->candidates[static_cast<std::size_t>(row)];
    const Json body = parseOr(doc.body);
    const steward::ResourceSchema *target = session->resourceByName(doc.project, doc.resource);
    for (const steward::ReferencePathPair &pair : node->reference->paths) {
        const Json *value = pair.identityPath.resolve(body, {});
        // An abstract target (EducationOrganization): the subclass's own identity value
        // (School.schoolId) stands for the superclass one (educationOrganizationId).
        if (value == nullptr && target != nullptr && target->isSubclass
            && target->superclassIdentityPath == pair.identityPath.text() && target->identityPaths.size() == 1)
            value = target->identityPaths.front().resolve(body, {});
        if (value != nullptr)
            assignAt(memberSteps(node, pair), *value);
    }
    refreshNode(node);
    const QString text = candidateText(node->reference, doc);
    {
        QScopedValueRollback<bool> guard(refreshing, true);
        static_cast<QLineEdit *>(node->input)->setText(text);
    }
    node->completer->popup()->hide();
    node->targetId = QString::fromStdString(doc.id);
    setReferenceStatus(node, text, true);
    Q_EMIT q->changed(node->path);
    Q_EMIT q->editFinished(node->path);
}

void SchemaForm::Private::setReferenceStatus(Node *node, const QString &text, bool found)
{
    node->gotoButton->setEnabled(found && !node->targetId.isEmpty());
    node->referenceStatus->setVisible(!text.isEmpty());
    node->referenceStatus->setText(found ? QStringLiteral("✓ ") + text : text);
    node->referenceStatus->setProperty("found", found);
    repolish(node->referenceStatus);
}

void SchemaForm::Private::resolveReference(Node *node)
{
    Json identity = Json::object();
    bool complete = true;
    for (const steward::ReferencePathPair &pair : node->reference->paths) {
        const Json *value = valueAt(memberSteps(node, pair));
        if (value == nullptr || value->is_null() || value->is_structured()) {
            complete = false;
            break;
        }
        pair.identityPath.assign(identity, {}, *value);
    }
    auto *search = static_cast<QLineEdit *>(node->input);
    node->targetId.clear();
    if (!complete) {
        setReferenceStatus(node, QString(), false);
        if (!search->hasFocus() && valueAt(node->steps) == nullptr) {
            QScopedValueRollback<bool> guard(refreshing, true);
            search->clear();
        }
        return;
    }
    const std::string key = steward::naturalKeyText(identity);
    std::vector<steward::StoredDocument> docs;
    try {
        docs = session->engine().lookup(node->reference->targetProjectName, node->reference->targetResourceName, key, 20);
    } catch (const std::exception &) {
        docs.clear();
    }
    for (const steward::StoredDocument &doc : docs) {
        if (QString::fromStdString(steward::naturalKeyText(parseOr(doc.identity)))
                .compare(QString::fromStdString(key), Qt::CaseInsensitive)
            != 0)
            continue;
        node->targetId = QString::fromStdString(doc.id);
        const QString text = candidateText(node->reference, doc);
        setReferenceStatus(node, text, true);
        if (!search->hasFocus() && search->text() != text) {
            QScopedValueRollback<bool> guard(refreshing, true);
            search->setText(text);
        }
        return;
    }
    setReferenceStatus(node,
                       tr("No stored %1 has the key %2 (yet).")
                           .arg(QString::fromStdString(node->reference->targetResourceName), QString::fromStdString(key)),
                       false);
}

void SchemaForm::Private::collectReferences(Node *node, std::vector<Node *> &out)
{
    if (node->reference != nullptr)
        out.push_back(node);
    for (const std::unique_ptr<Node> &child : node->children)
        collectReferences(child.get(), out);
}

void SchemaForm::Private::collectDescriptors(Node *node, std::vector<Node *> &out)
{
    if (node->type == FieldType::Descriptor && node->input != nullptr)
        out.push_back(node);
    for (const std::unique_ptr<Node> &child : node->children)
        collectDescriptors(child.get(), out);
}

SchemaForm::SchemaForm(AppSession *session, QWidget *parent)
    : QWidget(parent)
    , d(std::make_unique<Private>())
{
    d->q = this;
    d->session = session;
    d->outer = new QVBoxLayout(this);
    d->outer->setContentsMargins(12, 12, 12, 12);
    d->outer->setSpacing(8);
    d->rootError = makeErrorLabel();
    d->rootError->setObjectName(QStringLiteral("documentError"));
    d->outer->addWidget(d->rootError);
    d->outer->addStretch(1);
    setStyleSheet(QStringLiteral(
        "QLineEdit[invalid=\"true\"], QComboBox[invalid=\"true\"] {"
        "  border: 1px solid #c62828; border-radius: 3px; background: #fff5f5; padding: 2px 4px; }"
        "QCheckBox[invalid=\"true\"] { color: #c62828; }"
        "QLabel[invalid=\"true\"] { color: #c62828; }"
        "QLabel#fieldError, QLabel#documentError { color: #b71c1c; }"
        "QLabel#documentError { background: #fdecea; border: 1px solid #f5c2c0; border-radius: 4px; padding: 6px; }"
        "QLabel#emptyHint { color: #757575; font-style: italic; }"
        "QLabel#rowCaption { color: #555555; font-weight: 600; }"
        "QLabel#referenceStatus { color: #8a6d00; }"
        "QLabel#referenceStatus[found=\"true\"] { color: #2e7d32; }"));
}

SchemaForm::~SchemaForm() = default;

void SchemaForm::setResource(const steward::ResourceSchema *resource)
{
    d->resource = resource;
    d->document = resource != nullptr ? newDocumentSkeleton(resource->jsonSchema) : Json::object();
    d->build();
    if (d->root)
        d->refreshNode(d->root.get());
}

const steward::ResourceSchema *SchemaForm::resource() const
{
    return d->resource;
}

void SchemaForm::setDocument(const Json &document)
{
    d->document = document.is_object() ? document : Json::object();
    if (d->root)
        d->refreshNode(d->root.get());
}

const Json &SchemaForm::document() const
{
    return d->document;
}

void SchemaForm::setProblems(const steward::ValidationErrors &problems)
{
    d->problems = problems;
    d->applyProblems();
}

QWidget *SchemaForm::fieldWidget(const QString &path) const
{
    Node *node = d->nearest(path);
    if (node == nullptr)
        return nullptr;
    if (node->input != nullptr)
        return node->input;
    if (node->box != nullptr)
        return node->box;
    return node == d->root.get() ? d->rootError : nullptr;
}

void SchemaForm::refreshReferences()
{
    if (!d->root)
        return;
    std::vector<Node *> references;
    d->collectReferences(d->root.get(), references);
    for (Node *node : references)
        d->resolveReference(node);
}

void SchemaForm::invalidateLookups()
{
    // Descriptor values may have been added or removed: the fields offer what is stored now.
    if (!d->root)
        return;
    std::vector<Node *> descriptors;
    d->collectDescriptors(d->root.get(), descriptors);
    for (Node *node : descriptors) {
        d->fillDescriptorItems(node, static_cast<QComboBox *>(node->input));
        QScopedValueRollback<bool> guard(d->refreshing, true);
        d->showScalar(node);
    }
}
