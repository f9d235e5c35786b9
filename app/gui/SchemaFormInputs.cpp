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
#include <QFontMetrics>
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

// The inputs of single values: check boxes, choices, descriptors, text, numbers, dates and times.

using namespace formparts;

namespace {

// The widest a field's label grows before it wraps, and the least a choice shows, in average
// characters: a laptop's editor pane (about 420 pixels at 1280x800) holds a label and its field.
constexpr int kLabelCharacters = 16;
constexpr int kChoiceCharacters = 10;

// The words of a text on lines no wider than `width` (a word wider than that on a line of its own).
QString brokenIntoLines(const QString &text, const QFontMetrics &metrics, int width)
{
    QStringList lines;
    QString line;
    for (const QString &word : text.split(u' ', Qt::SkipEmptyParts)) {
        const QString longer = line.isEmpty() ? word : line + u' ' + word;
        if (!line.isEmpty() && metrics.horizontalAdvance(longer) > width) {
            lines << line;
            line = word;
        } else {
            line = longer;
        }
    }
    lines << line;
    return lines.join(u'\n');
}

} // namespace

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
        node->label = new QLabel;
        node->label->setToolTip(node->toolTip);
        if (node->required) {
            QFont font = node->label->font();
            font.setBold(true);
            node->label->setFont(font);
        }
        // A long label ("Years of prior professional experience") goes on lines of its own, leaving
        // its field the room. Broken here rather than by QLabel's word wrap, which also breaks short
        // labels to make them narrow.
        const QFontMetrics metrics(node->label->font());
        // The mark of a required field stays with the last word (a no-break space).
        const QString text = labelText + (node->required ? QStringLiteral("\u00a0*") : QString());
        node->label->setText(brokenIntoLines(text, metrics, metrics.averageCharWidth() * kLabelCharacters));
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
    // As narrow as a descriptor's: the longest choice would otherwise be the field's least width.
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo->setMinimumContentsLength(kChoiceCharacters);
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
    combo->setMinimumContentsLength(kChoiceCharacters);
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
