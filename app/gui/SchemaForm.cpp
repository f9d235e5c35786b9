#include "SchemaForm.h"
#include "SchemaFormParts.h"

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
    // A long key (an association's, a calendar's) wraps instead of widening the form.
    node->referenceStatus->setWordWrap(true);
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
